package main

import (
	"context"
	"path/filepath"
	"testing"

	"github.com/dstsafe/dstsafe/examples/billing/internal/billing"
	"github.com/dstsafe/dstsafe/internal/testkit"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestAnniversaryReplay: a year of anniversary renewals in 51 zones, on
// SQLite and PostgreSQL, read back from the database: every anniversary
// that date arithmetic says is due renewed once, at the first instant of
// the customer's local day, also where that day has no midnight or two;
// and the famous midnights are among them.
func TestAnniversaryReplay(t *testing.T) {
	open := map[string]func(t *testing.T) *billing.DB{
		"sqlite": func(t *testing.T) *billing.DB {
			db, err := billing.OpenSQLite(filepath.Join(t.TempDir(), "anniversary.db"))
			require.NoError(t, err)
			return db
		},
		"postgres": func(t *testing.T) *billing.DB {
			dsn := testkit.RequireEnv(t, "DSTSAFE_TEST_POSTGRES_DSN")
			require.NoError(t, billing.DropSchema(context.Background(), dsn, "billing_anniversary_test"))
			db, err := billing.OpenPostgres(context.Background(), dsn, "billing_anniversary_test", "synchronous_commit", "off")
			require.NoError(t, err)
			return db
		},
	}
	for name, openDB := range open {
		t.Run(name, func(t *testing.T) {
			db := openDB(t)
			defer db.Close()
			a, err := replayAnniversary(context.Background(), db)
			require.NoError(t, err)
			assert.Equal(t, 51, a.Zones)
			assert.Zero(t, a.Duplicates)
			assert.Zero(t, a.Missed)
			assert.Zero(t, a.OffMidnight)
			assert.Equal(t, a.Due, a.Renewed)
			assert.Equal(t, a.Due, a.ProcessorCharges)
			// 51 zones x 3 anchors x 12 months, plus the anchors on the
			// days of the year's skipped or doubled midnights.
			assert.GreaterOrEqual(t, a.Due, 51*3*12)
			assert.Equal(t, []string{"01-31", "02-29", "03-31", "04-30", "05-31", "06-30", "07-31", "08-31", "09-30", "10-31", "11-30", "12-31"}, a.Clamped.Dates)
			seen := map[string]string{}
			for _, u := range a.Unusual {
				seen[u.Zone+" "+u.Date] = u.Kind + " " + u.At.Format("15:04")
			}
			assert.Equal(t, "gap 05:00", seen["America/Havana 2024-03-10"])  // 00:00 CST -> 01:00 CDT
			assert.Equal(t, "fold 04:00", seen["America/Havana 2024-11-03"]) // 00:00 CDT, the first of two
			assert.Equal(t, "gap 22:00", seen["Asia/Beirut 2024-03-31"])     // 01:00 EEST, on 03-30 in UTC
			assert.Equal(t, "gap 04:00", seen["America/Santiago 2024-09-08"])
		})
	}
}

// TestAnniversaryChecksCanFail: the replay's checks catch the rules that
// are wrong for anniversaries: plain FREQ=MONTHLY skips the months without
// a 31st, SKIP=FORWARD renews on the 1st instead.
func TestAnniversaryChecksCanFail(t *testing.T) {
	for _, rule := range []string{"FREQ=MONTHLY", "FREQ=MONTHLY;SKIP=FORWARD"} {
		t.Run(rule, func(t *testing.T) {
			defer func(r string) { anniversaryRRULE = r }(anniversaryRRULE)
			anniversaryRRULE = rule
			db, err := billing.OpenSQLite(filepath.Join(t.TempDir(), "anniversary.db"))
			require.NoError(t, err)
			defer db.Close()
			a, err := replayAnniversary(context.Background(), db)
			require.NoError(t, err)
			assert.Positive(t, a.Missed, "missed")
			if rule != "FREQ=MONTHLY" {
				assert.Positive(t, a.Duplicates, "renewals on days not due")
			}
			assert.Error(t, Replay{Anniversary: a}.check())
		})
	}
}

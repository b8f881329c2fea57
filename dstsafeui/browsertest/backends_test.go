package browsertest_test

import (
	"context"
	"crypto/rand"
	"database/sql"
	"encoding/hex"
	"fmt"
	"os"
	"path/filepath"
	"testing"

	_ "github.com/jackc/pgx/v5/stdlib" // the "pgx" database/sql driver
	"github.com/jonboulle/clockwork"
	"github.com/redis/go-redis/v9"

	"github.com/dstsafe/dstsafe"
	"github.com/dstsafe/dstsafe/dstsafeui/internal/uifixture"
	"github.com/dstsafe/dstsafe/internal/testkit"
	"github.com/dstsafe/dstsafe/redisledger"
	"github.com/dstsafe/dstsafe/sqlledger"
	"github.com/dstsafe/dstsafe/sqlledger/sqlite"
)

// backend opens a fresh, empty ledger on clock.
type backend struct {
	name string
	open func(t testing.TB, clock dstsafe.Clock) dstsafe.ControlLedger
}

// backends are the real ledgers the pages are tested against: SQLite in a
// temporary file, and PostgreSQL and Redis on the servers scripts/test
// starts (DSTSAFE_TEST_POSTGRES_DSN, DSTSAFE_TEST_REDIS_ADDR; skipped
// without them, a failure under CI=true).
var backends = []backend{
	{"sqlite", openSQLite},
	{"postgres", openPostgres},
	{"redis", openRedis},
}

func openSQLite(t testing.TB, clock dstsafe.Clock) dstsafe.ControlLedger {
	l, err := sqlite.OpenSQLite(filepath.Join(t.TempDir(), "ledger.db"), sqlledger.WithClock(clock))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { l.Close() })
	if err := l.Migrate(context.Background()); err != nil {
		t.Fatal(err)
	}
	return l
}

func openPostgres(t testing.TB, clock dstsafe.Clock) dstsafe.ControlLedger {
	dsn := testkit.RequireEnv(t, "DSTSAFE_TEST_POSTGRES_DSN")
	schema := "dstsafe_ui_" + randHex()
	db, err := sql.Open("pgx", dsn)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		if _, err := db.Exec(`DROP SCHEMA IF EXISTS ` + schema + ` CASCADE`); err != nil {
			t.Errorf("drop schema %s: %v", schema, err)
		}
		db.Close()
	})
	if _, err := db.Exec(`CREATE SCHEMA ` + schema); err != nil {
		t.Fatal(err)
	}
	l, err := sqlledger.New(db, sqlledger.WithTable(schema+".job_runs"), sqlledger.WithClock(clock))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { l.Close() })
	if err := l.Migrate(context.Background()); err != nil {
		t.Fatal(err)
	}
	return l
}

func openRedis(t testing.TB, clock dstsafe.Clock) dstsafe.ControlLedger {
	addr := testkit.RequireEnv(t, "DSTSAFE_TEST_REDIS_ADDR")
	prefix := "dstsafe-ui-test:" + randHex() + ":"
	c := redis.NewClient(&redis.Options{Addr: addr})
	ctx := context.Background()
	if err := c.Ping(ctx).Err(); err != nil {
		t.Fatalf("Redis at %s: %v", addr, err)
	}
	t.Cleanup(func() {
		keys, err := c.Keys(ctx, prefix+"*").Result()
		if err == nil && len(keys) > 0 {
			err = c.Del(ctx, keys...).Err()
		}
		if err != nil {
			t.Errorf("deleting keys under %s: %v", prefix, err)
		}
		c.Close()
	})
	l, err := redisledger.New(c, redisledger.WithKeyPrefix(prefix), redisledger.WithClock(clock))
	if err != nil {
		t.Fatal(err)
	}
	return l
}

func randHex() string {
	var b [6]byte
	_, _ = rand.Read(b[:])
	return fmt.Sprintf("%d_%s", os.Getpid(), hex.EncodeToString(b[:]))
}

// filled returns a ledger of the backend filled by the fixture, and the
// fake clock it is on, at uifixture.UINow.
func filled(t testing.TB, b backend) (dstsafe.ControlLedger, *clockwork.FakeClock) {
	t.Helper()
	clock := clockwork.NewFakeClockAt(uifixture.SimStart)
	l := b.open(t, clock)
	uifixture.Fill(t, l, clock)
	return l, clock
}

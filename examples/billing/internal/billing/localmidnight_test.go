package billing_test

import (
	"os"
	"testing"
	"time"

	"github.com/dstsafe/dstsafe"
	"github.com/dstsafe/dstsafe/dstsafetest"
	"github.com/dstsafe/dstsafe/examples/billing/internal/billing"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestLocalMidnight(t *testing.T) {
	for _, tc := range []struct {
		zone string
		date dstsafe.Date
		want time.Time // UTC
		kind dstsafe.Kind
	}{
		// Cuba springs forward at 00:00 CST: the day starts at 01:00 CDT.
		{"America/Havana", dstsafe.Date{Year: 2024, Month: 3, Day: 10}, time.Date(2024, 3, 10, 5, 0, 0, 0, time.UTC), dstsafe.Gap},
		// Cuba falls back at 01:00 CDT to 00:00 CST: midnight happens at
		// 04:00Z and again at 05:00Z. Billed once, at the first.
		{"America/Havana", dstsafe.Date{Year: 2024, Month: 11, Day: 3}, time.Date(2024, 11, 3, 4, 0, 0, 0, time.UTC), dstsafe.Fold},
		// Lebanon springs forward at 00:00 EET: the day starts at 01:00 EEST.
		{"Asia/Beirut", dstsafe.Date{Year: 2024, Month: 3, Day: 31}, time.Date(2024, 3, 30, 22, 0, 0, 0, time.UTC), dstsafe.Gap},
		// Brazil's last DST started at 00:00 -03 on 2018-11-04.
		{"America/Sao_Paulo", dstsafe.Date{Year: 2018, Month: 11, Day: 4}, time.Date(2018, 11, 4, 3, 0, 0, 0, time.UTC), dstsafe.Gap},
		// Chicago's transitions are at 02:00: midnight is ordinary.
		{"America/Chicago", dstsafe.Date{Year: 2024, Month: 11, Day: 3}, time.Date(2024, 11, 3, 5, 0, 0, 0, time.UTC), dstsafe.Unique},
		// Samoa skipped 2011-12-30: its "midnight" is the first instant
		// after it, which is 2011-12-31 00:00 +14.
		{"Pacific/Apia", dstsafe.Date{Year: 2011, Month: 12, Day: 30}, time.Date(2011, 12, 30, 10, 0, 0, 0, time.UTC), dstsafe.Gap},
	} {
		t.Run(tc.zone+"/"+tc.date.String(), func(t *testing.T) {
			at, kind := billing.LocalMidnight(tc.date, dstsafetest.Zone(t, tc.zone))
			assert.Equal(t, tc.want, at)
			assert.Equal(t, time.UTC, at.Location(), "stored as UTC")
			assert.Equal(t, tc.kind, kind)
		})
	}
}

// TestLocalMidnightIsFirstInstantOfDay checks every day from 2018 to 2025
// in every billing zone (1900-2037 with DSTSAFE_LONG=1): the instant reads
// the day in the zone, the instant just before reads an earlier day, and
// days are billed in order, each once.
func TestLocalMidnightIsFirstInstantOfDay(t *testing.T) {
	from, to := 2018, 2025
	if os.Getenv("DSTSAFE_LONG") != "" {
		from, to = 1900, 2037
	}
	require.GreaterOrEqual(t, len(billing.Zones), 40)
	for _, name := range billing.Zones {
		loc := mustLoad(name)
		prev := time.Time{}
		for d := (dstsafe.Date{Year: from, Month: 1, Day: 1}); d.Year <= to; d = d.AddDays(1) {
			at, kind := billing.LocalMidnight(d, loc)
			got := dstsafe.DateOf(at, loc)
			if got != d {
				// Only a day the zone skipped may start on another date.
				if kind != dstsafe.Gap || dstsafe.DateOf(at.Add(-time.Nanosecond), loc) != d.AddDays(-1) {
					t.Fatalf("%s %s: %s reads %s", name, d, at.In(loc), got)
				}
				continue
			}
			if before := dstsafe.DateOf(at.Add(-time.Nanosecond), loc); !before.Before(d) {
				t.Fatalf("%s %s: %s is not the first instant of the day (1ns earlier reads %s)", name, d, at.In(loc), before)
			}
			if !at.After(prev) {
				t.Fatalf("%s %s: %s not after the previous day's %s", name, d, at, prev)
			}
			prev = at
		}
	}
}

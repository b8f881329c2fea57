package dstsafe_test

import (
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/dstsafe/dstsafe"
	"github.com/dstsafe/dstsafe/dstsafetest"
)

// A run a gap pushes past midnight keeps the business date it was
// scheduled for. America/Nuuk (pinned, tzdata 2025b) has kept EU rules
// since 2024, at 01:00 UTC, which is 23:00 on the Saturday at -02: on
// 2024-03-30 the clocks go from 22:59:59 -02 to 00:00:00 -01 on 03-31, so
// 23:00-24:00 on 03-30 never happens. A daily 23:30 job runs at 00:30 -01
// on 03-31, one gap later, and it is still the 03-30 run: counted as 03-31,
// 03-31 would be billed twice and 03-30 never. In October 23:00-24:00 on
// the Saturday happens twice, and the first reading is the run.
//
// The cases are written out by hand from the tz rule; the test only checks,
// with the time package, that the pinned file has the offsets the rule says
// (never dstsafe.Transitions, the code under test).

func TestNuukPinnedOffsets(t *testing.T) {
	nuuk := dstsafetest.Zone(t, "America/Nuuk")
	for _, c := range []struct {
		at   string
		name string
		off  int
	}{
		{"2024-03-31T00:59:59Z", "-02", -2 * 3600}, // 22:59:59 on 03-30, the last second before the gap
		{"2024-03-31T01:00:00Z", "-01", -1 * 3600}, // 00:00 on 03-31
		{"2024-10-27T00:59:59Z", "-01", -1 * 3600}, // 23:59:59 on 10-26, the first time
		{"2024-10-27T01:00:00Z", "-02", -2 * 3600}, // 23:00 on 10-26 again
	} {
		name, off := mustTime(t, c.at).In(nuuk).Zone()
		require.Equal(t, c.off, off, "offset at %s", c.at)
		require.Equal(t, c.name, name, "abbreviation at %s", c.at)
	}
}

func TestRunDateOfGapShiftedRunPastMidnight(t *testing.T) {
	nuuk := dstsafetest.Zone(t, "America/Nuuk")
	type run struct {
		due     string // RFC 3339 with the offset in force
		wall    dstsafe.Wall
		kind    dstsafe.Kind
		runDate string
	}
	for _, tc := range []struct {
		name, spec string
		start      string // UTC; three days from here
		want       []run
	}{
		{"23:30 pushed to 00:30 the next day", "30 23 * * *", "2024-03-29T12:00:00Z", []run{
			{"2024-03-29T23:30:00-02:00", wall(2024, 3, 29, 23, 30, 0), dstsafe.Unique, "2024-03-29"},
			{"2024-03-31T00:30:00-01:00", wall(2024, 3, 30, 23, 30, 0), dstsafe.Gap, "2024-03-30"}, // due on 03-31, the 03-30 run
			{"2024-03-31T23:30:00-01:00", wall(2024, 3, 31, 23, 30, 0), dstsafe.Unique, "2024-03-31"},
		}},
		{"23:00, the first reading the gap skips, at midnight", "0 23 * * *", "2024-03-29T12:00:00Z", []run{
			{"2024-03-29T23:00:00-02:00", wall(2024, 3, 29, 23, 0, 0), dstsafe.Unique, "2024-03-29"},
			{"2024-03-31T00:00:00-01:00", wall(2024, 3, 30, 23, 0, 0), dstsafe.Gap, "2024-03-30"},
			{"2024-03-31T23:00:00-01:00", wall(2024, 3, 31, 23, 0, 0), dstsafe.Unique, "2024-03-31"},
		}},
		{"23:59, the last reading the gap skips", "59 23 * * *", "2024-03-29T12:00:00Z", []run{
			{"2024-03-29T23:59:00-02:00", wall(2024, 3, 29, 23, 59, 0), dstsafe.Unique, "2024-03-29"},
			{"2024-03-31T00:59:00-01:00", wall(2024, 3, 30, 23, 59, 0), dstsafe.Gap, "2024-03-30"},
			{"2024-03-31T23:59:00-01:00", wall(2024, 3, 31, 23, 59, 0), dstsafe.Unique, "2024-03-31"},
		}},
		// Due at the same instant as the pushed 23:30 run, and a 03-31 run.
		{"00:30, which does happen on 03-31", "30 0 * * *", "2024-03-29T12:00:00Z", []run{
			{"2024-03-30T00:30:00-02:00", wall(2024, 3, 30, 0, 30, 0), dstsafe.Unique, "2024-03-30"},
			{"2024-03-31T00:30:00-01:00", wall(2024, 3, 31, 0, 30, 0), dstsafe.Unique, "2024-03-31"},
			{"2024-04-01T00:30:00-01:00", wall(2024, 4, 1, 0, 30, 0), dstsafe.Unique, "2024-04-01"},
		}},
		{"22:30, before the gap", "30 22 * * *", "2024-03-29T12:00:00Z", []run{
			{"2024-03-29T22:30:00-02:00", wall(2024, 3, 29, 22, 30, 0), dstsafe.Unique, "2024-03-29"},
			{"2024-03-30T22:30:00-02:00", wall(2024, 3, 30, 22, 30, 0), dstsafe.Unique, "2024-03-30"},
			{"2024-03-31T22:30:00-01:00", wall(2024, 3, 31, 22, 30, 0), dstsafe.Unique, "2024-03-31"},
		}},
		{"23:30 twice in October, the first reading runs", "30 23 * * *", "2024-10-25T12:00:00Z", []run{
			{"2024-10-25T23:30:00-01:00", wall(2024, 10, 25, 23, 30, 0), dstsafe.Unique, "2024-10-25"},
			{"2024-10-26T23:30:00-01:00", wall(2024, 10, 26, 23, 30, 0), dstsafe.Fold, "2024-10-26"}, // not again at -02
			{"2024-10-27T23:30:00-02:00", wall(2024, 10, 27, 23, 30, 0), dstsafe.Unique, "2024-10-27"},
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			for _, key := range []dstsafe.PeriodKey{dstsafe.ByWall, dstsafe.ByDate} {
				s, _, _ := newSim(t, mustTime(t, tc.start))
				require.NoError(t, s.Add("billing", mustCron(t, tc.spec, dstsafe.WithLocation(nuuk), dstsafe.WithPeriodKey(key)), nop))
				fires, err := dstsafe.Simulate(simCtx(t), s, 72*time.Hour)
				require.NoError(t, err)
				require.Len(t, fires, len(tc.want), "fires: %v", fires)
				for i, w := range tc.want {
					f := fires[i]
					require.True(t, f.Due.Equal(mustTime(t, w.due)), "fire %d due %v, want %s", i, f.Due, w.due)
					require.Equal(t, w.wall, f.Wall, "fire %d", i)
					require.Equal(t, w.kind, f.Kind, "fire %d", i)
					require.Equal(t, w.runDate, f.RunDate.String(), "run date of the run due %v", f.Due)
					if key == dstsafe.ByDate {
						require.Equal(t, w.runDate, f.Period, "ByDate period of the run due %v", f.Due)
					}
				}
				dstsafetest.RequireOncePerDay(t, fires, nuuk)
			}
		})
	}
}

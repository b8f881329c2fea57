package dstsafetest_test

import (
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/dstsafe/dstsafe"
	"github.com/dstsafe/dstsafe/dstsafetest"
)

// The violation kinds the Require* assertions exist for, one row each,
// with the fewest fires that show it: each assertion must fail and name
// what it found. (TestAssertions has the first row of each; these are
// the kinds it lacked.)
func TestRequireViolationClasses(t *testing.T) {
	chi := chicago(t)
	nov2 := time.Date(2024, 11, 2, 6, 30, 0, 0, time.UTC) // 01:30 CDT
	fold := time.Date(2024, 11, 3, 6, 30, 0, 0, time.UTC) // the first 01:30, CDT
	nov4 := time.Date(2024, 11, 4, 7, 30, 0, 0, time.UTC) // 01:30 CST
	for _, tc := range []struct {
		name   string
		check  func(t dstsafetest.TestingT)
		report []string
	}{
		// RequireFiresAt: a wanted instant with no fire at it.
		{"fires at: missing", func(t dstsafetest.TestingT) {
			dstsafetest.RequireFiresAt(t, []dstsafe.Fire{fire("billing", nov2, chi)}, nov2, fold)
		}, []string{"want 2", "got 1"}},
		// RequireFireCount: one fire more than the schedule has.
		{"count: twice", func(t dstsafetest.TestingT) {
			dstsafetest.RequireFireCount(t, []dstsafe.Fire{fire("billing", fold, chi), fire("billing", fold.Add(time.Hour), chi)}, 1)
		}, []string{"want 1 fires, got 2"}},
		// RequireOncePerLocalDay: the fold night fired twice, a day missing.
		{"once per local day: twice", func(t dstsafetest.TestingT) {
			dstsafetest.RequireOncePerLocalDay(t, []dstsafe.Fire{fire("billing", fold, chi), fire("billing", fold.Add(time.Hour), chi)})
		}, []string{"job billing fired 2 times on 2024-11-03 (America/Chicago)"}},
		{"once per local day: missing", func(t dstsafetest.TestingT) {
			dstsafetest.RequireOncePerLocalDay(t, []dstsafe.Fire{fire("billing", nov2, chi), fire("billing", nov4, chi)})
		}, []string{"job billing did not fire on 2024-11-03 (America/Chicago)"}},
		// RequireNoFireBetween: a run before the gap ends.
		{"no fire between: unexpected", func(t dstsafetest.TestingT) {
			gap := time.Date(2024, 3, 10, 8, 0, 0, 0, time.UTC) // 02:00 CST -> 03:00 CDT
			dstsafetest.RequireNoFireBetween(t, []dstsafe.Fire{fire("billing", gap.Add(-30*time.Minute), chi)}, gap.Add(-2*time.Hour), gap)
		}, []string{"fires in [2024-03-10T06:00:00Z, 2024-03-10T08:00:00Z)", "due 2024-03-10T01:30:00-06:00"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			ft := &fakeT{}
			tc.check(ft)
			require.True(t, ft.failed, "passed")
			for _, s := range tc.report {
				require.Contains(t, ft.text(), s)
			}
		})
	}
}

// The wrong zone: a job meant for Chicago midnight written as 05:00 UTC
// (midnight CDT) runs at 23:00 the day before all winter. Checked by
// Chicago days over 2024, it misses 2024-03-10 (05:00Z is 23:00 CST on
// 03-09 that morning) and runs twice on 2024-11-03 (00:00 CDT, then
// 23:00 CST): RequireOncePerDay in the zone the job is for catches both;
// in the zone it was written in (UTC) it passes.
func TestRequireOncePerDayWrongZone(t *testing.T) {
	chi := dstsafetest.Zone(t, "America/Chicago")
	utc, err := dstsafe.ParseCron("0 5 * * *")
	require.NoError(t, err)
	fires := simulateJobs(t, time.Date(2024, 1, 1, 0, 0, 0, 0, time.UTC), 366*24*time.Hour, map[string]dstsafe.Schedule{"midnight": utc})
	require.Len(t, fires, 366)
	ft := &fakeT{}
	dstsafetest.RequireOncePerDay(ft, fires, time.UTC)
	require.False(t, ft.failed, "by UTC days it is once a day: %s", ft.text())
	ft = &fakeT{}
	dstsafetest.RequireOncePerDay(ft, fires, chi)
	require.True(t, ft.failed, "a UTC job passed for Chicago days")
	require.Contains(t, ft.text(), "job midnight did not fire on 2024-03-10 (America/Chicago)")
	require.Contains(t, ft.text(), "job midnight fired 2 times on 2024-11-03 (America/Chicago)")
}

// RequireSkewRefused's other failure: the skewed replica was refused,
// but nobody did the period instead (every replica's clock was off).
func TestRequireSkewRefusedNobodyDidIt(t *testing.T) {
	due := time.Date(2024, 11, 3, 6, 30, 0, 0, time.UTC)
	res := &dstsafetest.ClusterResult{
		Periods:  []dstsafetest.PeriodResult{{Job: "billing", Period: "2024-11-03T01:30:00", Due: due, Expected: true}},
		Refusals: []dstsafetest.SkewRefusal{{Replica: 1, Owner: "r1", Job: "billing", Period: "2024-11-03T01:30:00", Offset: 7 * time.Second, At: due}},
	}
	ft := &fakeT{}
	dstsafetest.RequireSkewRefused(ft, res, 1)
	require.True(t, ft.failed)
	require.Contains(t, ft.text(), "job billing period 2024-11-03T01:30:00: refused by r1 (offset 7s), done by nobody")
}

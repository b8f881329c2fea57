package dstsafetest_test

import (
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/dstsafe/dstsafe"
	"github.com/dstsafe/dstsafe/dstsafetest"
)

// fakeT records what an assertion reports instead of failing the test.
type fakeT struct {
	errors []string
	failed bool
}

func (f *fakeT) Errorf(format string, args ...any) {
	f.errors = append(f.errors, fmt.Sprintf(format, args...))
}
func (f *fakeT) FailNow()     { f.failed = true }
func (f *fakeT) Helper()      {}
func (f *fakeT) text() string { return strings.Join(f.errors, "\n") }

var _ dstsafetest.TestingT = (*testing.T)(nil)

func chicago(t *testing.T) *time.Location {
	t.Helper()
	loc, err := time.LoadLocation("America/Chicago")
	require.NoError(t, err)
	return loc
}

// fire builds a billing fire due at the given instant.
func fire(job string, due time.Time, loc *time.Location) dstsafe.Fire {
	due = due.In(loc)
	y, m, d := due.Date()
	w := dstsafe.Wall{Year: y, Month: m, Day: d, Hour: due.Hour(), Minute: due.Minute(), Second: due.Second(), Nanosecond: due.Nanosecond()}
	return dstsafe.Fire{Run: dstsafe.Run{Job: job, Period: w.String(), Wall: w, Kind: dstsafe.Unique, Due: due,
		RunDate: dstsafe.DateOf(due, loc), Attempt: 1}, Started: due}
}

func TestAssertions(t *testing.T) {
	chi := chicago(t)
	// 2024-11-03 01:30 CDT and 01:30 CST: the instants of the double charge.
	first := time.Date(2024, 11, 3, 6, 30, 0, 0, time.UTC)
	second := first.Add(time.Hour)
	nov2 := time.Date(2024, 11, 2, 6, 30, 0, 0, time.UTC)
	nov4 := time.Date(2024, 11, 4, 7, 30, 0, 0, time.UTC)
	again := fire("billing", second, chi)
	again.Period = fire("billing", first, chi).Period // the naive loop keys both by wall time

	tests := []struct {
		name   string
		check  func(t dstsafetest.TestingT)
		fails  bool
		report []string // substrings the failure must show
	}{
		{"once per period: distinct periods", func(t dstsafetest.TestingT) {
			dstsafetest.RequireOncePerPeriod(t, []dstsafe.Fire{fire("billing", nov2, chi), fire("billing", first, chi)})
		}, false, nil},
		{"once per period: the double charge", func(t dstsafetest.TestingT) {
			dstsafetest.RequireOncePerPeriod(t, []dstsafe.Fire{fire("billing", first, chi), again})
		}, true, []string{"2024-11-03T01:30:00 fired 2 times", "-05:00", "-06:00"}},
		{"once per period: same period, other job", func(t dstsafetest.TestingT) {
			dstsafetest.RequireOncePerPeriod(t, []dstsafe.Fire{fire("billing", first, chi), fire("report", first, chi)})
		}, false, nil},
		{"once per day: three days", func(t dstsafetest.TestingT) {
			dstsafetest.RequireOncePerDay(t, []dstsafe.Fire{fire("billing", nov2, chi), fire("billing", first, chi), fire("billing", nov4, chi)}, chi)
		}, false, nil},
		{"once per day: fold fired twice", func(t dstsafetest.TestingT) {
			dstsafetest.RequireOncePerDay(t, []dstsafe.Fire{fire("billing", first, chi), fire("billing", second, chi)}, chi)
		}, true, []string{"fired 2 times on 2024-11-03", "01:30:00-05:00", "01:30:00-06:00"}},
		{"once per day: day missing", func(t dstsafetest.TestingT) {
			dstsafetest.RequireOncePerDay(t, []dstsafe.Fire{fire("billing", nov2, chi), fire("billing", nov4, chi)}, chi)
		}, true, []string{"did not fire on 2024-11-03"}},
		{"once per day: date is taken in the zone given", func(t dstsafetest.TestingT) {
			// 01:30 CDT and 01:30 CST are 2024-11-03 in UTC too, but 07:30 UTC on
			// 11-03 and 00:30 UTC on 11-04 are one Chicago day.
			late := time.Date(2024, 11, 4, 0, 30, 0, 0, time.UTC)
			dstsafetest.RequireOncePerDay(t, []dstsafe.Fire{fire("billing", second, time.UTC), fire("billing", late, time.UTC)}, chi)
		}, true, []string{"fired 2 times on 2024-11-03 (America/Chicago)"}},
		{"fires at: match", func(t dstsafetest.TestingT) {
			dstsafetest.RequireFiresAt(t, []dstsafe.Fire{fire("billing", first, chi)}, first.In(time.UTC))
		}, false, nil},
		{"fires at: wrong instant", func(t dstsafetest.TestingT) {
			dstsafetest.RequireFiresAt(t, []dstsafe.Fire{fire("billing", second, chi)}, first)
		}, true, []string{"2024-11-03T06:30:00Z", "due 2024-11-03T01:30:00-06:00"}},
		{"fires at: extra fire", func(t dstsafetest.TestingT) {
			dstsafetest.RequireFiresAt(t, []dstsafe.Fire{fire("billing", first, chi), fire("billing", second, chi)}, first)
		}, true, []string{"got 2"}},
		{"count", func(t dstsafetest.TestingT) {
			dstsafetest.RequireFireCount(t, []dstsafe.Fire{fire("billing", first, chi)}, 2)
		}, true, []string{"want 2 fires, got 1"}},
		{"no fire between: outside", func(t dstsafetest.TestingT) {
			dstsafetest.RequireNoFireBetween(t, []dstsafe.Fire{fire("billing", second, chi)}, first, second)
		}, false, nil},
		{"no fire between: inside", func(t dstsafetest.TestingT) {
			dstsafetest.RequireNoFireBetween(t, []dstsafe.Fire{fire("billing", first, chi)}, first, second)
		}, true, []string{"due 2024-11-03T01:30:00-05:00"}},
		{"no errors", func(t dstsafetest.TestingT) {
			f := fire("billing", first, chi)
			f.Err = fmt.Errorf("card declined")
			dstsafetest.RequireNoFireErrors(t, []dstsafe.Fire{f})
		}, true, []string{"card declined"}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			ft := &fakeT{}
			tc.check(ft)
			require.Equal(t, tc.fails, ft.failed, "reported: %s", ft.text())
			for _, s := range tc.report {
				require.Contains(t, ft.text(), s)
			}
		})
	}
}

package dstsafe_test

import (
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

// Quartz nW and LW when the named day is a Saturday or a Sunday: the
// nearest Monday-Friday of the same month, never a weekend day, never a
// day of the month before or after. The rows are real calendar dates; the
// weekdays the comments name are checked with the time package, and so is
// every expected day (a weekday, in the month).
func TestNearestWeekdayOnWeekends(t *testing.T) {
	for _, tc := range []struct {
		spec   string
		month  string       // the month the rule picks a day of
		named  int          // the day the spec names (the month's last for LW)
		namedW time.Weekday // its weekday
		want   int          // the day it fires
	}{
		// 2024-06-01 is a Saturday: Friday 31 May is in the month before,
		// so the Monday after, the 3rd (not Sunday the 2nd).
		{"0 0 1W * *", "2024-06", 1, time.Saturday, 3},
		{"0 0 1W * *", "2025-03", 1, time.Saturday, 3},
		{"0 0 1W * *", "2025-02", 1, time.Saturday, 3},
		// 2024-09-01 is a Sunday: Monday the 2nd.
		{"0 0 1W * *", "2024-09", 1, time.Sunday, 2},
		{"0 0 1W * *", "2026-03", 1, time.Sunday, 2},
		// 2024-06-15 a Saturday: Friday the 14th; 2024-09-15 a Sunday:
		// Monday the 16th.
		{"0 0 15W * *", "2024-06", 15, time.Saturday, 14},
		{"0 0 15W * *", "2024-09", 15, time.Sunday, 16},
		// LW: the last day is a Saturday (2024-08-31): Friday the 30th; a
		// Sunday (2024-03-31, 2024-06-30): Friday two days back.
		{"0 0 LW * *", "2024-08", 31, time.Saturday, 30},
		{"0 0 LW * *", "2024-03", 31, time.Sunday, 29},
		{"0 0 LW * *", "2024-06", 30, time.Sunday, 28},
		{"0 0 LW * *", "2024-11", 30, time.Saturday, 29},
		// 31W on a Saturday (2024-08-31, 2025-05-31): Friday the 30th;
		// on a Sunday (2024-03-31, 2025-08-31): Monday would be in the
		// next month, so Friday the 29th.
		{"0 0 31W * *", "2024-08", 31, time.Saturday, 30},
		{"0 0 31W * *", "2025-05", 31, time.Saturday, 30},
		{"0 0 31W * *", "2024-03", 31, time.Sunday, 29},
		{"0 0 31W * *", "2025-08", 31, time.Sunday, 29},
		// 30W in 30-day months: Sunday 2024-06-30 -> Friday the 28th,
		// Saturday 2024-11-30 -> Friday the 29th; in a 31-day month a
		// Sunday 30th (2025-03-30) has a Monday the 31st after it.
		{"0 0 30W * *", "2024-06", 30, time.Sunday, 28},
		{"0 0 30W * *", "2025-11", 30, time.Sunday, 28},
		{"0 0 30W * *", "2024-11", 30, time.Saturday, 29},
		{"0 0 30W * *", "2025-03", 30, time.Sunday, 31},
	} {
		t.Run(tc.spec+"/"+tc.month, func(t *testing.T) {
			m, err := time.Parse("2006-01", tc.month)
			require.NoError(t, err)
			named := m.AddDate(0, 0, tc.named-1)
			require.Equal(t, m.Month(), named.Month(), "row names a day the month does not have")
			require.Equal(t, tc.namedW, named.Weekday(), "row's weekday of %s", named.Format(time.DateOnly))
			want := m.AddDate(0, 0, tc.want-1)
			require.Equal(t, m.Month(), want.Month(), "row expects a day of another month")
			require.NotContains(t, []time.Weekday{time.Saturday, time.Sunday}, want.Weekday(), "row expects a weekend day")

			c := mustCron(t, tc.spec)
			// From three days before the named day: a fire in the month
			// before (for 1W) or on the wrong side would come first.
			from := named.AddDate(0, 0, -3)
			got := c.Next(from)
			require.True(t, want.Equal(got), "Next(%s) = %s, want %s (%s)", from.Format(time.DateOnly), got, want.Format(time.DateOnly), want.Weekday())
			// One fire in the month: the next is in a later month.
			next := c.Next(got)
			require.False(t, next.Before(m.AddDate(0, 1, 0)), "a second fire in %s: %s", tc.month, next)
		})
	}
}

package dstsafe_test

import (
	"context"
	"fmt"
	"log/slog"
	"testing"
	"time"

	"github.com/jonboulle/clockwork"
	"github.com/stretchr/testify/require"

	"github.com/dstsafe/dstsafe"
	"github.com/dstsafe/dstsafe/calendar"
)

// RunNow finds a period Excluding moved however far: a run moved out of a
// two-week year-end closure, or out of a closure of more than a year, is
// still its scheduled date's period, and RunNow runs it at the instant the
// schedule gives it. Expectations come from Excluding's documentation and
// the time package: the k-th closed date's run (k = 1, 2, ...) fires k
// seconds after the business day's own 09:00 run, its Period the closed
// date's; a skipped holiday has no period.
func TestRunNowFindsMovedPeriods(t *testing.T) {
	chicago := zone(t, "America/Chicago")
	quiet := dstsafe.WithLogger(slog.New(slog.DiscardHandler))
	daily, err := dstsafe.ParseCron("0 9 * * *", dstsafe.WithLocation(chicago))
	require.NoError(t, err)
	closure := func(from, to dstsafe.Date) (cal *calendar.DateSet, closed []dstsafe.Date) {
		for d := from; !d.After(to); d = d.AddDays(1) {
			closed = append(closed, d)
		}
		return calendar.Dates(closed...), closed
	}
	for _, tc := range []struct {
		name     string
		from, to dstsafe.Date
		policy   calendar.HolidayPolicy
		business dstsafe.Date // where the closed dates' runs go
	}{
		{"two weeks, next business day", date(2024, 12, 20), date(2025, 1, 1), calendar.NextBusinessDay, date(2025, 1, 2)},
		{"two weeks, previous business day", date(2024, 12, 20), date(2025, 1, 1), calendar.PreviousBusinessDay, date(2024, 12, 19)},
		// Across both 2025 transitions: the moved runs keep their 09:00.
		{"400 days, next business day", date(2025, 1, 1), date(2026, 2, 4), calendar.NextBusinessDay, date(2026, 2, 5)},
		{"400 days, previous business day", date(2025, 1, 1), date(2026, 2, 4), calendar.PreviousBusinessDay, date(2024, 12, 31)},
	} {
		t.Run(tc.name, func(t *testing.T) {
			cal, closed := closure(tc.from, tc.to)
			sched := calendar.Excluding(daily, cal, tc.policy)
			nine := time.Date(tc.business.Year, tc.business.Month, tc.business.Day, 9, 0, 0, 0, chicago)
			// About ten closed dates, the first and the last among them.
			picks := []int{0, len(closed) - 1}
			for k := 10; k < len(closed)-1; k += max(10, len(closed)/8) {
				picks = append(picks, k)
			}
			for _, k := range picks {
				d := closed[k]
				period := d.String() + "T09:00:00"
				var got []dstsafe.Run
				clock := clockwork.NewFakeClockAt(time.Date(2027, 1, 1, 0, 0, 0, 0, time.UTC))
				s := dstsafe.NewScheduler(dstsafe.WithClock(clock), quiet)
				require.NoError(t, s.Add("payroll", sched, func(_ context.Context, r dstsafe.Run) error {
					got = append(got, r)
					return nil
				}))
				require.NoError(t, s.RunNow(context.Background(), "payroll", period), period)
				require.Len(t, got, 1, period)
				require.Equal(t, period, got[0].Period)
				require.True(t, got[0].Due.Equal(nine.Add(time.Duration(k+1)*time.Second)),
					"%s: due %s, want %s", period, got[0].Due, nine.Add(time.Duration(k+1)*time.Second))
				require.Equal(t, dstsafe.Date{Year: d.Year, Month: d.Month, Day: d.Day}, dstsafe.Date{Year: got[0].Wall.Year, Month: got[0].Wall.Month, Day: got[0].Wall.Day})
			}
			// The business day's own run is its own period, at 09:00.
			var own []dstsafe.Run
			s := dstsafe.NewScheduler(dstsafe.WithClock(clockwork.NewFakeClockAt(time.Date(2027, 1, 1, 0, 0, 0, 0, time.UTC))), quiet)
			require.NoError(t, s.Add("payroll", sched, func(_ context.Context, r dstsafe.Run) error {
				own = append(own, r)
				return nil
			}))
			require.NoError(t, s.RunNow(context.Background(), "payroll", tc.business.String()+"T09:00:00"))
			require.Len(t, own, 1)
			require.True(t, own[0].Due.Equal(nine), "%s", own[0].Due)
		})
	}

	// Skipped holidays have no period at all, however long the closure.
	cal, closed := closure(date(2025, 1, 1), date(2026, 2, 4))
	s := dstsafe.NewScheduler(dstsafe.WithClock(clockwork.NewFakeClockAt(time.Date(2027, 1, 1, 0, 0, 0, 0, time.UTC))), quiet)
	require.NoError(t, s.Add("payroll", calendar.Excluding(daily, cal, calendar.SkipHoliday), func(context.Context, dstsafe.Run) error {
		t.Error("a skipped holiday ran")
		return nil
	}))
	for _, d := range []dstsafe.Date{closed[0], closed[200], closed[len(closed)-1]} {
		require.ErrorIs(t, s.RunNow(context.Background(), "payroll", d.String()+"T09:00:00"), dstsafe.ErrInvalidArgument, d)
	}
}

// How Next's cost grows with a closure's length, asked from its first day:
// every closed date's run moves to the one business day after it, so a
// call reads the n runs once (O(n); it was O(n^3) in the instants handed
// out and O(n^2) in calendar lookups).
func BenchmarkExcludedClosure(b *testing.B) {
	chicago := zone(b, "America/Chicago")
	daily, err := dstsafe.ParseCron("0 9 * * *", dstsafe.WithLocation(chicago))
	if err != nil {
		b.Fatal(err)
	}
	for _, days := range []int{7, 70, 700} {
		for _, policy := range []calendar.HolidayPolicy{calendar.NextBusinessDay, calendar.PreviousBusinessDay} {
			var closed []dstsafe.Date
			for d := date(2025, 1, 1); len(closed) < days; d = d.AddDays(1) {
				closed = append(closed, d)
			}
			s := calendar.Excluding(daily, calendar.Dates(closed...), policy)
			from := time.Date(2025, 1, 1, 0, 0, 0, 0, chicago)
			b.Run(fmt.Sprintf("%s/days=%d", policy, days), func(b *testing.B) {
				for b.Loop() {
					if _, ok := s.NextOccurrence(from); !ok {
						b.Fatal("no occurrence")
					}
				}
			})
		}
	}
}

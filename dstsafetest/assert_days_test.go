package dstsafetest_test

import (
	"context"
	"log/slog"
	"testing"
	"time"

	"github.com/jonboulle/clockwork"
	"github.com/stretchr/testify/require"

	"github.com/dstsafe/dstsafe"
	"github.com/dstsafe/dstsafe/dstsafetest"
)

// simulateJobs runs each job (name -> schedule) on a fake clock from start
// for d and returns the fires.
func simulateJobs(t *testing.T, start time.Time, d time.Duration, jobs map[string]dstsafe.Schedule) []dstsafe.Fire {
	t.Helper()
	s := dstsafe.NewScheduler(dstsafe.WithClock(clockwork.NewFakeClockAt(start)), dstsafe.WithLogger(slog.New(slog.DiscardHandler)))
	for name, sched := range jobs {
		require.NoError(t, s.Add(name, sched, func(context.Context, dstsafe.Run) error { return nil }))
	}
	fires, err := dstsafe.Simulate(context.Background(), s, d)
	require.NoError(t, err)
	return fires
}

func daily(t *testing.T, spec, zone string) dstsafe.Schedule {
	t.Helper()
	c, err := dstsafe.ParseCron(spec, dstsafe.WithLocation(dstsafetest.Zone(t, zone)))
	require.NoError(t, err)
	return c
}

// Samoa moved west of the date line at the end of 2011-12-29: Apia's
// clocks went from 23:59:59 -10:00 to 00:00 +14:00 on 12-31, so
// 2011-12-30 never happened there. A daily job fires on 12-29 and 12-31
// and is once per day; the old check reported "job apia did not fire on
// 2011-12-30 (Pacific/Apia)".
func TestRequireOncePerDaySkippedDay(t *testing.T) {
	apia := dstsafetest.Zone(t, "Pacific/Apia")
	start := time.Date(2011, 12, 27, 0, 0, 0, 0, time.UTC)
	fires := simulateJobs(t, start, 6*24*time.Hour, map[string]dstsafe.Schedule{"apia": daily(t, "0 9 * * *", "Pacific/Apia")})
	var dates []string
	for _, f := range fires {
		dates = append(dates, f.RunDate.String())
	}
	require.Equal(t, []string{"2011-12-27", "2011-12-28", "2011-12-29", "2011-12-31", "2012-01-01", "2012-01-02"}, dates)

	ft := &fakeT{}
	dstsafetest.RequireOncePerDay(ft, fires, apia)
	require.False(t, ft.failed, "reported: %s", ft.text())
	ft = &fakeT{}
	dstsafetest.RequireOncePerLocalDay(ft, fires)
	require.False(t, ft.failed, "reported: %s", ft.text())

	// A day Apia did have still counts: drop 12-29.
	ft = &fakeT{}
	dstsafetest.RequireOncePerDay(ft, append(fires[:2:2], fires[3:]...), apia)
	require.True(t, ft.failed)
	require.Contains(t, ft.text(), "job apia did not fire on 2011-12-29 (Pacific/Apia)")
	require.NotContains(t, ft.text(), "2011-12-30")
}

// A billing job per customer zone, checked by each job's own local days
// across both 2024 transitions of each zone: RequireOncePerLocalDay takes
// the zone from each fire's schedule, where RequireOncePerDay needs one
// call per job with the fires split by hand.
func TestRequireOncePerLocalDay(t *testing.T) {
	jobs := map[string]dstsafe.Schedule{
		"bill-chicago": daily(t, "30 1 * * *", "America/Chicago"),  // fold 2024-11-03 01:00-02:00, gap 03-10 02:00-03:00
		"bill-london":  daily(t, "30 1 * * *", "Europe/London"),    // gap 2024-03-31 01:00-02:00: 01:30 moves to 02:30 BST
		"bill-sydney":  daily(t, "30 2 * * *", "Australia/Sydney"), // fold 2024-04-07 02:00-03:00, gap 10-06 02:00-03:00
		"bill-utc":     daily(t, "0 0 * * *", "Etc/UTC"),           // no transitions
	}
	start := time.Date(2024, 1, 1, 0, 0, 0, 0, time.UTC)
	fires := simulateJobs(t, start, 366*24*time.Hour, jobs)

	ft := &fakeT{}
	dstsafetest.RequireOncePerLocalDay(ft, fires)
	require.False(t, ft.failed, "reported: %s", ft.text())
	perJob := map[string]int{}
	for _, f := range fires {
		perJob[f.Job]++
	}
	for job := range jobs {
		require.GreaterOrEqual(t, perJob[job], 366, job) // 2024 has 366 days
	}

	// The incident: Chicago's job fires at both 01:30 readings of
	// 2024-11-03. The failure names Chicago's date and zone.
	chi := dstsafetest.Zone(t, "America/Chicago")
	var twice []dstsafe.Fire
	for _, f := range fires {
		twice = append(twice, f)
		if f.Job == "bill-chicago" && f.RunDate == (dstsafe.Date{Year: 2024, Month: time.November, Day: 3}) {
			again := f
			again.Due = f.Due.Add(time.Hour)
			again.Due = again.Due.In(chi)
			twice = append(twice, again)
		}
	}
	ft = &fakeT{}
	dstsafetest.RequireOncePerLocalDay(ft, twice)
	require.True(t, ft.failed)
	require.Contains(t, ft.text(), "job bill-chicago fired 2 times on 2024-11-03 (America/Chicago)")
	require.NotContains(t, ft.text(), "job bill-london fired")
}

// The classic DST loss: a daily job that does not run on the 23-hour
// spring-forward day. That day exists (it is short, not skipped), so a
// year of fires without it must fail RequireOncePerDay and
// RequireOncePerLocalDay, naming the day, in each zone: Chicago's
// 2024-03-10 (02:00 CST -> 03:00 CDT), London's 2024-03-31 (01:00 GMT ->
// 02:00 BST) and Lord Howe's 2024-10-06, 23 h 30 min long (02:00 +10:30
// -> 02:30 +11:00).
func TestRequireOncePerDayShortDayMissing(t *testing.T) {
	for _, tc := range []struct {
		zone, spec string
		short      dstsafe.Date
		length     time.Duration
	}{
		{"America/Chicago", "30 2 * * *", dstsafe.Date{Year: 2024, Month: time.March, Day: 10}, 23 * time.Hour},                     // 02:30 runs at 03:30 CDT
		{"Europe/London", "30 1 * * *", dstsafe.Date{Year: 2024, Month: time.March, Day: 31}, 23 * time.Hour},                       // 01:30 runs at 02:30 BST
		{"Australia/Lord_Howe", "15 2 * * *", dstsafe.Date{Year: 2024, Month: time.October, Day: 6}, 23*time.Hour + 30*time.Minute}, // 02:15 runs at 02:45
	} {
		t.Run(tc.zone, func(t *testing.T) {
			loc := dstsafetest.Zone(t, tc.zone)
			// The day's length by the time package alone.
			y, m, d := tc.short.Year, tc.short.Month, tc.short.Day
			next := time.Date(y, m, d+1, 12, 0, 0, 0, loc)
			length := time.Date(next.Year(), next.Month(), next.Day(), 0, 0, 0, 0, loc).Sub(time.Date(y, m, d, 0, 0, 0, 0, loc))
			require.Equal(t, tc.length, length, "the test's premise: %s is a short day in %s", tc.short, tc.zone)

			start := time.Date(2024, 1, 1, 0, 0, 0, 0, loc)
			fires := simulateJobs(t, start, 366*24*time.Hour, map[string]dstsafe.Schedule{"billing": daily(t, tc.spec, tc.zone)})
			ft := &fakeT{}
			dstsafetest.RequireOncePerDay(ft, fires, loc)
			require.False(t, ft.failed, "the full year passes: %s", ft.text())

			var lost []dstsafe.Fire
			dropped := 0
			for _, f := range fires {
				if f.RunDate == tc.short {
					dropped++
					continue
				}
				lost = append(lost, f)
			}
			require.Equal(t, 1, dropped, "one fire on %s", tc.short)
			want := "job billing did not fire on " + tc.short.String() + " (" + tc.zone + ")"
			ft = &fakeT{}
			dstsafetest.RequireOncePerDay(ft, lost, loc)
			require.True(t, ft.failed, "RequireOncePerDay passed a year without %s", tc.short)
			require.Contains(t, ft.text(), want)
			ft = &fakeT{}
			dstsafetest.RequireOncePerLocalDay(ft, lost)
			require.True(t, ft.failed, "RequireOncePerLocalDay passed a year without %s", tc.short)
			require.Contains(t, ft.text(), want)
		})
	}
}

package dstsafeotel_test

import (
	"context"
	"fmt"
	"log/slog"
	"regexp"
	"strconv"
	"testing"
	"time"

	"github.com/dstsafe/dstsafe"
	"github.com/dstsafe/dstsafe/dstsafetest"
	"github.com/jonboulle/clockwork"
	"github.com/stretchr/testify/require"
)

// scrapeValues parses the counter lines of a text exposition:
// `name{labels} value` -> value.
func scrapeValues(tb testing.TB, text string) map[string]float64 {
	tb.Helper()
	v := map[string]float64{}
	for _, m := range regexp.MustCompile(`(?m)^([a-z_]+\{[^}]*\}) (\S+)$`).FindAllStringSubmatch(text, -1) {
		f, err := strconv.ParseFloat(m[2], 64)
		require.NoError(tb, err, m[0])
		v[m[1]] = f
	}
	return v
}

// readings returns, from the time package alone, every instant in
// [from, to] (Simulate's window is closed at both ends) whose wall reading in loc matches ok (minute precision), and
// whether that reading occurs twice (the instant an hour before or after
// reads the same).
func readings(from, to time.Time, loc *time.Location, ok func(h, m int) bool) (instants []time.Time, twice []bool) {
	for t := from.Add(time.Minute - 1).Truncate(time.Minute); !t.After(to); t = t.Add(time.Minute) {
		l := t.In(loc)
		if !ok(l.Hour(), l.Minute()) {
			continue
		}
		wall := l.Format("2006-01-02 15:04")
		instants = append(instants, t)
		twice = append(twice, t.Add(-time.Hour).In(loc).Format("2006-01-02 15:04") == wall ||
			t.Add(time.Hour).In(loc).Format("2006-01-02 15:04") == wall)
	}
	return instants, twice
}

// A real Scheduler, driven by Simulate across the 2024-11-03 night in
// America/Chicago, reports to the Observer; the Prometheus scrape counts
// one succeeded run per logical day for the fixed-time job (the 11-03 one
// with kind fold) and both readings of 01:00 and 01:30 for the periodic
// one, each with kind fold.
func TestSchedulerAcrossTheFold(t *testing.T) {
	chicago := dstsafetest.Zone(t, "America/Chicago")
	start := time.Date(2024, 11, 2, 12, 0, 0, 0, time.UTC)
	const span = 48 * time.Hour
	obs, scrape := promObserver(t)
	clock := clockwork.NewFakeClockAt(start)
	s := dstsafe.NewScheduler(dstsafe.WithClock(clock), dstsafe.WithObserver(obs),
		dstsafe.WithLogger(slog.New(slog.DiscardHandler)))
	billing, err := dstsafe.ParseCron("30 1 * * *", dstsafe.WithLocation(chicago))
	require.NoError(t, err)
	sync, err := dstsafe.ParseCron("*/30 * * * *", dstsafe.WithLocation(chicago))
	require.NoError(t, err)
	nothing := func(context.Context, dstsafe.Run) error { return nil }
	require.NoError(t, s.Add("billing", billing, nothing))
	require.NoError(t, s.Add("sync", sync, nothing))

	fires, err := dstsafe.Simulate(context.Background(), s, span)
	require.NoError(t, err)
	dstsafetest.RequireNoFireErrors(t, fires)

	// Expected, from the time package: billing's 01:30s, the first of two
	// on 11-03 only (fixed-time: once per day); every :00 and :30 for sync.
	want := map[string]map[string]float64{"billing": {}, "sync": {}}
	bill, twice := readings(start, start.Add(span), chicago, func(h, m int) bool { return h == 1 && m == 30 })
	seen := map[string]bool{}
	for i, at := range bill {
		day := at.In(chicago).Format(time.DateOnly)
		if seen[day] {
			continue
		}
		seen[day] = true
		want["billing"][kindOf(twice[i])]++
	}
	syncAt, twice := readings(start, start.Add(span), chicago, func(_, m int) bool { return m%30 == 0 })
	for i := range syncAt {
		want["sync"][kindOf(twice[i])]++
	}
	require.Equal(t, map[string]float64{"fold": 1, "unique": 1}, want["billing"]) // 11-03 and 11-04
	require.Equal(t, float64(4), want["sync"]["fold"])                            // 01:00, 01:30, twice each
	require.Len(t, fires, int(want["billing"]["fold"]+want["billing"]["unique"]+want["sync"]["fold"]+want["sync"]["unique"]))

	got := scrapeValues(t, scrape())
	for job, kinds := range want {
		for kind, n := range kinds {
			for _, event := range []string{"due", "claimed", "started", "succeeded"} {
				require.Equal(t, n, got[fmt.Sprintf(`dstsafe_events_total{event=%q,job=%q,kind=%q}`, event, job, kind)],
					"%s %s %s", job, kind, event)
			}
			require.Equal(t, n, got[fmt.Sprintf(`dstsafe_runs_total{job=%q,kind=%q,outcome="succeeded"}`, job, kind)],
				"%s %s", job, kind)
			require.Equal(t, n, got[fmt.Sprintf(`dstsafe_run_lateness_seconds_count{job=%q,kind=%q}`, job, kind)])
			require.Equal(t, n, got[fmt.Sprintf(`dstsafe_run_duration_seconds_count{job=%q,kind=%q,outcome="succeeded"}`, job, kind)])
		}
	}
	// Nothing else: no failure, skip or second claim anywhere.
	var runs float64
	for k, v := range got {
		if regexp.MustCompile(`^dstsafe_runs_total\{`).MatchString(k) {
			runs += v
		}
	}
	require.Equal(t, float64(len(fires)), runs)
}

func kindOf(twice bool) string {
	if twice {
		return "fold"
	}
	return "unique"
}

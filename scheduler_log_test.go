package dstsafe_test

import (
	"context"
	"log/slog"
	"sync"
	"testing"
	"time"

	"github.com/jonboulle/clockwork"
	"github.com/stretchr/testify/require"

	"github.com/dstsafe/dstsafe"
	"github.com/dstsafe/dstsafe/dstsafetest"
)

// recorder is a slog.Handler that keeps every record.
type recorder struct {
	mu   sync.Mutex
	recs []slog.Record
}

func (r *recorder) Enabled(context.Context, slog.Level) bool { return true }
func (r *recorder) Handle(_ context.Context, rec slog.Record) error {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.recs = append(r.recs, rec.Clone())
	return nil
}
func (r *recorder) WithAttrs([]slog.Attr) slog.Handler { return r }
func (r *recorder) WithGroup(string) slog.Handler      { return r }

func (r *recorder) records() []slog.Record {
	r.mu.Lock()
	defer r.mu.Unlock()
	return append([]slog.Record(nil), r.recs...)
}

// A test that simulates a year of a billing job logged 4,402 lines to
// slog.Default, stamped with the real time beside fake due times. On a
// fake clock the default is now silence; WithLogger still logs.
func TestSimulateQuietByDefault(t *testing.T) {
	def := &recorder{}
	old := slog.Default()
	slog.SetDefault(slog.New(def))
	t.Cleanup(func() { slog.SetDefault(old) })

	chicago := dstsafetest.Zone(t, "America/Chicago")
	simulate := func(opts ...dstsafe.SchedulerOption) []dstsafe.Fire {
		clock := clockwork.NewFakeClockAt(time.Date(2024, 11, 2, 12, 0, 0, 0, time.UTC))
		s := dstsafe.NewScheduler(append([]dstsafe.SchedulerOption{dstsafe.WithClock(clock)}, opts...)...)
		billing, err := dstsafe.ParseCron("30 1 * * *", dstsafe.WithLocation(chicago))
		require.NoError(t, err)
		require.NoError(t, s.Add("billing", billing, func(context.Context, dstsafe.Run) error { return nil }))
		fires, err := dstsafe.Simulate(simCtx(t), s, 72*time.Hour)
		require.NoError(t, err)
		return fires
	}

	fires := simulate()
	require.Len(t, fires, 3) // 11-03, 11-04, 11-05 at 01:30 Chicago
	require.Empty(t, def.records(), "a fake-clock scheduler without WithLogger logs nothing")

	asked := &recorder{}
	require.Len(t, simulate(dstsafe.WithLogger(slog.New(asked))), 3)
	require.NotEmpty(t, asked.records(), "WithLogger logs under Simulate")
	require.Empty(t, def.records())
}

// Run logs one line per job when it starts: a constant message, with the
// job, its schedule, the schedule's zone and the next due instant as
// attributes, so an operator sees what will run where.
func TestRunLogsJobScheduled(t *testing.T) {
	chicago := dstsafetest.Zone(t, "America/Chicago")
	tokyo := time.FixedZone("Asia/Tokyo", 9*3600) // Japan has had no DST since 1951
	// 2024-11-03 00:00 CDT: the night the clocks go back at 02:00.
	start := time.Date(2024, 11, 3, 5, 0, 0, 0, time.UTC)
	rec := &recorder{}
	s := dstsafe.NewScheduler(dstsafe.WithClock(clockwork.NewFakeClockAt(start)), dstsafe.WithLogger(slog.New(rec)))
	billing, err := dstsafe.ParseCron("30 1 * * *", dstsafe.WithLocation(chicago))
	require.NoError(t, err)
	report, err := dstsafe.ParseCron("0 9 * * MON", dstsafe.WithLocation(tokyo))
	require.NoError(t, err)
	nop := func(context.Context, dstsafe.Run) error { return nil }
	require.NoError(t, s.Add("bill-chicago", billing, nop))
	require.NoError(t, s.Add("report-tokyo", report, nop))
	_, err = dstsafe.Simulate(simCtx(t), s, time.Minute)
	require.NoError(t, err)

	type line struct{ schedule, zone, next string }
	got := map[string]line{}
	for _, r := range rec.records() {
		if r.Message != "job scheduled" {
			continue
		}
		require.Equal(t, slog.LevelInfo, r.Level)
		var job string
		var l line
		r.Attrs(func(a slog.Attr) bool {
			switch a.Key {
			case "job":
				job = a.Value.String()
			case "schedule":
				l.schedule = a.Value.String()
			case "zone":
				l.zone = a.Value.String()
			case "next":
				l.next = a.Value.Time().Format(time.RFC3339)
			}
			return true
		})
		require.NotContains(t, got, job, "one line per job")
		got[job] = l
	}
	require.Equal(t, map[string]line{
		// 01:30 CDT, the first of the night's two 01:30 readings.
		"bill-chicago": {"30 1 * * *", "America/Chicago", "2024-11-03T01:30:00-05:00"},
		// Sunday 2024-11-03 14:00 in Tokyo: next Monday 09:00 JST.
		"report-tokyo": {"0 9 * * MON", "Asia/Tokyo", "2024-11-04T09:00:00+09:00"},
	}, got)
}

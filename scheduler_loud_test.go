package dstsafe_test

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"runtime"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/jonboulle/clockwork"
	"github.com/stretchr/testify/require"

	"github.com/dstsafe/dstsafe"
	"github.com/dstsafe/dstsafe/event"
)

// Misconfiguration fails where the caller sees it (issue 21): a nil or
// typed-nil option that would run on a silent default or panic on a
// scheduler goroutine is an error from Add, Update and Run naming it.
func TestRefusedSchedulerOptions(t *testing.T) {
	ctx := context.Background()
	fc := clockwork.NewFakeClockAt(time.Date(2024, 6, 1, 0, 0, 0, 0, time.UTC))
	var typedLedger *dstsafe.MemoryLedger // a nil *sqlledger.Ledger panicked inside List
	var typedClock *clockwork.FakeClock
	var typedObserver *eventLog
	for _, tc := range []struct {
		name string
		opt  dstsafe.SchedulerOption
		fn   string // the option the error names
	}{
		{"WithLedger(nil)", dstsafe.WithLedger(nil), "WithLedger"}, // ran on a new, silent MemoryLedger
		{"typed nil ledger", dstsafe.WithLedger(typedLedger), "WithLedger"},
		{"typed nil clock", dstsafe.WithClock(typedClock), "WithClock"},
		{"typed nil observer", dstsafe.WithObserver(typedObserver), "WithObserver"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			s := dstsafe.NewScheduler(dstsafe.WithClock(fc), dstsafe.WithLogger(quiet()), tc.opt)
			err := s.Add("billing", mustCron(t, "30 1 * * *"), nop)
			require.ErrorIs(t, err, dstsafe.ErrInvalidArgument)
			var ae *dstsafe.ArgError
			require.ErrorAs(t, err, &ae)
			require.Equal(t, tc.fn, ae.Func)
			require.ErrorIs(t, s.Update("billing", mustCron(t, "30 1 * * *")), dstsafe.ErrInvalidArgument)
			require.NotPanics(t, func() {
				err = s.Run(ctx) // returns at once: no context cancel needed
			})
			require.ErrorAs(t, err, &ae)
			require.Equal(t, tc.fn, ae.Func)
			require.ErrorIs(t, s.Healthy(), dstsafe.ErrInvalidArgument)
		})
	}
	t.Run("WithLedger(nil) message", func(t *testing.T) {
		s := dstsafe.NewScheduler(dstsafe.WithLedger(nil))
		err := s.Run(ctx)
		var ae *dstsafe.ArgError
		require.ErrorAs(t, err, &ae)
		// The message names the option and says what was wrong.
		require.Equal(t, "dstsafe: WithLedger: l: nil ledger (<nil>)", ae.Error())
	})
}

// The job options that would be ignored, or that would run the job
// otherwise than written, are errors from Add.
func TestRefusedJobOptions(t *testing.T) {
	fc := clockwork.NewFakeClockAt(time.Date(2024, 6, 1, 0, 0, 0, 0, time.UTC))
	chicago := chicago()
	for _, tc := range []struct {
		name string
		opt  dstsafe.JobOption
		fn   string
	}{
		// ParseCron("5 0 * * *") has no zone: it ran at 00:05 UTC, not Chicago.
		{"WithScheduleLocation on a *Cron", dstsafe.WithScheduleLocation(chicago), "WithScheduleLocation"},
		{"WithCatchUp(nil)", dstsafe.WithCatchUp(nil), "WithCatchUp"},
		// A *CatchUpAll was read as CatchUpLatest: one missed run, not all.
		{"WithCatchUp(pointer)", dstsafe.WithCatchUp(&dstsafe.CatchUpAll{Window: time.Hour}), "WithCatchUp"},
		// MaxAttempts counts the first attempt: 1 never retries.
		{"retry with one attempt", dstsafe.WithRetry(dstsafe.RetryPolicy{MaxAttempts: 1, Failed: true}, time.Minute), "WithRetry"},
		{"retry of nothing", dstsafe.WithRetry(dstsafe.RetryPolicy{MaxAttempts: 3}, 0), "WithRetry"},
		{"negative attempts", dstsafe.WithRetry(dstsafe.RetryPolicy{MaxAttempts: -1, Failed: true}, 0), "WithRetry"},
		// Abandoned periods are taken over on a later claim; the backoff paces failed ones only.
		{"backoff without Failed", dstsafe.WithRetry(dstsafe.RetryPolicy{MaxAttempts: 3, Abandoned: true}, time.Minute), "WithRetry"},
		// A 30 s lease renewed every 30 s lapses between heartbeats; it was replaced by 10 s.
		{"heartbeat not shorter than the lease", dstsafe.WithLease(30*time.Second, 30*time.Second), "WithLease"},
		{"heartbeat past DefaultLease", dstsafe.WithLease(0, 2*time.Minute), "WithLease"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			s := dstsafe.NewScheduler(dstsafe.WithClock(fc), dstsafe.WithLogger(quiet()))
			err := s.Add("billing", mustCron(t, "5 0 * * *"), nop, tc.opt)
			require.ErrorIs(t, err, dstsafe.ErrInvalidArgument)
			var ae *dstsafe.ArgError
			require.ErrorAs(t, err, &ae)
			require.Equal(t, tc.fn, ae.Func)
		})
	}
	t.Run("still accepted", func(t *testing.T) {
		s := dstsafe.NewScheduler(dstsafe.WithClock(fc), dstsafe.WithLogger(quiet()))
		// The zero policy is the explicit "no retry"; the three catch-up values.
		for i, opt := range []dstsafe.JobOption{
			dstsafe.WithRetry(dstsafe.RetryPolicy{}, 0),
			dstsafe.WithRetry(dstsafe.RetryPolicy{MaxAttempts: 2, Abandoned: true}, 0),
			dstsafe.WithCatchUp(dstsafe.CatchUpAll{Window: time.Hour}),
			dstsafe.WithCatchUp(dstsafe.CatchUpSkip{}),
			dstsafe.WithLease(30*time.Second, 0),
		} {
			require.NoError(t, s.Add(string(rune('a'+i)), mustCron(t, "5 0 * * *"), nop, opt))
		}
	})
}

// Without WithLedger the Scheduler runs on a MemoryLedger, says so once at
// WARN when Run starts, and Describe names it.
func TestDefaultLedgerIsLoud(t *testing.T) {
	fc := clockwork.NewFakeClockAt(time.Date(2024, 6, 1, 0, 0, 0, 0, time.UTC))
	var logs bytes.Buffer
	s := dstsafe.NewScheduler(dstsafe.WithClock(fc), dstsafe.WithLogger(jsonLogger(&logs)))
	require.NoError(t, s.Add("hourly", mustCron(t, "0 * * * *"), nop))
	_, err := dstsafe.Simulate(simCtx(t), s, 3*time.Hour)
	require.NoError(t, err)
	require.Equal(t, 1, countLogs(t, &logs, "WARN", "scheduler ledger not durable"))
	d, err := s.Describe(context.Background(), "hourly", 1)
	require.NoError(t, err)
	require.Equal(t, "memory (not durable)", d.Ledger)

	s2, _, _ := newSim(t, fc.Now())
	require.NoError(t, s2.Add("hourly", mustCron(t, "0 * * * *"), nop))
	d, err = s2.Describe(context.Background(), "hourly", 1)
	require.NoError(t, err)
	require.Equal(t, "*dstsafe.MemoryLedger (not durable)", d.Ledger)
}

// errDBDown stands for a database that does not answer.
var errDBDown = errors.New("dial tcp 127.0.0.1:5432: connection refused")

// outageLedger is the real MemoryLedger behind a connection that is down
// while down is set: every call fails with a transient error.
type outageLedger struct {
	*dstsafe.MemoryLedger
	down atomic.Bool
}

func (l *outageLedger) Claim(ctx context.Context, r dstsafe.ClaimRequest) (dstsafe.Record, error) {
	if l.down.Load() {
		return dstsafe.Record{}, errDBDown
	}
	return l.MemoryLedger.Claim(ctx, r)
}

func (l *outageLedger) Get(ctx context.Context, job, period string) (dstsafe.Record, error) {
	if l.down.Load() {
		return dstsafe.Record{}, errDBDown
	}
	return l.MemoryLedger.Get(ctx, job, period)
}

func (l *outageLedger) List(ctx context.Context, job, from, to string) ([]dstsafe.Record, error) {
	if l.down.Load() {
		return nil, errDBDown
	}
	return l.MemoryLedger.List(ctx, job, from, to)
}

func (l *outageLedger) Finish(ctx context.Context, job, period string, token int64, s dstsafe.State, reason string) (dstsafe.Record, error) {
	if l.down.Load() {
		return dstsafe.Record{}, errDBDown
	}
	return l.MemoryLedger.Finish(ctx, job, period, token, s, reason)
}

// A ledger that does not answer at startup makes Run return an error
// within the startup timeout, on the scheduler's clock; before, Run
// logged "run resume failed" with backoff for ever and returned nil.
func TestStartupLedgerUnreachable(t *testing.T) {
	start := time.Date(2024, 6, 1, 0, 0, 0, 0, time.UTC)
	fc := clockwork.NewFakeClockAt(start)
	l := &outageLedger{MemoryLedger: dstsafe.NewMemoryLedger(fc)}
	l.down.Store(true)
	ev := &eventLog{}
	s := dstsafe.NewScheduler(dstsafe.WithClock(fc), dstsafe.WithLedger(l), dstsafe.WithLogger(quiet()),
		dstsafe.WithObserver(ev), dstsafe.WithStartupTimeout(10*time.Second))
	require.NoError(t, s.Add("hourly", mustCron(t, "0 * * * *"), nop))
	require.Error(t, s.Healthy(), "not started")
	require.NotErrorIs(t, s.Healthy(), dstsafe.ErrLedgerUnreachable, "not started: no ledger call yet")
	fires, err := dstsafe.Simulate(simCtx(t), s, time.Hour)
	require.ErrorIs(t, err, dstsafe.ErrLedgerUnreachable)
	require.ErrorIs(t, err, errDBDown, "the ledger's own error is wrapped")
	require.Empty(t, fires)
	// Tries at 0, 1, 3 and 7 s (backoff 1 s doubling), then 10 s: the bound.
	var at []time.Duration
	for _, e := range ev.all() {
		require.Equal(t, event.LedgerError, e.Type)
		require.ErrorIs(t, e.Err, errDBDown)
		at = append(at, e.At.Sub(start))
	}
	require.Equal(t, []time.Duration{0, time.Second, 3 * time.Second, 7 * time.Second, 10 * time.Second}, at)
	require.Error(t, s.Healthy(), "stopped")

	// The database comes back: the same Scheduler starts.
	l.down.Store(false)
	fires, err = dstsafe.Simulate(simCtx(t), s, time.Hour)
	require.NoError(t, err)
	require.NotEmpty(t, fires)
	require.Equal(t, "2024-06-01T01:00:00", fires[0].Period)
}

// After startup an outage is retried, and visible: an event.LedgerError per
// failed call, Describe's LedgerDownSince, and Healthy once it has lasted
// the startup timeout. The period due during it runs when the ledger is
// back.
func TestLedgerOutageAfterStartup(t *testing.T) {
	start := time.Date(2024, 6, 1, 0, 30, 0, 0, time.UTC)
	fc := clockwork.NewFakeClockAt(start)
	l := &outageLedger{MemoryLedger: dstsafe.NewMemoryLedger(fc)}
	ev := &eventLog{}
	s := dstsafe.NewScheduler(dstsafe.WithClock(fc), dstsafe.WithLedger(l), dstsafe.WithLogger(quiet()),
		dstsafe.WithObserver(ev), dstsafe.WithStartupTimeout(5*time.Second), dstsafe.WithWakeInterval(0))
	require.NoError(t, s.Add("hourly", mustCron(t, "0 * * * *"), nop))
	h := startRun(t, s)
	require.NoError(t, s.Healthy())

	due := time.Date(2024, 6, 1, 1, 0, 0, 0, time.UTC)
	h.waitFor(func() bool { _, next, _, _ := h.idle(time.Time{}); return next.Equal(due) }) // primed
	l.down.Store(true)
	h.advanceTo(fc, due) // the claim fails, and is retried in 1 s
	h.waitFor(func() bool { return len(ev.all()) > 0 && ev.all()[len(ev.all())-1].Type == event.LedgerError })
	d, err := s.Describe(context.Background(), "hourly", 0)
	require.ErrorIs(t, err, errDBDown, "Describe reads the ledger, which is down")
	require.Equal(t, due, d.LedgerDownSince, "and still shows the outage")
	require.ErrorIs(t, d.LedgerErr, errDBDown)
	require.NoError(t, s.Healthy(), "a blip shorter than the startup timeout is not unhealthy")

	h.advanceTo(fc, due.Add(time.Second))
	h.advanceTo(fc, due.Add(3*time.Second))
	h.advanceTo(fc, due.Add(7*time.Second))
	err = s.Healthy()
	require.ErrorIs(t, err, dstsafe.ErrLedgerUnreachable, "down since 01:00:00, 7 s >= 5 s")
	require.ErrorIs(t, err, errDBDown)
	var failures []time.Duration
	for _, e := range ev.all() {
		if e.Type == event.LedgerError {
			require.Equal(t, "hourly", e.Job)
			failures = append(failures, e.At.Sub(due))
		}
	}
	require.Equal(t, []time.Duration{0, time.Second, 3 * time.Second, 7 * time.Second}, failures)

	l.down.Store(false)
	h.waitFor(func() bool { _, next, _, _ := h.idle(time.Time{}); return next.Equal(due.Add(15 * time.Second)) })
	fc.Advance(8 * time.Second) // the retry claims and runs it
	h.settle(fc.Now())
	require.NoError(t, s.Healthy())
	require.True(t, ev.has(event.Succeeded, "2024-06-01T01:00:00"))
	d, err = s.Describe(context.Background(), "hourly", 0)
	require.NoError(t, err)
	require.True(t, d.LedgerDownSince.IsZero())
	require.NoError(t, d.LedgerErr)
}

func jsonLogger(w *bytes.Buffer) *slog.Logger { return slog.New(slog.NewJSONHandler(w, nil)) }

// countLogs counts the JSON log lines of level with message msg.
func countLogs(t *testing.T, logs *bytes.Buffer, level, msg string) int {
	t.Helper()
	n := 0
	dec := json.NewDecoder(bytes.NewReader(logs.Bytes()))
	for dec.More() {
		var line struct{ Level, Msg string }
		require.NoError(t, dec.Decode(&line))
		if line.Level == level && line.Msg == msg {
			n++
		}
	}
	return n
}

// A job starts with the occurrences after the instant it is added (Add's
// doc), jitter or not: a job added at 06:00Z ran its 05:30Z period at
// 06:03:10Z, since that period's jittered start was still to come.
func TestJitterRunsNoPeriodBeforeTheJobStarted(t *testing.T) {
	added := time.Date(2024, 6, 1, 6, 0, 0, 0, time.UTC)
	s, _, _ := newSim(t, added)
	// 20 jobs: their delays are hashes spread over [0, 23 h), so most
	// would start the 05:30 period after 06:00.
	for i := range 20 {
		require.NoError(t, s.Add(fmt.Sprintf("report-%d", i), mustCron(t, "30 5 * * *"), nop, dstsafe.WithJitter(23*time.Hour)))
	}
	fires, err := dstsafe.Simulate(simCtx(t), s, 47*time.Hour) // to 06-03 05:00
	require.NoError(t, err)
	seen := map[string]bool{}
	for _, f := range fires {
		require.False(t, f.Due.Before(added), "%s ran period %s, due before it was added", f.Job, f.Period)
		require.Equal(t, "2024-06-02T05:30:00", f.Period)
		seen[f.Job] = true
	}
	// The next day's period starts by 06-03 04:30 (05:30 + at most 23 h),
	// the day after's at 06-03 05:30 at the earliest.
	require.Len(t, seen, 20)
}

// countingSchedule counts the occurrences asked of a schedule, and stops
// after stopAt of them, so that code which walks every period of a year
// of seconds fails in a fraction of a second instead of taking 10.
type countingSchedule struct {
	*dstsafe.Cron
	calls, stopAt int
}

func (c *countingSchedule) NextOccurrence(after time.Time) (dstsafe.Occurrence, bool) {
	c.calls++
	if c.calls > c.stopAt {
		return dstsafe.Occurrence{}, false
	}
	return c.Cron.NextOccurrence(after)
}

// Backfill's limit and its context bound the walk: a year of a per-second
// job walked all 31,622,400 periods of 2024 to count Left, ignoring ctx
// (8-16 s, then err == nil).
func TestBackfillWalkIsBounded(t *testing.T) {
	from, to := time.Date(2024, 1, 1, 0, 0, 0, 0, time.UTC), time.Date(2025, 1, 1, 0, 0, 0, 0, time.UTC)
	const stopAt = 1_000_000 // the old code's walk ends here, Left about a million
	newJob := func(t *testing.T, fn func(context.Context, dstsafe.Run) error) (*dstsafe.Scheduler, *countingSchedule) {
		s, _, _ := newSim(t, to)
		c := &countingSchedule{Cron: mustCron(t, "* * * * * *", dstsafe.WithSeconds()), stopAt: stopAt}
		require.NoError(t, s.Add("tick", c, fn))
		c.calls = 0 // Add's jitter-free checks walk none, but be exact
		return s, c
	}
	t.Run("limit", func(t *testing.T) {
		s, c := newJob(t, nop)
		res, err := s.Backfill(context.Background(), "tick", from, to, &dstsafe.BackfillOptions{Limit: 5})
		require.NoError(t, err)
		require.Len(t, res.Ran, 5)
		require.Equal(t, 10000, res.Left, "counted up to the cap")
		require.True(t, res.MoreLeft, "31,622,395 are left")
		// 5 run, 10,000 counted, the one past the cap: 10,006 occurrences.
		require.Equal(t, 5+10000+1, c.calls)
	})
	t.Run("cancelled after the limit", func(t *testing.T) {
		ctx, cancel := context.WithCancel(context.Background())
		defer cancel()
		s, c := newJob(t, func(context.Context, dstsafe.Run) error { cancel(); return nil })
		res, err := s.Backfill(ctx, "tick", from, to, &dstsafe.BackfillOptions{Limit: 1})
		require.ErrorIs(t, err, context.Canceled)
		require.Len(t, res.Ran, 1)
		require.Equal(t, 2, c.calls, "the run's period, then the next: ctx is looked at before counting it")
	})
	t.Run("cancelled before", func(t *testing.T) {
		ctx, cancel := context.WithCancel(context.Background())
		cancel()
		s, c := newJob(t, nop)
		_, err := s.Backfill(ctx, "tick", from, to, &dstsafe.BackfillOptions{Limit: 1})
		require.ErrorIs(t, err, context.Canceled)
		require.Equal(t, 1, c.calls)
	})
}

// A paused job's periods are recorded as skipped and reported missed: a
// period no run will cover is never silent.
func TestPausedPeriodsAreMissed(t *testing.T) {
	ev := &eventLog{}
	s, _, _ := newSim(t, time.Date(2024, 6, 1, 0, 30, 0, 0, time.UTC), dstsafe.WithObserver(ev))
	require.NoError(t, s.Add("sync", mustCron(t, "0 * * * *"), nop))
	require.NoError(t, s.Pause(context.Background(), "sync", "release freeze"))
	_, err := dstsafe.Simulate(simCtx(t), s, 2*time.Hour) // 01:00 and 02:00
	require.NoError(t, err)
	for _, p := range []string{"2024-06-01T01:00:00", "2024-06-01T02:00:00"} {
		require.Equal(t, []event.Type{event.Due, event.Skipped, event.Missed}, ev.types("sync", p), p)
	}
	for _, e := range ev.all() {
		if e.Type == event.Missed {
			require.Equal(t, "paused", e.Reason)
		}
	}
}

func (l *outageLedger) Heartbeat(ctx context.Context, job, period string, token int64, lease time.Duration) (dstsafe.Record, error) {
	if l.down.Load() {
		return dstsafe.Record{}, errDBDown
	}
	return l.MemoryLedger.Heartbeat(ctx, job, period, token, lease)
}

// A heartbeat that fails is a ledger error, and one that then succeeds
// ends the outage: a daily job's run that outlived a blip must not leave
// Healthy failing for hours, until the next claim.
func TestHeartbeatEndsAnOutage(t *testing.T) {
	ctx := context.Background()
	fc := clockwork.NewFakeClockAt(time.Date(2024, 6, 1, 12, 0, 30, 0, time.UTC))
	l := &outageLedger{MemoryLedger: dstsafe.NewMemoryLedger(fc)}
	ev := &eventLog{}
	s := dstsafe.NewScheduler(dstsafe.WithClock(fc), dstsafe.WithLedger(l), dstsafe.WithLogger(quiet()),
		dstsafe.WithWakeInterval(0), dstsafe.WithObserver(ev), dstsafe.WithStartupTimeout(5*time.Second))
	job := newBlockingJob()
	require.NoError(t, s.Add("export", mustCron(t, "1 12 * * *"), job.run, dstsafe.WithLease(30*time.Second, 10*time.Second)))
	h := startRun(t, s)
	fc.Advance(30 * time.Second) // 12:01: the run starts
	recv(t, job.started)
	require.NoError(t, fc.BlockUntilContext(ctx, 2)) // the loop's timer and the leases' one
	l.down.Store(true)
	fc.Advance(10 * time.Second)                                       // 12:01:10: the heartbeat fails
	spinUntil(t, func() bool { return ev.has(event.LedgerError, "") }) // the heartbeat's own goroutine
	require.NoError(t, fc.BlockUntilContext(ctx, 2))
	l.down.Store(false)
	fc.Advance(10 * time.Second) // 12:01:20: it succeeds
	require.NoError(t, fc.BlockUntilContext(ctx, 2))
	spinUntil(t, func() bool { d, _ := s.Describe(ctx, "export", 0); return d.LedgerDownSince.IsZero() })
	fc.Advance(9 * time.Second) // 12:01:29: 19 s after the failure, well past the 5 s bound
	require.NoError(t, s.Healthy())
	job.release <- nil
	h.settle(fc.Now())
}

// spinUntil yields until cond holds, for what the scheduler does in
// goroutines the simulation seam does not count (a heartbeat's ledger
// call); 10 s of real time is a safety net, never a synchronisation.
func spinUntil(t *testing.T, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatal("condition never held")
		}
		runtime.Gosched()
	}
}

// WithDeadline moves the instant a period is at risk: the ledger is down
// from the 01:00 period's due instant, and with a deadline of 90 minutes
// the period is not at risk when the loop wakes at 02:00 (it would be with
// the default 5 minutes), but is when it wakes at 03:00, past 02:30. A
// deadline that is not positive is refused by Add.
func TestWithDeadline(t *testing.T) {
	ctx := context.Background()
	start := time.Date(2024, 6, 1, 0, 30, 0, 0, time.UTC)
	fc := clockwork.NewFakeClockAt(start)
	l := &outageLedger{MemoryLedger: dstsafe.NewMemoryLedger(fc)}
	var atRisk []dstsafe.Event
	var mu sync.Mutex
	obs := observerFunc(func(e dstsafe.Event) {
		switch {
		case e.Type == event.Due && e.Period == "2024-06-01T01:00:00":
			l.down.Store(true) // before the claim
		case e.Type == event.AtRisk:
			mu.Lock()
			atRisk = append(atRisk, e)
			mu.Unlock()
			l.down.Store(false)
		}
	})
	s := dstsafe.NewScheduler(dstsafe.WithClock(fc), dstsafe.WithLedger(l), dstsafe.WithLogger(quiet()), dstsafe.WithObserver(obs))
	require.NoError(t, s.Add("sync", mustCron(t, "0 * * * *"), nop, dstsafe.WithDeadline(90*time.Minute)))
	_, err := dstsafe.Simulate(ctx, s, 2*time.Hour+32*time.Minute) // the loop wakes at 01:00, 02:00, 03:00
	require.NoError(t, err)
	mu.Lock()
	defer mu.Unlock()
	require.Len(t, atRisk, 1)
	require.Equal(t, "2024-06-01T01:00:00", atRisk[0].Period)
	// The job has open work (its reconcile pass could not list the
	// ledger): the loop looks at it every wake interval, also under
	// Simulate, so the deadline is noticed when it passes.
	require.Equal(t, time.Date(2024, 6, 1, 2, 30, 0, 0, time.UTC), atRisk[0].At, "noticed at the first wake at or past 02:30, not at 02:00")
	rec, err := l.Get(ctx, "sync", "2024-06-01T01:00:00")
	require.NoError(t, err)
	require.Equal(t, dstsafe.StateSucceeded, rec.State, "run late once the ledger was back")

	for _, d := range []time.Duration{0, -time.Minute} {
		s := dstsafe.NewScheduler(dstsafe.WithClock(clockwork.NewFakeClockAt(start)), dstsafe.WithLogger(quiet()))
		err := s.Add("sync", mustCron(t, "0 * * * *"), nop, dstsafe.WithDeadline(d))
		require.ErrorIs(t, err, dstsafe.ErrInvalidArgument, "WithDeadline(%v)", d)
		var ae *dstsafe.ArgError
		require.ErrorAs(t, err, &ae)
		require.Equal(t, "WithDeadline", ae.Func)
	}
}

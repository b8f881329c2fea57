package dstsafe_test

import (
	"bytes"
	"context"
	"errors"
	"io/fs"
	"strings"
	"sync"
	"testing"
	"testing/synctest"
	"time"

	"github.com/jonboulle/clockwork"
	"github.com/stretchr/testify/require"

	"github.com/dstsafe/dstsafe"
	"github.com/dstsafe/dstsafe/dstsafetest"
)

// The postmortem's bug, reproduced with SimulateTicks: a worker that wakes
// every 20 s, asks "is it 01:30 in Chicago?", and guards with "skip if it
// started less than 10 minutes ago" runs twice on 2024-11-03, 70 real
// minutes apart. The same loop guarded by a ledger claim of the run date
// runs once.
func TestSimulateTicksReproducesIncident(t *testing.T) {
	chicago := zone(t, "America/Chicago")
	start := time.Date(2024, 11, 2, 12, 0, 0, 0, time.UTC)
	end := start.Add(48 * time.Hour)

	var naive []time.Time
	var lastStart time.Time
	dstsafe.SimulateTicks(start, end, 20*time.Second, func(now time.Time) {
		local := now.In(chicago)
		if local.Hour() == 1 && local.Minute() == 30 && (lastStart.IsZero() || now.Sub(lastStart) > 10*time.Minute) {
			lastStart = now
			naive = append(naive, now)
		}
	})
	require.Len(t, naive, 3, "11-03 twice (CDT and CST) and 11-04 once")
	// An hour of real time apart: the guard's ten minutes never saw it.
	require.Equal(t, time.Hour, naive[1].Sub(naive[0]))
	require.Equal(t, dstsafe.DateOf(naive[0], chicago), dstsafe.DateOf(naive[1], chicago))

	clock := clockwork.NewFakeClockAt(start)
	ledger := dstsafe.NewMemoryLedger(clock)
	var guarded []time.Time
	dstsafe.SimulateTicks(start, end, 20*time.Second, func(now time.Time) {
		local := now.In(chicago)
		if local.Hour() != 1 || local.Minute() != 30 {
			return
		}
		runDate := dstsafe.DateOf(now, chicago).String()
		if _, err := ledger.Claim(context.Background(), dstsafe.ClaimRequest{Job: "billing", Period: runDate, Owner: "w"}); err != nil {
			require.ErrorIs(t, err, dstsafe.ErrAlreadyClaimed)
			return
		}
		guarded = append(guarded, now)
	})
	require.Len(t, guarded, 2)
	require.NotEqual(t, dstsafe.DateOf(guarded[0], chicago), dstsafe.DateOf(guarded[1], chicago))
}

func TestSimulateTicksPanics(t *testing.T) {
	now := time.Date(2024, 1, 1, 0, 0, 0, 0, time.UTC)
	require.Panics(t, func() { dstsafe.SimulateTicks(now, now, 0, func(time.Time) {}) })
	require.Panics(t, func() { dstsafe.SimulateTicks(now, now, time.Second, nil) })
}

// Jump mode and fixed-step mode see the same runs at the same due
// instants; only their start instants differ (by less than a step).
func TestSimulateModesAgree(t *testing.T) {
	chicago := zone(t, "America/Chicago")
	start := time.Date(2024, 11, 2, 12, 0, 0, 0, time.UTC)
	run := func(opts ...dstsafe.SimulateOption) []dstsafe.Fire {
		s, _, _ := newSim(t, start)
		require.NoError(t, s.Add("billing", mustCron(t, "30 1 * * *", dstsafe.WithLocation(chicago)), nop))
		require.NoError(t, s.Add("sync", mustCron(t, "*/15 * * * *", dstsafe.WithLocation(chicago)), nop))
		fires, err := dstsafe.Simulate(simCtx(t), s, 48*time.Hour, opts...)
		require.NoError(t, err)
		return fires
	}
	jump, step := run(), run(dstsafe.WithStep(20*time.Second))
	require.Len(t, step, len(jump))
	// A quarter-hourly job follows real time (FoldBoth): 48 h from 12:00Z,
	// both ends included, are 193 runs, the repeated hour's four readings
	// keyed ";fold=1"; and two billing runs.
	require.Len(t, jump, 4*48+1+2)
	for i := range jump {
		require.Equal(t, jump[i].Period, step[i].Period)
		require.True(t, jump[i].Due.Equal(step[i].Due))
		require.True(t, jump[i].Started.Equal(jump[i].Due), "jump mode starts on time: %v", jump[i])
		lag := step[i].Started.Sub(step[i].Due)
		require.True(t, lag >= 0 && lag < 20*time.Second, "step mode lag %v", lag)
	}
	dstsafetest.RequireOncePerPeriod(t, jump)
}

func TestSimulateErrors(t *testing.T) {
	s := dstsafe.NewScheduler(dstsafe.WithClock(clockwork.NewRealClock()), dstsafe.WithLogger(quiet()))
	_, err := dstsafe.Simulate(simCtx(t), s, time.Hour)
	require.ErrorIs(t, err, dstsafe.ErrInvalidArgument)

	s, _, _ = newSim(t, time.Date(2024, 1, 1, 0, 0, 0, 0, time.UTC))
	_, err = dstsafe.Simulate(simCtx(t), s, -time.Hour)
	require.ErrorIs(t, err, dstsafe.ErrInvalidArgument)
	_, err = dstsafe.Simulate(simCtx(t), s, time.Hour, dstsafe.WithStep(-time.Second))
	require.ErrorIs(t, err, dstsafe.ErrInvalidArgument)

	// A job that calls Simulate on its own scheduler finds it running.
	var inner error
	require.NoError(t, s.Add("nested", mustCron(t, "0 * * * *"), func(ctx context.Context, _ dstsafe.Run) error {
		_, inner = dstsafe.Simulate(ctx, s, time.Hour)
		return nil
	}))
	fires, err := dstsafe.Simulate(simCtx(t), s, time.Hour)
	require.NoError(t, err)
	require.Len(t, fires, 2, "00:00 (the start instant) and 01:00 (the end)")
	require.ErrorIs(t, inner, dstsafe.ErrInvalidArgument)

	// Cancelling Simulate's context stops it with the runs so far.
	s, _, _ = newSim(t, time.Date(2024, 1, 1, 0, 30, 0, 0, time.UTC))
	ctx, cancel := context.WithCancel(context.Background())
	require.NoError(t, s.Add("hourly", mustCron(t, "0 * * * *"), func(_ context.Context, r dstsafe.Run) error {
		if r.Wall.Hour == 3 {
			cancel()
		}
		return nil
	}))
	fires, err = dstsafe.Simulate(ctx, s, 24*time.Hour)
	require.ErrorIs(t, err, context.Canceled)
	require.Len(t, fires, 3, "01:00, 02:00 and 03:00")
}

// Retries: a run that fails is claimed again after the backoff while the
// policy allows, with a new attempt and fencing token; without a policy a
// failed period stays failed.
func TestRetry(t *testing.T) {
	for _, tc := range []struct {
		name     string
		opts     []dstsafe.JobOption
		attempts int
		state    dstsafe.State
	}{
		{"off by default", nil, 1, dstsafe.StateFailed},
		{"two attempts", []dstsafe.JobOption{dstsafe.WithRetry(dstsafe.RetryPolicy{MaxAttempts: 2, Failed: true}, time.Minute)}, 2, dstsafe.StateFailed},
		{"third succeeds", []dstsafe.JobOption{dstsafe.WithRetry(dstsafe.RetryPolicy{MaxAttempts: 5, Failed: true}, time.Minute)}, 3, dstsafe.StateSucceeded},
	} {
		t.Run(tc.name, func(t *testing.T) {
			s, _, ledger := newSim(t, time.Date(2024, 6, 1, 0, 0, 0, 0, time.UTC))
			errDeclined := errors.New("card declined")
			calls := 0
			require.NoError(t, s.Add("billing", mustCron(t, "30 1 * * *"), func(context.Context, dstsafe.Run) error {
				calls++
				if calls < 3 {
					return errDeclined
				}
				return nil
			}, tc.opts...))
			fires, err := dstsafe.Simulate(simCtx(t), s, 2*time.Hour)
			require.NoError(t, err)
			require.Len(t, fires, tc.attempts)
			for i, f := range fires {
				require.Equal(t, i+1, f.Attempt)
				require.Equal(t, f.Due.Add(time.Duration(i)*time.Minute), f.Started, "backoff on the clock")
				if i < 2 {
					require.ErrorIs(t, f.Err, errDeclined)
				}
			}
			rec, err := ledger.Get(context.Background(), "billing", "2024-06-01T01:30:00")
			require.NoError(t, err)
			require.Equal(t, tc.state, rec.State)
			require.Equal(t, tc.attempts, rec.Attempt)
		})
	}
}

// A job that panics is recorded as failed with a *PanicError carrying the
// stack; when it panicked with an error, errors.Is sees it. The scheduler
// keeps going.
func TestJobPanic(t *testing.T) {
	s, _, ledger := newSim(t, time.Date(2024, 6, 1, 0, 0, 0, 0, time.UTC))
	require.NoError(t, s.Add("report", mustCron(t, "0 * * * *"), func(_ context.Context, r dstsafe.Run) error {
		switch r.Wall.Hour {
		case 1:
			panic("nil map")
		case 2:
			panic(fs.ErrPermission)
		}
		return nil
	}))
	fires, err := dstsafe.Simulate(simCtx(t), s, 3*time.Hour)
	require.NoError(t, err)
	require.Len(t, fires, 4)
	var pe *dstsafe.PanicError
	require.ErrorAs(t, fires[1].Err, &pe)
	require.Equal(t, "nil map", pe.Value)
	require.Nil(t, errors.Unwrap(pe), "a value that is not an error unwraps to nothing")
	require.Contains(t, string(pe.Stack), "TestJobPanic", "the stack is where the job panicked")
	require.ErrorAs(t, fires[2].Err, &pe)
	require.ErrorIs(t, fires[2].Err, fs.ErrPermission)
	for _, i := range []int{0, 3} {
		require.NoError(t, fires[i].Err)
	}
	rec, err := ledger.Get(context.Background(), "report", "2024-06-01T01:00:00")
	require.NoError(t, err)
	require.Equal(t, dstsafe.StateFailed, rec.State)
}

// RunNow claims and runs a period by hand; a second RunNow of it, or the
// scheduler reaching it, reports it already claimed.
func TestRunNow(t *testing.T) {
	chicago := zone(t, "America/Chicago")
	s, _, _ := newSim(t, time.Date(2024, 11, 2, 12, 0, 0, 0, time.UTC))
	var runs []dstsafe.Run
	require.NoError(t, s.Add("billing", mustCron(t, "30 1 * * *", dstsafe.WithLocation(chicago)), func(_ context.Context, r dstsafe.Run) error {
		runs = append(runs, r)
		return nil
	}))
	ctx := context.Background()
	require.NoError(t, s.RunNow(ctx, "billing", "2024-11-03T01:30:00"))
	require.Len(t, runs, 1)
	require.Equal(t, time.Date(2024, 11, 3, 6, 30, 0, 0, time.UTC), runs[0].Due.UTC()) // 01:30 CDT, the first reading
	require.Equal(t, dstsafe.Fold, runs[0].Kind)
	require.Equal(t, dstsafe.Date{Year: 2024, Month: 11, Day: 3}, runs[0].RunDate)

	err := s.RunNow(ctx, "billing", "2024-11-03T01:30:00")
	var ce *dstsafe.ClaimedError
	require.ErrorAs(t, err, &ce)
	require.ErrorIs(t, err, dstsafe.ErrAlreadyClaimed)
	require.Equal(t, dstsafe.StateSucceeded, ce.Existing.State)

	require.ErrorIs(t, s.RunNow(ctx, "payroll", "2024-11-03T01:30:00"), dstsafe.ErrUnknownJob)
	for _, p := range []string{"2024-11-03T02:30:00", "2024-11-03", "yesterday", ""} {
		require.ErrorIs(t, s.RunNow(ctx, "billing", p), dstsafe.ErrInvalidArgument, p)
	}

	fires, err := dstsafe.Simulate(ctx, s, 48*time.Hour)
	require.NoError(t, err)
	dstsafetest.RequireFiresAt(t, fires, time.Date(2024, 11, 4, 7, 30, 0, 0, time.UTC))
	require.Len(t, runs, 2)
}

// Schedule options that rekey or re-policy a job: ByDate makes a periodic
// job run once per civil day; FoldBoth makes a fixed-time job run at both
// readings, keyed apart; a run-date location derives RunDate elsewhere.
func TestJobOptions(t *testing.T) {
	chicago := zone(t, "America/Chicago")
	start := time.Date(2024, 11, 2, 12, 0, 0, 0, time.UTC)
	s, _, _ := newSim(t, start)
	require.NoError(t, s.Add("digest", mustCron(t, "0 * * * *", dstsafe.WithLocation(chicago), dstsafe.WithPeriodKey(dstsafe.ByDate)), nop))
	require.NoError(t, s.Add("meter", mustCron(t, "30 1 * * *", dstsafe.WithLocation(chicago), dstsafe.WithFold(dstsafe.FoldBoth)), nop))
	require.NoError(t, s.Add("tokyo", mustCron(t, "0 20 * * *", dstsafe.WithLocation(chicago)), nop, dstsafe.WithRunDateLocation(zone(t, "Australia/Sydney"))))
	fires, err := dstsafe.Simulate(simCtx(t), s, 48*time.Hour)
	require.NoError(t, err)
	by := map[string][]dstsafe.Fire{}
	for _, f := range fires {
		by[f.Job] = append(by[f.Job], f)
	}
	// 12:00Z on 11-02 is 07:00 CDT: the digest's first hour that day runs,
	// then 11-03's and 11-04's first hours.
	var periods []string
	for _, f := range by["digest"] {
		periods = append(periods, f.Period)
	}
	require.Equal(t, []string{"2024-11-02", "2024-11-03", "2024-11-04"}, periods)
	require.Len(t, by["meter"], 3)
	require.Equal(t, "2024-11-03T01:30:00", by["meter"][0].Period)
	require.Equal(t, "2024-11-03T01:30:00;fold=1", by["meter"][1].Period)
	require.Equal(t, time.Hour, by["meter"][1].Due.Sub(by["meter"][0].Due))
	for _, f := range by["tokyo"] {
		// 20:00 in Chicago is the next day in Sydney.
		require.Equal(t, dstsafe.DateOf(f.Due, zone(t, "Australia/Sydney")), f.RunDate)
		require.NotEqual(t, dstsafe.DateOf(f.Due, chicago), f.RunDate)
	}
}

// The log lines have the postmortem's shape: a constant message ("run
// start") with the job, the run date, the period, the due instant with its
// offset and the attempt as attributes.
func TestLogShape(t *testing.T) {
	chicago := zone(t, "America/Chicago")
	var logs bytes.Buffer
	s, _, _ := newSim(t, time.Date(2024, 11, 2, 12, 0, 0, 0, time.UTC), dstsafe.WithLogger(textLogger(&logs)))
	require.NoError(t, s.Add("billing", mustCron(t, "30 1 * * *", dstsafe.WithLocation(chicago)), nop))
	_, err := dstsafe.Simulate(simCtx(t), s, 24*time.Hour)
	require.NoError(t, err)
	lines := strings.Split(strings.TrimSpace(logs.String()), "\n")
	require.Len(t, lines, 3, logs.String())
	// The startup line, once per job when Run starts.
	require.Equal(t, `level=INFO msg="job scheduled" job=billing schedule="30 1 * * *" zone=America/Chicago next=2024-11-03T01:30:00.000-05:00`, lines[0])
	lines = lines[1:]
	require.Equal(t, `level=INFO msg="run start" job=billing period=2024-11-03T01:30:00 run_date=2024-11-03 due=2024-11-03T01:30:00.000-05:00 wall=2024-11-03T01:30:00 kind=fold attempt=1 token=1 owner=test`, lines[0])
	require.Equal(t, `level=INFO msg="run finish" job=billing period=2024-11-03T01:30:00 run_date=2024-11-03 due=2024-11-03T01:30:00.000-05:00 wall=2024-11-03T01:30:00 kind=fold attempt=1 token=1 owner=test outcome=succeeded duration=0s`, lines[1])
}

// Simulate and the Scheduler work inside a testing/synctest bubble: with a
// fake clock, and with the real clock, whose time the bubble fakes.
func TestSynctest(t *testing.T) {
	t.Run("Simulate", func(t *testing.T) {
		synctest.Test(t, func(t *testing.T) {
			chicago := zone(t, "America/Chicago")
			s, _, _ := newSim(t, time.Date(2024, 11, 2, 12, 0, 0, 0, time.UTC))
			require.NoError(t, s.Add("billing", mustCron(t, "30 1 * * *", dstsafe.WithLocation(chicago)), nop))
			fires, err := dstsafe.Simulate(simCtx(t), s, 48*time.Hour, dstsafe.WithStep(20*time.Second))
			require.NoError(t, err)
			dstsafetest.RequireFireCount(t, fires, 2)
			dstsafetest.RequireOncePerDay(t, fires, chicago)
		})
	})
	t.Run("SimulateTicks", func(t *testing.T) {
		synctest.Test(t, func(t *testing.T) {
			n := 0
			start := time.Date(2024, 11, 2, 12, 0, 0, 0, time.UTC)
			dstsafe.SimulateTicks(start, start.Add(time.Hour), 20*time.Second, func(time.Time) { n++ })
			require.Equal(t, 181, n)
		})
	})
	t.Run("real clock", func(t *testing.T) {
		synctest.Test(t, func(t *testing.T) {
			var mu sync.Mutex
			var runs []dstsafe.Run
			s := dstsafe.NewScheduler(dstsafe.WithLogger(quiet())) // RealClock, MemoryLedger
			require.NoError(t, s.Add("billing", mustCron(t, "30 1 * * *"), func(_ context.Context, r dstsafe.Run) error {
				mu.Lock()
				runs = append(runs, r)
				mu.Unlock()
				return nil
			}))
			ctx, cancel := context.WithCancel(context.Background())
			done := make(chan error)
			go func() { done <- s.Run(ctx) }()
			time.Sleep(48 * time.Hour) // the bubble's clock: no real time passes
			cancel()
			require.NoError(t, <-done)
			mu.Lock()
			defer mu.Unlock()
			require.Len(t, runs, 2)
			require.Equal(t, 30, runs[0].Wall.Minute)
			require.Equal(t, 24*time.Hour, runs[1].Due.Sub(runs[0].Due))
		})
	})
}

// flakyLedger is the real MemoryLedger behind a connection that refuses
// the first n claims, as a database restarting at 01:30 would.
type flakyLedger struct {
	*dstsafe.MemoryLedger
	mu    sync.Mutex
	n     int
	calls int
}

var errConnRefused = errors.New("dial tcp 127.0.0.1:5432: connect: connection refused")

func (f *flakyLedger) Claim(ctx context.Context, req dstsafe.ClaimRequest) (dstsafe.Record, error) {
	f.mu.Lock()
	f.calls++
	fail := f.calls <= f.n
	f.mu.Unlock()
	if fail {
		return dstsafe.Record{}, errConnRefused
	}
	return f.MemoryLedger.Claim(ctx, req)
}

// A ledger that is unreachable when the run comes due delays the run (1 s,
// 2 s, 4 s of backoff) but does not lose it, and it still runs once.
// RunNow, for an operator at a terminal, reports the error at once.
func TestLedgerDownAtDueTime(t *testing.T) {
	chicago := zone(t, "America/Chicago")
	clock := clockwork.NewFakeClockAt(time.Date(2024, 11, 2, 12, 0, 0, 0, time.UTC))
	ledger := &flakyLedger{MemoryLedger: dstsafe.NewMemoryLedger(clock), n: 3}
	s := dstsafe.NewScheduler(dstsafe.WithClock(clock), dstsafe.WithLedger(ledger), dstsafe.WithLogger(quiet()))
	require.NoError(t, s.Add("billing", mustCron(t, "30 1 * * *", dstsafe.WithLocation(chicago)), nop))
	fires, err := dstsafe.Simulate(simCtx(t), s, 48*time.Hour)
	require.NoError(t, err)
	dstsafetest.RequireFiresAt(t, fires, time.Date(2024, 11, 3, 6, 30, 0, 0, time.UTC), time.Date(2024, 11, 4, 7, 30, 0, 0, time.UTC))
	require.Equal(t, 7*time.Second, fires[0].Started.Sub(fires[0].Due))
	require.True(t, fires[1].Due.Equal(fires[1].Started), "the next run is on time")

	ledger.mu.Lock()
	ledger.n = ledger.calls + 1
	ledger.mu.Unlock()
	require.ErrorIs(t, s.RunNow(context.Background(), "billing", "2024-11-05T01:30:00"), errConnRefused)
}

// WithStep with a step that does not divide the window: the last step is
// cut short, so the clock ends exactly at start+d, a run due at the end
// instant still runs (the window is closed) and starts then, and nothing
// runs after it, not even a job due at the next whole step.
func TestSimulateLastStepCutAtEnd(t *testing.T) {
	start := time.Date(2024, 11, 3, 6, 0, 0, 0, time.UTC) // 01:00 CDT, the fold's first hour
	for _, tc := range []struct {
		window, step time.Duration
		atEnd        string // a seconds spec due at start+window
	}{
		{50 * time.Second, 20 * time.Second, "50 * * * * *"}, // steps 20, 40, then 10
		{time.Second, 7 * time.Second, "1 * * * * *"},        // one step, cut to 1s
		{59 * time.Second, 7 * time.Second, "59 * * * * *"},  // eight steps of 7, then 3
		{60 * time.Second, 20 * time.Second, "0 1 * * * *"},  // a step that divides it
	} {
		t.Run(tc.window.String()+"/"+tc.step.String(), func(t *testing.T) {
			s, clock, _ := newSim(t, start)
			// Due at the start, at 60 s and every minute: the whole step
			// after a 50 s window would reach 60 s.
			require.NoError(t, s.Add("minutely", mustCron(t, "0 * * * * *", dstsafe.WithSeconds()), nop))
			require.NoError(t, s.Add("at-end", mustCron(t, tc.atEnd, dstsafe.WithSeconds()), nop))
			fires, err := dstsafe.Simulate(simCtx(t), s, tc.window, dstsafe.WithStep(tc.step))
			require.NoError(t, err)
			end := start.Add(tc.window)
			require.True(t, clock.Now().Equal(end), "clock at %v, want %v", clock.Now(), end)
			var atEnd int
			for _, f := range fires {
				require.False(t, f.Started.After(end), "%s %s started at %v, after the window's end %v", f.Job, f.Period, f.Started, end)
				require.False(t, f.Due.After(end), "%s due at %v, after the window", f.Job, f.Due)
				if f.Job == "at-end" {
					atEnd++
					require.True(t, f.Due.Equal(end) && f.Started.Equal(end), "at-end due %v started %v, want both %v", f.Due, f.Started, end)
				}
			}
			require.Equal(t, 1, atEnd, "runs due at the end instant: %v", fires)
			// "minutely" at 0 s, and at 60 s in the 60 s window; "at-end".
			require.Len(t, fires, 1+int(tc.window/time.Minute)+1, "%v", fires)
		})
	}
}

package dstsafe_test

import (
	"context"
	"sync"
	"testing"
	"time"

	"github.com/jonboulle/clockwork"
	"github.com/stretchr/testify/require"

	"github.com/dstsafe/dstsafe"
	"github.com/dstsafe/dstsafe/event"
)

// The tests here move the clock themselves (not Simulate) and wait on the
// scheduler's activity through RunTraced (export_test.go).

// steppedClock is a fake clock whose wall reading can be stepped back or
// forward, as NTP or a restored VM snapshot steps a real one. Timers run on
// the underlying fake clock, as Go timers run on the monotonic clock.
type steppedClock struct {
	fc     *clockwork.FakeClock
	mu     sync.Mutex
	offset time.Duration
}

func (c *steppedClock) Now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.fc.Now().Add(c.offset)
}
func (c *steppedClock) NewTimer(d time.Duration) clockwork.Timer { return c.fc.NewTimer(d) }
func (c *steppedClock) step(d time.Duration) {
	c.mu.Lock()
	c.offset += d
	c.mu.Unlock()
}

// harness runs a Scheduler's Run loop (not Simulate: the test moves the
// clock) with the simulation seam, so the test can wait on its activity.
type harness struct {
	t    *testing.T
	idle func(now time.Time) (bool, time.Time, uint64, <-chan struct{})
	done <-chan error
}

// traceRun starts s's Run; cancel ends it.
func traceRun(t *testing.T, s *dstsafe.Scheduler) (*harness, context.CancelFunc) {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	idle, done := dstsafe.RunTraced(ctx, s)
	return &harness{t: t, idle: idle, done: done}, cancel
}

// startRun starts s's Run until the test ends, and waits for it to park.
func startRun(t *testing.T, s *dstsafe.Scheduler) *harness {
	t.Helper()
	h, cancel := traceRun(t, s)
	t.Cleanup(func() {
		cancel()
		select {
		case <-h.done:
		case <-time.After(10 * time.Second): // a safety net, never a synchronisation
			t.Error("Run did not return")
		}
	})
	h.waitParks(0)
	return h
}

// parks returns how many times the scheduler's goroutines have parked.
func (h *harness) parks() uint64 {
	_, _, n, _ := h.idle(time.Time{})
	return n
}

// waitParks waits until the scheduler has parked more than n times.
func (h *harness) waitParks(n uint64) {
	h.t.Helper()
	for {
		_, _, parks, changed := h.idle(time.Time{})
		if parks > n {
			return
		}
		select {
		case <-changed:
		case <-time.After(10 * time.Second):
			h.t.Fatal("scheduler did not park")
		}
	}
}

// waitFor waits until cond holds, checking it whenever a scheduler
// goroutine ends or parks.
func (h *harness) waitFor(cond func() bool) {
	h.t.Helper()
	for {
		_, _, _, changed := h.idle(time.Time{})
		if cond() {
			return
		}
		select {
		case <-changed:
		case <-time.After(10 * time.Second):
			h.t.Fatal("condition never held")
		}
	}
}

// advanceTo moves fc to at once the scheduler sleeps until at (the
// earliest instant one of its goroutines waits for: a clock moved while
// the loop is still setting its timer would leave the timer behind), then
// waits until a goroutine has parked again.
func (h *harness) advanceTo(fc *clockwork.FakeClock, at time.Time) {
	h.t.Helper()
	h.waitFor(func() bool {
		_, next, _, _ := h.idle(time.Time{})
		return next.Equal(at)
	})
	before := h.parks()
	fc.Advance(at.Sub(fc.Now()))
	h.waitParks(before)
}

// settle waits until no scheduler goroutine is busy or due at now.
func (h *harness) settle(now time.Time) {
	h.t.Helper()
	for {
		ok, _, _, changed := h.idle(now)
		if ok {
			return
		}
		select {
		case <-changed:
		case <-time.After(10 * time.Second):
			h.t.Fatal("scheduler did not settle")
		}
	}
}

// A wall clock stepped back an hour right after the 01:30 run (NTP fixing
// a fast clock, a VM restored from a snapshot) makes 01:30 read again; the
// scheduler wakes every minute, sees it, and does not run the period again.
func TestClockSteppedBackNeverRepeats(t *testing.T) {
	fc := clockwork.NewFakeClockAt(time.Date(2024, 6, 1, 6, 0, 0, 0, time.UTC)) // 01:00 CDT
	clock := &steppedClock{fc: fc}
	ledger := dstsafe.NewMemoryLedger(clock)
	s := dstsafe.NewScheduler(dstsafe.WithClock(clock), dstsafe.WithLedger(ledger), dstsafe.WithLogger(quiet()), dstsafe.WithWakeInterval(time.Minute))
	var mu sync.Mutex
	var runs []dstsafe.Run
	require.NoError(t, s.Add("billing", mustCron(t, "30 1 * * *", dstsafe.WithLocation(zone(t, "America/Chicago"))), func(_ context.Context, r dstsafe.Run) error {
		mu.Lock()
		runs = append(runs, r)
		mu.Unlock()
		return nil
	}))
	h := startRun(t, s)
	minute := func(n int) {
		for range n {
			before := h.parks()
			fc.Advance(time.Minute) // the loop's timer is never more than a minute away
			h.waitParks(before)
			h.settle(clock.Now())
		}
	}
	minute(31) // 01:31 CDT: the 01:30 run is done
	mu.Lock()
	require.Len(t, runs, 1)
	mu.Unlock()

	clock.step(-time.Hour) // 00:31 again; 01:30 will read again in an hour
	minute(120)
	mu.Lock()
	require.Len(t, runs, 1, "a stepped-back clock repeated a period: %+v", runs)
	mu.Unlock()

	clock.step(30 * time.Hour) // forward: next day's 01:30 is overdue by then
	minute(1)
	mu.Lock()
	defer mu.Unlock()
	require.Len(t, runs, 2)
	require.Equal(t, "2024-06-01T01:30:00", runs[0].Period)
	require.Equal(t, "2024-06-02T01:30:00", runs[1].Period)
}

// blockingJob starts, reports the run on started, and waits for release or
// its context; it returns what release sends (or the context's cause).
type blockingJob struct {
	started chan dstsafe.Run
	release chan error
	causes  chan error
}

func newBlockingJob() *blockingJob {
	return &blockingJob{started: make(chan dstsafe.Run, 16), release: make(chan error, 16), causes: make(chan error, 16)}
}

func (b *blockingJob) run(ctx context.Context, r dstsafe.Run) error {
	b.started <- r
	select {
	case err := <-b.release:
		return err
	case <-ctx.Done():
		b.causes <- context.Cause(ctx)
		return ctx.Err()
	}
}

func recv[T any](t *testing.T, ch <-chan T) T {
	t.Helper()
	select {
	case v := <-ch:
		return v
	case <-time.After(10 * time.Second): // safety net only
		t.Fatal("nothing received")
		panic("unreachable")
	}
}

// A per-minute job whose 12:01 run is still going when 12:02 and 12:03
// come due. Skip records both as skipped; Queue runs them after 12:01, in
// order; Allow runs them at once; CancelRunning cancels 12:01 for 12:02
// and 12:02 for 12:03; BufferOne lets 12:02 wait and skips 12:03.
func TestOverlap(t *testing.T) {
	const p1, p2, p3 = "2024-06-01T07:01:00", "2024-06-01T07:02:00", "2024-06-01T07:03:00"
	cancelled := context.Canceled.Error() + " (" + dstsafe.ErrOverlapCancelled.Error() + ")"
	for _, tc := range []struct {
		o    dstsafe.Overlap
		want map[string]dstsafe.State
	}{
		{dstsafe.OverlapSkip, map[string]dstsafe.State{p1: dstsafe.StateSucceeded, p2: dstsafe.StateSkipped, p3: dstsafe.StateSkipped}},
		{dstsafe.OverlapQueue, map[string]dstsafe.State{p1: dstsafe.StateSucceeded, p2: dstsafe.StateSucceeded, p3: dstsafe.StateSucceeded}},
		{dstsafe.OverlapAllow, map[string]dstsafe.State{p1: dstsafe.StateSucceeded, p2: dstsafe.StateSucceeded, p3: dstsafe.StateSucceeded}},
		{dstsafe.OverlapCancelRunning, map[string]dstsafe.State{p1: dstsafe.StateFailed, p2: dstsafe.StateFailed, p3: dstsafe.StateSucceeded}},
		{dstsafe.OverlapBufferOne, map[string]dstsafe.State{p1: dstsafe.StateSucceeded, p2: dstsafe.StateSucceeded, p3: dstsafe.StateSkipped}},
	} {
		t.Run(tc.o.String(), func(t *testing.T) {
			fc := clockwork.NewFakeClockAt(time.Date(2024, 6, 1, 12, 0, 30, 0, time.UTC))
			ledger := dstsafe.NewMemoryLedger(fc)
			ev := &eventLog{}
			s := dstsafe.NewScheduler(dstsafe.WithClock(fc), dstsafe.WithLedger(ledger), dstsafe.WithLogger(quiet()),
				dstsafe.WithWakeInterval(0), dstsafe.WithObserver(ev))
			job := newBlockingJob()
			require.NoError(t, s.Add("sync", mustCron(t, "* * * * *", dstsafe.WithLocation(zone(t, "America/Chicago"))), job.run,
				dstsafe.WithOverlap(tc.o), dstsafe.WithLease(time.Hour, 0), dstsafe.WithRetry(dstsafe.RetryPolicy{MaxAttempts: 3, Failed: true}, 0)))
			h := startRun(t, s)
			h.advanceTo(fc, time.Date(2024, 6, 1, 12, 1, 0, 0, time.UTC))
			require.Equal(t, p1, recv(t, job.started).Period)
			for i, p := range []string{p2, p3} {
				h.advanceTo(fc, time.Date(2024, 6, 1, 12, 2+i, 0, 0, time.UTC)) // the run before is still going
				switch tc.o {
				case dstsafe.OverlapSkip:
					h.waitFor(func() bool { return ev.has(event.Skipped, p) })
				case dstsafe.OverlapAllow:
					require.Equal(t, p, recv(t, job.started).Period)
				case dstsafe.OverlapCancelRunning:
					require.ErrorIs(t, recv(t, job.causes), dstsafe.ErrOverlapCancelled)
					require.Equal(t, p, recv(t, job.started).Period, "the newer period starts once the cancelled one returned")
				case dstsafe.OverlapQueue, dstsafe.OverlapBufferOne:
					// The planner emits event.Due, then ends (or records the
					// skip, then ends).
					h.waitFor(func() bool { return ev.has(event.Due, p) })
					if tc.o == dstsafe.OverlapBufferOne && p == p3 {
						h.waitFor(func() bool { return ev.has(event.Skipped, p) })
						break // skipped: one waits already
					}
					_, err := ledger.Get(context.Background(), "sync", p)
					require.ErrorIs(t, err, dstsafe.ErrNotFound, "waiting, not claimed yet")
				}
			}
			switch tc.o {
			case dstsafe.OverlapSkip, dstsafe.OverlapCancelRunning:
				job.release <- nil
			case dstsafe.OverlapAllow:
				for range 3 {
					job.release <- nil
				}
			case dstsafe.OverlapQueue:
				job.release <- nil
				require.Equal(t, p2, recv(t, job.started).Period)
				job.release <- nil
				require.Equal(t, p3, recv(t, job.started).Period)
				job.release <- nil
			case dstsafe.OverlapBufferOne:
				job.release <- nil
				require.Equal(t, p2, recv(t, job.started).Period)
				job.release <- nil
			}
			h.settle(fc.Now())
			require.Empty(t, job.started, "a run the policy should not have started")
			for p, want := range tc.want {
				rec, err := ledger.Get(context.Background(), "sync", p)
				require.NoError(t, err)
				require.Equal(t, want, rec.State, p)
				switch want {
				case dstsafe.StateSkipped:
					require.Equal(t, "overlap: previous run still running", rec.Reason)
				case dstsafe.StateFailed:
					require.Equal(t, cancelled, rec.Reason)
					require.Equal(t, 1, rec.Attempt, "a cancelled run is not retried")
				}
			}
		})
	}
}

// WithTimeout cancels the job's context on the scheduler's clock, with
// ErrJobTimeout as the cause, and the run is recorded as failed.
func TestJobTimeout(t *testing.T) {
	fc := clockwork.NewFakeClockAt(time.Date(2024, 6, 1, 12, 0, 30, 0, time.UTC))
	ledger := dstsafe.NewMemoryLedger(fc)
	s := dstsafe.NewScheduler(dstsafe.WithClock(fc), dstsafe.WithLedger(ledger), dstsafe.WithLogger(quiet()), dstsafe.WithWakeInterval(0))
	job := newBlockingJob()
	require.NoError(t, s.Add("export", mustCron(t, "1 12 * * *"), job.run, dstsafe.WithTimeout(10*time.Second), dstsafe.WithLease(time.Hour, 0)))
	h := startRun(t, s)
	fc.Advance(30 * time.Second)
	r := recv(t, job.started)
	require.NoError(t, fc.BlockUntilContext(context.Background(), 2)) // the loop's timer, and the one the heartbeat and the timeout share
	fc.Advance(10 * time.Second)
	require.ErrorIs(t, recv(t, job.causes), dstsafe.ErrJobTimeout)
	h.settle(fc.Now())
	rec, err := ledger.Get(context.Background(), "export", r.Period)
	require.NoError(t, err)
	require.Equal(t, dstsafe.StateFailed, rec.State)
}

// gatedLedger is the real MemoryLedger with a gate in front of Heartbeat,
// so a test can take a claim over between a heartbeat timer firing and the
// heartbeat reaching the ledger: the moment a stalled process loses its
// lease to another.
type gatedLedger struct {
	*dstsafe.MemoryLedger
	entered chan struct{}
	gate    chan struct{}
}

func (g *gatedLedger) Heartbeat(ctx context.Context, job, period string, token int64, lease time.Duration) (dstsafe.Record, error) {
	g.entered <- struct{}{}
	<-g.gate
	return g.MemoryLedger.Heartbeat(ctx, job, period, token, lease)
}

// A run whose process stalls past its lease is taken over by another
// (retry policy Abandoned): its next heartbeat gets ErrLeaseLost, the job's
// context is cancelled with that cause, and its late Finish is refused, so
// the record stays the new holder's.
func TestLeaseLostCancelsJob(t *testing.T) {
	fc := clockwork.NewFakeClockAt(time.Date(2024, 6, 1, 12, 0, 30, 0, time.UTC))
	ledger := &gatedLedger{dstsafe.NewMemoryLedger(fc), make(chan struct{}, 1), make(chan struct{})}
	ev := &eventLog{}
	s := dstsafe.NewScheduler(dstsafe.WithClock(fc), dstsafe.WithLedger(ledger), dstsafe.WithLogger(quiet()), dstsafe.WithWakeInterval(0),
		dstsafe.WithOwner("a"), dstsafe.WithObserver(ev))
	job := newBlockingJob()
	require.NoError(t, s.Add("export", mustCron(t, "1 12 * * *"), job.run, dstsafe.WithLease(30*time.Second, 20*time.Second)))
	h := startRun(t, s)
	fc.Advance(30 * time.Second)
	r := recv(t, job.started)
	require.NoError(t, fc.BlockUntilContext(context.Background(), 2)) // the loop's timer and the leases' one
	fc.Advance(31 * time.Second)                                      // heartbeat due at 20 s; the lease ran out at 30 s
	recv(t, ledger.entered)

	taken, err := ledger.Claim(context.Background(), dstsafe.ClaimRequest{
		Job: "export", Period: r.Period, Owner: "b", Retry: dstsafe.RetryPolicy{MaxAttempts: 2, Abandoned: true},
	})
	require.NoError(t, err)
	close(ledger.gate)
	require.ErrorIs(t, recv(t, job.causes), dstsafe.ErrLeaseLost)
	h.settle(fc.Now())

	rec, err := ledger.Get(context.Background(), "export", r.Period)
	require.NoError(t, err)
	require.Equal(t, dstsafe.StateRunning, rec.State)
	require.Equal(t, "b", rec.Owner)
	require.Equal(t, taken.Token, rec.Token)
	// The attempt ends with the lost lease: its outcome is not recorded.
	require.Equal(t, []event.Type{event.Due, event.Claimed, event.Started, event.LeaseLost},
		ev.types("export", r.Period))
	for _, e := range ev.all() {
		if e.Type == event.LeaseLost {
			require.ErrorIs(t, e.Err, dstsafe.ErrLeaseLost)
		}
	}
}

// Run drains on shutdown: a job that finishes within the drain timeout is
// recorded and Run returns nil; one that does not makes Run return
// ErrDrainTimeout with the job's context cancelled (cause ErrDrainTimeout);
// a job that then returns still has its outcome recorded (one that never
// returns stops heartbeating, so its claim lapses to abandoned).
func TestShutdownDrain(t *testing.T) {
	for _, finishes := range []bool{true, false} {
		name := map[bool]string{true: "job finishes", false: "drain timeout"}[finishes]
		t.Run(name, func(t *testing.T) {
			fc := clockwork.NewFakeClockAt(time.Date(2024, 6, 1, 12, 0, 30, 0, time.UTC))
			ledger := dstsafe.NewMemoryLedger(fc)
			s := dstsafe.NewScheduler(dstsafe.WithClock(fc), dstsafe.WithLedger(ledger), dstsafe.WithLogger(quiet()), dstsafe.WithWakeInterval(0), dstsafe.WithDrainTimeout(10*time.Second))
			job := newBlockingJob()
			require.NoError(t, s.Add("export", mustCron(t, "1 12 * * *"), job.run, dstsafe.WithLease(time.Minute, 20*time.Second)))
			h, cancel := traceRun(t, s)
			done := h.done
			require.NoError(t, fc.BlockUntilContext(context.Background(), 1))
			fc.Advance(30 * time.Second)
			r := recv(t, job.started)
			require.NoError(t, fc.BlockUntilContext(context.Background(), 2)) // heartbeat + loop
			cancel()
			// Run waits on its drain timer: the earliest wake now (the
			// keeper's heartbeat is at 20 s; the job, busy, waits on no
			// clock). Counting parks would also count the keeper's.
			drainAt := fc.Now().Add(10 * time.Second)
			h.waitFor(func() bool {
				_, next, _, _ := h.idle(time.Time{})
				return next.Equal(drainAt)
			})
			if finishes {
				job.release <- nil
				require.NoError(t, recv(t, done))
				rec, err := ledger.Get(context.Background(), "export", r.Period)
				require.NoError(t, err)
				require.Equal(t, dstsafe.StateSucceeded, rec.State)
				return
			}
			fc.Advance(10 * time.Second) // heartbeat at 20 s never comes: drain ends at 10 s
			require.ErrorIs(t, recv(t, done), dstsafe.ErrDrainTimeout)
			require.ErrorIs(t, recv(t, job.causes), dstsafe.ErrDrainTimeout)
			h.settle(fc.Now())
			// The job honoured its context, so its outcome is still recorded.
			rec, err := ledger.Get(context.Background(), "export", r.Period)
			require.NoError(t, err)
			require.Equal(t, dstsafe.StateFailed, rec.State)
			require.NotEmpty(t, rec.Reason)
		})
	}
}

// The overlap policies across the 2024-11-03 fold, the clock moved by
// hand: a half-hourly job whose every run outlasts the next period sees
// 01:00 and 01:30 twice (CDT, then CST). CancelRunning cancels each run
// for the next, both readings included, and the last one runs to the end.
// BufferOne lets 01:30 CDT wait behind 01:00 CDT; a Pause while it waits
// makes it skip ("paused") once 01:00 CDT returns, and the readings after
// it come due paused. The periods are the oracle's.
func TestOverlapAcrossTheFold(t *testing.T) {
	chicago := zone(t, "America/Chicago")
	start := time.Date(2024, 11, 3, 5, 45, 0, 0, time.UTC) // 00:45 CDT
	want := oracleFires(t, "America/Chicago", every(30), periodicPolicy, start, start.Add(150*time.Minute))
	require.Len(t, want, 5) // 01:00, 01:30 CDT, 01:00, 01:30 CST, 02:00 CST
	require.Equal(t, "2024-11-03T01:00:00;fold=1", want[2].Period)
	for _, o := range []dstsafe.Overlap{dstsafe.OverlapCancelRunning, dstsafe.OverlapBufferOne} {
		t.Run(o.String(), func(t *testing.T) {
			fc := clockwork.NewFakeClockAt(start)
			ledger := dstsafe.NewMemoryLedger(fc)
			ev := &eventLog{}
			s := dstsafe.NewScheduler(dstsafe.WithClock(fc), dstsafe.WithLedger(ledger), dstsafe.WithLogger(quiet()),
				dstsafe.WithWakeInterval(0), dstsafe.WithObserver(ev))
			job := newBlockingJob()
			require.NoError(t, s.Add("sync", mustCron(t, "*/30 * * * *", dstsafe.WithLocation(chicago)), job.run,
				dstsafe.WithOverlap(o), dstsafe.WithLease(24*time.Hour, 0)))
			h := startRun(t, s)
			for i, f := range want {
				h.advanceTo(fc, fireAt(f))
				switch {
				case o == dstsafe.OverlapCancelRunning:
					if i > 0 {
						require.ErrorIs(t, recv(t, job.causes), dstsafe.ErrOverlapCancelled)
					}
					require.Equal(t, f.Period, recv(t, job.started).Period)
				case i == 0:
					require.Equal(t, f.Period, recv(t, job.started).Period)
				case i == 1:
					h.waitFor(func() bool { return ev.has(event.Due, f.Period) })
					require.NoError(t, s.Pause(context.Background(), "sync", "freeze"))
				default:
					h.waitFor(func() bool { return ev.has(event.Skipped, f.Period) })
				}
			}
			job.release <- nil
			h.settle(fc.Now())
			require.Empty(t, job.started)
			recs := records(t, ledger, "sync")
			require.Len(t, recs, len(want))
			for i, f := range want {
				r := recs[f.Period]
				switch {
				case o == dstsafe.OverlapCancelRunning && i < len(want)-1:
					require.Equal(t, dstsafe.StateFailed, r.State, f.Period)
				case o == dstsafe.OverlapCancelRunning, i == 0:
					require.Equal(t, dstsafe.StateSucceeded, r.State, f.Period)
				default: // 01:30 CDT waited, then the job was paused; the rest came due paused
					require.Equal(t, dstsafe.StateSkipped, r.State, f.Period)
					require.Equal(t, "paused", r.Reason, f.Period)
				}
			}
		})
	}
}

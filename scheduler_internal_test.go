package dstsafe

import (
	"context"
	"io"
	"log/slog"
	"sync"
	"testing"
	"time"

	"github.com/jonboulle/clockwork"
	"github.com/stretchr/testify/require"
)

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
	t      *testing.T
	s      *Scheduler
	sim    *simulation
	cancel context.CancelFunc
	done   chan error
}

func startRun(t *testing.T, s *Scheduler) *harness {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	h := &harness{t: t, s: s, sim: &simulation{}, cancel: cancel, done: make(chan error, 1)}
	go func() { h.done <- s.run1(ctx, h.sim) }()
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
	_, _, n, _ := h.sim.act.idle(time.Time{})
	return n
}

// waitParks waits until the scheduler has parked more than n times.
func (h *harness) waitParks(n uint64) {
	h.t.Helper()
	for {
		_, _, parks, changed := h.sim.act.idle(time.Time{})
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
		_, _, _, changed := h.sim.act.idle(time.Time{})
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

// settle waits until no scheduler goroutine is busy or due at now.
func (h *harness) settle(now time.Time) {
	h.t.Helper()
	for {
		ok, _, _, changed := h.sim.act.idle(now)
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

func pinnedCron(t *testing.T, spec, zone string) *Cron {
	t.Helper()
	c, err := ParseCron(spec, WithLocation(pinned(t, zone)))
	require.NoError(t, err)
	return c
}

func discard() *slog.Logger { return slog.New(slog.NewTextHandler(io.Discard, nil)) }

// A wall clock stepped back an hour right after the 01:30 run (NTP fixing
// a fast clock, a VM restored from a snapshot) makes 01:30 read again; the
// scheduler wakes every minute, sees it, and does not run the period again.
func TestClockSteppedBackNeverRepeats(t *testing.T) {
	fc := clockwork.NewFakeClockAt(time.Date(2024, 6, 1, 6, 0, 0, 0, time.UTC)) // 01:00 CDT
	clock := &steppedClock{fc: fc}
	ledger := NewMemoryLedger(clock)
	s := NewScheduler(WithClock(clock), WithLedger(ledger), WithLogger(discard()), WithWakeInterval(time.Minute))
	var mu sync.Mutex
	var runs []Run
	require.NoError(t, s.Add("billing", pinnedCron(t, "30 1 * * *", "America/Chicago"), func(_ context.Context, r Run) error {
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
	started chan Run
	release chan error
	causes  chan error
}

func newBlockingJob() *blockingJob {
	return &blockingJob{started: make(chan Run, 16), release: make(chan error, 16), causes: make(chan error, 16)}
}

func (b *blockingJob) run(ctx context.Context, r Run) error {
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

// A per-minute job whose 12:01 run is still going when 12:02 comes due:
// Skip records 12:02 as skipped, Queue runs it after 12:01, Allow runs it
// at once.
func TestOverlap(t *testing.T) {
	for _, o := range []Overlap{OverlapSkip, OverlapQueue, OverlapAllow} {
		t.Run(o.String(), func(t *testing.T) {
			fc := clockwork.NewFakeClockAt(time.Date(2024, 6, 1, 12, 0, 30, 0, time.UTC))
			ledger := NewMemoryLedger(fc)
			s := NewScheduler(WithClock(fc), WithLedger(ledger), WithLogger(discard()), WithWakeInterval(0))
			job := newBlockingJob()
			require.NoError(t, s.Add("sync", pinnedCron(t, "* * * * *", "America/Chicago"), job.run, WithOverlap(o), WithLease(time.Hour, 0)))
			h := startRun(t, s)
			before := h.parks()
			fc.Advance(30 * time.Second) // 12:01
			first := recv(t, job.started)
			require.Equal(t, "2024-06-01T07:01:00", first.Period)
			h.waitParks(before)
			before = h.parks()
			fc.Advance(time.Minute) // 12:02, 12:01 still running
			h.waitParks(before)

			var rec Record
			var err error
			switch o {
			case OverlapSkip:
				// The 12:02 planner records the skip (a claim, then Finish)
				// in its own goroutine.
				h.waitFor(func() bool {
					rec, err = ledger.Get(context.Background(), "sync", "2024-06-01T07:02:00")
					return err == nil && rec.State != StateRunning
				})
				require.Equal(t, StateSkipped, rec.State)
			case OverlapQueue:
				h.waitFor(func() bool {
					s.mu.Lock()
					defer s.mu.Unlock()
					return len(s.jobs["sync"].queued) == 1
				})
				_, err = ledger.Get(context.Background(), "sync", "2024-06-01T07:02:00")
				require.ErrorIs(t, err, ErrNotFound, "queued, not claimed yet")
			case OverlapAllow:
				require.Equal(t, "2024-06-01T07:02:00", recv(t, job.started).Period)
			}
			job.release <- nil
			if o == OverlapQueue {
				require.Equal(t, "2024-06-01T07:02:00", recv(t, job.started).Period)
			}
			if o != OverlapSkip {
				job.release <- nil
			}
			h.settle(fc.Now())
			rec, err = ledger.Get(context.Background(), "sync", "2024-06-01T07:02:00")
			require.NoError(t, err)
			want := StateSucceeded
			if o == OverlapSkip {
				want = StateSkipped
			}
			require.Equal(t, want, rec.State)
		})
	}
}

// WithTimeout cancels the job's context on the scheduler's clock, with
// ErrJobTimeout as the cause, and the run is recorded as failed.
func TestJobTimeout(t *testing.T) {
	fc := clockwork.NewFakeClockAt(time.Date(2024, 6, 1, 12, 0, 30, 0, time.UTC))
	ledger := NewMemoryLedger(fc)
	s := NewScheduler(WithClock(fc), WithLedger(ledger), WithLogger(discard()), WithWakeInterval(0))
	job := newBlockingJob()
	require.NoError(t, s.Add("export", mustParse(t, "1 12 * * *"), job.run, WithTimeout(10*time.Second), WithLease(time.Hour, 0)))
	h := startRun(t, s)
	fc.Advance(30 * time.Second)
	r := recv(t, job.started)
	require.NoError(t, fc.BlockUntilContext(context.Background(), 3)) // loop, heartbeat and timeout timers
	fc.Advance(10 * time.Second)
	require.ErrorIs(t, recv(t, job.causes), ErrJobTimeout)
	h.settle(fc.Now())
	rec, err := ledger.Get(context.Background(), "export", r.Period)
	require.NoError(t, err)
	require.Equal(t, StateFailed, rec.State)
}

func mustParse(t *testing.T, spec string) *Cron {
	t.Helper()
	c, err := ParseCron(spec)
	require.NoError(t, err)
	return c
}

// gatedLedger is the real MemoryLedger with a gate in front of Heartbeat,
// so a test can take a claim over between a heartbeat timer firing and the
// heartbeat reaching the ledger: the moment a stalled process loses its
// lease to another.
type gatedLedger struct {
	*MemoryLedger
	entered chan struct{}
	gate    chan struct{}
}

func (g *gatedLedger) Heartbeat(ctx context.Context, job, period string, token int64, lease time.Duration) (Record, error) {
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
	ledger := &gatedLedger{NewMemoryLedger(fc), make(chan struct{}, 1), make(chan struct{})}
	s := NewScheduler(WithClock(fc), WithLedger(ledger), WithLogger(discard()), WithWakeInterval(0), WithOwner("a"))
	job := newBlockingJob()
	require.NoError(t, s.Add("export", mustParse(t, "1 12 * * *"), job.run, WithLease(30*time.Second, 20*time.Second)))
	h := startRun(t, s)
	fc.Advance(30 * time.Second)
	r := recv(t, job.started)
	require.NoError(t, fc.BlockUntilContext(context.Background(), 2)) // loop and heartbeat timers
	fc.Advance(31 * time.Second)                                      // heartbeat due at 20 s; the lease ran out at 30 s
	recv(t, ledger.entered)

	taken, err := ledger.Claim(context.Background(), ClaimRequest{
		Job: "export", Period: r.Period, Owner: "b", Retry: RetryPolicy{MaxAttempts: 2, Abandoned: true},
	})
	require.NoError(t, err)
	close(ledger.gate)
	require.ErrorIs(t, recv(t, job.causes), ErrLeaseLost)
	h.settle(fc.Now())

	rec, err := ledger.Get(context.Background(), "export", r.Period)
	require.NoError(t, err)
	require.Equal(t, StateRunning, rec.State)
	require.Equal(t, "b", rec.Owner)
	require.Equal(t, taken.Token, rec.Token)
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
			ledger := NewMemoryLedger(fc)
			s := NewScheduler(WithClock(fc), WithLedger(ledger), WithLogger(discard()), WithWakeInterval(0), WithDrainTimeout(10*time.Second))
			job := newBlockingJob()
			require.NoError(t, s.Add("export", mustParse(t, "1 12 * * *"), job.run, WithLease(time.Minute, 20*time.Second)))
			ctx, cancel := context.WithCancel(context.Background())
			done := make(chan error, 1)
			h := &harness{t: t, s: s, sim: &simulation{}}
			go func() { done <- s.run1(ctx, h.sim) }()
			require.NoError(t, fc.BlockUntilContext(context.Background(), 1))
			fc.Advance(30 * time.Second)
			r := recv(t, job.started)
			require.NoError(t, fc.BlockUntilContext(context.Background(), 2)) // heartbeat + loop
			before := h.parks()
			cancel()
			h.waitParks(before) // Run waits on its drain timer
			if finishes {
				job.release <- nil
				require.NoError(t, recv(t, done))
				rec, err := ledger.Get(context.Background(), "export", r.Period)
				require.NoError(t, err)
				require.Equal(t, StateSucceeded, rec.State)
				return
			}
			fc.Advance(10 * time.Second) // heartbeat at 20 s never comes: drain ends at 10 s
			require.ErrorIs(t, recv(t, done), ErrDrainTimeout)
			require.ErrorIs(t, recv(t, job.causes), ErrDrainTimeout)
			h.settle(fc.Now())
			// The job honoured its context, so its outcome is still recorded.
			rec, err := ledger.Get(context.Background(), "export", r.Period)
			require.NoError(t, err)
			require.Equal(t, StateFailed, rec.State)
			require.NotEmpty(t, rec.Reason)
		})
	}
}

package dstsafe

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/jonboulle/clockwork"
)

// Fire is one run a Scheduler started under Simulate: the Run the job
// function was given (Job, Period, Wall, Kind, Due, RunDate, Attempt,
// Token), when it started and what it returned.
type Fire struct {
	Run
	// Started is the fake clock's reading when the run started: Due, or up
	// to one step later in fixed-step mode, or later still for a catch-up
	// or a retry.
	Started time.Time
	// Err is what the job returned.
	Err error
}

// String formats the fire with offsets, as the dstsafetest failure
// messages list it: "billing 2024-11-03T01:30:00 due 2024-11-03T01:30:00-05:00 (fold) run_date 2024-11-03".
func (f Fire) String() string {
	s := fmt.Sprintf("%s %s due %s", f.Job, f.Period, f.Due.Format(time.RFC3339Nano))
	if f.Kind != Unique && f.Kind != 0 {
		s += " (" + f.Kind.String() + ")"
	}
	if !f.Started.Equal(f.Due) && !f.Started.IsZero() {
		s += " started " + f.Started.In(f.Due.Location()).Format(time.RFC3339Nano)
	}
	s += " run_date " + f.RunDate.String()
	if f.Attempt > 1 {
		s += fmt.Sprintf(" attempt %d", f.Attempt)
	}
	if f.Err != nil {
		s += " error: " + f.Err.Error()
	}
	return s
}

// SimulateOption configures Simulate. A nil SimulateOption is ignored.
type SimulateOption func(*simConfig)

type simConfig struct {
	step time.Duration
}

// WithStep makes Simulate advance the clock in fixed steps of d, like a
// polling loop that wakes every d (the postmortem's worker woke every 20 s),
// instead of jumping straight to the next timer. Runs then start up to d
// after they are due. Zero (the default) means jump mode.
func WithStep(d time.Duration) SimulateOption {
	return func(c *simConfig) { c.step = d }
}

// Simulate runs s — the same Scheduler.Run a service calls — on its fake
// clock from the clock's current instant for d, and returns every run it
// started (RunNow calls made meanwhile included), ordered by the instant
// they started, then by job name. s must have been built
// WithClock(fc) for a *clockwork.FakeClock fc (else ErrInvalidArgument) and
// must not be running (else ErrInvalidArgument).
//
// In jump mode (the default) the clock moves straight to the next instant
// the scheduler waits for, so a century of a daily job takes well under a
// second. WithStep moves it in fixed steps instead. Either way Simulate
// advances the clock only when every scheduler goroutine is asleep on it, so
// the result is deterministic, with no real sleep. At the end the clock
// reads start+d, Run has returned and no goroutine is left behind. It also
// works inside a testing/synctest bubble.
//
// The window is closed at both ends: a run due at the start instant or at
// start+d runs. Jobs resume after their latest ledger record, so a
// scheduler whose ledger already has records catches up by its policy.
//
// Jobs under Simulate should return without waiting on the fake clock (only
// Simulate moves it, and only once they have returned). Simulate ignores
// WithWakeInterval. If ctx ends early Simulate stops and returns the fires
// so far with an error wrapping ctx's that says where it stopped (the
// clock's instant, the end, the number of runs); its Run then cancels the
// jobs still running at once instead of draining them on a clock nobody
// moves any more, waits for them to return (a job under Simulate returns
// when its context ends), and leaves the runs that cancel cut short out
// of the fires (a run that ended on its own is in them, even one that
// ended ctx).
func Simulate(ctx context.Context, s *Scheduler, d time.Duration, opts ...SimulateOption) ([]Fire, error) {
	fc, ok := s.clock.(*clockwork.FakeClock)
	if !ok {
		return nil, errNeedFakeClock
	}
	var cfg simConfig
	for _, o := range opts {
		if o != nil {
			o(&cfg)
		}
	}
	if d < 0 || cfg.step < 0 {
		return nil, fmt.Errorf("%w: duration %v, step %v", errInvalidSimulation, d, cfg.step)
	}

	rec := &recorder{}
	sim := &simulation{record: rec.add, fakeTime: true, awaitCut: true}
	end := fc.Now().Add(d)
	finished := make(chan struct{})
	var stopErr error
	a := &sim.act

	// drive runs in whichever scheduler goroutine made the scheduler idle
	// (see activity.driver): it advances the fake clock, step by step or to
	// the next wake instant, for as long as doing so wakes nobody, then
	// hands back. At the end instant, or when ctx ends, it reports to
	// Simulate and stops for good.
	drive := func() {
		for {
			now := fc.Now()
			a.mu.Lock()
			idle, next := a.idleLocked(now)
			err := ctx.Err()
			switch {
			case err != nil || !now.Before(end) && idle:
				if err != nil {
					stopErr = err
				}
				a.driver, a.driving = nil, false
				a.mu.Unlock()
				close(finished)
				return
			case !idle:
				a.driving = false
				a.mu.Unlock()
				return
			}
			a.mu.Unlock()
			switch {
			case cfg.step > 0:
				fc.Advance(min(cfg.step, end.Sub(now)))
			case next.IsZero() || next.After(end):
				fc.Advance(end.Sub(now))
			default:
				fc.Advance(next.Sub(now))
			}
		}
	}
	a.mu.Lock()
	a.driver, a.driving = drive, false
	a.mu.Unlock()

	runCtx, cancel := context.WithCancel(context.WithoutCancel(ctx))
	defer cancel()
	var runErr error
	runDone := make(chan struct{})
	go func() {
		runErr = s.run1(runCtx, sim)
		close(runDone)
	}()

	var err error
	select {
	case <-finished:
		err = stopErr
	case <-runDone:
		err = runErr
	case <-ctx.Done():
		err = ctx.Err()
	}
	a.mu.Lock()
	a.driver = nil
	a.mu.Unlock()
	if ctx.Err() != nil {
		sim.gaveUp.Store(true)
	}
	cancel()
	<-runDone
	if err == nil {
		err = runErr
	}
	if errors.Is(runErr, errRunning) {
		return nil, runErr
	}
	fires := rec.fires()
	if ctxErr := ctx.Err(); ctxErr != nil && errors.Is(err, ctxErr) {
		// Where it was stuck: a test bounding the simulation with a
		// context sees how far the clock got and what had run.
		err = fmt.Errorf("dstsafe: Simulate stopped at %s (end %s) after %d runs: %w",
			fc.Now().UTC().Format(time.RFC3339Nano), end.UTC().Format(time.RFC3339), len(fires), err)
	}
	return fires, err
}

// recorder collects fires in chunks, so a century of runs is not copied
// over and over as one slice grows.
type recorder struct {
	mu     sync.Mutex
	chunks [][]Fire
	n      int
}

func (r *recorder) add(f Fire) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if len(r.chunks) == 0 || len(r.chunks[len(r.chunks)-1]) == cap(r.chunks[len(r.chunks)-1]) {
		r.chunks = append(r.chunks, make([]Fire, 0, 1024))
	}
	last := &r.chunks[len(r.chunks)-1]
	*last = append(*last, f)
	r.n++
}

// fires returns the fires by start instant, then job name, due instant
// and attempt: runs that start together finish in an order the Go
// scheduler picks, and a simulation's result must not depend on it.
func (r *recorder) fires() []Fire {
	r.mu.Lock()
	defer r.mu.Unlock()
	out := make([]Fire, 0, r.n)
	for _, c := range r.chunks {
		out = append(out, c...)
	}
	slices.SortStableFunc(out, func(a, b Fire) int {
		if c := a.Started.Compare(b.Started); c != 0 {
			return c
		}
		if c := strings.Compare(a.Job, b.Job); c != 0 {
			return c
		}
		if c := a.Due.Compare(b.Due); c != 0 {
			return c
		}
		return cmp.Compare(a.Attempt, b.Attempt)
	})
	return out
}

// SimulateTicks calls tick with every instant from start to end inclusive,
// step apart, in start's location: the loop a polling scheduler runs
// ("every 20 s, is it 01:30 in Chicago?"), compressed into no time. It
// exists to reproduce bugs of such loops in tests; the 2024-11-03 billing
// incident is a ten-line test with it (see the example). It runs tick in
// the caller's goroutine and works inside a testing/synctest bubble.
// It panics if step is not positive or tick is nil.
func SimulateTicks(start, end time.Time, step time.Duration, tick func(now time.Time)) {
	if step <= 0 {
		panic("dstsafe: SimulateTicks with non-positive step")
	}
	if tick == nil {
		panic("dstsafe: SimulateTicks with nil tick")
	}
	fc := clockwork.NewFakeClockAt(start)
	for now := fc.Now(); !now.After(end); now = fc.Now() {
		tick(now)
		fc.Advance(step)
	}
}

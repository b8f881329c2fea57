package dstsafe

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"time"

	"github.com/jonboulle/clockwork"
)

// Fire is one run a Scheduler started under Simulate.
type Fire struct {
	Job, Period string
	// Wall is the wall reading the run was scheduled for; Kind how it
	// resolved (a Gap run is due after the gap, at Due).
	Wall Wall
	Kind Kind
	// Due is the instant the run was due, in the schedule's zone.
	Due time.Time
	// Started is the fake clock's reading when the run started: Due, or up
	// to one step later in fixed-step mode, or later still for a catch-up.
	Started time.Time
	// RunDate is the run's business date (Run.RunDate).
	RunDate Date
	// Attempt is Run.Attempt; Err what the job returned.
	Attempt int
	Err     error
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

// SimulateOption configures Simulate.
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

var (
	// ErrNeedFakeClock: Simulate was given a Scheduler whose clock is not a
	// *clockwork.FakeClock.
	ErrNeedFakeClock = errors.New("dstsafe: Simulate needs a scheduler on a *clockwork.FakeClock")
	// ErrInvalidSimulation: a negative duration or step.
	ErrInvalidSimulation = errors.New("dstsafe: invalid simulation")
)

// Simulate runs s — the same Scheduler.Run a service calls — on its fake
// clock from the clock's current instant for d, and returns every run it
// started, in the order they finished. s must have been built
// WithClock(fc) for a *clockwork.FakeClock fc (else ErrNeedFakeClock) and
// must not be running (else ErrRunning).
//
// In jump mode (the default) the clock moves straight to the next instant
// the scheduler waits for, so a century of a daily job takes well under a
// second. WithStep moves it in fixed steps instead. Either way Simulate
// advances the clock only when every scheduler goroutine is asleep on it, so
// the result is deterministic, with no real sleep. At the end the clock
// reads start+d, Run has returned and no goroutine is left behind. It also
// works inside a testing/synctest bubble.
//
// Jobs under Simulate should return without waiting on the fake clock (only
// Simulate moves it, and only once they have returned). Simulate ignores
// WithWakeInterval. If ctx ends early Simulate stops and returns the fires
// so far with ctx's error.
func Simulate(ctx context.Context, s *Scheduler, d time.Duration, opts ...SimulateOption) ([]Fire, error) {
	fc, ok := s.clock.(*clockwork.FakeClock)
	if !ok {
		return nil, ErrNeedFakeClock
	}
	var cfg simConfig
	for _, o := range opts {
		o(&cfg)
	}
	if d < 0 || cfg.step < 0 {
		return nil, fmt.Errorf("%w: duration %v, step %v", ErrInvalidSimulation, d, cfg.step)
	}

	var mu sync.Mutex
	var fires []Fire
	s.mu.Lock()
	if s.running {
		s.mu.Unlock()
		return nil, ErrRunning
	}
	s.simulating = true
	s.record = func(f Fire) {
		mu.Lock()
		fires = append(fires, f)
		mu.Unlock()
	}
	s.mu.Unlock()
	_, _, parks0, _ := s.act.idle(fc.Now())
	defer func() {
		s.mu.Lock()
		s.simulating, s.record = false, nil
		s.mu.Unlock()
	}()

	end := fc.Now().Add(d)
	runCtx, cancel := context.WithCancel(ctx)
	defer cancel()
	var runErr error
	runDone := make(chan struct{})
	go func() {
		runErr = s.Run(runCtx)
		close(runDone)
	}()

	// wait returns once every scheduler goroutine sleeps until after the
	// clock's instant, and reports the earliest instant one waits for.
	wait := func() (time.Time, error) {
		for {
			idle, next, parks, changed := s.act.idle(fc.Now())
			if idle && parks > parks0 {
				return next, nil
			}
			select {
			case <-changed:
			case <-runDone:
				return time.Time{}, runErr
			case <-ctx.Done():
				return time.Time{}, ctx.Err()
			}
		}
	}

	err := func() error {
		next, err := wait()
		for err == nil {
			now := fc.Now()
			if !now.Before(end) {
				return nil
			}
			switch {
			case cfg.step > 0:
				fc.Advance(min(cfg.step, end.Sub(now)))
			case next.IsZero() || next.After(end):
				fc.Advance(end.Sub(now))
			default:
				fc.Advance(next.Sub(now))
			}
			next, err = wait()
		}
		return err
	}()
	cancel()
	<-runDone
	mu.Lock()
	defer mu.Unlock()
	if err == nil {
		err = runErr
	}
	return fires, err
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

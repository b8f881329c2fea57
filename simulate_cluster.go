package dstsafe

import (
	"context"
	"fmt"
	"sync"
	"time"

	"github.com/jonboulle/clockwork"

	"github.com/dstsafe/dstsafe/internal/simlink"
)

// clusterSim drives several Schedulers, each on its own fake clock (an
// offset and a drift from true time), on one true time line: the cluster
// simulator of package dstsafetest, reached through internal/simlink.
// Every member's goroutines are counted in one activity, their wake
// instants mapped to true time, so the driver moves time on only when all
// of them are idle, exactly as Simulate does for one Scheduler.
type clusterSim struct {
	truth *clockwork.FakeClock
	act   activity

	mu      sync.Mutex
	members []*clusterMember
}

type clusterMember struct {
	m       simlink.Member[Fire]
	owner   string
	sim     *simulation
	cancel  context.CancelFunc
	stopped chan struct{} // closed by stop
	once    sync.Once
	done    chan struct{}
	err     error
	// given is closed when Run gave up waiting for this member (its
	// goroutines stayed busy after it was stopped, until Run's context
	// ended), with givenErr saying so: Wait returns it.
	given    chan struct{}
	givenErr error
}

func init() {
	simlink.Set(func(truth *clockwork.FakeClock) simlink.Driver[*Scheduler, Fire] {
		return &clusterSim{truth: truth}
	})
}

func (c *clusterSim) Start(s *Scheduler, m simlink.Member[Fire]) simlink.Handle {
	sim := &simulation{record: m.Record, fakeTime: true, shared: &c.act, toTrue: m.True}
	ctx, cancel := context.WithCancel(context.Background())
	cm := &clusterMember{m: m, owner: s.owner, sim: sim, cancel: cancel, stopped: make(chan struct{}),
		done: make(chan struct{}), given: make(chan struct{})}
	c.mu.Lock()
	c.members = append(c.members, cm)
	c.mu.Unlock()
	// Counted busy from now: the driver must not move time before the
	// new Run has looked at its clock (Run's own begin takes it over).
	sim.begin()
	sim.held.Store(true)
	go func() {
		cm.err = s.run1(ctx, sim)
		if sim.held.CompareAndSwap(true, false) { // Run returned before its begin (ErrRunning)
			sim.end()
		}
		// What its goroutines still hold (a poke its loop never read, a
		// job still asleep after the drain) must not stop the others.
		sim.detach()
		close(cm.done)
	}()
	return cm
}

func (cm *clusterMember) Stop() {
	cm.once.Do(func() {
		close(cm.stopped)
		cm.cancel()
	})
}

func (cm *clusterMember) Wait() error {
	select {
	case <-cm.done:
		return cm.err
	case <-cm.given:
		return cm.givenErr
	}
}

func (cm *clusterMember) Sleep(ctx context.Context, d time.Duration) bool {
	if d <= 0 {
		return true
	}
	now := cm.m.Clock.Now()
	t := cm.m.Clock.NewTimer(d)
	defer t.Stop()
	id := cm.sim.park(now.Add(d))
	defer cm.sim.unpark(id)
	select {
	case <-t.Chan():
		return true
	case <-ctx.Done():
	case <-cm.stopped:
	}
	return false
}

// advance sets the true clock to at and every member's clock to its
// reading of it.
func (c *clusterSim) advance(at time.Time) {
	if d := at.Sub(c.truth.Now()); d > 0 {
		c.truth.Advance(d)
	}
	c.mu.Lock()
	ms := c.members
	c.mu.Unlock()
	seen := map[*clockwork.FakeClock]bool{}
	for _, cm := range ms {
		if seen[cm.m.Clock] {
			continue // a restarted replica keeps its clock
		}
		seen[cm.m.Clock] = true
		if d := cm.m.Local(at).Sub(cm.m.Clock.Now()); d > 0 {
			cm.m.Clock.Advance(d)
		}
	}
}

func (c *clusterSim) Run(ctx context.Context, end time.Time, mark func(time.Time) time.Time, at func(time.Time)) error {
	finished := make(chan struct{})
	var stopErr error
	a := &c.act
	drive := func() {
		for {
			now := c.truth.Now()
			a.mu.Lock()
			idle, next := a.idleLocked(now)
			err := ctx.Err()
			if err != nil || !idle {
				if err != nil {
					stopErr = err
					a.driver = nil
					close(finished)
				}
				a.driving = false
				a.mu.Unlock()
				return
			}
			a.mu.Unlock()
			m := mark(now)
			if !m.IsZero() && !m.After(now) {
				at(now) // every member idle; it may start or stop some
				continue
			}
			if !now.Before(end) {
				a.mu.Lock()
				a.driver, a.driving = nil, false
				a.mu.Unlock()
				close(finished)
				return
			}
			target := end
			if !next.IsZero() && next.Before(target) {
				target = next
			}
			if !m.IsZero() && m.Before(target) {
				target = m
			}
			c.advance(target)
		}
	}
	a.mu.Lock()
	a.driver, a.driving = drive, false
	a.kickLocked() // everyone may be idle already
	select {
	case <-finished:
	case <-ctx.Done():
		stopErr = ctx.Err()
	}
	a.mu.Lock()
	a.driver = nil
	a.mu.Unlock()
	c.mu.Lock()
	ms := c.members
	c.mu.Unlock()
	for _, cm := range ms {
		if ctx.Err() != nil {
			cm.sim.gaveUp.Store(true) // their drains cancel their jobs at once
		}
		cm.Stop()
	}
	if err := c.drain(ctx, ms); err != nil {
		if stopErr != nil {
			return fmt.Errorf("%w; %w", stopErr, err)
		}
		return err
	}
	return stopErr
}

// drain waits for the stopped members' Runs to return, no longer moving
// time: a stopped member's goroutines wake on its stop, not on the clock
// (a member woken by it is not counted busy until it runs, so moving time
// here would race its drain). Members stopped because ctx ended return at
// once (their drains cancel their jobs and wait for none: gaveUp). Others
// whose goroutines stay busy or asleep (a job ignoring its context, a
// drain waiting on a clock nobody moves) are waited for until ctx ends:
// drain then returns an error wrapping ctx's, a *simlink.StuckError that
// names them and says what the cluster was doing (busy goroutines, the
// instants its sleepers wait for), and their Wait returns it.
func (c *clusterSim) drain(ctx context.Context, ms []*clusterMember) error {
	a := &c.act
	for {
		var left []*clusterMember
		for _, cm := range ms {
			select {
			case <-cm.done:
			default:
				left = append(left, cm)
			}
		}
		if len(left) == 0 {
			return nil
		}
		now := c.truth.Now()
		a.mu.Lock()
		busy, asleep := a.busy, a.wakesLocked()
		if a.changed == nil {
			a.changed = make(chan struct{})
		}
		changed := a.changed
		a.mu.Unlock()
		if ctx.Err() != nil && left[0].sim.gaveUp.Load() {
			// Stopped for ctx: its drain cancels its jobs at once and
			// waits for none of them, so its Run returns.
			<-left[0].done
			continue
		}
		stuck := false
		select {
		case <-changed:
		case <-left[0].done:
		case <-ctx.Done():
			stuck = true
		}
		if stuck {
			err := &simlink.StuckError{At: now, Busy: busy, Wakes: asleep, Err: ctx.Err()}
			for _, cm := range left {
				err.Members = append(err.Members, cm.owner)
			}
			for _, cm := range left {
				cm.givenErr = err
				close(cm.given)
			}
			return err
		}
	}
}

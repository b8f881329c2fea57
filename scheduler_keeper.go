package dstsafe

import (
	"container/heap"
	"context"
	"errors"
	"fmt"
	"sync"
	"time"

	"github.com/jonboulle/clockwork"
)

// keeper keeps the leases of a Scheduler's running attempts: the
// heartbeat that extends each claim every heartbeat interval, and the
// timeout that cancels a job (WithTimeout). All of them share one timer
// on the Scheduler's clock, due at the earliest heartbeat or timeout, and
// one goroutine that waits on it; a heartbeat's ledger call runs in a
// goroutine of its own, so a ledger that hangs delays no other run's
// heartbeat or timeout.
//
// Before, every attempt started a heartbeat goroutine with a timer (and a
// second timer for its timeout): a fifth of the cost of a fire, measured
// with BenchmarkSchedulerScale. On a fake clock the keeper's timer is one
// waiter while any attempt runs, whatever their number, and none while
// none does.
//
// The goroutine runs while Run runs (hold and release) or an attempt is
// registered, and ends when neither is left.
type keeper struct {
	mu      sync.Mutex
	heap    beatHeap
	timer   clockwork.Timer // created at the first attempt, then Reset and Stopped
	armed   time.Time       // the instant timer is set for; zero when stopped or fired
	refs    int             // Run, while it runs, and every registered attempt
	running bool            // the goroutine runs
	wake    chan struct{}   // pokes the goroutine to look at refs (and, under Simulate, at armed)
	// sim is the simulation of the Run whose attempt started the
	// goroutine (nil outside Simulate): the goroutine and its heartbeats
	// count in its activity and park until armed, so the driver stops at
	// every heartbeat instead of moving time past a lease while a claim
	// is kept (a cluster's peers would see it lapse and take it over).
	sim *simulation
}

// beat is a running attempt's lease, as the keeper keeps it.
type beat struct {
	base       context.Context // the job's context before the run's own: when it ends (draining gave up), heartbeats stop
	rs         *runState
	cancel     context.CancelCauseFunc
	cfg        *jobConfig
	job        string
	period     string
	token      int64
	leaseUntil time.Time
	slot       *runSlot // the run slot under WithMaxRuns, or nil

	// Under keeper.mu:
	nextBeat  time.Time // zero while a heartbeat is in flight, or when they stopped
	timeoutAt time.Time // zero without a timeout, or once it passed
	index     int       // in keeper.heap; -1 when out of it
	stopped   bool      // the job returned

	inflight sync.WaitGroup // the heartbeat call in flight, if any
	lost     error          // why a heartbeat found the lease lost, if one did
}

// due is when the keeper next has to act for b; zero for never.
func (b *beat) due() time.Time {
	switch {
	case b.nextBeat.IsZero():
		return b.timeoutAt
	case b.timeoutAt.IsZero() || b.nextBeat.Before(b.timeoutAt):
		return b.nextBeat
	}
	return b.timeoutAt
}

// hold keeps the goroutine alive while Run runs, so that attempts that
// follow each other do not each start one.
func (k *keeper) hold() {
	k.mu.Lock()
	k.refs++
	k.mu.Unlock()
}

// release undoes hold.
func (k *keeper) release() {
	k.mu.Lock()
	k.unrefLocked()
	k.mu.Unlock()
}

func (k *keeper) unrefLocked() {
	k.refs--
	if k.refs == 0 && k.running {
		k.pokeLocked()
	}
}

// pokeLocked wakes the goroutine to look at refs and armed again; under
// Simulate it is counted busy until it has (the poker's count, which
// keepLoop ends). k.mu is held.
func (k *keeper) pokeLocked() {
	k.sim.begin()
	select {
	case k.wake <- struct{}{}:
	default:
		k.sim.end() // a poke is pending already
	}
}

// rearmedLocked pokes the goroutine under Simulate when armed changed
// from another goroutine, so that it parks until the new instant. k.mu
// is held.
func (k *keeper) rearmedLocked(was time.Time) {
	if k.sim != nil && k.running && !k.armed.Equal(was) {
		k.pokeLocked()
	}
}

// keep registers an attempt that starts now: its first heartbeat is due
// a heartbeat interval from now, its timeout (if any) a timeout from now.
func (s *Scheduler) keep(b *beat) {
	k := &s.keeper
	now := s.clock.Now()
	b.nextBeat = now.Add(b.cfg.heartbeat)
	if b.cfg.timeout > 0 {
		b.timeoutAt = now.Add(b.cfg.timeout)
	}
	k.mu.Lock()
	defer k.mu.Unlock()
	k.refs++
	k.push(b)
	was := k.armed
	if k.timer == nil {
		k.timer = s.clock.NewTimer(b.due().Sub(now))
		k.armed = b.due()
		k.wake = make(chan struct{}, 1)
	} else {
		k.rearmLocked(now)
	}
	if !k.running {
		k.running = true
		k.sim = nil
		if b.rs != nil {
			k.sim = b.rs.sim
		}
		k.sim.begin()
		go s.keepLoop(k.timer.Chan())
		return
	}
	k.rearmedLocked(was)
}

// unkeep unregisters b when its job has returned, and waits for a
// heartbeat call in flight: the outcome is recorded after it.
func (s *Scheduler) unkeep(b *beat) {
	k := &s.keeper
	k.mu.Lock()
	b.stopped = true
	if b.index >= 0 {
		was := k.armed
		k.remove(b)
		k.rearmLocked(s.clock.Now())
		k.rearmedLocked(was)
	}
	k.unrefLocked()
	k.mu.Unlock()
	b.inflight.Wait()
}

// rearmLocked sets the timer for the earliest due attempt, or stops it
// when none is left. k.mu is held.
func (k *keeper) rearmLocked(now time.Time) {
	if len(k.heap) == 0 {
		if !k.armed.IsZero() {
			k.timer.Stop()
			k.armed = time.Time{}
		}
		return
	}
	if due := k.heap[0].due(); !due.Equal(k.armed) {
		k.timer.Reset(due.Sub(now))
		k.armed = due
	}
}

// keepLoop is the keeper's goroutine: on each tick of the timer it
// cancels the jobs whose timeout passed and starts the heartbeats that are
// due, then sets the timer for the next; it ends when nothing holds it.
func (s *Scheduler) keepLoop(tick <-chan time.Time) {
	k := &s.keeper
	var timeouts, beats []*beat
	k.mu.Lock()
	sim := k.sim
	k.mu.Unlock()
	for {
		k.mu.Lock()
		armed := k.armed
		k.mu.Unlock()
		id := sim.park(armed)
		select {
		case <-tick:
			sim.unpark(id)
		case <-k.wake:
			sim.unpark(id)
			sim.end() // the poker's count
		}
		now := s.clock.Now()
		k.mu.Lock()
		if k.refs == 0 {
			k.running = false
			select {
			case <-k.wake: // a poke sent after the one that woke us
				sim.end()
			default:
			}
			k.mu.Unlock()
			sim.end()
			return
		}
		k.armed = time.Time{} // it fired, or a Reset raced a tick: set it afresh
		timeouts, beats = timeouts[:0], beats[:0]
		for len(k.heap) > 0 && !k.heap[0].due().After(now) {
			b := k.heap[0]
			if !b.timeoutAt.IsZero() && !b.timeoutAt.After(now) {
				b.timeoutAt = time.Time{}
				timeouts = append(timeouts, b)
			}
			if !b.nextBeat.IsZero() && !b.nextBeat.After(now) {
				b.nextBeat = time.Time{}
				b.inflight.Add(1)
				beats = append(beats, b)
			}
			if b.due().IsZero() {
				k.remove(b)
			} else {
				heap.Fix(&k.heap, 0)
			}
		}
		k.rearmLocked(now)
		k.mu.Unlock()
		for _, b := range timeouts {
			if b.base.Err() != nil {
				continue // Run gave up draining: the job's context has ended
			}
			s.log.Warn("run timeout", "job", b.job, "period", b.period, "timeout", b.cfg.timeout)
			b.cancel(ErrJobTimeout)
		}
		for _, b := range beats {
			sim.begin()
			go func() {
				defer sim.end()
				s.heartbeat(b)
			}()
		}
		clear(timeouts)
		clear(beats)
	}
}

// heartbeat extends b's claim (and its run slot's, under WithMaxRuns) and
// schedules the next, or cancels the job's context when the lease is lost
// (taken over, or expired while the ledger was unreachable) or the ledger
// failed for good. It stops when the job's base context has ended (Run
// gave up draining).
func (s *Scheduler) heartbeat(b *beat) {
	defer b.inflight.Done()
	base, cfg := b.base, b.cfg
	if base.Err() != nil {
		return
	}
	lose := func(err error) {
		b.cancel(err)
		b.lost = err
	}
	rec, err := s.ledger.Heartbeat(base, b.job, b.period, b.token, cfg.lease)
	if err == nil && b.slot != nil {
		if _, serr := s.ledger.Heartbeat(base, b.slot.job, b.slot.period, b.slot.token, cfg.lease); serr != nil &&
			(errors.Is(serr, ErrLeaseLost) || isPermanent(serr)) {
			err = fmt.Errorf("run slot %s: %w", b.slot.period, serr)
		}
	}
	switch {
	case err == nil:
		s.ledgerAnswered()
	case !isAnswer(err) && base.Err() == nil:
		s.ledgerFailed(b.job, err)
	}
	switch {
	case err == nil:
		b.leaseUntil = rec.LeaseUntil
	case errors.Is(err, ErrLeaseLost):
		s.log.Error("run lease lost", "job", b.job, "period", b.period, "token", b.token, "error", err)
		lose(err)
		return
	case isPermanent(err):
		s.log.Error("run heartbeat failed", "job", b.job, "period", b.period, "error", err)
		b.cancel(err)
		if b.rs != nil {
			s.fail(b.rs, b.job, err)
		}
		return
	default:
		s.log.Warn("run heartbeat failed", "job", b.job, "period", b.period, "error", err)
		if !s.clock.Now().Before(b.leaseUntil) {
			s.log.Error("run lease expired", "job", b.job, "period", b.period, "lease_until", b.leaseUntil)
			lose(fmt.Errorf("%w: lease expired at %s while the ledger was unreachable", ErrLeaseLost, b.leaseUntil.Format(time.RFC3339)))
			return
		}
	}
	if base.Err() != nil {
		return
	}
	k := &s.keeper
	now := s.clock.Now()
	k.mu.Lock()
	defer k.mu.Unlock()
	if b.stopped {
		return
	}
	b.nextBeat = now.Add(cfg.heartbeat)
	if b.index >= 0 {
		heap.Fix(&k.heap, b.index) // still there for its timeout
	} else {
		k.push(b)
	}
	was := k.armed
	k.rearmLocked(now)
	k.rearmedLocked(was)
}

// beatHeap is container/heap's view of the running attempts: a min-heap
// by due, each beat knowing its index.
type beatHeap []*beat

func (h beatHeap) Len() int           { return len(h) }
func (h beatHeap) Less(i, j int) bool { return h[i].due().Before(h[j].due()) }
func (h beatHeap) Swap(i, j int) {
	h[i], h[j] = h[j], h[i]
	h[i].index, h[j].index = i, j
}
func (h *beatHeap) Push(x any) {
	b := x.(*beat)
	b.index = len(*h)
	*h = append(*h, b)
}
func (h *beatHeap) Pop() any {
	old := *h
	b := old[len(old)-1]
	old[len(old)-1] = nil
	*h = old[:len(old)-1]
	b.index = -1
	return b
}

func (k *keeper) push(b *beat)   { heap.Push(&k.heap, b) }
func (k *keeper) remove(b *beat) { heap.Remove(&k.heap, b.index) }

package dstsafe

import (
	"slices"
	"sync"
	"sync/atomic"
	"time"
)

// simulation is the test seam Simulate passes to the Scheduler's run loop
// (x/time/rate passes time.Now to its unexported wait the same way): the
// bookkeeping of which goroutines are busy and what they wait for, and
// the recorder of fires. A production Run passes nil, and every method is
// a no-op on a nil *simulation, so the production Scheduler carries no
// simulation state.
type simulation struct {
	act    activity
	record func(Fire)
	// fakeTime: the clock is Simulate's fake one, which does not drift, so
	// the loop need not wake every WithWakeInterval.
	fakeTime bool

	// shared, when set, replaces act: the activity of a cluster of
	// schedulers driven on one time line (see clusterSim), and toTrue maps
	// this scheduler's clock readings onto that line.
	shared *activity
	toTrue func(time.Time) time.Time
	// held: a busy count taken for this scheduler before its Run started
	// (clusterSim.Start); Run's own begin takes it over.
	held atomic.Bool
	// gaveUp: the simulation's context ended, so nobody moves the clock
	// any more: a stopped Run does not wait for its jobs on it (drain).
	gaveUp atomic.Bool
	// awaitCut: a stopped Run of a simulation that gave up waits for the
	// jobs it cancelled to return (Simulate's single scheduler, whose
	// result must not depend on the Go scheduler; not the cluster
	// simulation's members, whose crashed jobs may never return).
	awaitCut bool
	// With shared set, what this scheduler adds to it, so that a member
	// whose Run ended (a crash) can take back what its goroutines left:
	// the count of a poke its loop never read, a sleeper Run stopped
	// waiting for. Under own.mu, taken before the activity's mu.
	own struct {
		mu       sync.Mutex
		busy     int
		parked   map[uint64]bool
		detached bool
	}
}

// detach takes this scheduler's counts out of the shared activity, for
// good: later calls from its goroutines are no-ops.
func (sim *simulation) detach() {
	sim.own.mu.Lock()
	defer sim.own.mu.Unlock()
	if sim.own.detached {
		return
	}
	sim.own.detached = true
	a := sim.shared
	a.mu.Lock()
	a.busy -= sim.own.busy
	for id := range sim.own.parked {
		delete(a.parked, id)
	}
	a.notify()
	a.kickLocked()
}

// givenUp reports whether the simulation's context has ended (gaveUp).
func (sim *simulation) givenUp() bool { return sim != nil && sim.gaveUp.Load() }

// begin counts one more goroutine as busy: call it before starting (or
// waking) one, so that the clock cannot move in between.
func (sim *simulation) begin() {
	if sim == nil || sim.held.CompareAndSwap(true, false) {
		return
	}
	if sim.shared == nil {
		sim.act.begin()
		return
	}
	sim.own.mu.Lock()
	defer sim.own.mu.Unlock()
	if !sim.own.detached {
		sim.own.busy++
		sim.shared.begin()
	}
}

// end counts a busy goroutine less, when it ends.
func (sim *simulation) end() {
	if sim == nil {
		return
	}
	if sim.shared == nil {
		sim.act.end()
		return
	}
	sim.own.mu.Lock()
	defer sim.own.mu.Unlock()
	if !sim.own.detached {
		sim.own.busy--
		sim.shared.end()
	}
}

// park marks the calling busy goroutine asleep until wake (zero: until
// something other than the clock wakes it); it must have created its
// timer already.
func (sim *simulation) park(wake time.Time) uint64 {
	if sim == nil {
		return 0
	}
	if sim.shared == nil {
		return sim.act.park(wake)
	}
	if sim.toTrue != nil && !wake.IsZero() {
		wake = sim.toTrue(wake)
	}
	sim.own.mu.Lock()
	defer sim.own.mu.Unlock()
	if sim.own.detached {
		return 0
	}
	sim.own.busy--
	id := sim.shared.park(wake)
	if sim.own.parked == nil {
		sim.own.parked = make(map[uint64]bool)
	}
	sim.own.parked[id] = true
	return id
}

// unpark marks the goroutine parked under id busy again.
func (sim *simulation) unpark(id uint64) {
	if sim == nil {
		return
	}
	if sim.shared == nil {
		sim.act.unpark(id)
		return
	}
	sim.own.mu.Lock()
	defer sim.own.mu.Unlock()
	if !sim.own.detached && sim.own.parked[id] {
		delete(sim.own.parked, id)
		sim.own.busy++
		sim.shared.unpark(id)
	}
}

// recordFire hands a finished run to Simulate; cut is whether the run
// failed after the drain timeout cancelled it (the stopping Run's
// cancel). A run a simulation that gave up cut short is left out: it did
// not end on its own. A run that returned nil ended on its own.
func (sim *simulation) recordFire(f Fire, cut bool) {
	if sim != nil && sim.record != nil && !(cut && sim.givenUp()) {
		sim.record(f)
	}
}

// activity tracks whether a Scheduler's goroutines are working or asleep on
// the clock, and until when. Simulate uses it to know, without sleeping or
// polling, that the scheduler has done everything it can at the current
// fake instant and which instant it waits for next: the deterministic
// handshake that lets a fake clock be advanced without races.
//
// The invariant Simulate relies on: a goroutine is counted busy from before
// it is started (or woken) until it parks, and it parks only after creating
// the timer it will wait on, so the clock cannot move between the two.
type activity struct {
	mu      sync.Mutex
	busy    int
	parked  map[uint64]time.Time // wake instant of each sleeper; zero: none
	nextID  uint64
	parks   uint64        // number of park calls so far
	changed chan struct{} // closed on the next change; nil until asked for

	// driver, when set (by Simulate), is called by the goroutine that makes
	// the scheduler idle, right there, with driving set: it moves the fake
	// clock on without a hand-off to another goroutine. It must clear
	// driving (under mu) when it stops.
	driver  func()
	driving bool
}

func (a *activity) notify() {
	if a.changed != nil {
		close(a.changed)
		a.changed = nil
	}
}

// begin counts one more busy goroutine.
func (a *activity) begin() {
	a.mu.Lock()
	a.busy++
	a.mu.Unlock()
}

// end counts one busy goroutine less.
func (a *activity) end() {
	a.mu.Lock()
	a.busy--
	a.notify()
	a.kickLocked()
}

// park marks a busy goroutine as asleep until wake (zero: until something
// other than the clock wakes it) and returns the id unpark needs.
func (a *activity) park(wake time.Time) uint64 {
	a.mu.Lock()
	if a.parked == nil {
		a.parked = make(map[uint64]time.Time)
	}
	a.nextID++
	id := a.nextID
	a.parks++
	a.parked[id] = wake
	a.busy--
	a.notify()
	a.kickLocked()
	return id
}

// kickLocked runs the driver if the scheduler may be idle and nobody drives
// yet. It is called with mu held and releases it.
func (a *activity) kickLocked() {
	d := a.driver
	if d == nil || a.driving || a.busy > 0 {
		a.mu.Unlock()
		return
	}
	a.driving = true
	a.mu.Unlock()
	d()
}

// unpark marks the goroutine parked under id as busy again.
func (a *activity) unpark(id uint64) {
	a.mu.Lock()
	delete(a.parked, id)
	a.busy++
	a.mu.Unlock()
}

// idleLocked reports whether, at instant now, no goroutine is busy and none
// is due to wake (every sleeper's wake instant is after now), and the
// earliest wake instant (zero if none). mu must be held.
func (a *activity) idleLocked(now time.Time) (ok bool, next time.Time) {
	ok = a.busy == 0
	for _, w := range a.parked {
		if w.IsZero() {
			continue
		}
		if !w.After(now) {
			ok = false
		}
		if next.IsZero() || w.Before(next) {
			next = w
		}
	}
	return ok, next
}

// wakesLocked lists the instants the sleepers wait for, earliest first
// (those woken by something other than the clock left out), for an
// error that says where a simulation was stuck. mu must be held.
func (a *activity) wakesLocked() []time.Time {
	var ws []time.Time
	for _, w := range a.parked {
		if !w.IsZero() {
			ws = append(ws, w)
		}
	}
	slices.SortFunc(ws, time.Time.Compare)
	return ws
}

// idle is idleLocked plus the number of parks so far and a channel closed
// at the next change, for callers that wait.
func (a *activity) idle(now time.Time) (ok bool, next time.Time, parks uint64, changed <-chan struct{}) {
	a.mu.Lock()
	defer a.mu.Unlock()
	ok, next = a.idleLocked(now)
	if a.changed == nil {
		a.changed = make(chan struct{})
	}
	return ok, next, a.parks, a.changed
}

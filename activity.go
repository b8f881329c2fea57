package dstsafe

import (
	"sync"
	"time"
)

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
	a.mu.Unlock()
}

// park marks a busy goroutine as asleep until wake (zero: until something
// other than the clock wakes it) and returns the id unpark needs.
func (a *activity) park(wake time.Time) uint64 {
	a.mu.Lock()
	defer a.mu.Unlock()
	if a.parked == nil {
		a.parked = make(map[uint64]time.Time)
	}
	a.nextID++
	a.parks++
	a.parked[a.nextID] = wake
	a.busy--
	a.notify()
	return a.nextID
}

// unpark marks the goroutine parked under id as busy again.
func (a *activity) unpark(id uint64) {
	a.mu.Lock()
	delete(a.parked, id)
	a.busy++
	a.mu.Unlock()
}

// idle reports whether, at instant now, no goroutine is busy and none is
// due to wake (every sleeper's wake instant is after now), and the earliest
// wake instant (zero if none), the number of parks so far, and a channel
// closed at the next change.
func (a *activity) idle(now time.Time) (ok bool, next time.Time, parks uint64, changed <-chan struct{}) {
	a.mu.Lock()
	defer a.mu.Unlock()
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
	if a.changed == nil {
		a.changed = make(chan struct{})
	}
	return ok, next, a.parks, a.changed
}

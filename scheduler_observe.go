package dstsafe

import "github.com/dstsafe/dstsafe/event"

// observed reports whether anyone listens: the runner builds no Event
// when nobody does.
func (s *Scheduler) observed() bool { return len(s.observers) > 0 }

// emit hands e to every observer, in the order WithObserver gave them.
// It must not be called with s.mu held.
func (s *Scheduler) emit(e Event) {
	for _, o := range s.observers {
		o.Observe(e)
	}
}

// taskEvent is an Event of type typ about period t of job, at the clock's
// now.
func (s *Scheduler) taskEvent(typ event.Type, job string, t task) Event {
	e := Event{Type: typ, Job: job, Period: t.o.Period, Wall: t.o.Wall, Kind: t.o.Kind, Due: t.o.At,
		At: s.clock.Now(), Manual: t.manual()}
	if !e.Manual {
		e.Jitter = t.start.Sub(t.o.At)
	}
	return e
}

// emitTask emits an event of type typ about t, with reason (skips) and
// err (failures, lost leases).
func (s *Scheduler) emitTask(typ event.Type, job string, t task, attempt int, reason string, err error) {
	if !s.observed() {
		return
	}
	e := s.taskEvent(typ, job, t)
	e.Attempt, e.Reason, e.Err = attempt, reason, err
	if typ == event.Skipped && !e.Manual {
		e.Late = max(e.At.Sub(t.start), 0)
	}
	s.emit(e)
}

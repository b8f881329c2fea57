package dstsafe

import (
	"time"

	"github.com/dstsafe/dstsafe/event"
)

// An Observer is told what a Scheduler does with each period as it
// happens, for metrics, tracing or audit logs; package dstsafeotel turns
// the events into OpenTelemetry metrics. Set one with WithObserver.
//
// Observe is called synchronously by the goroutine that did the thing,
// never with the Scheduler's locks held. It must be quick and safe for
// concurrent use, and must not call back into the Scheduler; a panic in it
// is not recovered.
type Observer interface {
	Observe(Event)
}

// Event is one thing that happened to one period of one job.
//
// Period is the ledger key: unbounded in number, so never a metric label.
// Job, Type and Kind are bounded and make good labels, and so is Reason
// for event.Skipped (one of a few constant strings, listed there).
type Event struct {
	Type event.Type
	Job  string
	// Period, Wall, Kind and Due describe the occurrence, as in Run (Due
	// is the schedule's instant, never moved by jitter). They are zero for
	// event.Paused and event.Resumed, but for a pause on failure.
	Period string
	Wall   Wall
	Kind   Kind
	Due    time.Time
	// At is when it happened, by the Scheduler's Clock.
	At time.Time
	// Late is how long after its due start the run started (event.Started,
	// event.Late) or the period was skipped (event.Skipped): At minus Due
	// minus Jitter, not less than 0. Zero for a Manual run.
	Late time.Duration
	// Jitter is the period's start delay (WithJitter): the run was due to
	// start at Due plus Jitter. Zero without jitter and for a Manual run.
	Jitter time.Duration
	// Manual is true for a period run by hand (Scheduler.RunNow,
	// Scheduler.Backfill) rather than by its schedule: it is never late.
	Manual bool
	// Duration is how long the run took (event.Succeeded, event.Failed).
	Duration time.Duration
	// Attempt is the ledger attempt (Run.Attempt) once the period is
	// claimed, 0 before.
	Attempt int
	// Reason says why a period was skipped, as the ledger records it
	// (event.Skipped), or why a job was paused (event.Paused: the reason
	// given to Pause, or the WithPauseOnFailure one).
	Reason string
	// Err is what the job returned (event.Failed) or why the lease was lost
	// (event.LeaseLost), or why the claim was refused (event.ClockSkew:
	// an error wrapping ErrClockSkew).
	Err error
	// Offset is the Scheduler's Clock minus the ledger's clock
	// (event.ClockSkew): positive when this replica's clock is ahead.
	Offset time.Duration
	// Recorded is the ledger's record the event is about: for
	// event.ZoneData, the period as a replica with other zone data
	// claimed it. Nil for the other types.
	Recorded *Record
}

package dstsafe

import "time"

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
// for EventSkipped (one of a few constant strings, listed there).
type Event struct {
	Type EventType
	Job  string
	// Period, Wall, Kind and Due describe the occurrence, as in Run (Due
	// is the schedule's instant, never moved by jitter). They are zero for
	// EventPaused and EventResumed, but for a pause on failure.
	Period string
	Wall   Wall
	Kind   Kind
	Due    time.Time
	// At is when it happened, by the Scheduler's Clock.
	At time.Time
	// Late is how long after its due start the run started (EventStarted,
	// EventLate) or the period was skipped (EventSkipped): At minus Due
	// minus Jitter, not less than 0. Zero for a Manual run.
	Late time.Duration
	// Jitter is the period's start delay (WithJitter): the run was due to
	// start at Due plus Jitter. Zero without jitter and for a Manual run.
	Jitter time.Duration
	// Manual is true for a period run by hand (Scheduler.RunNow,
	// Scheduler.Backfill) rather than by its schedule: it is never late.
	Manual bool
	// Duration is how long the run took (EventSucceeded, EventFailed).
	Duration time.Duration
	// Attempt is the ledger attempt (Run.Attempt) once the period is
	// claimed, 0 before.
	Attempt int
	// Reason says why a period was skipped, as the ledger records it
	// (EventSkipped), or why a job was paused (EventPaused: the reason
	// given to Pause, or the WithPauseOnFailure one).
	Reason string
	// Err is what the job returned (EventFailed) or why the lease was lost
	// (EventLeaseLost).
	Err error
}

// EventType says what an Event reports.
type EventType uint8

const (
	// EventDue: the Scheduler is about to handle the period: its planner
	// found it due (on time, or missed and about to be caught up or
	// skipped), or RunNow or Backfill is about to claim it. Every period
	// a Scheduler handles starts with one EventDue; EventClaimed,
	// EventClaimedElsewhere or EventSkipped follows (unless Run stops, or
	// the job is removed, while the period waits behind a running one).
	EventDue EventType = iota + 1
	// EventClaimed: this Scheduler claimed the period in its ledger
	// (Attempt set; a retry claims again).
	EventClaimed
	// EventClaimedElsewhere: the ledger already had the period, claimed by
	// another replica or by an earlier run: this one does nothing. Attempt
	// is that record's.
	EventClaimedElsewhere
	// EventStarted: the job's function was called (Late set).
	EventStarted
	// EventSucceeded: the job returned nil and the ledger recorded it
	// (Duration set). Each attempt that started ends with exactly one of
	// EventSucceeded, EventFailed and EventLeaseLost; a claimed period that
	// finds the job's runs used (WithMaxRuns) ends with EventSkipped.
	EventSucceeded
	// EventFailed: the job returned an error or panicked, or its success
	// could not be recorded (the ledger failed, or WithMaxRuns could not
	// record its run slot), or its run slot could not be claimed (Err,
	// Duration).
	EventFailed
	// EventSkipped: this Scheduler recorded the period as skipped, with
	// Reason one of "paused", "missed: catch-up policy", "overlap:
	// previous run still running", "before the schedule took effect" and
	// "max runs: the job has used its runs".
	EventSkipped
	// EventLeaseLost: the period was taken over while the attempt ran, so
	// its outcome was not recorded (the Finish was refused): it ends the
	// attempt in place of EventSucceeded or EventFailed, once the job has
	// returned (its context is cancelled as soon as a heartbeat finds out).
	// Err says why: ErrLeaseLost, wrapped. A lease that ran out while the
	// ledger was unreachable, with nobody taking the period over, cancels
	// the job too, but its outcome is still recorded: EventFailed.
	EventLeaseLost
	// EventLate: the run starts later than its due start (Due plus
	// Jitter) by more than the job's misfire threshold (Late): a
	// catch-up, a retry's backoff, a slow ledger. EventStarted follows.
	EventLate
	// EventPaused, EventResumed: this Scheduler paused or resumed the job
	// (Pause, Resume, or WithPauseOnFailure: then Period, Wall, Kind and
	// Due are the period whose failure paused it), and the state changed.
	// A replica that only finds the job paused sees no EventPaused: it
	// records EventSkipped ("paused") for each period.
	EventPaused
	EventResumed
	// EventLedgerError: a ledger call failed (Err; Job when it was about
	// one job's period, empty for Run's startup probe). One per failed
	// call, retried or not: a database that goes away is visible while
	// the Scheduler keeps retrying. See Healthy and
	// Description.LedgerDownSince.
	EventLedgerError
)

// String returns the event type's name: "due", "claimed",
// "claimed-elsewhere", "started", "succeeded", "failed", "skipped",
// "lease-lost", "late", "paused", "resumed", or "ledger-error".
func (t EventType) String() string {
	if t >= EventDue && int(t-EventDue) < len(eventNames) {
		return eventNames[t-EventDue]
	}
	return "invalid"
}

var eventNames = [...]string{"due", "claimed", "claimed-elsewhere", "started", "succeeded", "failed",
	"skipped", "lease-lost", "late", "paused", "resumed", "ledger-error"}

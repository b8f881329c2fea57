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
// Job, Type and Kind are bounded and make good labels.
type Event struct {
	Type EventType
	Job  string
	// Period, Wall, Kind and Due describe the occurrence, as in Run. They
	// are zero for EventPaused and EventResumed.
	Period string
	Wall   Wall
	Kind   Kind
	Due    time.Time
	// At is when it happened, by the Scheduler's Clock.
	At time.Time
	// Late is how long after Due the run started (EventStarted, EventLate)
	// or the period was skipped (EventSkipped): At minus Due, not less than 0.
	Late time.Duration
	// Duration is how long the run took (EventSucceeded, EventFailed).
	Duration time.Duration
	// Attempt is the ledger attempt (Run.Attempt) once the period is
	// claimed, 0 before.
	Attempt int
	// Reason says why a period was skipped ("paused", "catch-up",
	// "overlap", "bounds", "max runs", ...) or a job paused or resumed.
	Reason string
	// Err is what the job returned (EventFailed) or why the lease was lost
	// (EventLeaseLost).
	Err error
}

// EventType says what an Event reports.
type EventType uint8

const (
	// EventDue: a period came due and the Scheduler is about to claim it.
	EventDue EventType = iota + 1
	// EventClaimed: this Scheduler claimed the period in its ledger.
	EventClaimed
	// EventClaimedElsewhere: the ledger already had the period, claimed by
	// another replica or by an earlier run: this one does nothing.
	EventClaimedElsewhere
	// EventStarted: the job's function was called (Late set).
	EventStarted
	// EventSucceeded: the job returned nil and the ledger recorded it
	// (Duration set).
	EventSucceeded
	// EventFailed: the job returned an error or panicked (Err, Duration).
	EventFailed
	// EventSkipped: the period was recorded as skipped (Reason).
	EventSkipped
	// EventLeaseLost: the run's claim was taken over or expired while it
	// ran; its context was cancelled (Err).
	EventLeaseLost
	// EventLate: the run starts later than its due instant by more than the
	// job's misfire threshold (Late); EventStarted follows.
	EventLate
	// EventPaused, EventResumed: the job was paused or resumed (Reason).
	EventPaused
	EventResumed
)

// String returns the event type's name: "due", "claimed",
// "claimed-elsewhere", "started", "succeeded", "failed", "skipped",
// "lease-lost", "late", "paused" or "resumed".
func (t EventType) String() string {
	if t >= EventDue && t <= EventResumed {
		return eventNames[t-EventDue]
	}
	return "invalid"
}

var eventNames = [...]string{"due", "claimed", "claimed-elsewhere", "started", "succeeded", "failed",
	"skipped", "lease-lost", "late", "paused", "resumed"}

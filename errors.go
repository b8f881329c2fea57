package dstsafe

import "github.com/dstsafe/dstsafe/internal/argerr"

// ErrInvalidArgument is wrapped by every error that refuses an argument a
// caller passed: a nil *time.Location, Schedule or job function; an empty,
// over-long or non-UTF-8 job name or ledger key; a duplicate job name; a
// period the job's schedule never has; an empty or reversed range; a
// negative duration or count; a policy out of range; a Wall whose fields
// are out of range; a Simulate call without a fake clock; a second Run
// of a running Scheduler; a call the Ledger cannot serve (Pause on a
// Ledger that is not a ControlLedger). Each is a
// programming or configuration error that no retry fixes: the message
// (usually a *ArgError, *KeyError, *ParseError or *JobError)
// names the argument and why, so a caller tests for the class with
// errors.Is(err, ErrInvalidArgument) and reads the message to fix it.
var ErrInvalidArgument = argerr.ErrInvalidArgument

// invalid is the sentinel of one kind of invalid argument: its own message
// (so errors say what was wrong), and errors.Is reports it as
// ErrInvalidArgument. Values compare by message, so each kind's message
// must be distinct.
type invalid string

func (e invalid) Error() string { return string(e) }

// Is reports ErrInvalidArgument as a match.
func (e invalid) Is(target error) bool { return target == ErrInvalidArgument }

// The kinds of invalid argument, each wrapping ErrInvalidArgument.
var (
	// errInvalidJobName: Add was given a job name a ledger cannot key:
	// empty, longer than ledgerkit.ledgerkit.MaxKeyLen bytes, not UTF-8 or
	// containing NUL.
	errInvalidJobName error = invalid("dstsafe: invalid job name")
	// errDuplicateJob: Add was given a name already in use.
	errDuplicateJob error = invalid("dstsafe: duplicate job name")
	// errNilSchedule: Add was given a nil Schedule.
	errNilSchedule error = invalid("dstsafe: nil schedule")
	// errNilJobFunc: Add was given a nil job function.
	errNilJobFunc error = invalid("dstsafe: nil job function")
	// errUnknownPeriod: RunNow named a period the job's schedule never has.
	errUnknownPeriod error = invalid("dstsafe: unknown period")
	// errInvalidRange: an empty or reversed range (WithBounds, Backfill) or
	// a negative duration or count (WithJitter, WithMaxRuns).
	errInvalidRange error = invalid("dstsafe: invalid range")
	// errInvalidWall: a Wall whose fields are out of range (month 13,
	// February 30, hour 24, ...).
	errInvalidWall error = invalid("dstsafe: invalid wall time")
	// errNilLocation: a nil *time.Location. A location is never optional,
	// since the zone is what decides a fold or a gap (a *ArgError,
	// *ParseError or *JobError names the argument).
	errNilLocation error = invalid("nil *time.Location")
	// errNeedFakeClock: Simulate was given a Scheduler whose clock is not a
	// *clockwork.FakeClock.
	errNeedFakeClock error = invalid("dstsafe: Simulate needs a scheduler on a *clockwork.FakeClock")
	// errInvalidSimulation: a negative duration or step.
	errInvalidSimulation error = invalid("dstsafe: invalid simulation")
	// errJitterTooLong: WithJitter was given a delay that is not shorter
	// than the schedule's shortest interval, so a period's delayed start
	// could reach its successor's. The *ArgError that wraps it names the
	// interval and the two occurrences it lies between.
	errJitterTooLong error = invalid("dstsafe: jitter not shorter than the schedule's shortest interval")
	// errUnknownPolicy: an enum value out of range or a name no value has
	// (the UnmarshalText and MarshalText methods of every enum, and options
	// given a policy out of range).
	errUnknownPolicy error = invalid("dstsafe: unknown policy")
	// errInvalidKey: an empty, over-long or non-UTF-8 job name, period or
	// owner given to a Ledger. The error is a *KeyError naming the field.
	errInvalidKey error = invalid("dstsafe: invalid ledger key")
	// errInvalidRequest: a ledger call with an argument that is not a key
	// but is out of range: a negative lease or MaxAttempts, or Finish with
	// a state other than succeeded, failed or skipped.
	errInvalidRequest error = invalid("dstsafe: invalid ledger request")
	// errRunning: Run (or Simulate) was called while the scheduler runs.
	errRunning error = invalid("dstsafe: scheduler already running")
	// errNotSupported: the Ledger lacks what the call needs, such as
	// Scheduler.Pause on a Ledger that is not a ControlLedger.
	errNotSupported error = invalid("dstsafe: not supported by this ledger")
)

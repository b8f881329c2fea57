// Package event names what a dstsafe.Scheduler reports to its Observer:
// the Type of a dstsafe.Event. Package dstsafeotel counts them as
// OpenTelemetry metrics; a test or an audit log switches on them:
//
//	func (o auditLog) Observe(e dstsafe.Event) {
//		switch e.Type {
//		case event.Failed, event.LeaseLost:
//			o.alert(e.Job, e.Period, e.Err)
//		}
//	}
//
// The constants live here, not in package dstsafe, so that the root package
// stays small; every Type has a lower-case name (String, MarshalText).
package event

import (
	"fmt"
	"strings"

	"github.com/dstsafe/dstsafe/internal/argerr"
)

// Type says what a dstsafe.Event reports. The zero Type is no event.
type Type uint8

const (
	// Due: the Scheduler is about to handle the period: its planner
	// found it due (on time, or missed and about to be caught up or
	// skipped), or RunNow or Backfill is about to claim it. Every period
	// a Scheduler handles starts with one Due; Claimed,
	// ClaimedElsewhere, Skipped or ClockSkew follows (unless Run stops, or
	// the job is removed, while the period waits behind a running one).
	Due Type = iota + 1
	// Claimed: this Scheduler claimed the period in its ledger
	// (Attempt set; a retry claims again).
	Claimed
	// ClaimedElsewhere: the ledger already had the period, claimed by
	// another replica or by an earlier run: this one does nothing. Attempt
	// is that record's.
	ClaimedElsewhere
	// Started: the job's function was called (Late set).
	Started
	// Succeeded: the job returned nil and the ledger recorded it
	// (Duration set). Each attempt that started ends with exactly one of
	// Succeeded, Failed and LeaseLost; a claimed period that
	// finds the job's runs used (dstsafe.WithMaxRuns) ends with Skipped.
	Succeeded
	// Failed: the job returned an error or panicked, or its success
	// could not be recorded (the ledger failed, or WithMaxRuns could not
	// record its run slot), or its run slot could not be claimed (Err,
	// Duration).
	Failed
	// Skipped: this Scheduler recorded the period as skipped, with
	// Reason one of "paused", "missed: catch-up policy", "overlap:
	// previous run still running", "before the schedule took effect" and
	// "max runs: the job has used its runs".
	Skipped
	// LeaseLost: the period was taken over while the attempt ran, so
	// its outcome was not recorded (the Finish was refused): it ends the
	// attempt in place of Succeeded or Failed, once the job has
	// returned (its context is cancelled as soon as a heartbeat finds out).
	// Err says why: dstsafe.ErrLeaseLost, wrapped. A lease that ran out while the
	// ledger was unreachable, with nobody taking the period over, cancels
	// the job too, but its outcome is still recorded: Failed.
	LeaseLost
	// Late: the run starts later than its due start (Due plus
	// Jitter) by more than the job's misfire threshold (Late): a
	// catch-up, a retry's backoff, a slow ledger. Started follows.
	Late
	// Paused, Resumed: this Scheduler paused or resumed the job
	// (Scheduler.Pause, Scheduler.Resume, or dstsafe.WithPauseOnFailure: then Period, Wall, Kind and
	// Due are the period whose failure paused it), and the state changed.
	// A replica that only finds the job paused sees no Paused: it
	// records Skipped ("paused") for each period.
	Paused
	Resumed
	// ClockSkew: the ledger refused to claim the period because the
	// Scheduler's Clock is further from the ledger's clock than
	// dstsafe.WithMaxClockOffset allows (Event.Offset; Err wraps
	// dstsafe.ErrClockSkew). Nothing was written: the period does not run
	// here, and a replica whose clock is right may still claim it. It
	// ends the period's handling in place of Claimed or ClaimedElsewhere.
	ClockSkew
	// ZoneData: the period was already claimed (ClaimedElsewhere came
	// just before) by a replica whose zone data differs from this one's
	// for the same schedule: their rules may put the period at different
	// instants. Event.Due is this replica's instant, Event.Recorded the
	// peer's record (its StartedAt is when the peer claimed it), and Err
	// names both zone data ids and both instants. Nothing changes: the period ran, or
	// runs, once, where the peer claimed it. A report for the operator.
	ZoneData
	// LedgerError: a ledger call failed (Err; Job when it was about one
	// job's period, empty for Run's startup probe). One per failed call,
	// retried or not: a database that goes away is visible while the
	// Scheduler keeps retrying. See Scheduler.Healthy and
	// dstsafe.Description.LedgerDownSince.
	LedgerError
	// AtRisk: the period is due and has not succeeded by its deadline (its
	// due start plus five times the job's misfire threshold, at least a
	// minute: 5 minutes by default), while there may still be time to act:
	// run it by hand (Scheduler.RunNow), bring the ledger back, look at the
	// replica that holds it. Reason is "not claimed yet" (the ledger is
	// down, or the job waits behind its previous run), "running" (claimed
	// here: running, or retrying), or "claimed elsewhere, not succeeded"
	// with the state and owner of the other replica's record, read once at
	// the deadline. Once per period; a period that then succeeds has no
	// more events about it than usual. The Scheduler looks at deadlines
	// whenever its loop wakes: at least every WithWakeInterval (a minute
	// by default) while Run runs, so At is at most that after the
	// deadline; under Simulate (which ignores the wake interval), at the
	// next instant any job comes due.
	AtRisk
	// Missed: the period will not run by its schedule: it was recorded as
	// skipped by the catch-up policy, a pause or the overlap policy (after
	// Skipped, with its Reason), or its last attempt failed with no retry
	// left (after Failed, Reason "failed: no retry left"). Once per period.
	// Periods skipped on purpose otherwise (before a schedule took effect,
	// the job's runs used) are not missed.
	Missed
)

var names = [...]string{"due", "claimed", "claimed-elsewhere", "started", "succeeded", "failed",
	"skipped", "lease-lost", "late", "paused", "resumed", "clock-skew", "zone-data", "ledger-error", "at-risk", "missed"}

// last is the highest Type with a name.
const last = Type(len(names))

// String returns the type's name: "due", "claimed", "claimed-elsewhere",
// "started", "succeeded", "failed", "skipped", "lease-lost", "late",
// "paused", "resumed" (and the names of the types listed after them), or
// "invalid".
func (t Type) String() string {
	if t >= Due && t <= last {
		return names[t-Due]
	}
	return "invalid"
}

// MarshalText returns t.String(), and "" for the zero Type. A Type out of
// range is an error wrapping dstsafe.ErrInvalidArgument.
func (t Type) MarshalText() ([]byte, error) {
	if t == 0 {
		return nil, nil
	}
	if t > last {
		return nil, fmt.Errorf("%w: event type %d: want one of %s", argerr.ErrInvalidArgument, int(t), strings.Join(names[:], ", "))
	}
	return []byte(t.String()), nil
}

// UnmarshalText sets t from one of the names String returns (any case),
// and to the zero Type from "". Any other text is an error wrapping
// dstsafe.ErrInvalidArgument.
func (t *Type) UnmarshalText(text []byte) error {
	if len(text) == 0 {
		*t = 0
		return nil
	}
	for i, n := range names {
		if strings.EqualFold(n, string(text)) {
			*t = Due + Type(i)
			return nil
		}
	}
	return fmt.Errorf("%w: event type %q: want one of %s", argerr.ErrInvalidArgument, text, strings.Join(names[:], ", "))
}

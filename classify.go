package dstsafe

import "time"

// PeriodStatus is what the ledger says about one expected period of a
// job (see CheckPeriods).
type PeriodStatus uint8

const (
	// PeriodNotDue: the period is due after now. Nothing to do yet.
	PeriodNotDue PeriodStatus = iota + 1
	// PeriodMissing: due, and the ledger has no record of it.
	PeriodMissing
	// PeriodRunning: claimed, its holder's lease not over.
	PeriodRunning
	// PeriodAbandoned: claimed, and its holder's lease is over (it
	// crashed, or lost the ledger): nobody runs it.
	PeriodAbandoned
	// PeriodFailed: its last attempt failed.
	PeriodFailed
	// PeriodReleased: failed or abandoned, and released by an operator
	// (`dstsafe ledger retry`, ControlLedger.Release): the next claim
	// takes it over whatever the job's RetryPolicy says.
	PeriodReleased
	// PeriodSkipped: deliberately not run (catch-up, pause, overlap,
	// bounds, an edit). Final.
	PeriodSkipped
	// PeriodSucceeded: ran. Final.
	PeriodSucceeded
)

// String returns the status's lower-case name ("missing", ...), the word
// `dstsafe ledger audit` prints.
func (s PeriodStatus) String() string {
	switch s {
	case PeriodNotDue:
		return "not due"
	case PeriodMissing:
		return "missing"
	case PeriodRunning:
		return "running"
	case PeriodAbandoned:
		return "abandoned"
	case PeriodFailed:
		return "failed"
	case PeriodReleased:
		return "released"
	case PeriodSkipped:
		return "skipped"
	case PeriodSucceeded:
		return "succeeded"
	}
	return "invalid"
}

// Action is what a Scheduler does about a period in the state CheckPeriods
// found it in: the reconciler's decision, which `dstsafe ledger audit`
// prints without acting on it.
type Action uint8

const (
	// ActionNone: nothing (not due yet, final, or running within its
	// deadline).
	ActionNone Action = iota
	// ActionRun: claim and run it, subject to the job's catch-up policy
	// (a period due more than the misfire threshold ago may be recorded
	// as skipped instead) and overlap policy.
	ActionRun
	// ActionTakeOver: claim it over its abandoned or released attempt
	// (a new fencing token) and run it.
	ActionTakeOver
	// ActionRetry: take its failed attempt over once the retry backoff has
	// passed, at PeriodCheck.At.
	ActionRetry
	// ActionSkipPaused: record it as skipped: the job is paused.
	ActionSkipPaused
	// ActionWaitPaused: leave it: the job is paused, and a failed or
	// abandoned attempt is taken over once it is resumed.
	ActionWaitPaused
	// ActionReportAtRisk: it is past its deadline (PeriodCheck.At) and has
	// not succeeded: report it at risk (event.AtRisk), once per period
	// across replicas.
	ActionReportAtRisk
	// ActionReportMissed: it will not run (failed or abandoned, and the
	// job's RetryPolicy allows no takeover): report it at risk and then
	// missed (event.Missed), once per period across replicas. An
	// operator's release (`dstsafe ledger retry`) makes it run after all.
	ActionReportMissed
)

// String returns the action's name ("run", "take over", ...).
func (a Action) String() string {
	switch a {
	case ActionNone:
		return "none"
	case ActionRun:
		return "run"
	case ActionTakeOver:
		return "take over"
	case ActionRetry:
		return "retry"
	case ActionSkipPaused:
		return "skip (paused)"
	case ActionWaitPaused:
		return "wait (paused)"
	case ActionReportAtRisk:
		return "report at risk"
	case ActionReportMissed:
		return "report missed"
	}
	return "invalid"
}

// CheckPolicy is what CheckPeriods decides by: a job's options. The zero
// value is a job with the defaults (no retry), not paused, whose deadline
// is 5 minutes after each due instant.
type CheckPolicy struct {
	// Retry and RetryBackoff are the job's WithRetry.
	Retry        RetryPolicy
	RetryBackoff time.Duration
	// Deadline is how long after its due instant a period that has not
	// succeeded is at risk (WithDeadline). Zero means 5 minutes, the
	// Scheduler's default.
	Deadline time.Duration
	// Paused: the job is paused (Scheduler.Pause, `dstsafe ledger pause`).
	Paused bool
}

// PeriodCheck is one expected period compared with the ledger.
type PeriodCheck struct {
	Occurrence
	Status PeriodStatus
	// Record is the ledger's record of the period, its State as of now;
	// the zero Record when Status is PeriodMissing or PeriodNotDue.
	Record Record
	Action Action
	// At is when Action is due: the end of the retry backoff
	// (ActionRetry), or the deadline (ActionReportAtRisk); zero for the
	// others, which are due now.
	At time.Time
}

// CheckPeriods compares the expected periods of a job (its occurrences,
// oldest first, as a schedule's NextOccurrence returns them) with the
// ledger's records of them (Ledger.List; records of other periods are
// ignored) at instant now, and returns per period its status and the
// action a Scheduler takes about it under p. It is the one classification
// of the Scheduler's reconciler (each pass of a job drives every period of
// its recovery window to one outcome by it: see WithRecoveryWindow), of
// Describe, and of `dstsafe ledger audit`, which is the reconciler's dry
// run. It does no I/O.
//
// Per status: a missing period is run (catch-up policy), or skipped when
// the job is paused; an abandoned one is taken over when p.Retry allows
// it, else reported missed; a failed one is retried after p.RetryBackoff
// (from its FinishedAt) when p.Retry allows it, else reported missed; a
// released one is taken over; one still running past its deadline is
// reported at risk. A paused job's failed and abandoned periods wait for
// its resume. Succeeded, skipped and not-due periods need nothing.
//
// A fold's two occurrences are two periods (FoldBoth) or one (FoldFirst):
// CheckPeriods keys by Occurrence.Period, so a period the ledger records
// once is one period whatever the wall clock did.
func CheckPeriods(expected []Occurrence, records []Record, p CheckPolicy, now time.Time) []PeriodCheck {
	byPeriod := make(map[string]Record, len(records))
	for _, r := range records {
		byPeriod[r.Period] = r
	}
	deadline := p.Deadline
	if deadline <= 0 {
		deadline = max(deadlineFactor*DefaultMisfireThreshold, minDeadline)
	}
	out := make([]PeriodCheck, 0, len(expected))
	for _, o := range expected {
		r, ok := byPeriod[o.Period]
		out = append(out, checkPeriod(o, r, ok, p, o.At.Add(deadline), now))
	}
	return out
}

// checkPeriod classifies one period; rec is its record when recorded,
// deadline the instant it is at risk from (p.Deadline is not read).
func checkPeriod(o Occurrence, rec Record, recorded bool, p CheckPolicy, deadline, now time.Time) PeriodCheck {
	c := PeriodCheck{Occurrence: o}
	switch {
	case o.At.After(now):
		c.Status = PeriodNotDue
		return c
	case !recorded:
		c.Status, c.Action = PeriodMissing, ActionRun
		if p.Paused {
			c.Action = ActionSkipPaused
		}
		return c
	}
	rec.State = rec.StateAt(now)
	c.Record = rec
	switch rec.State {
	case StateSucceeded:
		c.Status = PeriodSucceeded
	case StateSkipped:
		c.Status = PeriodSkipped
	case StateRunning:
		c.Status = PeriodRunning
		if !now.Before(deadline) {
			c.Action, c.At = ActionReportAtRisk, deadline
		}
	case StateAbandoned, StateFailed:
		c.Status = PeriodAbandoned
		if rec.State == StateFailed {
			c.Status = PeriodFailed
		}
		switch {
		case p.Paused:
			c.Action = ActionWaitPaused
		case rec.Released:
			c.Status, c.Action = PeriodReleased, ActionTakeOver
		case !p.Retry.Allows(rec):
			c.Action = ActionReportMissed
		case rec.State == StateAbandoned:
			c.Action = ActionTakeOver
		default:
			c.Action, c.At = ActionRetry, rec.FinishedAt.Add(max(p.RetryBackoff, 0))
		}
	}
	return c
}

// alertsJob is the ledger job under which a Scheduler records the alerts
// of job (event.AtRisk, event.Missed), one record per period and kind, so
// that of all replicas only the first to record an alert reports it.
func alertsJob(job string) string { return job + "/alerts" }

// alertPeriod is the ledger period of an alert of kind ("at-risk",
// "missed") about period.
func alertPeriod(period, kind string) string { return period + "/" + kind }

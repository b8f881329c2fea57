package main

import (
	"context"
	"errors"
	"time"

	"github.com/dstsafe/dstsafe"
)

// reasonPaused is the reason a paused job's periods are recorded skipped
// with, by exec as by the Scheduler.
const reasonPaused = "paused"

// gate is exec's gate stage, after the period is known and before it is
// claimed to run, in the Scheduler's order: a period outside the job's
// registered bounds is neither run nor recorded (exec_limits.go); a job
// paused in the ledger (`dstsafe ledger pause`) does not run. The period is recorded as skipped ("paused"), as a
// Scheduler replica records it, so that a resume does not run it late
// and `ledger audit` shows the decision; exec exits --exit-skipped
// (default 0: a pause is an operator's decision, not a failure, and a
// CronJob's Job should not be retried for it). done is true when exec
// ends here, with err.
func (x *execRun) gate(l dstsafe.ControlLedger) (done bool, err error) {
	if done, err := x.outOfBounds(); done {
		return true, err
	}
	f := x.f
	ctx, cancel := context.WithTimeout(context.Background(), ledgerTimeout)
	defer cancel()
	p, err := l.GetPause(ctx, f.job)
	if err != nil {
		return true, x.fail(exitLedger, "reading job %s's pause state: %v; nothing run", f.job, err)
	}
	if !p.Paused {
		return false, nil
	}
	paused := "job " + f.job + " is paused"
	if p.By != "" {
		paused += " by " + p.By
	}
	if !p.Since.IsZero() {
		paused += " since " + p.Since.UTC().Format(time.RFC3339)
	}
	if p.Reason != "" {
		paused += " (" + p.Reason + ")"
	}
	rec, err := l.Claim(ctx, dstsafe.ClaimRequest{Job: f.job, Period: x.occ.Period, Owner: x.owner, Lease: f.lease,
		Now: x.clock.Now(), MaxClockOffset: f.maxClockOffset, Schedule: x.fp})
	var ce *dstsafe.ClaimedError
	switch {
	case errors.As(err, &ce):
		x.say("%s; period %s already claimed by %s (state %s); nothing run", paused, x.occ.Period, ce.Existing.Owner, ce.Existing.State)
		return true, x.skipped()
	case err != nil:
		return true, x.fail(exitLedger, "%s; recording period %s as skipped: %v; nothing run", paused, x.occ.Period, err)
	}
	if _, err := l.Finish(ctx, f.job, x.occ.Period, rec.Token, dstsafe.StateSkipped, reasonPaused); err != nil {
		return true, x.fail(exitLedger, "%s; recording period %s as skipped: %v; nothing run", paused, x.occ.Period, err)
	}
	x.say("%s: period %s recorded as skipped, nothing run (dstsafe ledger resume %s runs the next periods)", paused, x.occ.Period, f.job)
	return true, x.skipped()
}

// skipped is exec's end for a period not run on purpose (paused, out of
// bounds, max runs used): --exit-skipped.
func (x *execRun) skipped() error {
	if x.f.exitSkipped != 0 {
		return &exitError{x.f.exitSkipped}
	}
	return nil
}

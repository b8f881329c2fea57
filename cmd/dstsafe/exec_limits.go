package main

import (
	"context"
	"errors"
	"fmt"
	"math"
	"strconv"
	"time"

	"github.com/dstsafe/dstsafe"
)

// The job's limits (dstsafe.JobLimits), as the registry holds them: the
// in-process Scheduler registers WithMaxRuns and WithBounds, and exec
// honours them as a Scheduler replica of the job would, so that a job
// can move between the two, or run under both, without a period running
// that the limits forbid. exec itself never sets limits: it registers a
// job without them, which keeps the ones registered.
//
//   - Bounds: a period whose instant (Occurrence.At, as the schedule's
//     fold and gap policies give it) is before the start bound or after
//     the end bound (both included, a zero one open) is neither run nor
//     recorded, as the Scheduler neither runs nor records it; exec says
//     so, naming the period, its instant and the bound, and exits
//     --exit-skipped. This holds for every period a trigger stands for:
//     by now, --scheduled-time or a CronJob's Job name. The registry is
//     the job's policy, and a trigger does not override it.
//   - Max runs: a run holds one of the job's MaxRuns run slots, the
//     Scheduler's (job key "<job>/max-runs", periods "0000000001" up),
//     claimed after the period and held, heartbeated, until the outcome
//     is recorded: the slot succeeded before the period, so a crash in
//     between wastes a run rather than adding one; a failed or abandoned
//     run frees its slot for the next. A period that finds every slot
//     succeeded or held is recorded skipped with the Scheduler's reason,
//     and exec exits --exit-skipped. The Scheduler and exec share the
//     slots: WithMaxRuns(2) is two runs in all, whichever runs them.

// reasonMaxRuns is the reason a period that found no free run slot is
// recorded skipped with, by exec as by the Scheduler.
const reasonMaxRuns = "max runs: the job has used its runs"

// maxRunsSuffix makes the job key of a job's run slots, as the
// Scheduler's WithMaxRuns does.
const maxRunsSuffix = "/max-runs"

// slotRetry takes over a slot whose run failed or was abandoned, however
// often that happened before: the Scheduler's.
var slotRetry = dstsafe.RetryPolicy{MaxAttempts: math.MaxInt32, Failed: true, Abandoned: true}

// slotPeriod is run slot i's period: ten digits.
func slotPeriod(i int) string {
	s := strconv.Itoa(i)
	for len(s) < 10 {
		s = "0" + s
	}
	return s
}

// outOfBounds is the bounds part of exec's gate: done is true when the
// period is outside the registered bounds, and exec ends with err.
func (x *execRun) outOfBounds() (done bool, err error) {
	lim, at := x.limits, x.occ.At
	side, bound := "", time.Time{}
	switch {
	case !lim.Start.IsZero() && at.Before(lim.Start):
		side, bound = "before the job's start bound", lim.Start
	case !lim.End.IsZero() && at.After(lim.End):
		side, bound = "after the job's end bound", lim.End
	default:
		return false, nil
	}
	loc := x.cron.Location()
	x.say("job %s period %s is due at %s, %s %s (WithBounds, as registered): not run, not recorded",
		x.f.job, x.occ.Period, at.In(loc).Format(time.RFC3339Nano), side, bound.In(loc).Format(time.RFC3339Nano))
	return true, x.skipped()
}

// takeSlot claims a free run slot for the claimed period rec when the job
// has a registered MaxRuns, setting x.slot. done is true when exec ends
// here with err: every slot succeeded or held (the period recorded
// skipped, --exit-skipped), or the ledger failed (the period recorded
// failed, 125).
func (x *execRun) takeSlot(l dstsafe.ControlLedger, rec dstsafe.Record) (done bool, err error) {
	n := x.limits.MaxRuns
	if n <= 0 {
		return false, nil
	}
	f := x.f
	key := f.job + maxRunsSuffix
	ctx, cancel := context.WithTimeout(context.Background(), ledgerTimeout)
	defer cancel()
	slots, err := l.List(ctx, key, "", "")
	if err != nil {
		return true, x.finishNotRun(l, rec, exitLedger, fmt.Sprintf("dstsafe: no run slot: reading job %s's run slots: %v; not run", f.job, err))
	}
	states := make(map[string]dstsafe.State, len(slots))
	for _, s := range slots {
		states[s.Period] = s.State
	}
	used, held := 0, 0
	for i := 1; i <= n; i++ {
		p := slotPeriod(i)
		switch states[p] {
		case dstsafe.StateSucceeded, dstsafe.StateSkipped:
			used++
			continue
		case dstsafe.StateRunning:
			held++
			continue
		}
		s, err := l.Claim(ctx, dstsafe.ClaimRequest{Job: key, Period: p, Owner: x.owner, Lease: f.lease, Retry: slotRetry,
			Now: x.clock.Now(), MaxClockOffset: f.maxClockOffset})
		switch {
		case err == nil:
			x.slot = &s
			return false, nil
		case errors.Is(err, dstsafe.ErrAlreadyClaimed):
			held++ // another run got it first
		default:
			return true, x.finishNotRun(l, rec, exitLedger, fmt.Sprintf("dstsafe: no run slot: claiming job %s's run slot %s: %v; not run", f.job, p, err))
		}
	}
	if _, err := l.Finish(ctx, f.job, rec.Period, rec.Token, dstsafe.StateSkipped, reasonMaxRuns); err != nil {
		return true, x.fail(exitLedger, "job %s has used its %d runs; recording period %s as skipped: %v; nothing run", f.job, n, rec.Period, err)
	}
	x.say("job %s has used its %d runs (WithMaxRuns, as registered: %d used, %d held by runs in progress): period %s recorded as skipped, nothing run",
		f.job, n, used, held, rec.Period)
	return true, x.skipped()
}

// keepSlot heartbeats the run slot beside the period's claim while
// COMMAND runs, until ctx ends: a slot taken over (its lease ran out
// while this host could not reach the ledger) is a lost claim, sent on
// lost, as the Scheduler cancels a run whose slot it lost.
func (x *execRun) keepSlot(ctx context.Context, l dstsafe.Ledger, lost chan<- error) {
	if x.slot == nil {
		return
	}
	slot := *x.slot
	go func() {
		err := keepLease(ctx, x.clock, l, slot, x.f.lease, func(err error) {
			x.say("heartbeat of job %s's run slot %s failed, retrying at the next beat: %v", x.f.job, slot.Period, err)
		})
		if err != nil {
			lost <- fmt.Errorf("run slot %s: %w", slot.Period, err)
		}
	}()
}

// countRun records the run's slot before the period's outcome is, and
// returns the outcome to record and exec's exit status: unchanged when
// the run failed (its slot freed) or its success was counted; failed and
// 125 when the slot's success could not be recorded (a success is
// recorded only once its run is counted, as the Scheduler does).
func (x *execRun) countRun(l dstsafe.Ledger, state dstsafe.State, how string, code int) (dstsafe.State, string, int) {
	if x.slot == nil {
		return state, how, code
	}
	if state != dstsafe.StateSucceeded {
		x.releaseSlot(l, how)
		return state, how, code
	}
	slot := *x.slot
	ctx, cancel := context.WithTimeout(context.Background(), ledgerTimeout)
	_, err := l.Finish(ctx, slot.Job, slot.Period, slot.Token, dstsafe.StateSucceeded, "period "+x.occ.Period)
	cancel()
	if err != nil {
		how = fmt.Sprintf("%s, but dstsafe: run slot %s not recorded: %v", how, slot.Period, err)
		x.say("job %s period %s: %s; recording the period as failed", x.f.job, x.occ.Period, how)
		x.releaseSlot(l, how)
		return dstsafe.StateFailed, how, exitLedger
	}
	x.slot = nil
	return state, how, code
}

// releaseSlot frees the run slot of a run that did not succeed (recorded
// failed, so the next run takes it over), if exec holds one.
func (x *execRun) releaseSlot(l dstsafe.Ledger, reason string) {
	if x.slot == nil {
		return
	}
	slot := *x.slot
	x.slot = nil
	ctx, cancel := context.WithTimeout(context.Background(), ledgerTimeout)
	defer cancel()
	if _, err := l.Finish(ctx, slot.Job, slot.Period, slot.Token, dstsafe.StateFailed, reason); err != nil {
		x.say("releasing job %s's run slot %s: %v (it is freed when its lease runs out)", x.f.job, slot.Period, err)
	}
}

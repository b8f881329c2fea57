package dstsafe

import (
	"context"
	"errors"
	"time"

	"github.com/dstsafe/dstsafe/event"
)

// markTookEffect records the latest period of spec at or before at (the
// instant before it took effect) as skipped, unless it is among due: it
// never runs, and a restart finds in the ledger when spec took effect.
// A period at or before floor (the job's Add, for an Update) is left
// alone: it was due before the job existed, so it was never this
// schedule's to run. (Issue 29's second service under another schedule,
// which wrote such a record at its start, is refused by the job registry
// before it plans anything.)
func (s *Scheduler) markTookEffect(rs *runState, j *job, spec *jobSpec, at, floor time.Time, due []task) {
	o, ok := spec.lastAtOrBefore(at)
	if !ok || !o.At.After(floor) {
		return
	}
	for _, t := range due {
		if t.o.Period == o.Period {
			return
		}
	}
	if s.observed() {
		s.emitTask(event.Due, j.name, spec.taskOf(j.name, o), 0, "", nil)
	}
	s.skip(rs, j, spec.taskOf(j.name, o), reasonEdit)
}

// skip records t as deliberately not run, so the period has its one
// record. The claim carries the fingerprint of the schedule in force.
func (s *Scheduler) skip(rs *runState, j *job, t task, reason string) {
	rec, err := s.ledger.Claim(rs.ctx, s.stamp(ClaimRequest{Job: j.name, Period: t.o.Period, Owner: s.owner,
		Lease: t.spec.cfg.lease, Schedule: s.fingerprintNow(j)}))
	s.noteClaim(j.name, t, err)
	if err != nil {
		var ce *ClaimedError
		if errors.As(err, &ce) {
			s.emitTask(event.ClaimedElsewhere, j.name, t, ce.Existing.Attempt, "", nil)
			s.periodClaimed(j.name, t, false, &ce.Existing)
			return // already has its record
		}
		if errors.Is(err, ErrClockSkew) {
			return // reported by noteClaim, logged once per episode
		}
		s.ledgerFailed(j.name, err)
		if isPermanent(err) {
			s.fail(rs, j.name, err)
		}
		s.log.Error("run skip failed: ledger claim", "job", j.name, "period", t.o.Period, "error", err)
		return
	}
	if _, err := s.ledger.Finish(rs.ctx, j.name, t.o.Period, rec.Token, StateSkipped, reason); err != nil {
		if !isAnswer(err) {
			s.ledgerFailed(j.name, err)
		}
		if isPermanent(err) {
			s.fail(rs, j.name, err)
		}
		s.log.Error("run skip failed: ledger finish", "job", j.name, "period", t.o.Period, "error", err)
		return
	}
	s.ledgerAnswered()
	s.log.Warn("run skipped", "job", j.name, "period", t.o.Period, "due", t.o.At, "reason", reason)
	s.emitTask(event.Skipped, j.name, t, rec.Attempt, reason, nil)
	missed := reason
	if reason == reasonEdit || reason == reasonMaxRuns {
		missed = "" // on purpose: not a period the job was to run
	}
	s.periodEnded(j.name, t, missed)
}

// unrun ends a claimed period that will not run: skipped when the job
// has used its runs (WithMaxRuns), failed when its run slot could not be
// claimed.
func (s *Scheduler) unrun(env runEnv, j *job, t task, rec Record, why error) {
	state, reason, typ := StateFailed, "dstsafe: no run slot: "+why.Error(), event.Failed
	if errors.Is(why, ErrMaxRuns) {
		state, reason, typ = StateSkipped, reasonMaxRuns, event.Skipped
	}
	ctx := env.finishCtx
	if ctx == nil {
		ctx = context.WithoutCancel(env.ctx)
	}
	if _, err := s.ledger.Finish(ctx, j.name, t.o.Period, rec.Token, state, reason); err != nil {
		s.log.Error("run finish failed", "job", j.name, "period", t.o.Period, "outcome", state.String(), "error", err)
		if env.rs != nil && isPermanent(err) {
			s.fail(env.rs, j.name, err)
		}
		return
	}
	s.log.Warn("run not started", "job", j.name, "period", t.o.Period, "outcome", state.String(), "reason", reason)
	if typ == event.Skipped {
		s.periodEnded(j.name, t, "")
	} else {
		s.periodEnded(j.name, t, missedFailed)
	}
	if typ == event.Skipped {
		s.emitTask(typ, j.name, t, rec.Attempt, reason, nil)
	} else {
		s.emitTask(typ, j.name, t, rec.Attempt, "", why)
	}
}

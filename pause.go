package dstsafe

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/dstsafe/dstsafe/event"
)

// The reasons the Scheduler records skipped periods with (Record.Reason,
// Event.Reason), and pauses with (Pause.Reason).
const (
	reasonPaused    = "paused"
	reasonCatchUp   = "missed: catch-up policy"
	reasonOverlap   = "overlap: previous run still running"
	reasonEdit      = "before the schedule took effect"
	reasonMaxRuns   = "max runs: the job has used its runs"
	reasonOnFailure = "pause on failure"
)

// Pause pauses job in the ledger, for every Scheduler that shares it:
// from the next period on, each period that comes due while the job is
// paused is recorded as skipped with reason "paused", by whichever replica
// plans it first, and does not run. The pause is durable: a restart, or a
// replica started later, finds it in the ledger. A run already started
// finishes; a period waiting behind it (OverlapQueue, OverlapBufferOne,
// OverlapCancelRunning) is skipped as paused when its turn comes; RunNow
// and Backfill still run periods by hand.
//
// Pause records this Scheduler's owner as Pause.By and reason as given;
// pausing a paused job changes nothing (the first reason and time stay).
// It needs a ControlLedger (MemoryLedger, sqlledger, redisledger): on
// another Ledger it returns a *JobError wrapping ErrInvalidArgument, and for
// a job that was not added one wrapping ErrUnknownJob. Folds and gaps
// change nothing: the periods a paused job skips are the schedule's own,
// both readings of a FoldBoth fold and a GapShift period at its shifted
// instant included (see Resume for what happens when it is resumed).
func (s *Scheduler) Pause(ctx context.Context, job, reason string) error {
	return s.setPause(ctx, job, true, reason, nil)
}

// Resume resumes a paused job. The job continues from the instant of the
// Resume, with no burst of catch-up, under every catch-up policy: periods
// due before that instant were due while it was paused, and each of them
// is recorded as skipped ("paused") — by the replicas as they came due, or,
// if none was running, by the first Scheduler that plans the job after the
// Resume. The catch-up policy only ever sees periods missed after the
// Resume. This is a decision: Kubernetes starts the runs a suspended
// CronJob missed as soon as it is resumed; Temporal, like dstsafe, does
// not. To run periods skipped while paused, there is nothing: a skipped
// period is final in the ledger.
//
// Resuming a job that is not paused changes nothing. The errors are those
// of Pause.
func (s *Scheduler) Resume(ctx context.Context, job string) error {
	return s.setPause(ctx, job, false, "", nil)
}

// Paused returns job's pause state from the ledger: whether it is paused,
// by whom, why and since when (Since is when it was paused, or when it
// was last resumed). The errors are those of Pause.
func (s *Scheduler) Paused(ctx context.Context, job string) (Pause, error) {
	cl, err := s.controlFor(job)
	if err != nil {
		return Pause{}, err
	}
	p, err := cl.GetPause(ctx, job)
	if err != nil {
		return Pause{}, &JobError{Job: job, Err: err}
	}
	return p, nil
}

// WithPauseOnFailure pauses the job (see Scheduler.Pause) when its n most
// recent periods in the ledger that were not skipped all failed: after
// the n-th consecutive failure, whichever replica ran it, counting the
// failures before a restart (Temporal's pause_on_failure). A period
// counts once it ends failed, retries included (WithRetry); a succeeded
// period ends the streak, skipped ones are passed over, and the streak
// starts again at each Resume (periods claimed before it do not count).
// The pause's reason says "pause on failure" and names the count and the
// last period. It needs a ControlLedger:
// Add returns a *JobError wrapping ErrInvalidArgument on another Ledger.
// Zero or negative n means never (the default).
func WithPauseOnFailure(n int) JobOption {
	return func(c *jobConfig) { c.pauseAfter = max(n, 0) }
}

// controlFor returns the ledger as a ControlLedger for job.
func (s *Scheduler) controlFor(job string) (ControlLedger, error) {
	s.mu.Lock()
	_, ok := s.jobs[job]
	s.mu.Unlock()
	if !ok {
		return nil, &JobError{Job: job, Err: ErrUnknownJob}
	}
	if s.control == nil {
		return nil, &JobError{Job: job, Err: fmt.Errorf("%w: pause needs a ControlLedger, %T is not one", errNotSupported, s.ledger)}
	}
	return s.control, nil
}

// setPause changes job's pause state and tells the observers when this
// call changed it. t is the period that made a WithPauseOnFailure pause.
func (s *Scheduler) setPause(ctx context.Context, job string, paused bool, reason string, t *task) error {
	cl, err := s.controlFor(job)
	if err != nil {
		return err
	}
	cur, err := cl.GetPause(ctx, job)
	if err != nil {
		return &JobError{Job: job, Err: err}
	}
	if cur.Paused == paused {
		return nil
	}
	p, err := cl.SetPause(ctx, job, Pause{Paused: paused, By: s.owner, Reason: reason})
	if err != nil {
		return &JobError{Job: job, Err: err}
	}
	typ, msg := event.Resumed, "job resumed"
	if paused {
		typ, msg = event.Paused, "job paused"
	}
	s.log.Warn(msg, "job", job, "by", p.By, "reason", p.Reason, "since", p.Since)
	if s.observed() {
		e := Event{Type: typ, Job: job, At: s.clock.Now(), Reason: p.Reason}
		if t != nil {
			e.Period, e.Wall, e.Kind, e.Due = t.o.Period, t.o.Wall, t.o.Kind, t.o.At
		}
		s.emit(e)
	}
	return nil
}

// pauseOnFailure pauses j when its latest n periods that were not skipped
// all failed, after t ended failed. Best effort: a ledger error leaves the
// decision to the next failure.
func (s *Scheduler) pauseOnFailure(env runEnv, j *job, t task) {
	n := t.spec.cfg.pauseAfter
	if n <= 0 || s.control == nil {
		return
	}
	p, err := s.control.GetPause(env.ctx, j.name)
	if err != nil || p.Paused {
		return
	}
	recs, err := s.recentRecords(env.ctx, j.name, s.clock.Now(), n)
	if err != nil {
		s.log.Error("run pause on failure: ledger list failed", "job", j.name, "error", err)
		return
	}
	if len(recs) < n {
		return
	}
	for _, r := range recs {
		if r.State != StateFailed || r.StartedAt.Before(p.Since) {
			return
		}
	}
	reason := fmt.Sprintf("%s: %d consecutive failed periods, the last %s", reasonOnFailure, n, recs[len(recs)-1].Period)
	if err := s.setPause(context.WithoutCancel(env.ctx), j.name, true, reason, &t); err != nil && !errors.Is(err, ErrUnknownJob) {
		s.log.Error("run pause on failure failed", "job", j.name, "error", err)
	}
}

// recentRecords returns the latest n records of job that are not
// skipped, by period (the latest last), looking back as far as
// resumeLookback does; fewer when there are fewer.
func (s *Scheduler) recentRecords(ctx context.Context, job string, now time.Time, n int) ([]Record, error) {
	var kept []Record
	for _, back := range resumeLookback {
		from := DateOf(now.Add(-back-48*time.Hour), time.UTC).String()
		recs, err := s.ledger.List(ctx, job, from, "")
		if err != nil {
			return nil, err
		}
		kept = kept[:0]
		for _, r := range recs {
			if r.State != StateSkipped {
				kept = append(kept, r)
			}
		}
		if len(kept) >= n {
			return kept[len(kept)-n:], nil
		}
	}
	return kept, nil
}

package dstsafe

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"runtime/debug"
	"time"

	"github.com/dstsafe/dstsafe/event"
)

// runEnv is what running a period needs from its caller: Run's worker or
// RunNow's caller.
type runEnv struct {
	ctx      context.Context // the job's context, and the ledger calls'
	stopping <-chan struct{} // Run stops starting runs; nil for RunNow
	sim      *simulation     // nil in production
	rs       *runState       // nil for RunNow: ledger errors are returned, not fatal
	// finishCtx records outcomes: it does not end with ctx (nil: derive it).
	finishCtx context.Context
	// live: a run of the schedule (runBatch), which OverlapCancelRunning
	// may cancel; RunNow and Backfill are not.
	live bool
	// takeOver, when set, replaces the job's RetryPolicy in claims
	// (Backfill: any failed or abandoned attempt).
	takeOver *RetryPolicy
}

// claimPolicy is the RetryPolicy env's claims of t take over by.
func (env runEnv) claimPolicy(t task) RetryPolicy {
	if env.takeOver != nil {
		return *env.takeOver
	}
	return t.spec.cfg.retry
}

func (rs *runState) env() runEnv {
	return runEnv{ctx: rs.jobCtx, stopping: rs.stopping, sim: rs.sim, rs: rs, finishCtx: rs.finishCtx}
}

// planEnv is the environment of a planner's ledger calls: they end with
// Run's context.
func (rs *runState) planEnv() runEnv {
	return runEnv{ctx: rs.ctx, stopping: rs.stopping, sim: rs.sim, rs: rs}
}

// runBatch runs periods of one job in order until Run stops or the job is
// removed: batch (OverlapAllow), or, when serial, the job's queue, which
// the planners keep filling while it runs (every other overlap mode).
func (s *Scheduler) runBatch(rs *runState, j *job, batch []task, serial bool) {
	env := rs.env()
	env.live = true
	for i := 0; ; i++ {
		s.mu.Lock()
		stop, removed := rs.stopped(), j.removed
		if stop || removed {
			if stop {
				// Not claimed, so not lost: the next Run resumes after
				// the latest record and catches these up by policy.
				j.primed = false
			}
			j.active--
			if serial {
				j.queued = nil
			}
			s.mu.Unlock()
			return
		}
		var t task
		switch {
		case serial && len(j.queued) > 0:
			t, j.queued = j.queued[0], j.queued[1:]
		case !serial && i < len(batch):
			t = batch[i]
		default:
			j.active--
			s.mu.Unlock()
			return
		}
		s.mu.Unlock()
		if serial && i > 0 {
			// It waited for the one before: the job may have been paused
			// meanwhile.
			p, ok := s.pauseOf(rs, j.name)
			if !ok {
				continue // Run stops: the loop's check ends the batch
			}
			if _, paused := splitPaused([]task{t}, p); len(paused) > 0 {
				s.skip(rs, j, t, reasonPaused)
				continue
			}
		}
		s.execute(env, j, t)
	}
}

// outcome is what running one period came to.
type outcome struct {
	fire Fire // the last attempt, when ran
	ran  bool
	// ledgerErr is why it did not run: the claim's error (a *ClaimedError
	// when the period was claimed before), or one wrapping ErrMaxRuns.
	ledgerErr error
}

// execute claims t and runs it, retrying by the job's policy.
func (s *Scheduler) execute(env runEnv, j *job, t task) outcome {
	if t.manual() {
		s.emitTask(event.Due, j.name, t, 0, "", nil) // the planner emits the others'
	}
	retry := t.spec.cfg.retry
	var out outcome
	recorded := false
	for {
		rec, err := s.claim(env, j, t)
		if err != nil {
			out.ledgerErr = err
			return out
		}
		var slot *runSlot
		if t.spec.cfg.maxRuns > 0 {
			if slot, err = s.claimSlot(env, j, t); err != nil {
				s.unrun(env, j, t, rec, err)
				out.ledgerErr = err
				return out
			}
		}
		fire, again, ok := s.invoke(env, j, t, rec, slot)
		recorded = ok
		out.fire, out.ran = fire, true
		if fire.Err == nil || !again || !retry.Failed || rec.Attempt >= retry.MaxAttempts {
			break
		}
		if !s.sleep(env, t.spec.cfg.retryBackoff) {
			break
		}
	}
	if out.fire.Err != nil && recorded {
		// Recorded as failed with no retry left here. A failure the
		// ledger did not record (its lease lost, the ledger down) is the
		// record's to decide: abandoned, then reconciled.
		s.periodEnded(j.name, t, missedFailed)
		s.pauseOnFailure(env, j, t)
	}
	return out
}

// sleep waits d on the clock; false if Run stops or env's context ends
// first. Under Simulate the goroutine counts as asleep until then.
func (s *Scheduler) sleep(env runEnv, d time.Duration) bool {
	if d <= 0 {
		return true
	}
	now := s.clock.Now()
	t := s.clock.NewTimer(d)
	defer t.Stop()
	id := env.sim.park(now.Add(d))
	defer env.sim.unpark(id)
	select {
	case <-t.Chan():
		return true
	case <-env.stopping:
		return false
	case <-env.ctx.Done():
		return false
	}
}

// invoke runs one claimed attempt: the job under a heartbeat (and timeout),
// then Finish with the outcome (the run slot's first, under WithMaxRuns).
// It returns the run, whether a failure may be retried (not when a newer
// period cancelled it), and whether the ledger recorded the outcome.
func (s *Scheduler) invoke(env runEnv, j *job, t task, rec Record, slot *runSlot) (Fire, bool, bool) {
	ctx, cfg := env.ctx, &t.spec.cfg
	run := t.spec.runOf(j.name, t.o, rec)
	started := s.clock.Now()
	if s.observed() {
		e := s.taskEvent(event.Started, j.name, t)
		e.Attempt = rec.Attempt
		if !t.manual() {
			e.Late = max(started.Sub(t.start), 0)
			if e.Late > cfg.misfire {
				e.Type = event.Late
				s.emit(e)
				e.Type = event.Started
			}
		}
		s.emit(e)
	}
	s.logRun(ctx, slog.LevelInfo, "run start", run)

	runCtx, cancel := context.WithCancelCause(ctx)
	defer cancel(context.Canceled)
	register := env.live && cfg.overlap == OverlapCancelRunning
	if register {
		s.mu.Lock()
		j.cancelRun = cancel
		s.mu.Unlock()
	}
	hb := &beat{
		base: env.ctx, rs: env.rs, cancel: cancel, cfg: cfg,
		job: run.Job, period: run.Period, token: run.Token,
		leaseUntil: rec.LeaseUntil, slot: slot,
	}
	s.keep(hb)
	err := callJob(runCtx, t.spec.fn, run)
	s.unkeep(hb)
	if register {
		s.mu.Lock()
		j.cancelRun = nil
		s.mu.Unlock()
	}
	cancelled := err != nil && errors.Is(context.Cause(runCtx), ErrOverlapCancelled)

	state, reason := StateSucceeded, ""
	if err != nil {
		state, reason = StateFailed, err.Error()
		if cause := context.Cause(runCtx); cause != nil && !errors.Is(err, cause) && runCtx.Err() != nil {
			reason += " (" + cause.Error() + ")"
		}
	}
	finishCtx := env.finishCtx
	if finishCtx == nil {
		finishCtx = context.WithoutCancel(ctx)
	}
	fenv := env
	fenv.ctx = finishCtx
	if slot != nil && state == StateSucceeded {
		// The slot first: a success is recorded only once its run is
		// counted, so a crash in between leaves one run too few, never
		// one too many.
		if serr := s.finishSlot(fenv, j.name, slot, StateSucceeded, "period "+run.Period); serr != nil {
			err = errorf("dstsafe: run slot %s not recorded: %w", slot.period, serr)
			state, reason = StateFailed, err.Error()
		}
	}
	_, ferr := s.ledger.Finish(finishCtx, j.name, run.Period, run.Token, state, reason)
	if ferr != nil && !isAnswer(ferr) {
		s.ledgerFailed(j.name, ferr)
	} else {
		s.ledgerAnswered()
	}
	if ferr != nil {
		switch {
		case errors.Is(ferr, ErrLeaseLost):
			s.logRun(ctx, slog.LevelWarn, "run finish rejected: lease lost", run, "outcome", state.String())
		default:
			s.logRun(ctx, slog.LevelError, "run finish failed", run, "outcome", state.String(), "error", ferr)
			if env.rs != nil && isPermanent(ferr) {
				s.fail(env.rs, j.name, ferr)
			}
		}
	}
	if slot != nil && state != StateSucceeded {
		if serr := s.finishSlot(fenv, j.name, slot, StateFailed, reason); serr != nil {
			s.log.Warn("run slot release failed", "job", j.name, "slot", slot.period, "error", serr)
		}
	}
	took := s.clock.Now().Sub(started)
	if err != nil {
		s.logRun(ctx, slog.LevelError, "run finish", run, "outcome", state.String(), "duration", took, "error", err)
	} else {
		s.logRun(ctx, slog.LevelInfo, "run finish", run, "outcome", state.String(), "duration", took)
	}
	if s.observed() {
		// One event ends the attempt: what the ledger recorded, or that it
		// was no longer this attempt's to record.
		e := s.taskEvent(event.Succeeded, j.name, t)
		e.Attempt, e.Duration = rec.Attempt, took
		switch {
		case errors.Is(ferr, ErrLeaseLost):
			e.Type, e.Err = event.LeaseLost, ferr
			if hb.lost != nil {
				e.Err = hb.lost
			}
		case err != nil:
			e.Type, e.Err = event.Failed, err
		case ferr != nil:
			e.Type, e.Err = event.Failed, ferr
		}
		s.emit(e)
	}
	switch {
	case errors.Is(ferr, ErrLeaseLost):
		s.periodClaimed(j.name, t, false, nil) // taken over: its record decides
	case ferr == nil && state == StateSucceeded:
		s.periodEnded(j.name, t, "")
	}
	f := Fire{Run: run, Started: started, Err: err}
	env.sim.recordFire(f, err != nil && errors.Is(context.Cause(runCtx), ErrDrainTimeout))
	return f, !cancelled, ferr == nil
}

// logRun logs msg, a constant ("run start"), with the run's attributes, in
// the postmortem's shape: msg="run start" job=billing period=...
// run_date=2024-11-03 due=2024-11-03T01:30:00.000-05:00 ...
// It builds nothing when the level is disabled.
func (s *Scheduler) logRun(ctx context.Context, level slog.Level, msg string, run Run, extra ...any) {
	if !s.log.Enabled(ctx, level) {
		return
	}
	attrs := append([]any{"job", run.Job, "period", run.Period, "run_date", run.RunDate.String(), "due", run.Due,
		"wall", run.Wall.String(), "kind", run.Kind.String(), "attempt", run.Attempt, "token", run.Token,
		"owner", s.owner}, extra...)
	s.log.Log(ctx, level, msg, attrs...)
}

// PanicError is the error a job's panic is turned into; the run is
// recorded as failed and the scheduler keeps going. Value is what the job
// panicked with and Stack the goroutine's stack where it panicked
// (runtime/debug.Stack).
type PanicError struct {
	Value any
	Stack []byte
}

func (e *PanicError) Error() string { return fmt.Sprintf("dstsafe: job panicked: %v", e.Value) }

// Unwrap returns Value when it is an error (a job that panics with
// context.Canceled, or an io error, is errors.Is that error), else nil.
func (e *PanicError) Unwrap() error {
	err, _ := e.Value.(error)
	return err
}

func callJob(ctx context.Context, fn func(context.Context, Run) error, run Run) (err error) {
	defer func() {
		if v := recover(); v != nil {
			err = &PanicError{Value: v, Stack: debug.Stack()}
		}
	}()
	return fn(ctx, run)
}

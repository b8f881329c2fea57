package dstsafe

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"runtime/debug"
	"time"
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
}

func (rs *runState) env() runEnv {
	return runEnv{ctx: rs.jobCtx, stopping: rs.stopping, sim: rs.sim, rs: rs, finishCtx: rs.finishCtx}
}

// runBatch runs a batch of periods of one job in order, then whatever the
// overlap queue collected meanwhile, until Run stops or the job is
// removed.
func (s *Scheduler) runBatch(rs *runState, j *job, batch []task) {
	env := rs.env()
	for {
		for _, t := range batch {
			s.mu.Lock()
			stop, removed := rs.stopped(), j.removed
			if stop || removed {
				if stop {
					// Not claimed, so not lost: the next Run resumes after
					// the latest record and catches these up by policy.
					j.primed = false
				}
				j.active--
				j.queued = nil
				s.mu.Unlock()
				return
			}
			s.mu.Unlock()
			s.execute(env, j, t)
		}
		s.mu.Lock()
		if len(j.queued) == 0 {
			j.active--
			s.mu.Unlock()
			return
		}
		batch, j.queued = j.queued, nil
		s.mu.Unlock()
	}
}

// execute claims t and runs it, retrying by the job's policy. It returns
// the job's last error, or as ledgerErr the claim error (a *ClaimedError
// when the period was claimed before).
func (s *Scheduler) execute(env runEnv, j *job, t task) (err, ledgerErr error) {
	retry := t.spec.cfg.retry
	for {
		rec, err := s.claim(env, j, t)
		if err != nil {
			return nil, err
		}
		err = s.invoke(env, j, t, rec)
		if err == nil || !retry.Failed || rec.Attempt >= retry.MaxAttempts {
			return err, nil
		}
		if !s.sleep(env, t.spec.cfg.retryBackoff) {
			return err, nil
		}
	}
}

// claim claims t in the ledger. A ledger that fails (database restarting,
// network down) is retried with backoff on the clock, 1 s doubling to a
// minute, until it answers or Run stops: a database that goes away at
// 01:30 delays the run, it does not lose it. A permanent error stops Run.
// Without Run (RunNow) the first error is returned. An existing claim is
// logged as "run already claimed" with its record and returned as is.
func (s *Scheduler) claim(env runEnv, j *job, t task) (Record, error) {
	backoff := time.Second
	o := t.o
	for {
		rec, err := s.ledger.Claim(env.ctx, ClaimRequest{
			Job: j.name, Period: o.Period, Owner: s.owner, Lease: t.spec.cfg.lease, Retry: t.spec.cfg.retry,
			Schedule: s.fingerprintNow(j),
		})
		if err == nil {
			return rec, nil
		}
		var ce *ClaimedError
		if errors.As(err, &ce) {
			e := ce.Existing
			s.log.Info("run already claimed", "job", j.name, "period", o.Period, "due", o.At,
				"state", e.State.String(), "owner", e.Owner, "started", e.StartedAt,
				"attempt", e.Attempt, "token", e.Token)
			return Record{}, err
		}
		if env.rs == nil || isPermanent(err) || env.ctx.Err() != nil {
			s.log.Error("run claim failed", "job", j.name, "period", o.Period, "due", o.At, "error", err)
			if env.rs != nil && isPermanent(err) {
				s.fail(env.rs, j.name, err)
			}
			return Record{}, err
		}
		s.log.Error("run claim failed", "job", j.name, "period", o.Period, "due", o.At, "error", err, "retry_in", backoff)
		if !s.sleep(env, backoff) {
			return Record{}, err
		}
		backoff = min(2*backoff, time.Minute)
	}
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
// then Finish with the outcome.
func (s *Scheduler) invoke(env runEnv, j *job, t task, rec Record) error {
	ctx, cfg := env.ctx, &t.spec.cfg
	run := t.spec.runOf(j.name, t.o, rec)
	started := s.clock.Now()
	s.logRun(ctx, slog.LevelInfo, "run start", run)

	runCtx, cancel := context.WithCancelCause(ctx)
	defer cancel(context.Canceled)
	stop := make(chan struct{})
	hbDone := make(chan struct{})
	go s.heartbeat(env, runCtx, cancel, cfg, run, rec.LeaseUntil, stop, hbDone)
	err := callJob(runCtx, t.spec.fn, run)
	close(stop)
	<-hbDone

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
	if _, ferr := s.ledger.Finish(finishCtx, j.name, run.Period, run.Token, state, reason); ferr != nil {
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
	took := s.clock.Now().Sub(started)
	if err != nil {
		s.logRun(ctx, slog.LevelError, "run finish", run, "outcome", state.String(), "duration", took, "error", err)
	} else {
		s.logRun(ctx, slog.LevelInfo, "run finish", run, "outcome", state.String(), "duration", took)
	}
	env.sim.recordFire(Fire{Run: run, Started: started, Err: err})
	return err
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

// heartbeat extends the claim every heartbeat interval while the job runs,
// cancels the job's context when the lease is lost (taken over, or expired
// while the ledger was unreachable) or the timeout passes, and stops when
// stop closes or the scheduler gives up draining (base is cancelled).
func (s *Scheduler) heartbeat(env runEnv, runCtx context.Context, cancel context.CancelCauseFunc, cfg *jobConfig, run Run,
	leaseUntil time.Time, stop <-chan struct{}, done chan<- struct{}) {
	defer close(done)
	base := env.ctx
	beat := s.clock.NewTimer(cfg.heartbeat)
	defer beat.Stop()
	var timeout <-chan time.Time
	if cfg.timeout > 0 {
		t := s.clock.NewTimer(cfg.timeout)
		defer t.Stop()
		timeout = t.Chan()
	}
	beats := beat.Chan()
	for {
		select {
		case <-stop:
			return
		case <-base.Done():
			return
		case <-timeout:
			timeout = nil
			s.log.Warn("run timeout", "job", run.Job, "period", run.Period, "timeout", cfg.timeout)
			cancel(ErrJobTimeout)
		case <-beats:
			rec, err := s.ledger.Heartbeat(base, run.Job, run.Period, run.Token, cfg.lease)
			switch {
			case err == nil:
				leaseUntil = rec.LeaseUntil
			case errors.Is(err, ErrLeaseLost):
				s.log.Error("run lease lost", "job", run.Job, "period", run.Period, "token", run.Token, "error", err)
				cancel(ErrLeaseLost)
				beats = nil
				continue
			case isPermanent(err):
				s.log.Error("run heartbeat failed", "job", run.Job, "period", run.Period, "error", err)
				cancel(err)
				if env.rs != nil {
					s.fail(env.rs, run.Job, err)
				}
				beats = nil
				continue
			default:
				s.log.Warn("run heartbeat failed", "job", run.Job, "period", run.Period, "error", err)
				if !s.clock.Now().Before(leaseUntil) {
					s.log.Error("run lease expired", "job", run.Job, "period", run.Period, "lease_until", leaseUntil)
					cancel(fmt.Errorf("%w: lease expired at %s while the ledger was unreachable", ErrLeaseLost, leaseUntil.Format(time.RFC3339)))
					beats = nil
					continue
				}
			}
			beat.Reset(cfg.heartbeat)
		}
	}
}

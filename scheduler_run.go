package dstsafe

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"runtime/debug"
	"time"
)

// dispatch starts a worker for the batch, or applies the overlap policy
// when the job is still running.
func (s *Scheduler) dispatch(ctx context.Context, j *job, batch []Occurrence, stopping chan struct{}) {
	s.mu.Lock()
	if j.active > 0 {
		switch j.cfg.overlap {
		case OverlapQueue:
			j.queue = append(j.queue, batch...)
			s.mu.Unlock()
			return
		case OverlapAllow:
		default:
			s.mu.Unlock()
			for _, o := range batch {
				s.skip(ctx, j, o, "overlap: previous run still running")
			}
			return
		}
	}
	j.active++
	s.act.begin()
	s.workers.Add(1)
	s.mu.Unlock()
	go s.worker(ctx, j, batch, stopping)
}

// worker runs a batch of periods of one job in order, then whatever the
// overlap queue collected meanwhile.
func (s *Scheduler) worker(ctx context.Context, j *job, batch []Occurrence, stopping chan struct{}) {
	defer s.workers.Done()
	defer s.act.end()
	for {
		for _, o := range batch {
			select {
			case <-stopping:
				// Not claimed, so not lost: the next start resumes after the
				// latest record and catches these up by policy.
				s.mu.Lock()
				j.active--
				j.queue = nil
				s.mu.Unlock()
				return
			default:
			}
			s.execute(ctx, j, o, stopping)
		}
		s.mu.Lock()
		if len(j.queue) == 0 {
			j.active--
			s.mu.Unlock()
			return
		}
		batch, j.queue = j.queue, nil
		s.mu.Unlock()
	}
}

// execute claims o and runs it, retrying by the job's policy. It returns
// the job's last error, or the claim error (a *ClaimedError when the
// period was claimed before).
func (s *Scheduler) execute(ctx context.Context, j *job, o Occurrence, stopping <-chan struct{}) error {
	for {
		rec, err := s.claim(ctx, j, o, stopping)
		if err != nil {
			return err
		}
		err = s.invoke(ctx, j, o, rec)
		if err == nil || !j.cfg.retry.Failed || rec.Attempt >= j.cfg.retry.MaxAttempts {
			return err
		}
		if !s.sleep(j.cfg.retryBackoff, stopping) {
			return err
		}
	}
}

// claim claims o in the ledger. A ledger that fails (database restarting,
// network down) is retried with backoff on the clock, 1 s doubling to a
// minute, until it answers or the scheduler stops: a database that goes
// away at 01:30 delays the run, it does not lose it. Without stopping
// (RunNow) the first error is returned. An existing claim is logged as
// "run already claimed" with its record and returned as is.
func (s *Scheduler) claim(ctx context.Context, j *job, o Occurrence, stopping <-chan struct{}) (Record, error) {
	backoff := time.Second
	for {
		rec, err := s.ledger.Claim(ctx, ClaimRequest{
			Job: j.name, Period: o.Period, Owner: s.owner, Lease: j.cfg.lease, Retry: j.cfg.retry,
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
		permanent := stopping == nil || errors.Is(err, ErrInvalidKey) || ctx.Err() != nil
		if permanent {
			s.log.Error("run claim failed", "job", j.name, "period", o.Period, "due", o.At, "error", err)
			return Record{}, err
		}
		s.log.Error("run claim failed", "job", j.name, "period", o.Period, "due", o.At, "error", err, "retry_in", backoff)
		if !s.sleep(backoff, stopping) {
			return Record{}, err
		}
		backoff = min(2*backoff, time.Minute)
	}
}

// sleep waits d on the clock; false if stopping closed first.
func (s *Scheduler) sleep(d time.Duration, stopping <-chan struct{}) bool {
	if d <= 0 {
		return true
	}
	now := s.clock.Now()
	t := s.clock.NewTimer(d)
	defer t.Stop()
	id := s.act.park(now.Add(d))
	defer s.act.unpark(id)
	select {
	case <-t.Chan():
		return true
	case <-stopping:
		return false
	}
}

// invoke runs one claimed attempt: the job under a heartbeat (and timeout),
// then Finish with the outcome.
func (s *Scheduler) invoke(ctx context.Context, j *job, o Occurrence, rec Record) error {
	run := j.runOf(o, rec)
	started := s.clock.Now()
	s.logRun(ctx, slog.LevelInfo, "run start", run)

	runCtx, cancel := context.WithCancelCause(ctx)
	defer cancel(context.Canceled)
	stop := make(chan struct{})
	hbDone := make(chan struct{})
	go s.heartbeat(ctx, runCtx, cancel, j, run, rec.LeaseUntil, stop, hbDone)
	err := callJob(runCtx, j.fn, run)
	close(stop)
	<-hbDone

	state, reason := StateSucceeded, ""
	if err != nil {
		state, reason = StateFailed, err.Error()
		if cause := context.Cause(runCtx); cause != nil && !errors.Is(err, cause) && runCtx.Err() != nil {
			reason += " (" + cause.Error() + ")"
		}
	}
	finishCtx := context.WithoutCancel(ctx)
	if _, ferr := s.ledger.Finish(finishCtx, j.name, run.Period, run.Token, state, reason); ferr != nil {
		if errors.Is(ferr, ErrLeaseLost) {
			s.logRun(ctx, slog.LevelWarn, "run finish rejected: lease lost", run, "outcome", state.String())
		} else {
			s.logRun(ctx, slog.LevelError, "run finish failed", run, "outcome", state.String(), "error", ferr)
		}
	}
	took := s.clock.Now().Sub(started)
	if err != nil {
		s.logRun(ctx, slog.LevelError, "run finish", run, "outcome", state.String(), "duration", took, "error", err)
	} else {
		s.logRun(ctx, slog.LevelInfo, "run finish", run, "outcome", state.String(), "duration", took)
	}
	s.mu.Lock()
	record := s.record
	s.mu.Unlock()
	if record != nil {
		record(Fire{Run: run, Started: started, Err: err})
	}
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
func (s *Scheduler) heartbeat(base, runCtx context.Context, cancel context.CancelCauseFunc, j *job, run Run,
	leaseUntil time.Time, stop <-chan struct{}, done chan<- struct{}) {
	defer close(done)
	beat := s.clock.NewTimer(j.cfg.heartbeat)
	defer beat.Stop()
	var timeout <-chan time.Time
	if j.cfg.timeout > 0 {
		t := s.clock.NewTimer(j.cfg.timeout)
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
			s.log.Warn("run timeout", "job", j.name, "period", run.Period, "timeout", j.cfg.timeout)
			cancel(ErrJobTimeout)
		case <-beats:
			rec, err := s.ledger.Heartbeat(base, j.name, run.Period, run.Token, j.cfg.lease)
			switch {
			case err == nil:
				leaseUntil = rec.LeaseUntil
			case errors.Is(err, ErrLeaseLost):
				s.log.Error("run lease lost", "job", j.name, "period", run.Period, "token", run.Token, "error", err)
				cancel(ErrLeaseLost)
				beats = nil
				continue
			default:
				s.log.Warn("run heartbeat failed", "job", j.name, "period", run.Period, "error", err)
				if !s.clock.Now().Before(leaseUntil) {
					s.log.Error("run lease expired", "job", j.name, "period", run.Period, "lease_until", leaseUntil)
					cancel(fmt.Errorf("%w: lease expired at %s while the ledger was unreachable", ErrLeaseLost, leaseUntil.Format(time.RFC3339)))
					beats = nil
					continue
				}
			}
			beat.Reset(j.cfg.heartbeat)
		}
	}
}

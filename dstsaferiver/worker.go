package dstsaferiver

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"strconv"
	"time"

	"github.com/jonboulle/clockwork"
	"github.com/riverqueue/river"

	"github.com/dstsafe/dstsafe"
)

// WorkFunc is the work of one period: run carries the period (Job, Period,
// Wall, Kind, Due, RunDate) and the ledger attempt; key everything the work
// changes by run.Job and run.Period.
type WorkFunc[T river.JobArgs] func(ctx context.Context, run dstsafe.Run, job *river.Job[T]) error

// WorkerOptions configures NewWorker and NewTxWorker. A nil *WorkerOptions
// is the zero value.
type WorkerOptions struct {
	// Retry says whether a claim may take over a period whose earlier
	// attempt failed or was abandoned (its worker stopped heartbeating, for
	// example because its process was killed). The zero value never takes
	// over: the period then stays failed or abandoned in the ledger, and
	// river's retries of its job do nothing. Money-moving jobs keep it.
	Retry dstsafe.RetryPolicy
	// Lease is how long NewWorker's claim holds without a heartbeat; it
	// heartbeats every Lease/3. Defaults to dstsafe.DefaultLease.
	Lease time.Duration
	// Owner prefixes the owner recorded with each claim, followed by
	// "/job/<river job id>/attempt/<n>". Defaults to "river".
	Owner string
	// Clock measures heartbeats and the wait for an abandoned lease, and
	// every claim carries its reading (dstsafe.ClaimRequest.Now): a claim
	// more than 5 s off the ledger's clock is refused with
	// dstsafe.ErrClockSkew and river retries the job. In a test whose
	// ledger runs on a fake clock, give the worker the same clock.
	// Defaults to clockwork.NewRealClock().
	Clock dstsafe.Clock
	// Logger receives a line for each job whose period was claimed before
	// ("already claimed"). Defaults to slog.Default().
	Logger *slog.Logger
}

func (o *WorkerOptions) withDefaults() WorkerOptions {
	var w WorkerOptions
	if o != nil {
		w = *o
	}
	if w.Lease <= 0 {
		w.Lease = dstsafe.DefaultLease
	}
	if w.Owner == "" {
		w.Owner = "river"
	}
	if w.Clock == nil {
		w.Clock = clockwork.NewRealClock()
	}
	if w.Logger == nil {
		w.Logger = slog.Default()
	}
	return w
}

func (o WorkerOptions) owner(id int64, attempt int) string {
	return o.Owner + "/job/" + strconv.FormatInt(id, 10) + "/attempt/" + strconv.Itoa(attempt)
}

// NewWorker returns a river worker for jobs inserted by NewPeriodicJob (or
// ForPeriod) that claims the job's period in ledger before calling work and
// records the outcome after, so a period's work runs once however many
// river jobs reach it: a retry after a failed attempt, a job rescued from a
// dead worker, one inserted by hand, a duplicate whose unique row was
// cleaned up.
//
// The claim, the work and the finish are separate commits, and river's
// completion of the job another: this works with every ledger and every
// river driver (riverpgxv5 included), but a worker that dies after its
// claim leaves the period running, then abandoned when its lease ends; it
// is run again only when Retry allows abandoned takeovers, and then the
// work may have happened already: make it idempotent by run.Period. For
// the claim to commit with the job's completion, use NewTxWorker.
//
// A job whose period was claimed before completes without running work
// (logged as "already claimed"). A job whose period is held by a claim
// that Retry may take over once abandoned is snoozed until that claim's
// lease ends. A job without a Period is cancelled (ErrNoPeriod). An error
// from work is recorded as the period's failure and returned to river,
// whose retry re-runs the period only when Retry allows failed takeovers.
// The context work gets is cancelled if the claim's lease is lost.
func NewWorker[T river.JobArgs](ledger dstsafe.Ledger, work WorkFunc[T], opts *WorkerOptions) river.Worker[T] {
	if ledger == nil {
		panic("dstsaferiver: NewWorker with nil ledger")
	}
	if work == nil {
		panic("dstsaferiver: NewWorker with nil work")
	}
	return &worker[T]{ledger: ledger, work: work, opts: opts.withDefaults()}
}

type worker[T river.JobArgs] struct {
	river.WorkerDefaults[T]
	ledger dstsafe.Ledger
	work   WorkFunc[T]
	opts   WorkerOptions
}

func (w *worker[T]) Work(ctx context.Context, job *river.Job[T]) error {
	p, err := PeriodOf(job.JobRow)
	if err != nil {
		return river.JobCancel(err)
	}
	rec, err := w.ledger.Claim(ctx, dstsafe.ClaimRequest{
		Job: p.Job, Period: p.Period, Owner: w.opts.owner(job.ID, job.Attempt),
		Lease: w.opts.Lease, Retry: w.opts.Retry,
		// The claim carries this client's clock, so a client whose clock
		// is off from the ledger's by more than the bound is refused
		// (dstsafe.ErrClockSkew) and river retries the job, on this
		// client or a healthy one.
		Now: w.opts.Clock.Now(),
	})
	if err != nil {
		return claimed(w.opts, p, job.ID, err)
	}
	run, err := p.run(rec)
	if err != nil {
		_, ferr := w.ledger.Finish(context.WithoutCancel(ctx), p.Job, p.Period, rec.Token, dstsafe.StateFailed, err.Error())
		return river.JobCancel(errors.Join(err, ferr))
	}

	workCtx, cancel := context.WithCancelCause(ctx)
	beat := make(chan struct{})
	go func() {
		defer close(beat)
		w.heartbeat(workCtx, cancel, p, rec.Token)
	}()
	workErr := w.work(workCtx, run, job)
	cancel(context.Canceled)
	<-beat

	state, reason := dstsafe.StateSucceeded, ""
	if workErr != nil {
		state, reason = dstsafe.StateFailed, workErr.Error()
	}
	if _, err := w.ledger.Finish(context.WithoutCancel(ctx), p.Job, p.Period, rec.Token, state, reason); err != nil {
		return errors.Join(workErr, fmt.Errorf("dstsaferiver: job %s period %s: finish: %w", p.Job, p.Period, err))
	}
	return workErr
}

// heartbeat extends the claim every lease/3 until ctx ends, and cancels
// ctx with dstsafe.ErrLeaseLost once the claim is taken over.
func (w *worker[T]) heartbeat(ctx context.Context, cancel context.CancelCauseFunc, p Period, token int64) {
	for {
		t := w.opts.Clock.NewTimer(w.opts.Lease / 3)
		select {
		case <-ctx.Done():
			t.Stop()
			return
		case <-t.Chan():
		}
		if _, err := w.ledger.Heartbeat(ctx, p.Job, p.Period, token, w.opts.Lease); errors.Is(err, dstsafe.ErrLeaseLost) {
			cancel(fmt.Errorf("dstsaferiver: job %s period %s: %w", p.Job, p.Period, err))
			return
		}
	}
}

// claimed turns a failed claim into the job's result: nothing to do for a
// period claimed before, a snooze while a claim that may be taken over is
// still leased, the job cancelled for a ledger that cannot work until
// someone changes it (dstsafe.ErrPermanent: never migrated, refused
// credentials, a closed pool), river's retry for anything else.
func claimed(o WorkerOptions, p Period, jobID int64, err error) error {
	var ce *dstsafe.ClaimedError
	if errors.Is(err, dstsafe.ErrPermanent) {
		// Retrying would fail the same way for river's whole retry
		// policy (weeks by default) and hide the cause in attempts.
		o.Logger.Error("dstsaferiver claim failed permanently: job cancelled", "job", p.Job, "period", p.Period,
			"river_job_id", jobID, "error", err)
		return river.JobCancel(fmt.Errorf("dstsaferiver: job %s period %s: the ledger cannot claim until it is fixed (migrate it, check its credentials), the period is not run: %w",
			p.Job, p.Period, err))
	}
	if !errors.As(err, &ce) {
		return fmt.Errorf("dstsaferiver: job %s period %s: claim: %w", p.Job, p.Period, err)
	}
	ex := ce.Existing
	if ex.State == dstsafe.StateRunning && o.Retry.Abandoned && ex.Attempt < o.Retry.MaxAttempts {
		wait := ex.LeaseUntil.Sub(o.Clock.Now()) + time.Second
		if wait < time.Second {
			wait = time.Second
		}
		return river.JobSnooze(wait)
	}
	o.Logger.Info("dstsaferiver already claimed", "job", p.Job, "period", p.Period, "river_job_id", jobID,
		"state", ex.State.String(), "owner", ex.Owner, "started", ex.StartedAt)
	return nil
}

package dstsaferiver

import (
	"context"
	"database/sql"
	"fmt"

	"github.com/riverqueue/river"
	"github.com/riverqueue/river/riverdriver"

	"github.com/dstsafe/dstsafe"
	"github.com/dstsafe/dstsafe/sqlledger"
)

// TxWorkFunc is the work of one period inside the transaction that claims
// it: write the period's rows through tx, and they commit with the claim
// and with river's completion of the job, or not at all.
type TxWorkFunc[T river.JobArgs] func(ctx context.Context, tx *sql.Tx, run dstsafe.Run, job *river.Job[T]) error

// NewTxWorker returns a river worker for jobs inserted by NewPeriodicJob (or
// ForPeriod) that runs each job in one database transaction on ledger's
// database: it claims the period through ledger.WithTx(tx), calls work with
// tx, marks the period succeeded, completes the river job with
// river.JobCompleteTx and commits. TDriver is the client's river driver,
// one whose transactions are *sql.Tx: riversqlite (SQLite) or
// riverdatabasesql (PostgreSQL through pgx's or lib/pq's database/sql
// driver); ledger must be on the database river uses.
//
// What this guarantees: the claim, the work's rows and the job's
// completion commit together or not at all. A worker killed anywhere
// before the commit leaves no claim and a running river job, which river's
// rescuer retries (Config.RescueStuckJobsAfter) and whose retry claims the
// period anew; a worker killed after it leaves a succeeded period and a
// completed job. Two jobs of one period (a duplicate inserted after the
// first's row was cleaned, one inserted by hand) never both commit: on
// PostgreSQL the second claim waits for the first transaction and then
// finds the period claimed; on SQLite transactions hold the database's one
// write lock (open it with _txlock=immediate). The job then completes
// without running work ("already claimed"). A claim refused for good
// (dstsafe.ErrPermanent: a ledger never migrated) cancels the job, as
// NewWorker does.
//
// What it does not: an error from work rolls everything back, so the
// period has no ledger record and river's retry policy alone decides
// whether it runs again (Retry does not apply; a job discarded after its
// last attempt leaves the period unrun, visible in river). Effects outside
// the database (an e-mail, a payment provider's call) are not undone by the
// rollback: give them the period as idempotency key. On SQLite the work
// holds the write lock, so river's own writes wait for it: keep it short.
// Do not use ledger's database outside tx in work: with river's advised
// one-connection SQLite pool that would wait for ever.
func NewTxWorker[TDriver riverdriver.Driver[*sql.Tx], T river.JobArgs](ledger *sqlledger.Ledger, work TxWorkFunc[T], opts *WorkerOptions) river.Worker[T] {
	if ledger == nil {
		panic("dstsaferiver: NewTxWorker with nil ledger")
	}
	if work == nil {
		panic("dstsaferiver: NewTxWorker with nil work")
	}
	return &txWorker[TDriver, T]{ledger: ledger, work: work, opts: opts.withDefaults()}
}

type txWorker[TDriver riverdriver.Driver[*sql.Tx], T river.JobArgs] struct {
	river.WorkerDefaults[T]
	ledger *sqlledger.Ledger
	work   TxWorkFunc[T]
	opts   WorkerOptions
}

func (w *txWorker[TDriver, T]) Work(ctx context.Context, job *river.Job[T]) error {
	p, err := PeriodOf(job.JobRow)
	if err != nil {
		return river.JobCancel(err)
	}
	tx, err := w.ledger.DB().BeginTx(ctx, nil)
	if err != nil {
		return fmt.Errorf("dstsaferiver: job %s period %s: begin: %w", p.Job, p.Period, err)
	}
	defer tx.Rollback() //nolint:errcheck // after Commit it reports sql.ErrTxDone
	lt := w.ledger.WithTx(tx)
	rec, err := lt.Claim(ctx, dstsafe.ClaimRequest{
		Job: p.Job, Period: p.Period, Owner: w.opts.owner(job.ID, job.Attempt),
		Lease: w.opts.Lease, Retry: w.opts.Retry,
	})
	if err != nil {
		_ = tx.Rollback()
		return claimed(w.opts, p, job.ID, err)
	}
	run, err := p.run(rec)
	if err != nil {
		return river.JobCancel(err)
	}
	if err := w.work(ctx, tx, run, job); err != nil {
		return err
	}
	if _, err := lt.Finish(ctx, p.Job, p.Period, rec.Token, dstsafe.StateSucceeded, ""); err != nil {
		return fmt.Errorf("dstsaferiver: job %s period %s: finish: %w", p.Job, p.Period, err)
	}
	if _, err := river.JobCompleteTx[TDriver](ctx, tx, job); err != nil {
		return fmt.Errorf("dstsaferiver: job %s period %s: complete: %w", p.Job, p.Period, err)
	}
	if err := tx.Commit(); err != nil {
		return fmt.Errorf("dstsaferiver: job %s period %s: commit: %w", p.Job, p.Period, err)
	}
	return nil
}

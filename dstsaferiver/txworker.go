package dstsaferiver

import (
	"context"
	"database/sql"
	"errors"
	"fmt"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
	"github.com/jackc/pgx/v5/stdlib"
	"github.com/riverqueue/river"
	"github.com/riverqueue/river/riverdriver"

	"github.com/dstsafe/dstsafe"
	"github.com/dstsafe/dstsafe/sqlledger"
)

// TxWorkFunc is the work of one period inside the transaction that claims
// it: write the period's rows through tx, and they commit with the claim
// and with river's completion of the job, or not at all. TTx is the river
// driver's transaction: *sql.Tx (riversqlite, riverdatabasesql) or pgx.Tx
// (riverpgxv5).
type TxWorkFunc[TTx any, T river.JobArgs] func(ctx context.Context, tx TTx, run dstsafe.Run, job *river.Job[T]) error

// NewTxWorker returns a river worker for jobs inserted by NewPeriodicJob (or
// ForPeriod) that runs each job in one database transaction on ledger's
// database: it claims the period through ledger.WithTx, calls work with
// the transaction, marks the period succeeded, completes the river job
// with river.JobCompleteTx and commits. TDriver is the client's river
// driver and TTx its transaction type, inferred from work:
//
//   - *sql.Tx: riversqlite (SQLite) or riverdatabasesql (PostgreSQL through
//     pgx's or lib/pq's database/sql driver); ledger must be on the
//     database river uses.
//
//   - pgx.Tx: riverpgxv5. ledger must be a sqlledger on pgx's database/sql
//     driver over river's pool (sqlledger.New(stdlib.OpenDBFromPool(pool))),
//     or any pgx stdlib *sql.DB on the same database. The transaction is
//     begun on one of its connections, and work's pgx.Tx runs its
//     statements on that same connection, inside that transaction: tx.Begin
//     makes a savepoint as pgx's does, tx.Commit and tx.Rollback are
//     refused (the worker ends the transaction), tx.LargeObjects is not
//     available. A ledger whose *sql.DB is not pgx's stdlib cancels the
//     job with an error saying so.
//
//     dstsaferiver.NewTxWorker[*riverpgxv5.Driver](ledger,
//     func(ctx context.Context, tx pgx.Tx, run dstsafe.Run, job *river.Job[BillingArgs]) error {
//     _, err := tx.Exec(ctx, `INSERT INTO charges (customer, period) VALUES ($1, $2)`, job.Args.Customer, run.Period)
//     return err
//     }, nil)
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
//
// It panics if ledger or work is nil, or if TTx is neither *sql.Tx nor
// pgx.Tx (no river driver has another).
func NewTxWorker[TDriver riverdriver.Driver[TTx], TTx any, T river.JobArgs](ledger *sqlledger.Ledger, work TxWorkFunc[TTx, T], opts *WorkerOptions) river.Worker[T] {
	if ledger == nil {
		panic("dstsaferiver: NewTxWorker with nil ledger")
	}
	if work == nil {
		panic("dstsaferiver: NewTxWorker with nil work")
	}
	var zero TTx
	switch any(&zero).(type) {
	case **sql.Tx, *pgx.Tx:
	default:
		panic(fmt.Sprintf("dstsaferiver: NewTxWorker with transactions of type %T: want *sql.Tx or pgx.Tx", zero))
	}
	return &txWorker[TDriver, TTx, T]{ledger: ledger, work: work, opts: opts.withDefaults()}
}

type txWorker[TDriver riverdriver.Driver[TTx], TTx any, T river.JobArgs] struct {
	river.WorkerDefaults[T]
	ledger *sqlledger.Ledger
	work   TxWorkFunc[TTx, T]
	opts   WorkerOptions
}

func (w *txWorker[TDriver, TTx, T]) Work(ctx context.Context, job *river.Job[T]) error {
	p, err := PeriodOf(job.JobRow)
	if err != nil {
		return river.JobCancel(err)
	}
	// One connection: with pgx.Tx, work runs on it, inside the
	// transaction database/sql began there.
	conn, err := w.ledger.DB().Conn(ctx)
	if err != nil {
		return fmt.Errorf("dstsaferiver: job %s period %s: connect: %w", p.Job, p.Period, err)
	}
	defer conn.Close()
	tx, err := conn.BeginTx(ctx, nil)
	if err != nil {
		return fmt.Errorf("dstsaferiver: job %s period %s: begin: %w", p.Job, p.Period, err)
	}
	defer tx.Rollback() //nolint:errcheck // after Commit it reports sql.ErrTxDone
	lt := w.ledger.WithTx(tx)
	rec, err := lt.Claim(ctx, dstsafe.ClaimRequest{
		Job: p.Job, Period: p.Period, Owner: w.opts.owner(job.ID, job.Attempt),
		Lease: w.opts.Lease, Retry: w.opts.Retry,
		// The claim carries this client's clock, so a client whose clock
		// is off from the ledger's by more than the bound is refused
		// (dstsafe.ErrClockSkew) and river retries the job, on this
		// client or a healthy one.
		Now: w.opts.Clock.Now(),
	})
	if err != nil {
		_ = tx.Rollback()
		return claimed(w.opts, p, job.ID, err)
	}
	run, err := p.run(rec)
	if err != nil {
		return river.JobCancel(err)
	}
	if err := w.workAndComplete(ctx, conn, tx, run, job); err != nil {
		return err
	}
	if _, err := lt.Finish(ctx, p.Job, p.Period, rec.Token, dstsafe.StateSucceeded, ""); err != nil {
		return fmt.Errorf("dstsaferiver: job %s period %s: finish: %w", p.Job, p.Period, err)
	}
	if err := tx.Commit(); err != nil {
		return fmt.Errorf("dstsaferiver: job %s period %s: commit: %w", p.Job, p.Period, err)
	}
	return nil
}

// errNotPgx: the ledger's *sql.DB is not pgx's stdlib, so there is no
// pgx connection to hand a riverpgxv5 worker.
var errNotPgx = errors.New("dstsaferiver: NewTxWorker with pgx.Tx needs the ledger on pgx's database/sql driver (stdlib.OpenDBFromPool)")

// workAndComplete runs work and river's completion of job in tx.
func (w *txWorker[TDriver, TTx, T]) workAndComplete(ctx context.Context, conn *sql.Conn, tx *sql.Tx, run dstsafe.Run, job *river.Job[T]) error {
	complete := func(t TTx) error {
		if err := w.work(ctx, t, run, job); err != nil {
			return err
		}
		if _, err := river.JobCompleteTx[TDriver](ctx, t, job); err != nil {
			return fmt.Errorf("dstsaferiver: job %s period %s: complete: %w", run.Job, run.Period, err)
		}
		return nil
	}
	if t, ok := any(tx).(TTx); ok {
		return complete(t)
	}
	// pgx.Tx: between database/sql's statements, the connection is
	// work's (Raw holds it; tx is not used meanwhile).
	var workErr error
	err := conn.Raw(func(dc any) error {
		c, ok := dc.(*stdlib.Conn)
		if !ok {
			return river.JobCancel(fmt.Errorf("%w, not %T", errNotPgx, dc))
		}
		var pt pgx.Tx = &connTx{conn: c.Conn()}
		workErr = complete(any(pt).(TTx))
		return nil
	})
	if err != nil {
		return err
	}
	return workErr
}

// connTx is the pgx.Tx of a connection inside a transaction that
// database/sql began and will end: statements run on the connection, a
// nested Begin is a savepoint, ending the transaction is refused.
type connTx struct {
	conn      *pgx.Conn
	savepoint int
}

// ErrTxOwned: work tried to end the transaction the worker owns.
var ErrTxOwned = errors.New("dstsaferiver: the transaction is NewTxWorker's: it commits after work returns nil and rolls back after an error")

func (t *connTx) Begin(ctx context.Context) (pgx.Tx, error) {
	t.savepoint++
	sp := &savepointTx{connTx: t, name: fmt.Sprintf("dstsaferiver_sp_%d", t.savepoint)}
	if _, err := t.conn.Exec(ctx, "SAVEPOINT "+sp.name); err != nil {
		return nil, err
	}
	return sp, nil
}

func (t *connTx) Commit(context.Context) error   { return ErrTxOwned }
func (t *connTx) Rollback(context.Context) error { return ErrTxOwned }

func (t *connTx) CopyFrom(ctx context.Context, table pgx.Identifier, cols []string, src pgx.CopyFromSource) (int64, error) {
	return t.conn.CopyFrom(ctx, table, cols, src)
}

func (t *connTx) SendBatch(ctx context.Context, b *pgx.Batch) pgx.BatchResults {
	return t.conn.SendBatch(ctx, b)
}

// LargeObjects is not available: pgx builds them only on its own Tx.
func (t *connTx) LargeObjects() pgx.LargeObjects { return pgx.LargeObjects{} }

func (t *connTx) Prepare(ctx context.Context, name, sql string) (*pgconn.StatementDescription, error) {
	return t.conn.Prepare(ctx, name, sql)
}

func (t *connTx) Exec(ctx context.Context, sql string, args ...any) (pgconn.CommandTag, error) {
	return t.conn.Exec(ctx, sql, args...)
}

func (t *connTx) Query(ctx context.Context, sql string, args ...any) (pgx.Rows, error) {
	return t.conn.Query(ctx, sql, args...)
}

func (t *connTx) QueryRow(ctx context.Context, sql string, args ...any) pgx.Row {
	return t.conn.QueryRow(ctx, sql, args...)
}

func (t *connTx) Conn() *pgx.Conn { return t.conn }

// savepointTx is a nested transaction: a savepoint, released on Commit,
// rolled back to on Rollback, as pgx's own nested Tx.
type savepointTx struct {
	*connTx
	name string
	done bool
}

func (s *savepointTx) Commit(ctx context.Context) error {
	if s.done {
		return pgx.ErrTxClosed
	}
	s.done = true
	_, err := s.conn.Exec(ctx, "RELEASE SAVEPOINT "+s.name)
	return err
}

func (s *savepointTx) Rollback(ctx context.Context) error {
	if s.done {
		return pgx.ErrTxClosed
	}
	s.done = true
	_, err := s.conn.Exec(ctx, "ROLLBACK TO SAVEPOINT "+s.name)
	return err
}

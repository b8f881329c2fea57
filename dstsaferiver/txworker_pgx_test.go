package dstsaferiver_test

import (
	"context"
	"errors"
	"fmt"
	"os"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"
	"github.com/jackc/pgx/v5/stdlib"
	"github.com/riverqueue/river"
	"github.com/riverqueue/river/riverdriver/riverpgxv5"
	"github.com/riverqueue/river/rivermigrate"
	"github.com/riverqueue/river/rivertype"
	"github.com/stretchr/testify/require"

	"github.com/dstsafe/dstsafe"
	"github.com/dstsafe/dstsafe/dstsaferiver"
	"github.com/dstsafe/dstsafe/internal/testkit"
	"github.com/dstsafe/dstsafe/sqlledger"
)

// NewTxWorker on riverpgxv5: work gets a pgx.Tx, and its rows, the
// ledger's claim and river's completion commit in one transaction on
// real PostgreSQL. The 01:30 period of the 2024 fall-back night in
// Chicago runs once: a first attempt whose work fails leaves nothing (no
// row, no claim: rolled back), river's retry runs it, a nested
// transaction (savepoint) rolls back only its own row, and a second job
// of the period inserted after the first's row was deleted completes
// without running the work.
func TestTxWorkerPgx(t *testing.T) {
	dsn := testkit.RequireEnv(t, pgEnv)
	ctx := context.Background()
	pool, err := pgxpool.New(ctx, dsn)
	require.NoError(t, err)
	t.Cleanup(pool.Close)
	schema := fmt.Sprintf("dsr_pgxtx_%d", os.Getpid())
	_, err = pool.Exec(ctx, "DROP SCHEMA IF EXISTS "+schema+" CASCADE; CREATE SCHEMA "+schema)
	require.NoError(t, err)
	t.Cleanup(func() { _, _ = pool.Exec(context.Background(), "DROP SCHEMA IF EXISTS "+schema+" CASCADE") })
	migrator, err := rivermigrate.New(riverpgxv5.New(pool), &rivermigrate.Config{Schema: schema})
	require.NoError(t, err)
	_, err = migrator.Migrate(ctx, rivermigrate.DirectionUp, nil)
	require.NoError(t, err)
	_, err = pool.Exec(ctx, "CREATE TABLE "+schema+".charges (period text NOT NULL, note text NOT NULL)")
	require.NoError(t, err)

	db := stdlib.OpenDBFromPool(pool)
	t.Cleanup(func() { db.Close() })
	ledger, err := sqlledger.New(db, sqlledger.WithTable(schema+".dstsafe_job_runs"))
	require.NoError(t, err)
	require.NoError(t, ledger.Migrate(ctx))

	var attempts int
	worker := dstsaferiver.NewTxWorker[*riverpgxv5.Driver](ledger,
		func(ctx context.Context, tx pgx.Tx, run dstsafe.Run, job *river.Job[ReportArgs]) error {
			attempts++
			insert := "INSERT INTO " + schema + ".charges (period, note) VALUES ($1, $2)"
			if _, err := tx.Exec(ctx, insert, run.Period, fmt.Sprintf("attempt %d", attempts)); err != nil {
				return err
			}
			if attempts == 1 {
				return errors.New("card processor down") // rolls back the row and the claim
			}
			nested, err := tx.Begin(ctx)
			if err != nil {
				return err
			}
			if _, err := nested.Exec(ctx, insert, run.Period, "rolled back"); err != nil {
				return err
			}
			if err := nested.Rollback(ctx); err != nil {
				return err
			}
			require.ErrorIs(t, tx.Commit(ctx), dstsaferiver.ErrTxOwned, "work ending the worker's transaction")
			return nil
		}, &dstsaferiver.WorkerOptions{Logger: discard})
	workers := river.NewWorkers()
	river.AddWorker(workers, worker)
	client, err := river.NewClient(riverpgxv5.New(pool), &river.Config{
		Schema: schema, Logger: discard, Workers: workers,
		Queues:            map[string]river.QueueConfig{river.QueueDefault: {MaxWorkers: 1}},
		FetchPollInterval: 50 * time.Millisecond, FetchCooldown: 10 * time.Millisecond,
		RetryPolicy: immediateRetry{},
	})
	require.NoError(t, err)
	events, cancel := client.Subscribe(river.EventKindJobCompleted, river.EventKindJobCancelled, river.EventKindJobFailed)
	defer cancel()
	require.NoError(t, client.Start(ctx))
	t.Cleanup(func() { require.NoError(t, client.Stop(context.Background())) })
	next := func() *river.Event {
		t.Helper()
		timer := time.NewTimer(30 * time.Second)
		defer timer.Stop()
		select {
		case e := <-events:
			return e
		case <-timer.C:
			t.Fatal("no job finished within 30 s")
			return nil
		}
	}
	o := occurrence(t) // 2024-11-03 01:30 CDT
	args, opts := dstsaferiver.ForPeriod("report", o, ReportArgs{}, nil)
	res, err := client.Insert(ctx, args, opts)
	require.NoError(t, err)

	e := next()
	require.Equal(t, river.EventKindJobFailed, e.Kind, "first attempt: work failed")
	_, err = ledger.Get(ctx, "report", o.Period)
	require.ErrorIs(t, err, dstsafe.ErrNotFound, "the failed attempt's claim was rolled back")
	e = next()
	require.Equal(t, river.EventKindJobCompleted, e.Kind, "the retry")

	rows, err := pool.Query(ctx, "SELECT period, note FROM "+schema+".charges")
	require.NoError(t, err)
	got, err := pgx.CollectRows(rows, pgx.RowToStructByPos[struct{ Period, Note string }])
	require.NoError(t, err)
	require.Equal(t, []struct{ Period, Note string }{{o.Period, "attempt 2"}}, got)
	rec, err := ledger.Get(ctx, "report", o.Period)
	require.NoError(t, err)
	require.Equal(t, dstsafe.StateSucceeded, rec.State)

	// A second job of the period, after the first's row is gone.
	_, err = pool.Exec(ctx, "DELETE FROM "+schema+".river_job WHERE id = $1", res.Job.ID)
	require.NoError(t, err)
	_, err = client.Insert(ctx, args, opts)
	require.NoError(t, err)
	require.Equal(t, river.EventKindJobCompleted, next().Kind)
	require.Equal(t, 2, attempts, "the second job of the period ran the work")
}

// immediateRetry retries a failed job at once.
type immediateRetry struct{}

func (immediateRetry) NextRetry(*rivertype.JobRow) time.Time { return time.Now() }

package dstsaferiver_test

import (
	"context"
	"database/sql"
	"errors"
	"sync/atomic"
	"testing"
	"time"

	"github.com/jonboulle/clockwork"
	"github.com/riverqueue/river"
	"github.com/riverqueue/river/riverdriver/riversqlite"
	"github.com/riverqueue/river/rivertype"
	"github.com/stretchr/testify/require"

	"github.com/dstsafe/dstsafe"
	"github.com/dstsafe/dstsafe/dstsaferiver"
	"github.com/dstsafe/dstsafe/sqlledger"
)

// startClient starts a river client on db working ReportArgs with worker,
// and returns a function that waits for the next finished job.
func startClient(t *testing.T, db *sql.DB, worker river.Worker[ReportArgs]) (*river.Client[*sql.Tx], func() *river.Event) {
	t.Helper()
	workers := river.NewWorkers()
	river.AddWorker(workers, worker)
	c, err := river.NewClient(riversqlite.New(db), &river.Config{
		Queues: map[string]river.QueueConfig{river.QueueDefault: {MaxWorkers: 1}}, Workers: workers, Logger: discard,
		FetchPollInterval: 50 * time.Millisecond, FetchCooldown: 10 * time.Millisecond,
	})
	require.NoError(t, err)
	events, cancel := c.Subscribe(river.EventKindJobCompleted, river.EventKindJobCancelled, river.EventKindJobFailed)
	require.NoError(t, c.Start(context.Background()))
	t.Cleanup(func() {
		cancel()
		require.NoError(t, c.Stop(context.Background()))
	})
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
	return c, next
}

func occurrence(t *testing.T) dstsafe.Occurrence {
	t.Helper()
	billing, err := dstsafe.ParseCron("CRON_TZ=America/Chicago 30 1 * * *")
	require.NoError(t, err)
	o, ok := billing.NextOccurrence(time.Date(2024, 11, 2, 12, 0, 0, 0, time.UTC))
	require.True(t, ok)
	return o // 2024-11-03 01:30 CDT, the first reading of the fold
}

// A period's work runs once although river hands its worker three jobs of
// it: the first, a second inserted after the first's row was deleted (as
// river's job cleaner does), and one without a period, which is cancelled.
func TestWorkerOncePerPeriod(t *testing.T) {
	db := openSQLite(t)
	ledger := dstsafe.NewMemoryLedger(nil)
	var runs atomic.Int32
	client, next := startClient(t, db, dstsaferiver.NewWorker(ledger, func(_ context.Context, run dstsafe.Run, _ *river.Job[ReportArgs]) error {
		runs.Add(1)
		require.Equal(t, "2024-11-03T01:30:00", run.Period)
		require.Equal(t, dstsafe.Fold, run.Kind)
		require.Equal(t, dstsafe.Date{Year: 2024, Month: time.November, Day: 3}, run.RunDate)
		return nil
	}, &dstsaferiver.WorkerOptions{Logger: discard}))
	ctx := context.Background()
	o := occurrence(t)

	args, opts := dstsaferiver.ForPeriod("report", o, ReportArgs{}, nil)
	res, err := client.Insert(ctx, args, opts)
	require.NoError(t, err)
	require.Equal(t, rivertype.JobStateCompleted, next().Job.State)
	_, err = db.Exec("DELETE FROM river_job WHERE id = ?", res.Job.ID)
	require.NoError(t, err)
	res, err = client.Insert(ctx, args, opts)
	require.NoError(t, err)
	require.False(t, res.UniqueSkippedAsDuplicate, "the row is gone: river takes the period again")
	require.Equal(t, rivertype.JobStateCompleted, next().Job.State)
	require.Equal(t, int32(1), runs.Load(), "the ledger claim stops the second run")

	_, err = client.Insert(ctx, ReportArgs{}, nil)
	require.NoError(t, err)
	require.Equal(t, rivertype.JobStateCancelled, next().Job.State, "a job without a period is cancelled, not run")
	require.Equal(t, int32(1), runs.Load())

	rec, err := ledger.Get(ctx, "report", o.Period)
	require.NoError(t, err)
	require.Equal(t, dstsafe.StateSucceeded, rec.State)
}

// NewTxWorker: a failed attempt rolls back its claim and its rows, so
// river's retry runs the period, once; the claim, the row and the job's
// completion commit together.
func TestTxWorkerRetryAfterRollback(t *testing.T) {
	db := openSQLite(t)
	ctx := context.Background()
	ledger, err := sqlledger.New(db)
	require.NoError(t, err)
	require.NoError(t, ledger.Migrate(ctx))
	_, err = db.Exec("CREATE TABLE charges (period TEXT NOT NULL)")
	require.NoError(t, err)
	var attempts atomic.Int32
	client, next := startClient(t, db, dstsaferiver.NewTxWorker[*riversqlite.Driver](ledger,
		func(ctx context.Context, tx *sql.Tx, run dstsafe.Run, _ *river.Job[ReportArgs]) error {
			if _, err := tx.ExecContext(ctx, "INSERT INTO charges (period) VALUES (?)", run.Period); err != nil {
				return err
			}
			if attempts.Add(1) == 1 {
				return errors.New("processor timeout")
			}
			return nil
		}, &dstsaferiver.WorkerOptions{Logger: discard}))
	args, opts := dstsaferiver.ForPeriod("report", occurrence(t), ReportArgs{}, nil)
	_, err = client.Insert(ctx, args, opts)
	require.NoError(t, err)
	for e := next(); e.Kind != river.EventKindJobCompleted; e = next() {
		require.Equal(t, river.EventKindJobFailed, e.Kind)
	}
	require.Equal(t, int32(2), attempts.Load())
	var n int
	require.NoError(t, db.QueryRow("SELECT count(*) FROM charges").Scan(&n))
	require.Equal(t, 1, n, "the failed attempt's row rolled back")
	rec, err := ledger.Get(ctx, "report", "2024-11-03T01:30:00")
	require.NoError(t, err)
	require.Equal(t, dstsafe.StateSucceeded, rec.State)
	require.Equal(t, 1, rec.Attempt, "the failed attempt left no claim")
}

// A client whose clock is off from the ledger's by more than the bound
// (5 s) never runs the period: its claim is refused with
// dstsafe.ErrClockSkew, nothing is recorded, and river retries the job
// (on a healthy client, or this one once its clock is fixed).
func TestWorkerRefusesSkewedClock(t *testing.T) {
	ctx := context.Background()
	store := clockwork.NewFakeClockAt(time.Date(2024, 11, 3, 6, 30, 0, 0, time.UTC))
	ledger := dstsafe.NewMemoryLedger(store)
	o := occurrence(t)
	args, _ := dstsaferiver.ForPeriod("report", o, ReportArgs{}, nil)
	row := jobRow(t, args)
	var runs atomic.Int32
	work := func(context.Context, dstsafe.Run, *river.Job[ReportArgs]) error { runs.Add(1); return nil }

	fast := clockwork.NewFakeClockAt(store.Now().Add(2 * time.Minute))
	w := dstsaferiver.NewWorker(ledger, work, &dstsaferiver.WorkerOptions{Logger: discard, Clock: fast})
	err := w.Work(ctx, &river.Job[ReportArgs]{JobRow: row, Args: ReportArgs{}})
	require.ErrorIs(t, err, dstsafe.ErrClockSkew)
	var cancel *river.JobCancelError
	require.False(t, errors.As(err, &cancel), "a skewed clock is not permanent: river retries")
	require.Zero(t, runs.Load())
	_, err = ledger.Get(ctx, "report", o.Period)
	require.ErrorIs(t, err, dstsafe.ErrNotFound, "a refused claim writes nothing")

	right := clockwork.NewFakeClockAt(store.Now().Add(time.Second))
	w = dstsaferiver.NewWorker(ledger, work, &dstsaferiver.WorkerOptions{Logger: discard, Clock: right})
	require.NoError(t, w.Work(ctx, &river.Job[ReportArgs]{JobRow: row, Args: ReportArgs{}}))
	require.Equal(t, int32(1), runs.Load())
}

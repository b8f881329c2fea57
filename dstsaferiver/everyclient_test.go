package dstsaferiver_test

import (
	"context"
	"database/sql"
	"fmt"
	"os"
	"testing"
	"time"

	"github.com/riverqueue/river"
	"github.com/riverqueue/river/riverdriver/riverdatabasesql"
	"github.com/riverqueue/river/rivertype"
	"github.com/stretchr/testify/require"

	"github.com/dstsafe/dstsafe"
	"github.com/dstsafe/dstsafe/dstsaferiver"
	"github.com/dstsafe/dstsafe/internal/testkit"
)

// A leader killed without resigning keeps river's leadership until its
// lease runs out (river 0.43: 15 s), and only a leader enqueues periodic
// jobs: the live client waits. Here the dead leader's lease is held for
// an hour, so the live client never leads. With NewPeriodicJob alone no
// period of a job every 2 s is enqueued for 5 s; with InsertDue on the
// live client every period is inserted and worked on time, within
// FetchPollInterval of its due instant, exactly once, those inserted by
// hand as scheduled copies included.
func TestInsertDueWithoutLeader(t *testing.T) {
	dsn := testkit.RequireEnv(t, pgEnv)
	ctx, cancel := context.WithTimeout(context.Background(), 90*time.Second)
	defer cancel()
	db, err := sql.Open("pgx", dsn)
	require.NoError(t, err)
	t.Cleanup(func() { db.Close() })
	schema := fmt.Sprintf("dsr_due_%d", os.Getpid())
	ledger := riverSchema(t, ctx, db, schema, "period text NOT NULL, at timestamptz NOT NULL")
	// The killed leader's lease.
	_, err = db.Exec("INSERT INTO " + schema + ".river_leader (elected_at, expires_at, leader_id, name) VALUES (now(), now() + interval '1 hour', 'killed', 'default')")
	require.NoError(t, err)

	sched, err := dstsafe.ParseCron("*/2 * * * * *", dstsafe.WithSeconds())
	require.NoError(t, err)
	workers := river.NewWorkers()
	river.AddWorker(workers, dstsaferiver.NewTxWorker[*riverdatabasesql.Driver](ledger,
		func(ctx context.Context, tx *sql.Tx, run dstsafe.Run, _ *river.Job[ReportArgs]) error {
			_, err := tx.ExecContext(ctx, "INSERT INTO "+schema+".worked (period, at) VALUES ($1, clock_timestamp())", run.Period)
			return err
		}, &dstsaferiver.WorkerOptions{Logger: discard}))
	client, err := river.NewClient(riverdatabasesql.New(db), &river.Config{
		ID: "live", Schema: schema, Logger: discard, Workers: workers,
		Queues:            map[string]river.QueueConfig{river.QueueDefault: {MaxWorkers: 2}},
		FetchPollInterval: 200 * time.Millisecond, FetchCooldown: 20 * time.Millisecond,
		PeriodicJobs: []*river.PeriodicJob{dstsaferiver.NewPeriodicJob(sched, report, &dstsaferiver.Options{
			Ledger: ledger, CatchUp: dstsafe.CatchUpSkip{}, Logger: discard,
		})},
	})
	require.NoError(t, err)
	require.NoError(t, client.Start(ctx))
	t.Cleanup(func() {
		stopCtx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		defer cancel()
		_ = client.Stop(stopCtx)
	})
	count := func(q string) int {
		var n int
		require.NoError(t, db.QueryRow(q).Scan(&n))
		return n
	}

	time.Sleep(5 * time.Second)
	require.Zero(t, count("SELECT count(*) FROM "+schema+".river_job"), "a client that does not lead enqueued a periodic job")

	// Every other period of the next 10 s inserted by hand, scheduled at
	// its instant: only a leader's scheduler would make it available,
	// so InsertDue, finding it due and still scheduled, does.
	start := time.Now()
	byHand := map[string]bool{}
	n := 0
	for o, ok := sched.NextOccurrence(start); ok && o.At.Before(start.Add(10*time.Second)); o, ok = sched.NextOccurrence(o.At) {
		if n++; n%2 == 0 {
			args, opts := dstsaferiver.ForPeriod("report", o, ReportArgs{}, nil)
			res, err := client.Insert(ctx, args, opts)
			require.NoError(t, err)
			require.Equal(t, rivertype.JobStateScheduled, res.Job.State)
			byHand[o.Period] = true
		}
	}
	// InsertDue starts with the first occurrence after it reads the
	// clock, in its goroutine, a moment after this: the periods checked
	// start half a second later. They end 2 s (the latency bound below)
	// before the stop: a later one may be mid-insert when InsertDue stops,
	// which leaves it to the leader's reconcile, and this test has no
	// leader.
	from := time.Now().Add(500 * time.Millisecond)
	insertCtx, stopInsert := context.WithCancel(ctx)
	done := make(chan error, 1)
	go func() {
		done <- dstsaferiver.InsertDue(insertCtx, client, sched, report, &dstsaferiver.InsertOptions{
			OnError: func(o dstsafe.Occurrence, err error) { t.Errorf("insert %s: %v", o.Period, err) },
		})
	}()
	time.Sleep(8 * time.Second)
	end := time.Now().Add(-2 * time.Second)
	stopInsert()
	require.ErrorIs(t, <-done, context.Canceled)
	time.Sleep(time.Second) // the last period's work

	// Every period due while InsertDue ran, worked once, on time.
	var latest time.Duration
	n = 0
	hand := 0
	for o, ok := sched.NextOccurrence(from); ok && o.At.Before(end); o, ok = sched.NextOccurrence(o.At) {
		n++
		if byHand[o.Period] {
			hand++
		}
		rows, err := db.Query("SELECT at FROM "+schema+".worked WHERE period = $1", o.Period)
		require.NoError(t, err)
		var ats []time.Time
		for rows.Next() {
			var at time.Time
			require.NoError(t, rows.Scan(&at))
			ats = append(ats, at)
		}
		require.NoError(t, rows.Err())
		rows.Close()
		require.Len(t, ats, 1, "period %s worked %d times (inserted by hand, scheduled: %t)", o.Period, len(ats), byHand[o.Period])
		latest = max(latest, ats[0].Sub(o.At))
	}
	require.GreaterOrEqual(t, n, 2)
	require.Positive(t, hand, "no period checked had a scheduled copy inserted by hand: the JobRetry path went untested")
	t.Logf("%d periods without a leader (%d of them inserted by hand, scheduled), the latest worked %s after its due instant", n, hand, latest.Round(time.Millisecond))
	require.Less(t, latest, 2*time.Second, "a period waited for a leader")
}

package dstsaferiver_test

import (
	"context"
	"database/sql"
	"fmt"
	"os"
	"os/exec"
	"testing"
	"time"

	"github.com/riverqueue/river"
	"github.com/riverqueue/river/riverdriver/riverdatabasesql"
	"github.com/stretchr/testify/require"

	"github.com/dstsafe/dstsafe"
	"github.com/dstsafe/dstsafe/dstsaferiver"
	"github.com/dstsafe/dstsafe/internal/testkit"
)

// TestPostgresBlip stops PostgreSQL for 9 s across due instants of a job
// that runs every 2 s, under one river client that stays leader: river's
// enqueuer fails to insert the periods due while the server is down
// ("Error starting transaction") and moves on. The leader's recheck finds
// them missing from the ledger once the server is back and enqueues them
// again: every period from the first to the end is worked exactly once,
// none lost, with no change of leader. It stops the server every other
// server-backed test uses: scripts/test runs it alone, as sqlledger's
// TestPostgresRestart.
//
// River's leader lease is 15 s; a loaded machine (the race detector) can
// take long enough around the outage for the client to be re-elected, and
// a re-elected leader would run river's own start-up catch-up, which is
// not what this test is about. Such a run still must work every period
// exactly once; the scenario is then repeated (at most three times) until
// a run keeps its leader; after three re-elected runs (each of which
// worked every period once) it passes with a log line saying so.
func TestPostgresBlip(t *testing.T) {
	ctl := testkit.RequireEnv(t, "DSTSAFE_TEST_POSTGRES_CTL")
	dsn := testkit.RequireEnv(t, pgEnv)
	for attempt := 1; ; attempt++ {
		if postgresBlip(t, ctl, dsn, attempt) {
			return
		}
		if attempt == 3 {
			// Each run already failed on a lost or doubled period; a
			// re-elected leader reconciles its recovery window when it
			// is elected (issue 28), which TestOutageAcrossLeaders and
			// TestPostgresOutage measure. Say that this run showed only
			// that path.
			t.Log("the leader changed in each of 3 runs: every period ran once each time, by a re-elected leader's reconcile, never by the same leader catching up")
			return
		}
		t.Logf("run %d: the leader was re-elected during the outage; every period still ran once; again", attempt)
	}
}

// postgresBlip runs the scenario once and reports whether the leader
// stayed the same; lost or doubled periods fail the test either way.
func postgresBlip(t *testing.T, ctl, dsn string, attempt int) (sameLeader bool) {
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	pgctl := func(args ...string) {
		t.Helper()
		if out, err := exec.CommandContext(ctx, ctl, args...).CombinedOutput(); err != nil {
			t.Fatalf("pg_ctl %v: %v\n%s", args, err, out)
		}
	}
	t.Cleanup(func() {
		if exec.Command(ctl, "status").Run() != nil {
			_ = exec.Command(ctl, "start").Run()
		}
	})

	db, err := sql.Open("pgx", dsn)
	require.NoError(t, err)
	t.Cleanup(func() { db.Close() })
	schema := fmt.Sprintf("dsr_blip_%d_%d", os.Getpid(), attempt)
	ledger := riverSchema(t, ctx, db, schema, "period text NOT NULL, at timestamptz NOT NULL")

	sched, err := dstsafe.ParseCron("*/2 * * * * *", dstsafe.WithSeconds())
	require.NoError(t, err)
	workers := river.NewWorkers()
	river.AddWorker(workers, dstsaferiver.NewTxWorker[*riverdatabasesql.Driver](ledger,
		func(ctx context.Context, tx *sql.Tx, run dstsafe.Run, _ *river.Job[ReportArgs]) error {
			_, err := tx.ExecContext(ctx, "INSERT INTO "+schema+".worked (period, at) VALUES ($1, now())", run.Period)
			return err
		}, &dstsaferiver.WorkerOptions{Logger: discard}))
	client, err := river.NewClient(riverdatabasesql.New(db), &river.Config{
		ID: "blip", Schema: schema, Logger: discard, Workers: workers,
		Queues:                      map[string]river.QueueConfig{river.QueueDefault: {MaxWorkers: 2}},
		FetchPollInterval:           100 * time.Millisecond,
		FetchCooldown:               20 * time.Millisecond,
		CompletedJobRetentionPeriod: -1,
		PeriodicJobs: []*river.PeriodicJob{dstsaferiver.NewPeriodicJob(sched, report, &dstsaferiver.Options{
			Ledger: ledger, CatchUp: dstsafe.CatchUpSkip{}, MisfireThreshold: 20 * time.Second, RecheckAfter: 2 * time.Second, Logger: discard,
		})},
	})
	require.NoError(t, err)
	require.NoError(t, client.Start(ctx))
	defer func() {
		stopCtx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		defer cancel()
		_ = client.Stop(stopCtx)
	}()

	count := func(q string, args ...any) int { return countOf(ctx, db, q, args...) }
	poll := func(what string, limit time.Duration, cond func() bool) { t.Helper(); pollFor(t, what, limit, cond) }
	poll("two periods worked", 40*time.Second, func() bool { return count("SELECT count(*) FROM "+schema+".worked") >= 2 })
	leaderBefore := leaderSince(t, db, schema)

	// Down from just after a period was enqueued, across the next four
	// due instants.
	time.Sleep(time.Until(time.Now().Truncate(2 * time.Second).Add(2*time.Second + 300*time.Millisecond)))
	down := time.Now()
	pgctl("stop", "-m", "fast")
	time.Sleep(9 * time.Second)
	pgctl("start")
	up := time.Now()
	end := up.Truncate(2 * time.Second).Add(8 * time.Second)
	poll("every period up to the end worked", 60*time.Second, func() bool {
		return count("SELECT count(*) FROM "+schema+".river_job WHERE scheduled_at <= $1 AND state <> 'completed'", end) == 0 &&
			count("SELECT count(*) FROM "+schema+".dstsafe_job_runs WHERE status = 'succeeded' AND period >= $1",
				end.UTC().Format("2006-01-02T15:04:05")) > 0
	})
	sameLeader = leaderBefore == leaderSince(t, db, schema)

	var first time.Time
	require.NoError(t, db.QueryRow("SELECT min(scheduled_at) FROM "+schema+".river_job").Scan(&first))
	rows, err := db.Query("SELECT period, count(*) FROM " + schema + ".worked GROUP BY 1")
	require.NoError(t, err)
	worked := map[string]int{}
	for rows.Next() {
		var p string
		var n int
		require.NoError(t, rows.Scan(&p, &n))
		worked[p] = n
	}
	require.NoError(t, rows.Err())
	var lost, twice []string
	n := 0
	for at := first.UTC(); !at.After(end); at = at.Add(2 * time.Second) {
		p := at.Format("2006-01-02T15:04:05") // UTC: the wall reading is the period
		n++
		switch worked[p] {
		case 0:
			lost = append(lost, p)
		case 1:
		default:
			twice = append(twice, p)
		}
	}
	t.Logf("PostgreSQL down %s .. %s; %d periods from %s to %s", down.UTC().Format("15:04:05.000"), up.UTC().Format("15:04:05.000"),
		n, first.UTC().Format("15:04:05"), end.UTC().Format("15:04:05"))
	require.Empty(t, lost, "periods lost")
	require.Empty(t, twice, "periods worked twice")
	return sameLeader
}

// leaderSince is the leader's id and election time.
func leaderSince(t *testing.T, db *sql.DB, schema string) string {
	t.Helper()
	var id string
	var elected time.Time
	require.NoError(t, db.QueryRow("SELECT leader_id, elected_at FROM "+schema+".river_leader").Scan(&id, &elected))
	return id + "@" + elected.UTC().Format(time.RFC3339Nano)
}

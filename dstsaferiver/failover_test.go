package dstsaferiver_test

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"log/slog"
	"os"
	"os/exec"
	"os/signal"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/jackc/pgx/v5/pgxpool"
	_ "github.com/jackc/pgx/v5/stdlib"
	"github.com/jonboulle/clockwork"
	"github.com/riverqueue/river"
	"github.com/riverqueue/river/riverdriver/riverdatabasesql"
	"github.com/riverqueue/river/riverdriver/riverpgxv5"
	"github.com/stretchr/testify/require"

	"github.com/dstsafe/dstsafe"
	"github.com/dstsafe/dstsafe/dstsaferiver"
	"github.com/dstsafe/dstsafe/dstsafetest"
	"github.com/dstsafe/dstsafe/internal/testkit"
	"github.com/dstsafe/dstsafe/sqlledger"
)

// The failover test runs river clients in child processes: the test binary
// itself, started with these variables.
const (
	childEnv       = "DSTSAFERIVER_FAILOVER_CHILD" // the client's ID
	childDSN       = "DSTSAFERIVER_FAILOVER_DSN"
	childSchema    = "DSTSAFERIVER_FAILOVER_SCHEMA"
	childDriver    = "DSTSAFERIVER_FAILOVER_DRIVER" // "pgxv5" or "databasesql"
	childBaseReal  = "DSTSAFERIVER_FAILOVER_BASE_REAL"
	childBaseVirtl = "DSTSAFERIVER_FAILOVER_BASE_VIRTUAL"
	pgEnv          = "DSTSAFE_TEST_POSTGRES_DSN"
)

// failoverSpec fires every 2 seconds of Chicago time: short real periods,
// on a grid that both transitions (whole hours) fall on.
const failoverSpec = "CRON_TZ=America/Chicago */2 * * * * *"

// shiftedClock is the real clock moved to the night under test: both
// processes compute the same offset from the variables the test passes,
// so river (Config.Test.Time), the ledger and the schedule agree.
type shiftedClock struct {
	clockwork.Clock
	offset time.Duration
}

func (c shiftedClock) Now() time.Time { return time.Now().Add(c.offset) }

func (c shiftedClock) NewTimer(d time.Duration) clockwork.Timer { return c.Clock.NewTimer(d) }

// childMain runs one river client until SIGTERM (then stops it) or SIGKILL.
func childMain() int {
	logger := slog.New(slog.NewTextHandler(os.Stderr, &slog.HandlerOptions{Level: slog.LevelInfo}))
	if err := runChild(logger); err != nil {
		logger.Error("child failed", "error", err)
		return 1
	}
	return 0
}

func runChild(logger *slog.Logger) error {
	id, dsn, schema, driver := os.Getenv(childEnv), os.Getenv(childDSN), os.Getenv(childSchema), os.Getenv(childDriver)
	baseReal, err1 := strconv.ParseInt(os.Getenv(childBaseReal), 10, 64)
	baseVirtual, err2 := strconv.ParseInt(os.Getenv(childBaseVirtl), 10, 64)
	if err := errors.Join(err1, err2); err != nil {
		return err
	}
	clock := shiftedClock{clockwork.NewRealClock(), time.Duration(baseVirtual - baseReal)}
	ctx, stop := signal.NotifyContext(context.Background(), syscall.SIGTERM)
	defer stop()

	db, err := sql.Open("pgx", dsn)
	if err != nil {
		return err
	}
	defer db.Close()
	ledger, err := sqlledger.New(db, sqlledger.WithTable(schema+".dstsafe_job_runs"), sqlledger.WithClock(clock))
	if err != nil {
		return err
	}
	sched, err := dstsafe.ParseCron(failoverSpec, dstsafe.WithSeconds())
	if err != nil {
		return err
	}
	workers := river.NewWorkers()
	pid := os.Getpid()
	cfg := &river.Config{
		ID:                   id,
		Schema:               schema,
		Logger:               logger,
		Queues:               map[string]river.QueueConfig{river.QueueDefault: {MaxWorkers: 4}},
		FetchPollInterval:    200 * time.Millisecond,
		FetchCooldown:        50 * time.Millisecond,
		JobTimeout:           2 * time.Second,
		RescueStuckJobsAfter: 4 * time.Second,
		// Keep every job row, so the test can count them (river's cleaner
		// would delete them from the virtual clock's point of view at once).
		CompletedJobRetentionPeriod: -1,
		Test:                        river.TestConfig{Time: dstsaferiver.ClockTime(clock)},
		Workers:                     workers,
		PeriodicJobs: []*river.PeriodicJob{dstsaferiver.NewPeriodicJob(sched, report, &dstsaferiver.Options{
			Ledger: ledger, CatchUp: dstsafe.CatchUpAll{Window: time.Hour}, MisfireThreshold: time.Second, Logger: logger,
		})},
	}
	insertWorked := "INSERT INTO " + schema + ".worked (period, pid, job_id) VALUES ($1, $2, $3)"
	switch driver {
	case "databasesql":
		// The claim, the row and the completion commit together.
		river.AddWorker(workers, dstsaferiver.NewTxWorker[*riverdatabasesql.Driver](ledger,
			func(ctx context.Context, tx *sql.Tx, run dstsafe.Run, job *river.Job[ReportArgs]) error {
				_, err := tx.ExecContext(ctx, insertWorked, run.Period, pid, job.ID)
				return err
			}, &dstsaferiver.WorkerOptions{Clock: clock, Logger: logger}))
		client, err := river.NewClient(riverdatabasesql.New(db), cfg)
		if err != nil {
			return err
		}
		return serve(ctx, client)
	case "pgxv5":
		// Separate commits: a worker killed after its claim leaves the
		// period abandoned; the takeover reruns it, so the work is
		// idempotent by period (ON CONFLICT).
		river.AddWorker(workers, dstsaferiver.NewWorker(ledger,
			func(ctx context.Context, run dstsafe.Run, job *river.Job[ReportArgs]) error {
				_, err := db.ExecContext(ctx, insertWorked+" ON CONFLICT (period) DO NOTHING", run.Period, pid, job.ID)
				return err
			}, &dstsaferiver.WorkerOptions{Clock: clock, Logger: logger, Lease: 3 * time.Second,
				Retry: dstsafe.RetryPolicy{MaxAttempts: 5, Abandoned: true}}))
		pool, err := pgxpool.New(ctx, dsn)
		if err != nil {
			return err
		}
		defer pool.Close()
		client, err := river.NewClient(riverpgxv5.New(pool), cfg)
		if err != nil {
			return err
		}
		return serve(ctx, client)
	}
	return fmt.Errorf("unknown driver %q", driver)
}

func serve[TTx any](ctx context.Context, client *river.Client[TTx]) error {
	if err := client.Start(context.WithoutCancel(ctx)); err != nil {
		return err
	}
	<-ctx.Done()
	stopCtx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	return client.Stop(stopCtx)
}

// failover is one run of the test: a schema, its virtual clock, children.
type failover struct {
	t                     *testing.T
	db                    *sql.DB
	dsn, schema, driver   string
	baseReal, baseVirtual time.Time
	children              map[string]*exec.Cmd
	logs                  string
}

func (f *failover) virtualNow() time.Time { return f.baseVirtual.Add(time.Since(f.baseReal)) }

// waitUntil blocks until the virtual clock reads v.
func (f *failover) waitUntil(v time.Time) {
	if d := v.Sub(f.virtualNow()); d > 0 {
		t := time.NewTimer(d)
		<-t.C
	}
}

// poll calls cond every 50 ms until it is true, failing after limit.
func (f *failover) poll(what string, limit time.Duration, cond func() bool) {
	f.t.Helper()
	deadline := time.Now().Add(limit)
	tick := time.NewTicker(50 * time.Millisecond)
	defer tick.Stop()
	for !cond() {
		if time.Now().After(deadline) {
			f.t.Fatalf("%s: not within %s (child logs in %s)", what, limit, f.logs)
		}
		<-tick.C
	}
}

func (f *failover) start(id string) {
	f.t.Helper()
	cmd := exec.Command(os.Args[0], "-test.run=^$")
	cmd.Env = append(os.Environ(), childEnv+"="+id, childDSN+"="+f.dsn, childSchema+"="+f.schema, childDriver+"="+f.driver,
		childBaseReal+"="+strconv.FormatInt(f.baseReal.UnixNano(), 10), childBaseVirtl+"="+strconv.FormatInt(f.baseVirtual.UnixNano(), 10))
	out, err := os.Create(filepath.Join(f.logs, id+".log"))
	require.NoError(f.t, err)
	cmd.Stdout, cmd.Stderr = out, out
	require.NoError(f.t, cmd.Start())
	f.children[id] = cmd
	f.t.Cleanup(func() {
		if cmd.ProcessState == nil {
			_ = cmd.Process.Kill()
			_ = cmd.Wait()
		}
		out.Close()
		if f.t.Failed() {
			b, _ := os.ReadFile(out.Name())
			f.t.Logf("child %s log:\n%s", id, b)
		}
	})
}

func (f *failover) leader() string {
	var id string
	if err := f.db.QueryRow("SELECT leader_id FROM " + f.schema + ".river_leader").Scan(&id); err != nil {
		return ""
	}
	return id
}

// kill SIGKILLs child id at virtual instant at and reaps it.
func (f *failover) kill(id string, at time.Time) {
	f.t.Helper()
	f.waitUntil(at)
	cmd := f.children[id]
	require.NoError(f.t, cmd.Process.Signal(syscall.SIGKILL))
	_ = cmd.Wait()
}

// TestFailover runs two river clients in two OS processes on one
// PostgreSQL database migrated by rivermigrate, with the clocks of both
// (river's Config.Test.Time, the ledger's, the schedule's) shifted to a
// few seconds before a 2024 America/Chicago transition, and a job every 2
// seconds of Chicago time. The leader is SIGKILLed exactly when a period
// is due (the transition instant itself), the other client takes over
// after river's leader TTL and catches up from the ledger; a new process
// replaces the dead one; the new leader is killed at another due period
// and the replacement takes over. Every period from the first to the end
// is enqueued exactly once (one river job) and worked exactly once (one
// row, one succeeded ledger record), none lost.
//
// By default the fall night runs on riverpgxv5 (NewWorker) and the spring
// night on riverdatabasesql (NewTxWorker), in parallel; DSTSAFE_LONG=1 runs
// all four pairs.
func TestFailover(t *testing.T) {
	dsn := testkit.RequireEnv(t, pgEnv)
	chicago := dstsafetest.Zone(t, "America/Chicago")
	type night struct {
		name       string
		transition time.Time
	}
	fall := night{"fall", time.Date(2024, 11, 3, 7, 0, 0, 0, time.UTC)}     // 02:00 CDT -> 01:00 CST
	spring := night{"spring", time.Date(2024, 3, 10, 8, 0, 0, 0, time.UTC)} // 02:00 CST -> 03:00 CDT
	cases := []struct {
		night  night
		driver string
	}{{fall, "pgxv5"}, {spring, "databasesql"}}
	if os.Getenv("DSTSAFE_LONG") == "1" {
		cases = append(cases, struct {
			night  night
			driver string
		}{fall, "databasesql"}, struct {
			night  night
			driver string
		}{spring, "pgxv5"})
	}
	for _, c := range cases {
		t.Run(c.night.name+"/"+c.driver, func(t *testing.T) {
			t.Parallel()
			runFailover(t, dsn, chicago, c.night.transition, c.driver)
		})
	}
}

func runFailover(t *testing.T, dsn string, chicago *time.Location, transition time.Time, driver string) {
	ctx := context.Background()
	db, err := sql.Open("pgx", dsn)
	require.NoError(t, err)
	t.Cleanup(func() { db.Close() })
	schema := fmt.Sprintf("dsr_%s_%s_%d", transition.Format("0102"), driver, os.Getpid())
	unique := "" // NewTxWorker must make the rows unique by itself
	if driver == "pgxv5" {
		unique = " UNIQUE" // NewWorker's work is idempotent by period
	}
	riverSchema(t, ctx, db, schema, "period text NOT NULL"+unique+", pid int NOT NULL, job_id bigint NOT NULL")

	f := &failover{t: t, db: db, dsn: dsn, schema: schema, driver: driver, children: map[string]*exec.Cmd{}, logs: t.TempDir(),
		baseReal: time.Now(), baseVirtual: transition.Add(-16 * time.Second)}
	f.start("A1")
	f.poll("A1 elected", 20*time.Second, func() bool { return f.leader() == "A1" })
	f.start("B1")

	// Kill the leader when the period at the transition is due.
	f.kill("A1", transition)
	killed1 := f.virtualNow()
	f.poll("B1 takes over", 40*time.Second, func() bool { return f.leader() == "B1" })
	took1 := f.virtualNow()
	f.start("A2")
	// Then the new leader, at the first due period 4 s after it took over.
	second := took1.Add(4 * time.Second).Truncate(2 * time.Second).Add(2 * time.Second)
	f.kill("B1", second)
	killed2 := f.virtualNow()
	f.poll("A2 takes over", 40*time.Second, func() bool { return f.leader() == "A2" })
	took2 := f.virtualNow()
	end := took2.Add(6 * time.Second).Truncate(2 * time.Second)
	f.waitUntil(end.Add(time.Second))
	t.Logf("%s: leader A1 killed at %s, B1 led from %s; B1 killed at %s, A2 led from %s; end %s",
		schema, killed1.In(chicago).Format("15:04:05.000 MST"), took1.In(chicago).Format("15:04:05 MST"),
		killed2.In(chicago).Format("15:04:05.000 MST"), took2.In(chicago).Format("15:04:05 MST"), end.In(chicago).Format("15:04:05 MST"))

	// A period's instant is its args' due: river's enqueuer inserts it
	// available, at the (virtual) time it constructs it.
	due := "(args->'dstsafe'->>'due')::timestamptz"
	// Let the workers finish every period up to the end.
	q := func(query string, args ...any) int {
		var n int
		require.NoError(t, db.QueryRow(query, args...).Scan(&n))
		return n
	}
	f.poll("every job up to the end completed", 90*time.Second, func() bool {
		return q("SELECT count(*) FROM "+schema+".river_job WHERE "+due+" <= $1 AND state <> 'completed'", end) == 0
	})

	// The expected periods, from the time package: every 2 s from the
	// first job's instant to the end, keyed by the Chicago wall reading,
	// ";fold=1" when the instant an hour earlier read the same.
	var first time.Time
	require.NoError(t, db.QueryRow("SELECT min("+due+") FROM "+schema+".river_job").Scan(&first))
	// The first leader's election takes longer on a loaded machine; what
	// the test needs is periods worked before the transition, so that the
	// kill at the transition falls between periods of both offsets.
	require.False(t, first.After(transition.Add(-4*time.Second)),
		"first period %s not two periods before the transition %s: A1 was elected too late", first, transition)
	want := map[string]bool{}
	var wantOrder []string
	for at := first; !at.After(end); at = at.Add(2 * time.Second) {
		key := at.In(chicago).Format("2006-01-02T15:04:05")
		if at.Add(-time.Hour).In(chicago).Format("2006-01-02T15:04:05") == key {
			key += ";fold=1"
		}
		want[key] = true
		wantOrder = append(wantOrder, key)
	}

	count := func(query string) map[string]int {
		rows, err := db.Query(query, end)
		require.NoError(t, err)
		defer rows.Close()
		m := map[string]int{}
		for rows.Next() {
			var p string
			var n int
			require.NoError(t, rows.Scan(&p, &n))
			m[p] = n
		}
		require.NoError(t, rows.Err())
		return m
	}
	jobsPer := count("SELECT args->'dstsafe'->>'period', count(*) FROM " + schema + ".river_job WHERE " + due + " <= $1 GROUP BY 1")
	workedPer := count("SELECT period, count(*) FROM " + schema + ".worked w WHERE EXISTS (SELECT 1 FROM " + schema +
		".river_job j WHERE j.args->'dstsafe'->>'period' = w.period AND (j.args->'dstsafe'->>'due')::timestamptz <= $1) GROUP BY 1")
	succeeded := count("SELECT period, count(*) FROM " + schema + ".dstsafe_job_runs r WHERE status = 'succeeded' AND EXISTS (SELECT 1 FROM " + schema +
		".river_job j WHERE j.args->'dstsafe'->>'period' = r.period AND (j.args->'dstsafe'->>'due')::timestamptz <= $1) GROUP BY 1")
	var lost, twice, extra []string
	for _, p := range wantOrder {
		switch {
		case jobsPer[p] == 0 || workedPer[p] == 0 || succeeded[p] == 0:
			lost = append(lost, p)
		case jobsPer[p] > 1 || workedPer[p] > 1:
			twice = append(twice, p)
		}
	}
	for p := range jobsPer {
		if !want[p] {
			extra = append(extra, p)
		}
	}
	late := q("SELECT count(*) FROM "+schema+".river_job WHERE "+due+" <= $1 AND created_at > "+due+" + interval '1 second'", end)
	takeovers := q("SELECT count(*) FROM " + schema + ".dstsafe_job_runs WHERE attempt > 1")
	byPid := q("SELECT count(DISTINCT pid) FROM " + schema + ".worked")
	t.Logf("%s: %d periods %s .. %s, %d enqueued late by a new leader, worked by %d processes, %d ledger takeovers; lost %d, twice %d",
		schema, len(wantOrder), wantOrder[0], wantOrder[len(wantOrder)-1], late, byPid, takeovers, len(lost), len(twice))
	require.Empty(t, lost, "periods lost (child logs in %s)", f.logs)
	require.Empty(t, twice, "periods enqueued or worked twice")
	require.Empty(t, extra, "periods the schedule does not have")
	require.Positive(t, late, "no period was caught up: the kills did not leave any period to the next leader")
	crossed := strings.Join(wantOrder, " ")
	if transition.Month() == time.November {
		require.Contains(t, crossed, "T01:59:58 ", "the fall night reaches 01:59:58 CDT")
		require.Contains(t, crossed, "T01:00:00;fold=1", "and 01:00:00 CST, the repeated hour")
	} else {
		require.Contains(t, crossed, "T01:59:58 ", "the spring night reaches 01:59:58 CST")
		require.Contains(t, crossed, "T03:00:00", "and 03:00:00 CDT, after the gap")
	}
}

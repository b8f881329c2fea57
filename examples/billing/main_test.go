package main

import (
	"bytes"
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/dstsafe/dstsafe"
	"github.com/dstsafe/dstsafe/examples/billing/internal/billing"
	"github.com/dstsafe/dstsafe/examples/billing/internal/billingtest"
	"github.com/dstsafe/dstsafe/internal/testkit"
	"github.com/dstsafe/dstsafe/sqlledger"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

var update = flag.Bool("update", false, "rewrite testdata/*.golden")

// The tests start copies of their own binary as billing processes: with
// BILLING_TEST_CHILD=1 it runs main's code on its arguments instead of the
// tests, BILLING_TEST_CRASH=<hook>:<subscription id> kills it there, and
// BILLING_TEST_BARRIER=1 makes it wait until the pipe on fd 3 is closed.
func TestMain(m *testing.M) {
	if os.Getenv("BILLING_TEST_CHILD") == "1" {
		if os.Getenv("BILLING_TEST_BARRIER") == "1" {
			// Wait for the test to release every child at once.
			_, _ = io.Copy(io.Discard, os.NewFile(3, "barrier"))
		}
		installCrash(os.Getenv("BILLING_TEST_CRASH"))
		os.Exit(realMain(context.Background(), os.Args[1:], os.Stdout, os.Stderr))
	}
	os.Exit(m.Run())
}

// installCrash makes the process SIGKILL itself at a hook ("after-charge-row"
// or "after-processor") for one subscription: no deferred function, no
// rollback, no clean close; what a crash or an OOM kill does.
func installCrash(spec string) {
	if spec == "" {
		return
	}
	hook, idText, _ := strings.Cut(spec, ":")
	id, err := strconv.ParseInt(idText, 10, 64)
	if err != nil {
		panic("bad BILLING_TEST_CRASH " + spec)
	}
	kill := func(sub billing.Subscription) {
		if sub.ID == id {
			_ = syscall.Kill(os.Getpid(), syscall.SIGKILL)
			select {} // wait for the signal
		}
	}
	switch hook {
	case "after-charge-row":
		testHooks.AfterChargeRow = kill
	case "after-processor":
		testHooks.AfterProcessor = kill
	default:
		panic("unknown crash hook " + spec)
	}
}

var (
	chicago  = mustLoad("America/Chicago")
	fallBack = dstsafe.Date{Year: 2024, Month: time.November, Day: 3}
)

func mustLoad(name string) *time.Location {
	loc, err := time.LoadLocation(name)
	if err != nil {
		panic(err)
	}
	return loc
}

// TestDemoGolden runs the command as a newcomer does and compares its
// output with testdata/*.golden (go test -update rewrites them). Its
// numbers are then checked against the databases the run used. The
// full-size night needs a build without -race (scripts/test runs it so);
// the 150-subscription night runs in both.
func TestDemoGolden(t *testing.T) {
	for _, tc := range []struct {
		name   string
		args   []string
		golden string
	}{
		{"default", nil, "demo.golden"},
		{"150 subscriptions", []string{"--subscriptions", "150"}, "demo-150.golden"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if tc.args == nil && raceDetector {
				t.Skip("the full-size replay runs without -race: go test -run TestDemoGolden ./examples/billing")
			}
			checked := false
			inspect = func(cfg config, r Replay, naive, safe *billing.DB) {
				checkDemo(t, cfg, r, naive, safe)
				checked = true
			}
			defer func() { inspect = nil }()
			t.Setenv("DATABASE_URL", "") // the newcomer's default: SQLite

			var stdout, stderr bytes.Buffer
			code := realMain(context.Background(), tc.args, &stdout, &stderr)
			require.Equal(t, exitOK, code, "stderr: %s", stderr.String())
			require.True(t, checked)
			golden := filepath.Join("testdata", tc.golden)
			if *update {
				require.NoError(t, os.WriteFile(golden, stdout.Bytes(), 0o644))
			}
			want, err := os.ReadFile(golden)
			require.NoError(t, err)
			assert.Equal(t, string(want), stdout.String())
		})
	}
}

// TestDemoPostgres replays into PostgreSQL and reads the schemas back. The
// night has 1,291 subscriptions with DSTSAFE_LONG=1, 150 by default.
func TestDemoPostgres(t *testing.T) {
	dsn := testkit.RequireEnv(t, billingtest.PostgresEnv)
	cfg := demoConfig(t)
	if os.Getenv("DSTSAFE_LONG") == "" {
		cfg.Subscriptions = 150
	}
	cfg.PostgresDSN, cfg.Schema = dsn, fmt.Sprintf("billing_demo_test_%d", os.Getpid())
	t.Cleanup(func() {
		for _, suffix := range []string{"_naive", "_dstsafe", "_local"} {
			_ = billing.DropSchema(context.Background(), dsn, cfg.Schema+suffix)
		}
	})
	checked := false
	inspect = func(cfg config, r Replay, naive, safe *billing.DB) {
		checkDemo(t, cfg, r, naive, safe)
		checked = true
	}
	defer func() { inspect = nil }()
	r, err := replay(context.Background(), cfg)
	require.NoError(t, err)
	require.True(t, checked)

	// A manual rerun of the billed date against the same schema.
	var out, errOut bytes.Buffer
	code := realMain(context.Background(), []string{"run", "--postgres", dsn, "--schema", cfg.Schema + "_dstsafe", "--date", cfg.Date.String()}, &out, &errOut)
	assert.Equal(t, exitOK, code, errOut.String())
	assert.Contains(t, errOut.String(), "run already claimed")
	assert.Equal(t, fmt.Sprintf("naive: runs=2 charged=%d duplicates=%d | dstsafe: runs=1 charged=%d duplicates=0",
		2*(cfg.Subscriptions-7), cfg.Subscriptions-7, cfg.Subscriptions-7), r.summary())
}

func demoConfig(t *testing.T) config {
	t.Helper()
	return config{Zone: chicago, Date: fallBack, Subscriptions: 1291, Declining: 7}
}

func checkDemo(t *testing.T, cfg config, r Replay, naive, safe *billing.DB) {
	t.Helper()
	ctx := context.Background()
	count := func(db *billing.DB, query string) int {
		t.Helper()
		var n int
		require.NoError(t, db.QueryRowContext(ctx, query).Scan(&n))
		return n
	}
	const succeeded = `SELECT count(*) FROM charges WHERE status = 'succeeded'`
	const duplicated = `SELECT count(*) FROM (SELECT subscription_id FROM charges WHERE status = 'succeeded'
		GROUP BY subscription_id, period_start HAVING count(*) > 1) d`
	payers := cfg.Subscriptions - cfg.Declining

	// The incident: two runs, every paying customer charged twice.
	assert.Equal(t, 2, count(naive, `SELECT count(*) FROM job_runs`))
	assert.Equal(t, 2*payers, count(naive, succeeded))
	assert.Equal(t, payers, count(naive, duplicated))
	assert.Equal(t, len(r.Naive.Runs), count(naive, `SELECT count(*) FROM job_runs`))
	assert.Equal(t, r.Naive.Charged, count(naive, succeeded))
	assert.Equal(t, r.Naive.Duplicates, count(naive, duplicated))
	// The two runs read 01:30 on the wall, an hour apart.
	require.Len(t, r.Naive.Runs, 2)
	for _, run := range r.Naive.Runs {
		assert.Equal(t, "01:30", run.Started.In(cfg.Zone).Format("15:04"))
	}
	assert.Equal(t, time.Hour, r.Naive.Runs[1].Started.Sub(r.Naive.Runs[0].Started))

	// The naive worker's 01:30 as a dstsafe schedule: one fire, at the
	// first instant the zone's clock reads 01:30 that night (found by
	// scanning the night minute by minute with the time package).
	require.Len(t, r.SameSpec.Fires, 1)
	var first time.Time
	for at := r.SameSpec.Fires[0].Due.Add(-6 * time.Hour).Truncate(time.Minute); at.Before(r.SameSpec.Fires[0].Due.Add(6 * time.Hour)); at = at.Add(time.Minute) {
		if l := at.In(cfg.Zone); l.Hour() == 1 && l.Minute() == 30 && dstsafe.DateOf(at, cfg.Zone) == cfg.Date {
			first = at
			break
		}
	}
	assert.True(t, r.SameSpec.Fires[0].Due.Equal(first), "same-spec fire at %v, want %v", r.SameSpec.Fires[0].Due, first)

	// dstsafe: one run, one charge per paying customer.
	ledger, err := sqlledger.New(safe.DB)
	require.NoError(t, err)
	recs, err := ledger.List(ctx, billing.JobName, "", "")
	require.NoError(t, err)
	require.Len(t, recs, 1)
	assert.Equal(t, cfg.Date.String(), recs[0].Period)
	assert.Equal(t, dstsafe.StateSucceeded, recs[0].State)
	assert.Equal(t, payers, count(safe, succeeded))
	assert.Zero(t, count(safe, duplicated))
	assert.Equal(t, len(r.DSTSafe.Runs), len(recs))
	assert.Equal(t, r.DSTSafe.Charged, count(safe, succeeded))
	assert.Equal(t, r.DSTSafe.Duplicates, count(safe, duplicated))
	assert.Equal(t, payers, r.DSTSafe.ProcessorCharges)

	// Local midnight: one charge per zone, at the zone's first instant.
	assert.Equal(t, len(billing.Zones), r.Local.Charged)
	assert.Zero(t, r.Local.Duplicates)
	assert.Zero(t, r.Local.OffMidnight)
}

func TestDemoJSON(t *testing.T) {
	t.Setenv("DATABASE_URL", "")
	var stdout, stderr bytes.Buffer
	code := realMain(context.Background(), []string{"--json", "--subscriptions", "40"}, &stdout, &stderr)
	require.Equal(t, exitOK, code, "stderr: %s", stderr.String())
	var got struct {
		Naive, DSTSafe struct{ Charged, Duplicates int }
		Summary        string
	}
	require.NoError(t, json.Unmarshal(stdout.Bytes(), &got))
	assert.Equal(t, 33, got.DSTSafe.Charged)
	assert.Equal(t, 33, got.Naive.Duplicates)
	assert.Equal(t, "naive: runs=2 charged=66 duplicates=33 | dstsafe: runs=1 charged=33 duplicates=0", got.Summary)
}

func TestDemoFlags(t *testing.T) {
	for _, args := range [][]string{
		{"--zone", "Mars/Olympus_Mons"},
		{"--zone", "Pacific/Honolulu"}, // 07:30 UTC is 21:30 the day before
		{"--date", "2024-11-31"},
		{"--subscriptions", "0"},
		{"stray"},
	} {
		var stdout, stderr bytes.Buffer
		assert.Equal(t, exitUsage, realMain(context.Background(), args, &stdout, &stderr), "%q", args)
		assert.Empty(t, stdout.String())
	}
}

func TestRunFlags(t *testing.T) {
	path := filepath.Join(t.TempDir(), "billing.db")
	for _, args := range [][]string{
		{"run", "--db", path}, // no --date
		{"run", "--db", path, "--postgres", "x", "--date", "2024-11-03"},  // two databases
		{"run", "--db", path, "--date", "2024-11-03", "--seed", "-1"},     // a negative seed
		{"run", "--db", path, "--date", "2024-11-03", "--seed", "5", "x"}, // a stray argument
	} {
		var stdout, stderr bytes.Buffer
		assert.Equal(t, exitUsage, realMain(context.Background(), args, &stdout, &stderr), "%q", args)
		assert.Empty(t, stdout.String())
	}
	assert.NoFileExists(t, path)
}

// TestManualRerunAlreadyClaimed bills the night with the demo, then asks
// for the same run_date by hand: the claim refuses, the command logs it and
// exits 0, and nothing is charged.
func TestManualRerunAlreadyClaimed(t *testing.T) {
	path := filepath.Join(t.TempDir(), "billing.db")
	var out, errOut bytes.Buffer
	require.Equal(t, exitOK, realMain(context.Background(), []string{"--db", path, "--subscriptions", "50"}, &out, &errOut), errOut.String())

	db, err := billing.OpenSQLite(path)
	require.NoError(t, err)
	defer db.Close()
	before := chargeRows(t, db)

	out.Reset()
	errOut.Reset()
	code := realMain(context.Background(), []string{"run", "--db", path, "--date", "2024-11-03"}, &out, &errOut)
	assert.Equal(t, exitOK, code)
	assert.Contains(t, errOut.String(), "run already claimed")
	assert.Equal(t, before, chargeRows(t, db))
}

func chargeRows(t *testing.T, db *billing.DB) int {
	t.Helper()
	var n int
	require.NoError(t, db.QueryRow(`SELECT count(*) FROM charges`).Scan(&n))
	return n
}

var discard = slog.New(slog.DiscardHandler)

func TestCheckFailsOnDuplicates(t *testing.T) {
	var r Replay
	require.NoError(t, r.check())
	r.Naive.Duplicates = 1284 // the naive run's duplicates are the point of the demo
	require.NoError(t, r.check())
	r.DSTSafe.Duplicates = 1
	assert.Error(t, r.check())
	r.DSTSafe.Duplicates = 0
	r.DSTSafe.Reconcile.Unbilled = []int64{17}
	assert.Error(t, r.check())
}

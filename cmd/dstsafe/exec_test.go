package main

import (
	"bufio"
	"bytes"
	"context"
	"crypto/rand"
	"database/sql"
	"encoding/hex"
	"errors"
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"

	"github.com/jonboulle/clockwork"
	"github.com/redis/go-redis/v9"

	"github.com/dstsafe/dstsafe"
	"github.com/dstsafe/dstsafe/internal/testkit"
	"github.com/dstsafe/dstsafe/redisledger"
	"github.com/dstsafe/dstsafe/sqlledger"
	"github.com/dstsafe/dstsafe/sqlledger/sqlite"
)

// The dstsafe binary the exec tests run as OS processes: built once, on
// first use, into a directory TestMain removes.
var dstsafeBin struct {
	once      sync.Once
	dir, path string
	err       error
}

func dstsafeBinary(t testing.TB) string {
	t.Helper()
	dstsafeBin.once.Do(func() {
		dstsafeBin.dir, dstsafeBin.err = os.MkdirTemp("", "dstsafe-exec-test-")
		if dstsafeBin.err != nil {
			return
		}
		dstsafeBin.path = filepath.Join(dstsafeBin.dir, "dstsafe")
		out, err := exec.Command("go", "build", "-o", dstsafeBin.path, ".").CombinedOutput()
		if err != nil {
			dstsafeBin.err = fmt.Errorf("go build: %v\n%s", err, out)
		}
	})
	if dstsafeBin.err != nil {
		t.Fatal(dstsafeBin.err)
	}
	return dstsafeBin.path
}

func removeDstsafeBinary() {
	if dstsafeBin.dir != "" {
		os.RemoveAll(dstsafeBin.dir)
	}
}

// execLedger is a fresh, migrated ledger for one test, named the way
// exec's flags name it, with a ledger on the test's side to check what
// exec recorded.
type execLedger struct {
	flags  []string // --ledger URL and --table or --prefix
	ledger dstsafe.Ledger
}

// execBackends are the ledgers every exec test runs against: SQLite in a
// temporary file, PostgreSQL and Redis on the servers scripts/test starts
// (under CI=true a missing one fails).
var execBackends = []struct {
	name string
	open func(t testing.TB) execLedger
}{
	{"sqlite", execSQLite},
	{"postgres", execPostgres},
	{"redis", execRedis},
}

// ledgerClock is the checking ledgers' clock: they only Get.
var ledgerClock = clockwork.NewRealClock()

func execSQLite(t testing.TB) execLedger {
	path := filepath.Join(t.TempDir(), "ledger.db")
	l, err := sqlite.OpenSQLite(path, sqlledger.WithClock(ledgerClock))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { l.Close() })
	if err := l.Migrate(context.Background()); err != nil {
		t.Fatal(err)
	}
	return execLedger{flags: []string{"--ledger", "sqlite://" + path}, ledger: l}
}

func execPostgres(t testing.TB) execLedger {
	dsn := testkit.RequireEnv(t, "DSTSAFE_TEST_POSTGRES_DSN")
	serverSeq++
	schema := fmt.Sprintf("dstsafe_exec_%d_%d", os.Getpid(), serverSeq)
	table := schema + ".job_runs"
	db, err := sql.Open("pgx", dsn)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		if _, err := db.Exec(`DROP SCHEMA IF EXISTS ` + schema + ` CASCADE`); err != nil {
			t.Errorf("drop schema %s: %v", schema, err)
		}
		db.Close()
	})
	l, err := sqlledger.New(db, sqlledger.WithTable(table), sqlledger.WithClock(ledgerClock), sqlledger.WithDialect(sqlledger.PostgreSQL))
	if err != nil {
		t.Fatal(err)
	}
	if err := l.Migrate(context.Background()); err != nil {
		t.Fatalf("Migrate on PostgreSQL: %v", err)
	}
	return execLedger{flags: []string{"--ledger", dsn, "--table", table}, ledger: l}
}

func execRedis(t testing.TB) execLedger {
	addr := testkit.RequireEnv(t, "DSTSAFE_TEST_REDIS_ADDR")
	var b [6]byte
	_, _ = rand.Read(b[:])
	prefix := "dstsafe-exec-test:" + hex.EncodeToString(b[:]) + ":"
	c := redis.NewClient(&redis.Options{Addr: addr})
	ctx := context.Background()
	if err := c.Ping(ctx).Err(); err != nil {
		t.Fatalf("Redis at %s: %v", addr, err)
	}
	t.Cleanup(func() {
		keys, err := c.Keys(ctx, prefix+"*").Result()
		if err == nil && len(keys) > 0 {
			err = c.Del(ctx, keys...).Err()
		}
		if err != nil {
			t.Errorf("deleting keys under %s: %v", prefix, err)
		}
		c.Close()
	})
	l, err := redisledger.New(c, redisledger.WithKeyPrefix(prefix), redisledger.WithClock(ledgerClock))
	if err != nil {
		t.Fatal(err)
	}
	return execLedger{flags: []string{"--ledger", "redis://" + addr + "/0", "--prefix", prefix}, ledger: l}
}

// forEachBackend runs test against every backend.
func forEachBackend(t *testing.T, test func(t *testing.T, l execLedger)) {
	for _, b := range execBackends {
		t.Run(b.name, func(t *testing.T) { test(t, b.open(t)) })
	}
}

const chicago130 = "CRON_TZ=America/Chicago 30 1 * * *"

// trigger is one dstsafe exec process, not yet started. The command
// appends a line to the file out names, so the test counts runs.
func trigger(t *testing.T, l execLedger, now, out string, extra ...string) *exec.Cmd {
	t.Helper()
	args := append([]string{"exec"}, l.flags...)
	args = append(args, "--job", "billing", "--schedule", chicago130)
	args = append(args, extra...)
	args = append(args, "--", "sh", "-c", `echo "{{.Period}} {{.RunDate}} {{.Attempt}} $DSTSAFE_DUE $DSTSAFE_IDEMPOTENCY_KEY" >> "$0"`, out)
	cmd := exec.Command(dstsafeBinary(t), args...)
	cmd.Env = append(os.Environ(), "DSTSAFE_NOW="+now)
	return cmd
}

type result struct {
	code           int
	stdout, stderr string
}

func runTrigger(t *testing.T, cmd *exec.Cmd) result {
	t.Helper()
	var o, e bytes.Buffer
	cmd.Stdout, cmd.Stderr = &o, &e
	err := cmd.Run()
	var ee *exec.ExitError
	if err != nil && !errors.As(err, &ee) {
		t.Fatalf("running %v: %v", cmd.Args, err)
	}
	return result{cmd.ProcessState.ExitCode(), o.String(), e.String()}
}

// lines returns the lines the commands appended to path.
func lines(t *testing.T, path string) []string {
	t.Helper()
	b, err := os.ReadFile(path)
	if errors.Is(err, os.ErrNotExist) {
		return nil
	}
	if err != nil {
		t.Fatal(err)
	}
	return strings.Split(strings.TrimSuffix(string(b), "\n"), "\n")
}

// N triggers of one period at the same instant, from N processes: the
// command runs once; the others exit 0 saying who has the period.
func TestExecConcurrentTriggers(t *testing.T) {
	forEachBackend(t, func(t *testing.T, l execLedger) {
		for _, n := range []int{2, 10} {
			t.Run(strconv.Itoa(n), func(t *testing.T) {
				out := filepath.Join(t.TempDir(), "runs")
				// A day of its own per n, so the two rounds share no period.
				now := fmt.Sprintf("2024-06-%02dT06:30:00Z", n)
				cmds := make([]*exec.Cmd, n)
				for i := range cmds {
					cmds[i] = trigger(t, l, now, out, "--owner", fmt.Sprintf("pod-%d", i))
				}
				results := make([]result, n)
				var wg sync.WaitGroup
				for i, c := range cmds {
					wg.Go(func() { results[i] = runTrigger(t, c) })
				}
				wg.Wait()
				claimed := 0
				for i, r := range results {
					if r.code != 0 {
						t.Errorf("trigger %d: exit %d, want 0\n%s", i, r.code, r.stderr)
					}
					if strings.Contains(r.stderr, "already claimed by pod-") {
						claimed++
					}
				}
				period := fmt.Sprintf("2024-06-%02dT01:30:00", n)
				want := fmt.Sprintf("%s 2024-06-%02d 1 2024-06-%02dT01:30:00-05:00 billing/%s", period, n, n, period)
				if got := lines(t, out); len(got) != 1 || got[0] != want || claimed != n-1 {
					t.Fatalf("runs %q, %d triggers said already claimed; want [%q] and %d", got, claimed, want, n-1)
				}
				rec, err := l.ledger.Get(context.Background(), "billing", period)
				if err != nil || rec.State != dstsafe.StateSucceeded || rec.Reason != "exit status 0" {
					t.Errorf("record %+v, %v; want succeeded, exit status 0", rec, err)
				}
			})
		}
	})
}

// The 2024-11-03 fall-back night replayed: a trigger at each 01:30 of
// Chicago (06:30Z CDT, 07:30Z CST), as a CronJob fires it
// (kubernetes#121594). The job runs once, for the first.
func TestExecFallBackNight(t *testing.T) {
	forEachBackend(t, func(t *testing.T, l execLedger) {
		for _, window := range []string{"10m", "2h"} {
			t.Run("misfire "+window, func(t *testing.T) {
				out := filepath.Join(t.TempDir(), "runs")
				job := "billing-" + window // a job per window: one ledger for both
				first := runTrigger(t, trigger(t, l, "2024-11-03T06:30:05Z", out, "--misfire", window, "--job", job))
				second := runTrigger(t, trigger(t, l, "2024-11-03T07:30:05Z", out, "--misfire", window, "--job", job))
				if first.code != 0 || second.code != 0 {
					t.Fatalf("exits %d, %d; want 0, 0\n%s%s", first.code, second.code, first.stderr, second.stderr)
				}
				// In a 10 min window the second 01:30 has nothing due; in a 2 h
				// one it stands for the first's period, which is claimed.
				wantSecond := map[string]string{"10m": "nothing due", "2h": "already claimed by"}[window]
				if !strings.Contains(second.stderr, wantSecond) {
					t.Errorf("second trigger said %q, want %q", second.stderr, wantSecond)
				}
				want := "2024-11-03T01:30:00 2024-11-03 1 2024-11-03T01:30:00-05:00 " + job + "/2024-11-03T01:30:00"
				if got := lines(t, out); len(got) != 1 || got[0] != want {
					t.Fatalf("runs %q, want [%q]", got, want)
				}
			})
		}
		t.Run("scheduled time", func(t *testing.T) {
			// With the CronJob's scheduled-timestamp the second trigger
			// names the second 01:30 itself: the same period.
			out := filepath.Join(t.TempDir(), "runs")
			first := runTrigger(t, trigger(t, l, "2024-11-03T06:30:05Z", out, "--scheduled-time", "2024-11-03T01:30:00-05:00", "--job", "billing-k8s"))
			second := runTrigger(t, trigger(t, l, "2024-11-03T07:30:05Z", out, "--scheduled-time", "2024-11-03T01:30:00-06:00", "--job", "billing-k8s"))
			if first.code != 0 || second.code != 0 || !strings.Contains(second.stderr, "already claimed by") {
				t.Fatalf("exits %d, %d; want 0, 0 and already claimed\n%s%s", first.code, second.code, first.stderr, second.stderr)
			}
			if got := lines(t, out); len(got) != 1 {
				t.Fatalf("runs %q, want one", got)
			}
		})
		t.Run("k8s job name", func(t *testing.T) {
			// The CronJob's Jobs for 06:30Z and 07:30Z are named by their
			// minutes since 1970; a trigger 20 min late still names its period.
			out := filepath.Join(t.TempDir(), "runs")
			first := runTrigger(t, trigger(t, l, "2024-11-03T06:50:00Z", out, "--k8s-job-name", "billing-28843590", "--job", "billing-k8s-name"))
			second := runTrigger(t, trigger(t, l, "2024-11-03T07:50:00Z", out, "--k8s-job-name", "billing-28843650", "--job", "billing-k8s-name"))
			if first.code != 0 || second.code != 0 || !strings.Contains(second.stderr, "already claimed by") {
				t.Fatalf("exits %d, %d; want 0, 0 and already claimed\n%s%s", first.code, second.code, first.stderr, second.stderr)
			}
			if got := lines(t, out); len(got) != 1 {
				t.Fatalf("runs %q, want one", got)
			}
		})
	})
}

// The 2024-03-10 spring-forward night: 02:30 never happens in Chicago.
// Triggers at 03:00 CDT (cronie runs jobs of the gap right after it),
// 03:30 CDT (the shifted run) and 03:40 CDT: it runs once, at 03:30, for
// the 02:30 period of 2024-03-10.
func TestExecSpringForwardNight(t *testing.T) {
	forEachBackend(t, func(t *testing.T, l execLedger) {
		out := filepath.Join(t.TempDir(), "runs")
		var stderr []string
		for _, now := range []string{"2024-03-10T08:00:00Z", "2024-03-10T08:30:00Z", "2024-03-10T08:40:00Z"} {
			r := runTrigger(t, trigger(t, l, now, out, "--schedule", "CRON_TZ=America/Chicago 30 2 * * *"))
			if r.code != 0 {
				t.Fatalf("trigger at %s: exit %d\n%s", now, r.code, r.stderr)
			}
			stderr = append(stderr, r.stderr)
		}
		want := "2024-03-10T02:30:00 2024-03-10 1 2024-03-10T03:30:00-05:00 billing/2024-03-10T02:30:00"
		if got := lines(t, out); len(got) != 1 || got[0] != want {
			t.Fatalf("runs %q, want [%q]\n%s", got, want, strings.Join(stderr, ""))
		}
		if !strings.Contains(stderr[0], "nothing due") || !strings.Contains(stderr[2], "already claimed by") {
			t.Errorf("triggers said %q; want nothing due at 03:00 and already claimed at 03:40", stderr)
		}
	})
}

// startLong starts a trigger whose command says it started and then
// sleeps, and returns once the command runs, with the command's pid.
func startLong(t *testing.T, l execLedger, now string, extra ...string) (*exec.Cmd, int, *bytes.Buffer) {
	t.Helper()
	args := append([]string{"exec"}, l.flags...)
	args = append(args, "--job", "export", "--schedule", chicago130)
	args = append(args, extra...)
	args = append(args, "--", "sh", "-c", `echo $$; exec sleep 60`)
	cmd := exec.Command(dstsafeBinary(t), args...)
	cmd.Env = append(os.Environ(), "DSTSAFE_NOW="+now)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	pipe, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	line, err := bufio.NewReader(pipe).ReadString('\n')
	if err != nil {
		cmd.Process.Kill()
		t.Fatalf("the command never started: %v\n%s", err, stderr.String())
	}
	pid, err := strconv.Atoi(strings.TrimSpace(line))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { syscall.Kill(pid, syscall.SIGKILL); cmd.Process.Kill() })
	return cmd, pid, &stderr
}

// SIGTERM to the wrapper (a pod's termination) reaches the command; the
// period is recorded failed with the signal, and exec exits 128+15 as a
// shell would.
func TestExecForwardsSIGTERM(t *testing.T) {
	forEachBackend(t, func(t *testing.T, l execLedger) {
		signals := []struct {
			sig    syscall.Signal
			now    string // a period each
			code   int
			reason string
		}{
			{syscall.SIGTERM, "2024-06-01T06:30:00Z", 143, "killed by signal SIGTERM (exit status 143) (after dstsafe exec forwarded SIGTERM)"},
			// Ctrl-C at a terminal, or a kill -INT.
			{syscall.SIGINT, "2024-06-02T06:30:00Z", 130, "killed by signal SIGINT (exit status 130) (after dstsafe exec forwarded SIGINT)"},
		}
		for _, s := range signals {
			cmd, _, stderr := startLong(t, l, s.now)
			if err := cmd.Process.Signal(s.sig); err != nil {
				t.Fatal(err)
			}
			err := cmd.Wait()
			if code := cmd.ProcessState.ExitCode(); code != s.code {
				t.Fatalf("%s: exit %d (%v), want %d\n%s", s.sig, code, err, s.code, stderr)
			}
			rec, err := l.ledger.Get(context.Background(), "export", s.now[:10]+"T01:30:00")
			if err != nil || rec.State != dstsafe.StateFailed || rec.Reason != s.reason {
				t.Fatalf("%s: record %+v, %v; want failed with %q", s.sig, rec, err, s.reason)
			}
		}
	})
}

// The wrapper SIGKILLed mid-run (a node lost) leaves its claim running
// until the lease ends; then the next trigger takes the period over only
// when --retry-abandoned and --max-attempts allow it. The later triggers
// run a minute after the first by their DSTSAFE_NOW, past its 2 s lease.
func TestExecAbandonedTakeover(t *testing.T) {
	forEachBackend(t, func(t *testing.T, l execLedger) {
		cmd, child, _ := startLong(t, l, "2024-06-01T06:30:00Z", "--lease", "2s", "--misfire", "1h")
		if err := cmd.Process.Kill(); err != nil {
			t.Fatal(err)
		}
		// The orphaned command holds the wrapper's stderr open: end it too,
		// or Wait waits for its sleep.
		syscall.Kill(child, syscall.SIGKILL)
		cmd.Wait()

		run := func(now string, extra ...string) result {
			args := append([]string{"exec"}, l.flags...)
			args = append(args, "--job", "export", "--schedule", chicago130, "--misfire", "1h")
			args = append(args, extra...)
			args = append(args, "--", "sh", "-c", "echo attempt $DSTSAFE_ATTEMPT")
			c := exec.Command(dstsafeBinary(t), args...)
			c.Env = append(os.Environ(), "DSTSAFE_NOW="+now)
			return runTrigger(t, c)
		}
		cases := []struct {
			name, now string
			flags     []string
			stdout    string // "" when nothing runs
			stderr    string
		}{
			{"no retry flag", "2024-06-01T06:31:00Z", nil, "", "(state abandoned, attempt 1)"},
			{"failed only", "2024-06-01T06:31:00Z", []string{"--retry-failed", "--max-attempts", "3"}, "", "(state abandoned, attempt 1)"},
			{"abandoned allowed", "2024-06-01T06:31:00Z", []string{"--retry-abandoned", "--max-attempts", "2"}, "attempt 2\n", ""},
			// Attempt 2 succeeded: done, whatever the flags.
			{"after the takeover", "2024-06-01T06:32:00Z", []string{"--retry-abandoned", "--max-attempts", "5"}, "", "(state succeeded, attempt 2)"},
		}
		for _, tc := range cases {
			r := run(tc.now, tc.flags...)
			if r.code != 0 || r.stdout != tc.stdout || !strings.Contains(r.stderr, tc.stderr) {
				t.Errorf("%s: exit %d stdout %q stderr %q; want 0, %q, %q", tc.name, r.code, r.stdout, r.stderr, tc.stdout, tc.stderr)
			}
		}
	})
}

// --max-attempts bounds takeovers: with 1 attempt allowed in all, an
// abandoned period stays abandoned; --exit-claimed sets the status.
func TestExecExitClaimed(t *testing.T) {
	forEachBackend(t, func(t *testing.T, l execLedger) {
		out := filepath.Join(t.TempDir(), "runs")
		if r := runTrigger(t, trigger(t, l, "2024-06-01T06:30:00Z", out)); r.code != 0 {
			t.Fatalf("first: exit %d\n%s", r.code, r.stderr)
		}
		r := runTrigger(t, trigger(t, l, "2024-06-01T06:31:00Z", out, "--exit-claimed", "3"))
		if r.code != 3 || !strings.Contains(r.stderr, "already claimed by") {
			t.Fatalf("second: exit %d %q, want 3 and already claimed", r.code, r.stderr)
		}
		if got := lines(t, out); len(got) != 1 {
			t.Fatalf("runs %q, want one", got)
		}
	})
}

// A command's failure is recorded with its status and passed on; a
// retry of the failed period runs only with --retry-failed.
func TestExecFailedAndRetried(t *testing.T) {
	forEachBackend(t, func(t *testing.T, l execLedger) {
		run := func(now string, extra ...string) result {
			args := append([]string{"exec"}, l.flags...)
			args = append(args, "--job", "export", "--schedule", chicago130)
			args = append(args, extra...)
			args = append(args, "--", "sh", "-c", `echo attempt $DSTSAFE_ATTEMPT; exit $((5 - DSTSAFE_ATTEMPT))`)
			c := exec.Command(dstsafeBinary(t), args...)
			c.Env = append(os.Environ(), "DSTSAFE_NOW="+now)
			return runTrigger(t, c)
		}
		if r := run("2024-06-01T06:30:00Z"); r.code != 4 || r.stdout != "attempt 1\n" {
			t.Fatalf("first: exit %d %q, want 4 (5-1)", r.code, r.stdout)
		}
		rec, err := l.ledger.Get(context.Background(), "export", "2024-06-01T01:30:00")
		if err != nil || rec.State != dstsafe.StateFailed || rec.Reason != "exit status 4" {
			t.Fatalf("record %+v, %v; want failed, exit status 4", rec, err)
		}
		if r := run("2024-06-01T06:31:00Z"); r.code != 0 || r.stdout != "" {
			t.Fatalf("without --retry-failed: exit %d %q, want 0 and nothing run", r.code, r.stdout)
		}
		if r := run("2024-06-01T06:32:00Z", "--retry-failed", "--max-attempts", "2"); r.code != 3 || r.stdout != "attempt 2\n" {
			t.Fatalf("with --retry-failed: exit %d %q, want 3 (5-2) from attempt 2", r.code, r.stdout)
		}
		if r := run("2024-06-01T06:33:00Z", "--retry-failed", "--max-attempts", "2"); r.code != 0 || r.stdout != "" {
			t.Fatalf("past --max-attempts: exit %d %q, want 0 and nothing run", r.code, r.stdout)
		}
	})
}

// closedPort is a TCP port on 127.0.0.1 nothing listens on.
func closedPort(t *testing.T) int {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	port := ln.Addr().(*net.TCPAddr).Port
	ln.Close()
	return port
}

// A ledger that cannot be reached or written: exit 125, nothing run.
func TestExecLedgerDown(t *testing.T) {
	dir := t.TempDir()
	notDir := filepath.Join(dir, "file")
	if err := os.WriteFile(notDir, nil, 0o600); err != nil {
		t.Fatal(err)
	}
	cases := []struct {
		name string
		args []string
	}{
		{"postgres closed port", []string{"--ledger", fmt.Sprintf("postgres://dstsafe@127.0.0.1:%d/ledger?sslmode=disable&connect_timeout=5", closedPort(t))}},
		{"redis closed port", []string{"--ledger", fmt.Sprintf("redis://127.0.0.1:%d/0", closedPort(t))}},
		// A path under a regular file can never be created, even by root.
		{"sqlite unwritable path", []string{"--ledger", "sqlite://" + filepath.Join(notDir, "ledger.db"), "--migrate"}},
		{"sqlite missing file", []string{"--ledger", "sqlite://" + filepath.Join(dir, "missing.db")}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			out := filepath.Join(t.TempDir(), "runs")
			r := runTrigger(t, trigger(t, execLedger{flags: tc.args}, "2024-06-01T06:30:00Z", out))
			if r.code != exitLedger || !strings.Contains(r.stderr, "nothing run") {
				t.Fatalf("exit %d %q, want %d and nothing run", r.code, r.stderr, exitLedger)
			}
			if got := lines(t, out); got != nil {
				t.Fatalf("runs %q, want none", got)
			}
		})
	}
}

// A claim lost while the command runs (the period finished or taken over
// by someone else with the token) is noticed at the next heartbeat: the
// command gets SIGTERM and exec exits 124 without recording anything.
func TestExecLeaseLost(t *testing.T) {
	forEachBackend(t, func(t *testing.T, l execLedger) {
		// A 900 ms lease heartbeats every 300 ms.
		cmd, _, stderr := startLong(t, l, "2024-06-01T06:30:00Z", "--lease", "900ms")
		ctx := context.Background()
		rec, err := l.ledger.Get(ctx, "export", "2024-06-01T01:30:00")
		if err != nil {
			t.Fatal(err)
		}
		if _, err := l.ledger.Finish(ctx, "export", rec.Period, rec.Token, dstsafe.StateSkipped, "done by hand"); err != nil {
			t.Fatal(err)
		}
		cmd.Wait()
		if code := cmd.ProcessState.ExitCode(); code != exitLeaseLost || !strings.Contains(stderr.String(), "lost the claim") {
			t.Fatalf("exit %d %q, want %d and lost the claim", code, stderr, exitLeaseLost)
		}
		rec, err = l.ledger.Get(ctx, "export", rec.Period)
		if err != nil || rec.State != dstsafe.StateSkipped || rec.Reason != "done by hand" {
			t.Fatalf("record %+v, %v; want the skip exec lost to, untouched", rec, err)
		}
	})
}

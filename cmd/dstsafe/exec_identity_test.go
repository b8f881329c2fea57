package main

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/jonboulle/clockwork"

	"github.com/dstsafe/dstsafe"
	"github.com/dstsafe/dstsafe/internal/testkit"
	"github.com/dstsafe/dstsafe/sqlledger"
	"github.com/dstsafe/dstsafe/sqlledger/sqlite"
)

// execArgs runs one dstsafe exec process on l at now with args (job,
// schedule, flags); its command appends the period's fields to out.
func execArgs(t *testing.T, l execLedger, now, out string, args ...string) result {
	t.Helper()
	all := append([]string{"exec"}, l.flags...)
	all = append(all, args...)
	all = append(all, "--", "sh", "-c", `echo "{{.Period}} {{.RunDate}} $DSTSAFE_IDEMPOTENCY_KEY" >> "$0"`, out)
	cmd := exec.Command(dstsafeBinary(t), all...)
	cmd.Env = append(os.Environ(), "DSTSAFE_NOW="+now)
	return runTrigger(t, cmd)
}

// registerAsScheduler registers job in l as an in-process Scheduler does
// when its Run starts: a real Scheduler, simulated for an instant in which
// nothing is due, so only its registration reaches the ledger.
func registerAsScheduler(t *testing.T, l execLedger, job string, cr *dstsafe.Cron, at time.Time) {
	t.Helper()
	clock := clockwork.NewFakeClockAt(at)
	s := dstsafe.NewScheduler(dstsafe.WithClock(clock), dstsafe.WithLedger(l.ledger), dstsafe.WithOwner("billing-service"))
	if err := s.Add(job, cr, func(context.Context, dstsafe.Run) error { return nil }); err != nil {
		t.Fatal(err)
	}
	if _, err := dstsafe.Simulate(context.Background(), s, time.Second); err != nil {
		t.Fatalf("Scheduler start: %v", err)
	}
}

func registry(t *testing.T, l execLedger) dstsafe.JobRegistry {
	t.Helper()
	r, ok := l.ledger.(dstsafe.JobRegistry)
	if !ok {
		t.Fatalf("%T keeps no job registry", l.ledger)
	}
	return r
}

// The quickstart's job: billing at 01:30 Chicago, one period per date
// (ByDate), registered by the service. exec without --schedule runs the
// registered schedule and claims "2026-12-05", the key the Scheduler
// uses, never "2026-12-05T01:30:00"; a --schedule that is the same spec
// takes the registered key; one that differs (spec or key) is exit 2
// naming both, and nothing runs.
func TestExecRegisteredSchedule(t *testing.T) {
	forEachBackend(t, func(t *testing.T, l execLedger) {
		const job = "billing/America/Chicago"
		cr, err := dstsafe.ParseCron(chicago130, dstsafe.WithPeriodKey(dstsafe.ByDate))
		if err != nil {
			t.Fatal(err)
		}
		registerAsScheduler(t, l, job, cr, time.Date(2026, 12, 5, 0, 0, 0, 0, time.UTC))
		out := filepath.Join(t.TempDir(), "runs")
		// 2026-12-05 01:31 CST is 07:31Z.
		r := execArgs(t, l, "2026-12-05T07:31:00Z", out, "--job", job)
		if r.code != 0 {
			t.Fatalf("exec without --schedule: exit %d\n%s", r.code, r.stderr)
		}
		want := []string{"2026-12-05 2026-12-05 " + job + "/2026-12-05"}
		if got := lines(t, out); !equal(got, want) {
			t.Fatalf("runs %q, want %q", got, want)
		}
		rec, err := l.ledger.Get(context.Background(), job, "2026-12-05")
		if err != nil || rec.State != dstsafe.StateSucceeded || rec.Schedule == "" {
			t.Fatalf("record %+v, %v; want succeeded with the schedule's fingerprint", rec, err)
		}
		if _, err := l.ledger.Get(context.Background(), job, "2026-12-05T01:30:00"); !errors.Is(err, dstsafe.ErrNotFound) {
			t.Fatalf("a wall-keyed record exists: %v", err)
		}

		// The same spec as --schedule, without --key: the registered key.
		r = execArgs(t, l, "2026-12-05T07:32:00Z", out, "--job", job, "--schedule", chicago130)
		if r.code != 0 || !strings.Contains(r.stderr, "period 2026-12-05 already claimed") {
			t.Fatalf("exec --schedule (same): exit %d\n%s", r.code, r.stderr)
		}
		for _, tc := range []struct {
			name string
			args []string
			said string
		}{
			// Due at the same instants, but not the registered spec.
			{"another spec", []string{"--schedule", "CRON_TZ=America/Chicago 30 1 * * 0-6"}, `--schedule says "CRON_TZ=America/Chicago 30 1 * * 0-6"`},
			{"another key", []string{"--schedule", chicago130, "--key", "wall"}, "(period key wall)"},
			{"another fold policy", []string{"--schedule", chicago130, "--fold", "both"}, `--schedule says "` + chicago130 + `"`},
		} {
			r = execArgs(t, l, "2026-12-06T07:31:00Z", out, append([]string{"--job", job}, tc.args...)...)
			if r.code != exitUsage || !strings.Contains(r.stderr, `registered with schedule "`+chicago130+`" (period key date)`) ||
				!strings.Contains(r.stderr, tc.said) {
				t.Errorf("%s: exit %d, want %d naming both schedules\n%s", tc.name, r.code, exitUsage, r.stderr)
			}
		}
		if got := lines(t, out); !equal(got, want) {
			t.Fatalf("runs %q after the refused triggers, want %q", got, want)
		}
		if _, err := l.ledger.Get(context.Background(), job, "2026-12-06"); !errors.Is(err, dstsafe.ErrNotFound) {
			t.Fatalf("a refused trigger recorded 2026-12-06: %v", err)
		}
		info, err := registry(t, l).LookupJob(context.Background(), job)
		if err != nil || info.Spec != chicago130 || info.PeriodKey != "date" {
			t.Fatalf("registration %+v, %v; want the service's, unchanged", info, err)
		}
	})
}

// A job the ledger never registered: without --schedule exit 2; with
// one, exec registers it (spec, key, zone, exec as owner), and a
// Scheduler starting later under another schedule is refused.
func TestExecRegistersNewJob(t *testing.T) {
	forEachBackend(t, func(t *testing.T, l execLedger) {
		out := filepath.Join(t.TempDir(), "runs")
		r := execArgs(t, l, "2026-12-05T07:31:00Z", out, "--job", "billing")
		if r.code != exitUsage || !strings.Contains(r.stderr, "job billing is not registered") {
			t.Fatalf("unregistered, no --schedule: exit %d, want %d\n%s", r.code, exitUsage, r.stderr)
		}
		r = execArgs(t, l, "2026-12-05T07:31:00Z", out, "--job", "billing", "--schedule", chicago130, "--key", "date", "--owner", "cron-host")
		if r.code != 0 {
			t.Fatalf("exec --schedule: exit %d\n%s", r.code, r.stderr)
		}
		info, err := registry(t, l).LookupJob(context.Background(), "billing")
		if err != nil || info.Spec != chicago130 || info.PeriodKey != "date" || info.Zone != "America/Chicago" ||
			len(info.Owners) != 1 || info.Owners[0] != "cron-host" {
			t.Fatalf("registration %+v, %v; want exec's", info, err)
		}
		clock := clockwork.NewFakeClockAt(time.Date(2026, 12, 6, 0, 0, 0, 0, time.UTC))
		s := dstsafe.NewScheduler(dstsafe.WithClock(clock), dstsafe.WithLedger(l.ledger))
		other, _ := dstsafe.ParseCron("CRON_TZ=America/Chicago 0 2 * * *", dstsafe.WithPeriodKey(dstsafe.ByDate))
		if err := s.Add("billing", other, func(context.Context, dstsafe.Run) error { return nil }); err != nil {
			t.Fatal(err)
		}
		if _, err := dstsafe.Simulate(context.Background(), s, time.Second); !errors.Is(err, dstsafe.ErrJobConflict) {
			t.Fatalf("a Scheduler under another schedule: %v, want ErrJobConflict", err)
		}
	})
}

// A paused job does not run: exec records the period skipped ("paused"),
// as a Scheduler replica would, says who paused it, and exits 0 (or
// --exit-skipped).
func TestExecHonoursPause(t *testing.T) {
	forEachBackend(t, func(t *testing.T, l execLedger) {
		cl, ok := l.ledger.(dstsafe.ControlLedger)
		if !ok {
			t.Fatalf("%T is no ControlLedger", l.ledger)
		}
		if _, err := cl.SetPause(context.Background(), "billing", dstsafe.Pause{Paused: true, By: "alice", Reason: "card processor outage"}); err != nil {
			t.Fatal(err)
		}
		out := filepath.Join(t.TempDir(), "runs")
		for _, tc := range []struct {
			now, period string
			extra       []string
			code        int
		}{
			{"2026-12-05T07:31:00Z", "2026-12-05T01:30:00", nil, 0},
			{"2026-12-06T07:31:00Z", "2026-12-06T01:30:00", []string{"--exit-skipped", "3"}, 3},
		} {
			r := execArgs(t, l, tc.now, out, append([]string{"--job", "billing", "--schedule", chicago130}, tc.extra...)...)
			if r.code != tc.code || !strings.Contains(r.stderr, "job billing is paused by alice") || !strings.Contains(r.stderr, "recorded as skipped") {
				t.Errorf("paused: exit %d, want %d\n%s", r.code, tc.code, r.stderr)
			}
			rec, err := l.ledger.Get(context.Background(), "billing", tc.period)
			if err != nil || rec.State != dstsafe.StateSkipped || rec.Reason != "paused" {
				t.Errorf("record %+v, %v; want skipped, paused", rec, err)
			}
		}
		if got := lines(t, out); len(got) != 0 {
			t.Fatalf("a paused job ran: %q", got)
		}
		if _, err := cl.SetPause(context.Background(), "billing", dstsafe.Pause{Paused: false, By: "alice"}); err != nil {
			t.Fatal(err)
		}
		r := execArgs(t, l, "2026-12-07T07:31:00Z", out, "--job", "billing", "--schedule", chicago130)
		if got := lines(t, out); r.code != 0 || len(got) != 1 {
			t.Fatalf("resumed: exit %d, runs %q\n%s", r.code, got, r.stderr)
		}
	})
}

// The trigger's schedule and exec's disagree. A CronJob's Job name whose
// minute is not an occurrence (a CronJob in America/New_York firing at
// 01:30 there, 00:30 in Chicago) is exit 2 naming the CronJob's instant
// and exec's zone; without the Job name, the same trigger finds nothing
// due far from any transition: exit 2 too, never a silent daily exit 0.
// Nothing runs, nothing is recorded.
func TestExecTriggerDisagrees(t *testing.T) {
	forEachBackend(t, func(t *testing.T, l execLedger) {
		out := filepath.Join(t.TempDir(), "runs")
		// 2026-12-05 01:30 EST is 06:30Z, minute 29417310 since 1970.
		at := time.Date(2026, 12, 5, 6, 30, 0, 0, time.UTC)
		name := fmt.Sprintf("billing-%d", at.Unix()/60)
		r := execArgs(t, l, "2026-12-05T06:30:07Z", out, "--job", "billing", "--schedule", chicago130, "--k8s-job-name", name)
		if r.code != exitUsage || !strings.Contains(r.stderr, "2026-12-05T06:30:00Z") || !strings.Contains(r.stderr, "exec's zone America/Chicago") {
			t.Errorf("Job name %s: exit %d, want %d naming the instant and the zone\n%s", name, r.code, exitUsage, r.stderr)
		}
		r = execArgs(t, l, "2026-12-05T06:30:07Z", out, "--job", "billing", "--schedule", chicago130)
		if r.code != exitUsage || !strings.Contains(r.stderr, "nothing due at 2026-12-05T06:30:07Z") || !strings.Contains(r.stderr, "exec's zone America/Chicago") {
			t.Errorf("no Job name: exit %d, want %d\n%s", r.code, exitUsage, r.stderr)
		}
		r = execArgs(t, l, "2026-12-05T06:30:07Z", out, "--job", "billing", "--schedule", chicago130, "--poll")
		if r.code != 0 || !strings.Contains(r.stderr, "nothing due") {
			t.Errorf("--poll: exit %d, want 0\n%s", r.code, r.stderr)
		}
		// A Job created by hand (billing-manual-2) is no CronJob's: by now.
		r = execArgs(t, l, "2026-12-05T07:30:07Z", out, "--job", "billing", "--schedule", chicago130, "--k8s-job-name", "billing-manual-2")
		if got := lines(t, out); r.code != 0 || len(got) != 1 {
			t.Errorf("Job by hand: exit %d, runs %q\n%s", r.code, got, r.stderr)
		}
		recs, err := l.ledger.List(context.Background(), "billing", "", "")
		if err != nil || len(recs) != 1 || recs[0].Period != "2026-12-05T01:30:00" {
			t.Errorf("records %+v, %v; want only the run by hand's", recs, err)
		}
	})
}

// A directory or a file without execute permission as COMMAND: 126, as
// sh and env(1) say; a command that is not there: 127. Nothing claimed.
func TestExecCannotRun(t *testing.T) {
	forEachBackend(t, func(t *testing.T, l execLedger) {
		dir := t.TempDir()
		plain := filepath.Join(dir, "not-executable")
		if err := os.WriteFile(plain, []byte("#!/bin/sh\ntrue\n"), 0o644); err != nil {
			t.Fatal(err)
		}
		for _, tc := range []struct {
			command string
			code    int
		}{
			{dir, exitCannotStart},
			{plain, exitCannotStart},
			{filepath.Join(dir, "missing"), exitNotFound},
			{"dstsafe-no-such-command", exitNotFound},
		} {
			args := append([]string{"exec"}, l.flags...)
			args = append(args, "--job", "billing", "--schedule", chicago130, "--", tc.command)
			cmd := exec.Command(dstsafeBinary(t), args...)
			cmd.Env = append(os.Environ(), "DSTSAFE_NOW=2026-12-05T07:31:00Z")
			if r := runTrigger(t, cmd); r.code != tc.code {
				t.Errorf("%s: exit %d, want %d\n%s", tc.command, r.code, tc.code, r.stderr)
			}
		}
		if _, err := l.ledger.Get(context.Background(), "billing", "2026-12-05T01:30:00"); !errors.Is(err, dstsafe.ErrNotFound) {
			t.Errorf("claimed: %v", err)
		}
	})
}

func equal(a, b []string) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}

// `ledger audit --job X --from --to` needs nothing else: the schedule and
// its period key come from the registry (the quickstart's ByDate job runs
// by exec on 12-03 and 12-04; 12-05 is missing). `ledger jobs` shows the
// registration and hides the keys derived from a job.
func TestLedgerAuditRegisteredSchedule(t *testing.T) {
	forEachBackend(t, func(t *testing.T, l execLedger) {
		const job = "billing/America/Chicago"
		cr, err := dstsafe.ParseCron(chicago130, dstsafe.WithPeriodKey(dstsafe.ByDate))
		if err != nil {
			t.Fatal(err)
		}
		registerAsScheduler(t, l, job, cr, time.Date(2026, 12, 3, 0, 0, 0, 0, time.UTC))
		out := filepath.Join(t.TempDir(), "runs")
		for _, now := range []string{"2026-12-03T07:31:00Z", "2026-12-04T07:31:00Z"} {
			if r := execArgs(t, l, now, out, "--job", job); r.code != 0 {
				t.Fatalf("exec at %s: exit %d\n%s", now, r.code, r.stderr)
			}
		}
		// A run slot of WithMaxRuns, under the derived key.
		if _, err := l.ledger.Claim(context.Background(), dstsafe.ClaimRequest{Job: job + "/max-runs", Period: "0000000001", Owner: "x", Lease: time.Minute}); err != nil {
			t.Fatal(err)
		}
		at := time.Date(2026, 12, 5, 12, 0, 0, 0, time.UTC)
		args := append([]string{"ledger", "audit", "--job", job, "--from", "2026-12-03", "--to", "2026-12-06"}, l.flags...)
		stdout, stderr, code := runCLIAt(at, args...)
		if code != exitFindings || !strings.Contains(stdout, "1 without a succeeded record: 1 missing") ||
			!strings.Contains(stdout, "2026-12-05  2026-12-05T07:30:00Z") {
			t.Errorf("audit: exit %d, want %d with 2026-12-05 missing\n%s%s", code, exitFindings, stdout, stderr)
		}
		stdout, stderr, code = runCLIAt(at, append([]string{"ledger", "jobs"}, l.flags...)...)
		if code != 0 || !strings.Contains(stdout, "1 job(s)") || !strings.Contains(stdout, chicago130) || strings.Contains(stdout, "max-runs") {
			t.Errorf("jobs: exit %d\n%s%s", code, stdout, stderr)
		}
	})
}

// Many pods of a CronJob start at once on a database no service ever
// migrated (a fresh PostgreSQL schema, a SQLite file that does not exist
// yet): each `exec --migrate` migrates, none fails, and the period runs
// once. This is how examples/kubernetes runs its first trigger.
func TestExecMigrateConcurrentStarts(t *testing.T) {
	const n = 8
	fresh := map[string]func(t *testing.T) (flags []string, check func() dstsafe.Ledger){
		"sqlite": func(t *testing.T) ([]string, func() dstsafe.Ledger) {
			path := filepath.Join(t.TempDir(), "fresh.db")
			return []string{"--ledger", "sqlite://" + path}, func() dstsafe.Ledger {
				l, err := sqlite.OpenSQLite(path)
				if err != nil {
					t.Fatal(err)
				}
				t.Cleanup(func() { l.Close() })
				return l
			}
		},
		"postgres": func(t *testing.T) ([]string, func() dstsafe.Ledger) {
			dsn := testkit.RequireEnv(t, "DSTSAFE_TEST_POSTGRES_DSN")
			serverSeq++
			schema := fmt.Sprintf("dstsafe_fresh_%d_%d", os.Getpid(), serverSeq)
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
			table := schema + ".job_runs"
			return []string{"--ledger", dsn, "--table", table}, func() dstsafe.Ledger {
				l, err := sqlledger.New(db, sqlledger.WithTable(table), sqlledger.WithDialect(sqlledger.PostgreSQL))
				if err != nil {
					t.Fatal(err)
				}
				return l
			}
		},
	}
	for _, name := range []string{"sqlite", "postgres"} {
		t.Run(name, func(t *testing.T) {
			flags, open := fresh[name](t)
			out := filepath.Join(t.TempDir(), "runs")
			results := make([]result, n)
			var wg sync.WaitGroup
			for i := range n {
				args := append([]string{"exec"}, flags...)
				args = append(args, "--migrate", "--job", "billing", "--schedule", chicago130, "--owner", fmt.Sprintf("pod-%d", i),
					"--", "sh", "-c", `echo "{{.Period}}" >> "$0"`, out)
				cmd := exec.Command(dstsafeBinary(t), args...)
				cmd.Env = append(os.Environ(), "DSTSAFE_NOW=2026-12-05T07:30:05Z")
				wg.Go(func() { results[i] = runTrigger(t, cmd) })
			}
			wg.Wait()
			for i, r := range results {
				if r.code != 0 {
					t.Errorf("pod %d: exit %d\n%s", i, r.code, r.stderr)
				}
			}
			if got := lines(t, out); len(got) != 1 || got[0] != "2026-12-05T01:30:00" {
				t.Fatalf("runs %q, want one", got)
			}
			rec, err := open().Get(context.Background(), "billing", "2026-12-05T01:30:00")
			if err != nil || rec.State != dstsafe.StateSucceeded {
				t.Fatalf("record %+v, %v", rec, err)
			}
		})
	}
}

package main

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/jonboulle/clockwork"
	"github.com/redis/go-redis/v9"

	"github.com/dstsafe/dstsafe"
	"github.com/dstsafe/dstsafe/redisledger"
	"github.com/dstsafe/dstsafe/sqlledger"
	"github.com/dstsafe/dstsafe/sqlledger/sqlite"
)

// ledgerAt opens l's store again on the test's side with clock as the
// store's clock, for a Scheduler on a fake clock: its claims carry its
// clock's reading, which a ledger on the real clock would refuse as skew.
func ledgerAt(t *testing.T, l execLedger, clock clockwork.Clock) dstsafe.Ledger {
	t.Helper()
	url := l.flags[1]
	switch {
	case strings.HasPrefix(url, "sqlite://"):
		sl, err := sqlite.OpenSQLite(strings.TrimPrefix(url, "sqlite://"), sqlledger.WithClock(clock))
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { sl.Close() })
		return sl
	case strings.HasPrefix(url, "redis://"):
		c := redis.NewClient(&redis.Options{Addr: strings.TrimSuffix(strings.TrimPrefix(url, "redis://"), "/0")})
		t.Cleanup(func() { c.Close() })
		rl, err := redisledger.New(c, redisledger.WithKeyPrefix(l.flags[3]), redisledger.WithClock(clock))
		if err != nil {
			t.Fatal(err)
		}
		return rl
	default: // PostgreSQL: --ledger DSN --table T
		db, err := sql.Open("pgx", url)
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { db.Close() })
		pl, err := sqlledger.New(db, sqlledger.WithTable(l.flags[3]), sqlledger.WithClock(clock), sqlledger.WithDialect(sqlledger.PostgreSQL))
		if err != nil {
			t.Fatal(err)
		}
		return pl
	}
}

// registerWith registers job in l as a Scheduler with opts does when its
// Run starts, at an instant at which nothing is due.
func registerWith(t *testing.T, l execLedger, job string, cr *dstsafe.Cron, at time.Time, opts ...dstsafe.JobOption) {
	t.Helper()
	clock := clockwork.NewFakeClockAt(at)
	s := dstsafe.NewScheduler(dstsafe.WithClock(clock), dstsafe.WithLedger(l.ledger), dstsafe.WithOwner("billing-service"),
		dstsafe.WithLogger(slog.New(slog.DiscardHandler)))
	if err := s.Add(job, cr, func(context.Context, dstsafe.Run) error { return nil }, opts...); err != nil {
		t.Fatal(err)
	}
	if _, err := dstsafe.Simulate(context.Background(), s, time.Second); err != nil {
		t.Fatalf("Scheduler start: %v", err)
	}
}

// execCode runs one dstsafe exec of job at now, without --schedule (the
// registered one), whose command appends the period to out and exits
// with code.
func execCode(t *testing.T, l execLedger, now, out, job string, code int, extra ...string) result {
	t.Helper()
	args := append([]string{"exec"}, l.flags...)
	args = append(args, "--job", job)
	args = append(args, extra...)
	args = append(args, "--", "sh", "-c", `echo "{{.Period}}" >> "$0"; exit "$1"`, out, fmt.Sprint(code))
	cmd := exec.Command(dstsafeBinary(t), args...)
	cmd.Env = append(os.Environ(), "DSTSAFE_NOW="+now)
	return runTrigger(t, cmd)
}

func mustCron(t *testing.T, spec string, opts ...dstsafe.CronOption) *dstsafe.Cron {
	t.Helper()
	cr, err := dstsafe.ParseCron(spec, opts...)
	if err != nil {
		t.Fatal(err)
	}
	return cr
}

// records lists job's records, by period, as the ledger has them.
func records(t *testing.T, l dstsafe.Ledger, job string) map[string]dstsafe.Record {
	t.Helper()
	recs, err := l.List(context.Background(), job, "", "")
	if err != nil {
		t.Fatal(err)
	}
	m := make(map[string]dstsafe.Record, len(recs))
	for _, r := range recs {
		m[r.Period] = r
	}
	return m
}

// A job registered WithBounds: a period due before the start or after
// the end is not run and not recorded, whether the trigger stands for it
// by now or by --scheduled-time; exec names the period, its instant and
// the bound, and exits --exit-skipped. Both bounds are included, to the
// nanosecond: billing runs from 12-04 01:30 CST on and its end is a
// nanosecond before 12-06 01:30; report's end is 12-05 01:30 exactly.
func TestExecHonoursBounds(t *testing.T) {
	forEachBackend(t, func(t *testing.T, l execLedger) {
		cr := mustCron(t, chicago130)
		at := time.Date(2026, 12, 1, 0, 0, 0, 0, time.UTC)
		start := time.Date(2026, 12, 4, 7, 30, 0, 0, time.UTC) // 01:30 CST
		registerWith(t, l, "billing", cr, at, dstsafe.WithBounds(start, time.Date(2026, 12, 6, 7, 29, 59, 999_999_999, time.UTC)))
		registerWith(t, l, "report", cr, at, dstsafe.WithBounds(time.Time{}, time.Date(2026, 12, 5, 7, 30, 0, 0, time.UTC)))
		out := filepath.Join(t.TempDir(), "runs")
		for _, tc := range []struct {
			job, now string
			extra    []string
			code     int
			said     string // "" when it ran
		}{
			{"billing", "2026-12-03T07:31:00Z", nil, 0,
				"job billing period 2026-12-03T01:30:00 is due at 2026-12-03T01:30:00-06:00, before the job's start bound 2026-12-04T01:30:00-06:00"},
			{"billing", "2026-12-03T07:35:00Z", []string{"--scheduled-time", "2026-12-03T07:30:00Z", "--exit-skipped", "4"}, 4,
				"before the job's start bound"},
			{"billing", "2026-12-04T07:31:00Z", nil, 0, ""},
			{"billing", "2026-12-05T07:31:00Z", nil, 0, ""},
			{"billing", "2026-12-06T07:31:00Z", []string{"--exit-skipped", "4"}, 4,
				"job billing period 2026-12-06T01:30:00 is due at 2026-12-06T01:30:00-06:00, after the job's end bound 2026-12-06T01:29:59.999999999-06:00"},
			{"report", "2026-12-05T07:31:00Z", nil, 0, ""},
			{"report", "2026-12-06T07:31:00Z", nil, 0, "after the job's end bound 2026-12-05T01:30:00-06:00"},
		} {
			r := execCode(t, l, tc.now, out, tc.job, 0, tc.extra...)
			if r.code != tc.code || (tc.said != "" && (!strings.Contains(r.stderr, tc.said) || !strings.Contains(r.stderr, "not run, not recorded"))) {
				t.Errorf("%s at %s: exit %d, want %d saying %q\n%s", tc.job, tc.now, r.code, tc.code, tc.said, r.stderr)
			}
		}
		want := []string{"2026-12-04T01:30:00", "2026-12-05T01:30:00", "2026-12-05T01:30:00"}
		if got := lines(t, out); !equal(got, want) {
			t.Errorf("runs %q, want %q", got, want)
		}
		// `ledger list` and `ledger jobs` show the registered limits.
		shown := time.Date(2026, 12, 7, 0, 0, 0, 0, time.UTC)
		stdout, stderr, code := runCLIAt(shown, append([]string{"ledger", "list", "billing"}, l.flags...)...)
		if code != 0 || !strings.Contains(stdout, "limits: from 2026-12-04T07:30:00Z to 2026-12-06T07:29:59.999999999Z") {
			t.Errorf("ledger list: exit %d\n%s%s", code, stdout, stderr)
		}
		stdout, stderr, code = runCLIAt(shown, append([]string{"ledger", "jobs", "--json"}, l.flags...)...)
		var listed struct {
			Jobs []struct {
				Job          string
				Registration struct{ Limits map[string]any }
			}
		}
		if err := json.Unmarshal([]byte(stdout), &listed); code != 0 || err != nil || len(listed.Jobs) != 2 ||
			fmt.Sprint(listed.Jobs[1].Registration.Limits) != "map[end:2026-12-05T07:30:00Z]" {
			t.Errorf("ledger jobs --json: exit %d, %v, %+v\n%s%s", code, err, listed, stdout, stderr)
		}
		// `ledger audit` expects no period outside the bounds: 12-01 to
		// 12-03 and 12-06 are not missing (12-07's is not due yet).
		stdout, stderr, code = runCLIAt(shown, append([]string{"ledger", "audit", "--job", "billing", "--from", "2026-12-01", "--to", "2026-12-08"}, l.flags...)...)
		if code != 0 || !strings.Contains(stdout, "4 period(s) outside the job's registered bounds, not expected") ||
			!strings.Contains(stdout, "complete: every period due has a succeeded record") {
			t.Errorf("ledger audit: exit %d\n%s%s", code, stdout, stderr)
		}
		for job, periods := range map[string][]string{"billing": {"2026-12-04T01:30:00", "2026-12-05T01:30:00"}, "report": {"2026-12-05T01:30:00"}} {
			recs := records(t, l.ledger, job)
			if len(recs) != len(periods) {
				t.Errorf("%s has %d records %v, want %v only", job, len(recs), recs, periods)
			}
			for _, p := range periods {
				if recs[p].State != dstsafe.StateSucceeded {
					t.Errorf("%s %s: %+v, want succeeded", job, p, recs[p])
				}
			}
		}
	})
}

// A job registered WithMaxRuns(1): a failed run frees its slot (the next
// period runs), a success uses it, and the period after is recorded
// skipped with the Scheduler's reason, nothing run, exit --exit-skipped.
// Then six triggers standing for six periods of a job with one run left
// (--scheduled-time) start at once: exactly one runs; each of the others finds the slot succeeded or
// held and records its period skipped.
func TestExecMaxRuns(t *testing.T) {
	forEachBackend(t, func(t *testing.T, l execLedger) {
		cr := mustCron(t, chicago130)
		registerWith(t, l, "billing", cr, time.Date(2026, 12, 1, 0, 0, 0, 0, time.UTC), dstsafe.WithMaxRuns(1))
		out := filepath.Join(t.TempDir(), "runs")
		if r := execCode(t, l, "2026-12-03T07:31:00Z", out, "billing", 3); r.code != 3 {
			t.Fatalf("failing run: exit %d, want 3\n%s", r.code, r.stderr)
		}
		if r := execCode(t, l, "2026-12-04T07:31:00Z", out, "billing", 0); r.code != 0 {
			t.Fatalf("second run: exit %d, want 0\n%s", r.code, r.stderr)
		}
		r := execCode(t, l, "2026-12-05T07:31:00Z", out, "billing", 0, "--exit-skipped", "5")
		if r.code != 5 || !strings.Contains(r.stderr, "job billing has used its 1 runs") ||
			!strings.Contains(r.stderr, "period 2026-12-05T01:30:00 recorded as skipped, nothing run") {
			t.Fatalf("third trigger: exit %d, want 5\n%s", r.code, r.stderr)
		}
		if got, want := lines(t, out), []string{"2026-12-03T01:30:00", "2026-12-04T01:30:00"}; !equal(got, want) {
			t.Fatalf("runs %q, want %q", got, want)
		}
		recs := records(t, l.ledger, "billing")
		for p, want := range map[string]dstsafe.State{"2026-12-03T01:30:00": dstsafe.StateFailed,
			"2026-12-04T01:30:00": dstsafe.StateSucceeded, "2026-12-05T01:30:00": dstsafe.StateSkipped} {
			if recs[p].State != want {
				t.Errorf("billing %s: %+v, want %s", p, recs[p], want)
			}
		}
		if len(recs) != 3 || recs["2026-12-05T01:30:00"].Reason != "max runs: the job has used its runs" {
			t.Errorf("billing records %+v", recs)
		}
		slots := records(t, l.ledger, "billing/max-runs")
		if s := slots["0000000001"]; len(slots) != 1 || s.State != dstsafe.StateSucceeded || s.Attempt != 2 ||
			s.Reason != "period 2026-12-04T01:30:00" {
			t.Errorf("run slots %+v; want one, succeeded at its second attempt, for 2026-12-04", slots)
		}

		registerWith(t, l, "report", cr, time.Date(2026, 12, 1, 0, 0, 0, 0, time.UTC), dstsafe.WithMaxRuns(1))
		const n = 6
		results := make([]result, n)
		var wg sync.WaitGroup
		for i := range n {
			// One now for all (the store's clock judges leases by it), each
			// standing for its own period.
			at := fmt.Sprintf("2026-12-%02dT07:30:00Z", 10+i)
			wg.Go(func() { results[i] = execCode(t, l, "2026-12-16T07:31:00Z", out, "report", 0, "--scheduled-time", at) })
		}
		wg.Wait()
		for i, r := range results {
			if r.code != 0 {
				t.Errorf("report trigger %d: exit %d\n%s", i, r.code, r.stderr)
			}
		}
		recs = records(t, l.ledger, "report")
		ran, skipped := 0, 0
		for _, r := range recs {
			switch {
			case r.State == dstsafe.StateSucceeded:
				ran++
			case r.State == dstsafe.StateSkipped && r.Reason == "max runs: the job has used its runs":
				skipped++
			}
		}
		if got := lines(t, out); ran != 1 || skipped != n-1 || len(recs) != n || len(got) != 3 {
			t.Errorf("%d triggers at once with one run left: %d succeeded, %d skipped of %d records, %d runs in all; want 1, %d, %d, 3",
				n, ran, skipped, len(recs), len(got), n-1, n)
		}
	})
}

// A Scheduler with WithMaxRuns(2) and `dstsafe exec` on one ledger share
// the job's two runs: the Scheduler runs 12-03, exec (no --schedule)
// runs 12-04, and exec's next trigger records 12-05 skipped with the
// reason a Scheduler records when it finds no run slot (read from the
// ledger after a RunNow of 12-06), nothing run.
func TestExecMaxRunsSharedWithScheduler(t *testing.T) {
	forEachBackend(t, func(t *testing.T, l execLedger) {
		const job = "billing/America/Chicago"
		cr := mustCron(t, chicago130, dstsafe.WithPeriodKey(dstsafe.ByDate))
		clock := clockwork.NewFakeClockAt(time.Date(2026, 12, 3, 7, 0, 0, 0, time.UTC))
		sl := ledgerAt(t, l, clock)
		scheduler := func() *dstsafe.Scheduler {
			s := dstsafe.NewScheduler(dstsafe.WithClock(clock), dstsafe.WithLedger(sl), dstsafe.WithOwner("billing-service"),
				dstsafe.WithLogger(slog.New(slog.DiscardHandler)))
			if err := s.Add(job, cr, func(context.Context, dstsafe.Run) error { return nil }, dstsafe.WithMaxRuns(2)); err != nil {
				t.Fatal(err)
			}
			return s
		}
		fires, err := dstsafe.Simulate(context.Background(), scheduler(), time.Hour)
		if err != nil || len(fires) != 1 || fires[0].Period != "2026-12-03" {
			t.Fatalf("the Scheduler's run: %+v, %v; want 2026-12-03", fires, err)
		}
		out := filepath.Join(t.TempDir(), "runs")
		if r := execCode(t, l, "2026-12-04T07:31:00Z", out, job, 0); r.code != 0 {
			t.Fatalf("exec's run: exit %d\n%s", r.code, r.stderr)
		}
		r := execCode(t, l, "2026-12-05T07:31:00Z", out, job, 0, "--exit-skipped", "3")
		if r.code != 3 || !strings.Contains(r.stderr, "has used its 2 runs") {
			t.Fatalf("exec's third trigger: exit %d, want 3\n%s", r.code, r.stderr)
		}
		if got, want := lines(t, out), []string{"2026-12-04"}; !equal(got, want) {
			t.Fatalf("exec ran %q, want %q", got, want)
		}
		slots := records(t, l.ledger, job+"/max-runs")
		s1, s2 := slots["0000000001"], slots["0000000002"]
		if len(slots) != 2 || s1.State != dstsafe.StateSucceeded || s1.Owner != "billing-service" || s1.Reason != "period 2026-12-03" ||
			s2.State != dstsafe.StateSucceeded || s2.Owner == "billing-service" || s2.Reason != "period 2026-12-04" {
			t.Fatalf("run slots %+v; want 1 the Scheduler's for 12-03, 2 exec's for 12-04", slots)
		}

		clock.Advance(time.Date(2026, 12, 6, 7, 31, 0, 0, time.UTC).Sub(clock.Now()))
		if err := scheduler().RunNow(context.Background(), job, "2026-12-06"); !errors.Is(err, dstsafe.ErrMaxRuns) {
			t.Fatalf("the Scheduler's RunNow after exec used the last run: %v, want ErrMaxRuns", err)
		}
		recs := records(t, l.ledger, job)
		mine, theirs := recs["2026-12-05"], recs["2026-12-06"]
		if len(recs) != 4 || recs["2026-12-03"].State != dstsafe.StateSucceeded || recs["2026-12-04"].State != dstsafe.StateSucceeded ||
			mine.State != dstsafe.StateSkipped || theirs.State != dstsafe.StateSkipped || mine.Reason != theirs.Reason || mine.Reason != reasonMaxRuns {
			t.Fatalf("records %+v; want 12-03 and 12-04 succeeded, 12-05 (exec) and 12-06 (Scheduler) skipped with one reason", recs)
		}
		if fires, err := dstsafe.Simulate(context.Background(), scheduler(), 48*time.Hour); err != nil || len(fires) != 0 {
			t.Fatalf("a Scheduler restarted after exec used the last run ran %+v, %v", fires, err)
		}
		stdout, stderr, code := runCLIAt(clock.Now(), append([]string{"ledger", "jobs"}, l.flags...)...)
		if code != 0 || !strings.Contains(stdout, "date  max runs 2") || strings.Contains(stdout, "/max-runs") {
			t.Errorf("ledger jobs: exit %d\n%s%s", code, stdout, stderr)
		}
		// `ledger audit` does not expect the periods after the job used its
		// runs, which nobody records (12-07, 12-08); the two skipped are
		// decisions, not findings.
		at := time.Date(2026, 12, 9, 0, 0, 0, 0, time.UTC)
		stdout, stderr, code = runCLIAt(at, append([]string{"ledger", "audit", "--job", job, "--from", "2026-12-03", "--to", "2026-12-10"}, l.flags...)...)
		if code != 0 || !strings.Contains(stdout, "2 period(s) after the job used its 2 runs (registered max runs), not expected") ||
			!strings.Contains(stdout, "nothing missing or failed: 2 without a succeeded record: 2 skipped") {
			t.Errorf("ledger audit: exit %d\n%s%s", code, stdout, stderr)
		}
	})
}

// A database at schema version 3 (the release before job limits) where
// the service registered the quickstart's ByDate job: exec without
// --migrate cannot read the registration (125, nothing run); `exec
// --migrate` upgrades it to version 4, and the registration is what the
// service wrote: exec runs its schedule under its key, with no limits.
func TestExecMigratesV3Registry(t *testing.T) {
	for _, b := range execBackends[:2] { // the SQL ledgers
		t.Run(b.name, func(t *testing.T) {
			l := b.open(t)
			const job = "billing/America/Chicago"
			registerAsScheduler(t, l, job, mustCron(t, chicago130, dstsafe.WithPeriodKey(dstsafe.ByDate)), time.Date(2026, 12, 1, 0, 0, 0, 0, time.UTC))
			// Back to version 3: its registry had no limit columns.
			sl := l.ledger.(*sqlledger.Ledger)
			for _, stmt := range []string{
				`ALTER TABLE ` + sl.Table() + `_jobs DROP COLUMN max_runs`,
				`ALTER TABLE ` + sl.Table() + `_jobs DROP COLUMN bounds_start`,
				`ALTER TABLE ` + sl.Table() + `_jobs DROP COLUMN bounds_end`,
				`DELETE FROM ` + sl.Table() + `_schema WHERE version = 4`,
			} {
				if _, err := sl.DB().Exec(stmt); err != nil {
					t.Fatalf("%s: %v", stmt, err)
				}
			}
			if v, err := sl.Version(context.Background()); err != nil || v != 3 {
				t.Fatalf("Version = %d, %v; want 3", v, err)
			}
			out := filepath.Join(t.TempDir(), "runs")
			if r := execCode(t, l, "2026-12-05T07:31:00Z", out, job, 0); r.code != exitLedger || !strings.Contains(r.stderr, "nothing run") {
				t.Fatalf("exec on version 3: exit %d, want %d\n%s", r.code, exitLedger, r.stderr)
			}
			if r := execCode(t, l, "2026-12-05T07:31:00Z", out, job, 0, "--migrate"); r.code != 0 {
				t.Fatalf("exec --migrate: exit %d\n%s", r.code, r.stderr)
			}
			if v, err := sl.Version(context.Background()); err != nil || v != 4 {
				t.Fatalf("Version after exec --migrate = %d, %v; want 4", v, err)
			}
			if got, want := lines(t, out), []string{"2026-12-05"}; !equal(got, want) {
				t.Fatalf("runs %q, want %q", got, want)
			}
			info, err := registry(t, l).LookupJob(context.Background(), job)
			if err != nil || info.Spec != chicago130 || info.PeriodKey != "date" || len(info.Owners) != 1 ||
				info.Owners[0] != "billing-service" || info.Limits != (dstsafe.JobLimits{}) {
				t.Fatalf("registration after the upgrade %+v, %v; want the service's, no limits", info, err)
			}
		})
	}
}

// A run holds its slot for as long as it runs, past its lease: exec
// heartbeats the slot with the period. A job with one run left: a run
// with a 300 ms lease is still going when its slot's lease has been
// renewed past twice that; a trigger of the next period then finds the
// slot held (not abandoned), records its period skipped and runs
// nothing; the first run ends succeeded and counts. Real clocks (no
// --now): the store judges both processes' leases by one clock.
func TestExecMaxRunsSlotHeldWhileRunning(t *testing.T) {
	forEachBackend(t, func(t *testing.T, l execLedger) {
		registerWith(t, l, "billing", mustCron(t, chicago130), time.Date(2026, 12, 1, 0, 0, 0, 0, time.UTC), dstsafe.WithMaxRuns(1))
		dir := t.TempDir()
		ready, goOn := filepath.Join(dir, "ready"), filepath.Join(dir, "go")
		const lease = 300 * time.Millisecond
		args := append([]string{"exec"}, l.flags...)
		args = append(args, "--job", "billing", "--lease", lease.String(), "--scheduled-time", "2026-12-10T07:30:00Z",
			"--", "sh", "-c", `touch "$0"; while [ ! -e "$1" ]; do sleep 0.02; done`, ready, goOn)
		first := exec.Command(dstsafeBinary(t), args...)
		done, ended := make(chan result, 1), make(chan struct{})
		go func() {
			defer close(ended)
			done <- runTrigger(t, first)
		}()
		t.Cleanup(func() {
			// Let the command end before its directory goes, even when the
			// test failed before it told it to.
			_ = os.WriteFile(goOn, nil, 0o600)
			select {
			case <-ended:
			case <-time.After(10 * time.Second): // a safety net, never a synchronisation
				_ = first.Process.Kill()
			}
		})
		slot := func() (dstsafe.Record, bool) {
			r, err := l.ledger.Get(context.Background(), "billing/max-runs", "0000000001")
			return r, err == nil
		}
		deadline := time.After(20 * time.Second) // a safety net, never a synchronisation
		for {
			if _, err := os.Stat(ready); err == nil {
				if r, ok := slot(); ok && r.LeaseUntil.After(r.StartedAt.Add(2*lease)) {
					break // renewed: the first lease is over and the slot still held
				}
			}
			select {
			case r := <-done:
				t.Fatalf("the first run ended early: exit %d\n%s", r.code, r.stderr)
			case <-deadline:
				r, _ := slot()
				t.Fatalf("the slot's lease was never renewed past %v: %+v", 2*lease, r)
			case <-time.After(10 * time.Millisecond):
			}
		}
		args = append([]string{"exec"}, l.flags...)
		args = append(args, "--job", "billing", "--scheduled-time", "2026-12-11T07:30:00Z", "--", "true")
		second := runTrigger(t, exec.Command(dstsafeBinary(t), args...))
		if second.code != 0 || !strings.Contains(second.stderr, "0 used, 1 held by runs in progress") {
			t.Errorf("a trigger while the run holds the slot: exit %d\n%s", second.code, second.stderr)
		}
		if err := os.WriteFile(goOn, nil, 0o600); err != nil {
			t.Fatal(err)
		}
		if r := <-done; r.code != 0 {
			t.Fatalf("the first run: exit %d\n%s", r.code, r.stderr)
		}
		recs := records(t, l.ledger, "billing")
		if recs["2026-12-10T01:30:00"].State != dstsafe.StateSucceeded || recs["2026-12-11T01:30:00"].State != dstsafe.StateSkipped {
			t.Errorf("records %+v; want 12-10 succeeded, 12-11 skipped", recs)
		}
		if r, _ := slot(); r.State != dstsafe.StateSucceeded || r.Attempt != 1 {
			t.Errorf("slot %+v; want succeeded at its first attempt", r)
		}
	})
}

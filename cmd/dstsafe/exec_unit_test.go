package main

import (
	"bytes"
	"context"
	"errors"
	"flag"
	"os"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/jonboulle/clockwork"

	"github.com/dstsafe/dstsafe"
)

func TestParseLedgerURL(t *testing.T) {
	cases := []struct {
		url                     string
		sqlite, postgres, redis string
		bad                     bool
	}{
		{url: "sqlite:///var/lib/billing/ledger.db", sqlite: "/var/lib/billing/ledger.db"},
		{url: "sqlite:ledger.db", sqlite: "ledger.db"},
		{url: "sqlite:data/my%20ledger.db", sqlite: "data/my ledger.db"},
		{url: "SQLite:///l.db", sqlite: "/l.db"},
		// Two slashes make "ledger.db" a host, which SQLite has no use for.
		{url: "sqlite://ledger.db", bad: true},
		{url: "sqlite:", bad: true},
		{url: "sqlite:///l.db?mode=memory", bad: true},
		{url: "postgres://billing:pw@db:5432/billing?sslmode=require", postgres: "postgres://billing:pw@db:5432/billing?sslmode=require"},
		{url: "postgresql://db/billing", postgres: "postgresql://db/billing"},
		{url: "redis://127.0.0.1:6379/2", redis: "redis://127.0.0.1:6379/2"},
		{url: "rediss://cache:6380/0", redis: "rediss://cache:6380/0"},
		{url: "mysql://db/billing", bad: true},
		{url: "/var/lib/ledger.db", bad: true},
		{url: "", bad: true},
	}
	for _, tc := range cases {
		var f ledgerFlags
		err := parseLedgerURL(tc.url, &f)
		var ue *usageError
		if tc.bad {
			if !errors.As(err, &ue) {
				t.Errorf("parseLedgerURL(%q) = %v, want a usage error", tc.url, err)
			}
			continue
		}
		if err != nil || f.sqlite != tc.sqlite || f.postgres != tc.postgres || f.redis != tc.redis {
			t.Errorf("parseLedgerURL(%q) = sqlite %q postgres %q redis %q, %v; want %q %q %q",
				tc.url, f.sqlite, f.postgres, f.redis, err, tc.sqlite, tc.postgres, tc.redis)
		}
	}
}

// instant parses an RFC 3339 instant of a test table.
func instant(t *testing.T, s string) time.Time {
	t.Helper()
	at, err := time.Parse(time.RFC3339Nano, s)
	if err != nil {
		t.Fatal(err)
	}
	return at
}

func TestDueOccurrence(t *testing.T) {
	fixed := "CRON_TZ=America/Chicago 30 1 * * *"
	gap := "CRON_TZ=America/Chicago 30 2 * * *"
	cases := []struct {
		name, spec, now string
		misfire         time.Duration
		period, due     string // "" when nothing is due
		runDate         string
	}{
		// 2024-11-03 01:30 CDT (-05:00) is 06:30Z: the first 01:30 of the fall-back night.
		{"fold first reading, on time", fixed, "2024-11-03T06:30:00Z", 10 * time.Minute, "2024-11-03T01:30:00", "2024-11-03T01:30:00-05:00", "2024-11-03"},
		{"fold first reading, 9 min late", fixed, "2024-11-03T06:39:00Z", 10 * time.Minute, "2024-11-03T01:30:00", "2024-11-03T01:30:00-05:00", "2024-11-03"},
		{"exactly misfire late still counts", fixed, "2024-11-03T06:40:00Z", 10 * time.Minute, "2024-11-03T01:30:00", "2024-11-03T01:30:00-05:00", "2024-11-03"},
		// A replayed now (--now) keeps moving: a trigger a fraction of a second past
		// the window's whole second still stands for the occurrence misfire ago.
		{"misfire late plus a fraction of a second", fixed, "2024-11-03T06:40:00.3Z", 10 * time.Minute, "2024-11-03T01:30:00", "2024-11-03T01:30:00-05:00", "2024-11-03"},
		{"a minute before: yesterday's is a day old", fixed, "2024-11-03T06:29:00Z", 10 * time.Minute, "", "", ""},
		// The second 01:30 (CST, -06:00) is 07:30Z: the job fired an hour ago.
		{"fold second reading, default window", fixed, "2024-11-03T07:30:00Z", 10 * time.Minute, "", "", ""},
		{"fold second reading, 2h window: the same period", fixed, "2024-11-03T07:30:00Z", 2 * time.Hour, "2024-11-03T01:30:00", "2024-11-03T01:30:00-05:00", "2024-11-03"},
		// 2024-03-10 02:30 never happens in Chicago: the run is at 03:30 CDT = 08:30Z.
		{"gap: cronie's trigger at 03:00 CDT is early", gap, "2024-03-10T08:00:00Z", 10 * time.Minute, "", "", ""},
		{"gap: shifted run at 03:30 CDT", gap, "2024-03-10T08:30:00Z", 10 * time.Minute, "2024-03-10T02:30:00", "2024-03-10T03:30:00-05:00", "2024-03-10"},
		// A periodic job: the latest of several occurrences in the window.
		{"every 5 min, latest wins", "*/5 * * * *", "2024-06-01T12:07:00Z", time.Hour, "2024-06-01T12:05:00", "2024-06-01T12:05:00Z", "2024-06-01"},
		// Europe/London's repeated 01:xx both fire for a periodic job; the second is its own period.
		{"periodic fold second reading", "CRON_TZ=Europe/London 30 * * * *", "2024-10-27T01:31:00Z", 10 * time.Minute, "2024-10-27T01:30:00;fold=1", "2024-10-27T01:30:00Z", "2024-10-27"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			cr, err := dstsafe.ParseCron(tc.spec)
			if err != nil {
				t.Fatal(err)
			}
			o, ok := dueOccurrence(cr, instant(t, tc.now), tc.misfire)
			if tc.period == "" {
				if ok {
					t.Fatalf("due %s at %s, want nothing due", o.Period, o.At)
				}
				return
			}
			f := fieldsOf("billing", o, dstsafe.Record{Attempt: 1})
			if !ok || f.Period != tc.period || f.Due != tc.due || f.RunDate != tc.runDate {
				t.Fatalf("due = %+v, %v; want period %s due %s run date %s", f, ok, tc.period, tc.due, tc.runDate)
			}
		})
	}
}

func TestScheduledOccurrence(t *testing.T) {
	cases := []struct {
		name, spec, at string
		period         string // "" when at is not the schedule's
	}{
		// Kubernetes writes the annotation in the CronJob's zone.
		{"first 01:30", "CRON_TZ=America/Chicago 30 1 * * *", "2024-11-03T01:30:00-05:00", "2024-11-03T01:30:00"},
		// A CronJob firing the second 01:30 too (kubernetes#121594) stands for the same period.
		{"second 01:30 of the fold", "CRON_TZ=America/Chicago 30 1 * * *", "2024-11-03T01:30:00-06:00", "2024-11-03T01:30:00"},
		{"shifted gap run", "CRON_TZ=America/Chicago 30 2 * * *", "2024-03-10T03:30:00-05:00", "2024-03-10T02:30:00"},
		{"an ordinary day, in UTC", "CRON_TZ=America/Chicago 30 1 * * *", "2024-06-01T06:30:00Z", "2024-06-01T01:30:00"},
		{"a minute off", "CRON_TZ=America/Chicago 30 1 * * *", "2024-06-01T01:31:00-05:00", ""},
		{"another schedule's time", "CRON_TZ=America/Chicago 30 1 * * *", "2024-06-01T02:30:00-05:00", ""},
		// FoldBoth: the second reading is a period of its own.
		{"periodic second reading", "CRON_TZ=America/Chicago 30 * * * *", "2024-11-03T01:30:00-06:00", "2024-11-03T01:30:00;fold=1"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			cr, err := dstsafe.ParseCron(tc.spec)
			if err != nil {
				t.Fatal(err)
			}
			o, err := scheduledOccurrence(cr, instant(t, tc.at))
			if tc.period == "" {
				var ue *usageError
				if !errors.As(err, &ue) {
					t.Fatalf("scheduledOccurrence = %s, %v; want a usage error", o.Period, err)
				}
				return
			}
			if err != nil || o.Period != tc.period {
				t.Fatalf("scheduledOccurrence = %s, %v; want %s", o.Period, err, tc.period)
			}
		})
	}
}

// The lease is heartbeated every third of it on the clock, and a taken
// over claim ends the keeper with ErrLeaseLost.
func TestKeepLease(t *testing.T) {
	start := time.Date(2024, 11, 3, 6, 30, 0, 0, time.UTC)
	clock := clockwork.NewFakeClockAt(start)
	l := dstsafe.NewMemoryLedger(clock)
	ctx := context.Background()
	rec, err := l.Claim(ctx, dstsafe.ClaimRequest{Job: "billing", Period: "2024-11-03T01:30:00", Owner: "a", Lease: 30 * time.Second})
	if err != nil {
		t.Fatal(err)
	}
	var transient []error
	done := make(chan error, 1)
	go func() {
		done <- keepLease(ctx, clock, l, rec, 30*time.Second, func(err error) { transient = append(transient, err) })
	}()
	// Three beats at 10 s, 20 s, 30 s: the lease follows, never running out.
	for i := 1; i <= 3; i++ {
		if err := clock.BlockUntilContext(ctx, 1); err != nil {
			t.Fatal(err)
		}
		clock.Advance(10 * time.Second)
		want := start.Add(time.Duration(i)*10*time.Second + 30*time.Second)
		waitFor(t, func() bool {
			r, err := l.Get(ctx, rec.Job, rec.Period)
			return err == nil && r.LeaseUntil.Equal(want)
		}, "lease until %s after beat %d", want, i)
	}
	// Someone else finishes the period with the token (an operator, a
	// zombie's fenced write would be refused): the next beat is refused.
	if _, err := l.Finish(ctx, rec.Job, rec.Period, rec.Token, dstsafe.StateFailed, "by hand"); err != nil {
		t.Fatal(err)
	}
	if err := clock.BlockUntilContext(ctx, 1); err != nil {
		t.Fatal(err)
	}
	clock.Advance(10 * time.Second)
	if err := <-done; !errors.Is(err, dstsafe.ErrLeaseLost) {
		t.Fatalf("keepLease = %v, want ErrLeaseLost", err)
	}
	if len(transient) != 0 {
		t.Errorf("transient errors %v, want none", transient)
	}
}

// waitFor waits for a goroutine the test started on a fake clock to
// reach a state; it yields, it does not sleep on time.
func waitFor(t *testing.T, cond func() bool, format string, args ...any) {
	t.Helper()
	for range 100000 {
		if cond() {
			return
		}
		runtime.Gosched()
	}
	t.Fatalf("never reached: "+format, args...)
}

// The help names every flag exec takes.
func TestExecHelpNamesEveryFlag(t *testing.T) {
	var out bytes.Buffer
	c := &cmdContext{cmd: execCmd, stdout: &out, stderr: &out, now: time.Now}
	c.fs = flag.NewFlagSet("dstsafe exec", flag.ContinueOnError)
	c.fs.SetOutput(&out)
	c.fs.BoolVar(&c.json, "json", false, "")
	c.fs.StringVar(&c.zoneinfo, "zoneinfo", "", "")
	if err := runExec(c, []string{"--help"}); !errors.Is(err, flag.ErrHelp) {
		t.Fatalf("exec --help = %v, want flag.ErrHelp", err)
	}
	c.fs.VisitAll(func(f *flag.Flag) {
		if f.Name == "json" { // exec has no output of its own to format
			return
		}
		if !strings.Contains(execCmd.usage, "  --"+f.Name+" ") {
			t.Errorf("exec's help does not list --%s", f.Name)
		}
	})
	for _, env := range []string{"DSTSAFE_LEDGER", "DSTSAFE_SCHEDULED_TIME", "DSTSAFE_K8S_JOB_NAME", "DSTSAFE_NOW", "DSTSAFE_JOB", "DSTSAFE_PERIOD",
		"DSTSAFE_RUN_DATE", "DSTSAFE_DUE", "DSTSAFE_ATTEMPT", "DSTSAFE_IDEMPOTENCY_KEY"} {
		if !strings.Contains(execCmd.usage, env) {
			t.Errorf("exec's help does not name %s", env)
		}
	}
	for _, e := range (periodFields{}).env() {
		name, _, _ := strings.Cut(e, "=")
		if !strings.Contains(execCmd.usage, name) {
			t.Errorf("exec's help does not name %s", name)
		}
	}
}

// The ledger commands take the ledger as exec does, by --ledger URL or
// DSTSAFE_LEDGER, and print what --sqlite prints.
func TestLedgerCommandsTakeLedgerURL(t *testing.T) {
	db := sqliteFixture(t)
	wantOut, wantErr, wantCode := runCLIAt(ledgerNow, "ledger", "list", "billing", "--sqlite", db)
	if wantCode != 0 || wantOut == "" {
		t.Fatalf("ledger list --sqlite: exit %d\n%s%s", wantCode, wantOut, wantErr)
	}
	out, errOut, code := runCLIAt(ledgerNow, "ledger", "list", "billing", "--ledger", "sqlite://"+db)
	if code != wantCode || out != wantOut || errOut != wantErr {
		t.Errorf("--ledger: exit %d\n%s%s\nwant (as --sqlite) exit %d\n%s%s", code, out, errOut, wantCode, wantOut, wantErr)
	}
	t.Setenv("DSTSAFE_LEDGER", "sqlite://"+db)
	out, errOut, code = runCLIAt(ledgerNow, "ledger", "list", "billing")
	if code != wantCode || out != wantOut || errOut != wantErr {
		t.Errorf("DSTSAFE_LEDGER: exit %d\n%s%s\nwant (as --sqlite) exit %d\n%s%s", code, out, errOut, wantCode, wantOut, wantErr)
	}
	if _, _, code := runCLIAt(ledgerNow, "ledger", "list", "billing", "--ledger", "sqlite://"+db, "--sqlite", db); code != exitUsage {
		t.Errorf("--ledger with --sqlite: exit %d, want %d", code, exitUsage)
	}
}

func TestK8sJobScheduledTime(t *testing.T) {
	cases := []struct {
		name string
		at   string // "" when the name is not a CronJob's Job
	}{
		// 2024-11-03T06:30:00Z is 1730615400 s, 28843590 min after 1970.
		{"billing-28843590", "2024-11-03T06:30:00Z"},
		{"nightly-export-v2-28843650", "2024-11-03T07:30:00Z"},
		{"billing-manual", ""},
		{"billing-", ""},
		{"28843590", ""},
		{"billing-+28843590", ""},
		{"billing-0", ""},
		{"billing-99999999999999999999", ""},
	}
	for _, tc := range cases {
		at, ok := k8sJobScheduledTime(tc.name)
		if tc.at == "" {
			if ok {
				t.Errorf("k8sJobScheduledTime(%q) = %s, want none", tc.name, at)
			}
			continue
		}
		if want := instant(t, tc.at); !ok || !at.Equal(want) {
			t.Errorf("k8sJobScheduledTime(%q) = %s, %v; want %s", tc.name, at, ok, want)
		}
	}
}

// Bad arguments are refused with exit 2 before any ledger is opened (the
// ledger named here does not exist) and before anything runs.
func TestExecUsageErrors(t *testing.T) {
	for _, env := range []string{"DSTSAFE_LEDGER", "DSTSAFE_NOW", "DSTSAFE_SCHEDULED_TIME", "DSTSAFE_K8S_JOB_NAME"} {
		t.Setenv(env, "")
	}
	dbPath := t.TempDir() + "/never.db"
	ledger := "sqlite://" + dbPath
	base := []string{"exec", "--ledger", ledger, "--job", "billing", "--schedule", chicago130}
	cases := []struct {
		name string
		args []string
		want string // in stderr
	}{
		{"no ledger", []string{"exec", "--job", "billing", "--schedule", chicago130, "--", "true"}, "missing --ledger (or DSTSAFE_LEDGER)"},
		{"bad ledger URL", []string{"exec", "--ledger", "mysql://db/x", "--job", "billing", "--schedule", chicago130, "--", "true"}, `unknown scheme "mysql"`},
		{"no job", []string{"exec", "--ledger", ledger, "--schedule", chicago130, "--", "true"}, "missing --job"},
		// Without --schedule the registered schedule is used as it is.
		{"key without schedule", []string{"exec", "--ledger", ledger, "--job", "billing", "--key", "date", "--", "true"}, "qualify --schedule"},
		{"bad key", append(base, "--key", "day", "--", "true"), "bad --key"},
		{"bad exit-skipped", append(base, "--exit-skipped", "-1", "--", "true"), "bad --exit-skipped"},
		{"no command", append(base, "--"), "missing COMMAND after --"},
		{"command without --", append(base, "true"), `unexpected argument "true": put the command after --`},
		{"bad schedule", []string{"exec", "--ledger", ledger, "--job", "billing", "--schedule", "CRON_TZ=America/Chicgo 30 1 * * *", "--", "true"}, "bad SPEC"},
		{"unknown field", append(base, "--", "echo", "{{.Date}}"), `bad COMMAND argument "{{.Date}}"`},
		{"retry without attempts", append(base, "--retry-failed", "--", "true"), "need --max-attempts 2 or more"},
		{"bad scheduled time", append(base, "--scheduled-time", "2024-11-03 01:30", "--", "true"), "bad --scheduled-time"},
		// 01:31 is not when a 01:30 job is scheduled: the trigger and --schedule disagree.
		{"not an occurrence", append(base, "--scheduled-time", "2024-11-03T01:31:00-05:00", "--", "true"), "is not an occurrence of"},
		{"bad now", append(base, "--now", "yesterday", "--", "true"), "bad --now"},
		{"bad lease", append(base, "--lease", "0s", "--", "true"), "bad --lease"},
		{"bad exit-claimed", append(base, "--exit-claimed", "300", "--", "true"), "bad --exit-claimed"},
		{"json", append(base, "--json", "--", "true"), "exec takes no --json"},
		{"bad max-clock-offset", append(base, "--max-clock-offset", "0s", "--", "true"), "bad --max-clock-offset"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			stdout, stderr, code := runCLI(tc.args...)
			if code != exitUsage || !strings.Contains(stderr, tc.want) || stdout != "" {
				t.Errorf("exit %d stdout %q stderr %q; want %d and %q", code, stdout, stderr, exitUsage, tc.want)
			}
		})
	}
	if _, err := os.Stat(dbPath); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("the ledger file was touched: %v", err)
	}
}

// flakyLedger fails its first n heartbeats, as a database restarting.
type flakyLedger struct {
	dstsafe.Ledger
	n int
}

var errRestarting = errors.New("database restarting")

func (f *flakyLedger) Heartbeat(ctx context.Context, job, period string, token int64, lease time.Duration) (dstsafe.Record, error) {
	if f.n > 0 {
		f.n--
		return dstsafe.Record{}, errRestarting
	}
	return f.Ledger.Heartbeat(ctx, job, period, token, lease)
}

// A heartbeat that fails for a transient reason is reported and tried
// again at the next beat; the run goes on.
func TestKeepLeaseTransientError(t *testing.T) {
	start := time.Date(2024, 11, 3, 6, 30, 0, 0, time.UTC)
	clock := clockwork.NewFakeClockAt(start)
	mem := dstsafe.NewMemoryLedger(clock)
	ctx, cancel := context.WithCancel(context.Background())
	rec, err := mem.Claim(ctx, dstsafe.ClaimRequest{Job: "billing", Period: "2024-11-03T01:30:00", Owner: "a", Lease: 30 * time.Second})
	if err != nil {
		t.Fatal(err)
	}
	reported := make(chan error, 4)
	done := make(chan error, 1)
	go func() {
		done <- keepLease(ctx, clock, &flakyLedger{Ledger: mem, n: 1}, rec, 30*time.Second, func(err error) { reported <- err })
	}()
	for range 2 {
		if err := clock.BlockUntilContext(ctx, 1); err != nil {
			t.Fatal(err)
		}
		clock.Advance(10 * time.Second)
	}
	if err := <-reported; !errors.Is(err, errRestarting) {
		t.Fatalf("reported %v, want the restart", err)
	}
	// The second beat, at 20 s, went through: lease until 20 s + 30 s.
	want := start.Add(50 * time.Second)
	waitFor(t, func() bool {
		r, err := mem.Get(ctx, rec.Job, rec.Period)
		return err == nil && r.LeaseUntil.Equal(want)
	}, "lease until %s", want)
	cancel()
	if err := <-done; err != nil {
		t.Fatalf("keepLease = %v after its context ended, want nil", err)
	}
}

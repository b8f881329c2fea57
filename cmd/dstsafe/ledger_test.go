package main

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"os"
	"os/user"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/jonboulle/clockwork"

	"github.com/dstsafe/dstsafe"
	"github.com/dstsafe/dstsafe/sqlledger"
	"github.com/dstsafe/dstsafe/sqlledger/sqlite"
)

// ledgerNow is the CLI's now in the ledger tests: noon UTC on the day
// after the 2024 fall-back night.
var ledgerNow = time.Date(2024, 11, 4, 12, 0, 0, 0, time.UTC)

// fixtureSchedule is the fingerprint the fixture's claims carry, as the
// Scheduler would for "CRON_TZ=America/Chicago 30 1 * * *" keyed by date.
const fixtureSchedule = "cron1;America/Chicago;2025b;first;shift;date;0;0;CRON_TZ=America/Chicago 30 1 * * *"

// seedLedger writes the fixture through l, whose clock is clock: the
// billing job (01:30 Chicago, one period per civil date) around the
// fall-back night, and a paused report job.
//
//	2024-10-30  skipped: catch-up, missed while the service was down
//	2024-10-31  succeeded
//	2024-11-01  succeeded
//	2024-11-02  failed: the card processor was down
//	2024-11-03  abandoned: its holder died at 01:30 CDT, lease 5 min
//	2024-11-04  running: claimed at 01:30 CST, heartbeating
func seedLedger(t *testing.T, l dstsafe.ControlLedger, clock *clockwork.FakeClock) {
	t.Helper()
	ctx := context.Background()
	at := func(ts time.Time) { clock.Advance(ts.Sub(clock.Now())) }
	must := func(r dstsafe.Record, err error) dstsafe.Record {
		t.Helper()
		if err != nil {
			t.Fatalf("seeding the fixture: %v", err)
		}
		return r
	}
	claim := func(period, owner string, lease time.Duration) dstsafe.Record {
		return must(l.Claim(ctx, dstsafe.ClaimRequest{Job: "billing", Period: period, Owner: owner, Lease: lease, Schedule: fixtureSchedule}))
	}
	for _, day := range []struct {
		period string
		start  time.Time
		state  dstsafe.State
		reason string
	}{
		// The service came back at 01:20 CDT on 10-31: 10-30 was missed.
		{"2024-10-30", time.Date(2024, 10, 31, 6, 20, 0, 0, time.UTC), dstsafe.StateSkipped, "catch-up: missed while the service was down"},
		{"2024-10-31", time.Date(2024, 10, 31, 6, 30, 0, 0, time.UTC), dstsafe.StateSucceeded, ""}, // 01:30 CDT
		{"2024-11-01", time.Date(2024, 11, 1, 6, 30, 0, 0, time.UTC), dstsafe.StateSucceeded, ""},
		{"2024-11-02", time.Date(2024, 11, 2, 6, 30, 0, 0, time.UTC), dstsafe.StateFailed, "card processor down: HTTP 502"},
	} {
		at(day.start)
		r := claim(day.period, "billing-1", 5*time.Minute)
		if day.state != dstsafe.StateSkipped {
			clock.Advance(41 * time.Second)
		}
		must(l.Finish(ctx, "billing", day.period, r.Token, day.state, day.reason))
	}
	at(time.Date(2024, 11, 3, 6, 30, 0, 0, time.UTC)) // 01:30 CDT: the holder dies
	claim("2024-11-03", "billing-2", 5*time.Minute)

	at(time.Date(2024, 11, 3, 8, 0, 0, 0, time.UTC))
	r := must(l.Claim(ctx, dstsafe.ClaimRequest{Job: "report", Period: "2024-11-03T02:00:00", Owner: "report-1"}))
	must(l.Finish(ctx, "report", "2024-11-03T02:00:00", r.Token, dstsafe.StateSucceeded, ""))
	if _, err := l.SetPause(ctx, "report", dstsafe.Pause{Paused: true, By: "oncall@bastion", Reason: "upstream API down"}); err != nil {
		t.Fatal(err)
	}

	at(time.Date(2024, 11, 4, 7, 30, 0, 0, time.UTC)) // 01:30 CST
	run := claim("2024-11-04", "billing-1", 5*time.Minute)
	at(ledgerNow.Add(-2 * time.Minute))
	must(l.Heartbeat(ctx, "billing", "2024-11-04", run.Token, 5*time.Minute))
	at(ledgerNow)
}

// sqliteFixture writes the fixture into a new SQLite ledger file and
// returns its path.
func sqliteFixture(t *testing.T) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), "ledger.db")
	clock := clockwork.NewFakeClockAt(time.Date(2024, 10, 31, 6, 0, 0, 0, time.UTC)) // 01:00 CDT
	l, err := sqlite.OpenSQLite(path, sqlledger.WithClock(clock))
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	if err := l.Migrate(context.Background()); err != nil {
		t.Fatal(err)
	}
	seedLedger(t, l, clock)
	return path
}

// openSQLite opens path for a test's own checks, on a clock at ledgerNow.
func openSQLite(t *testing.T, path string) *sqlledger.Ledger {
	t.Helper()
	l, err := sqlite.OpenSQLite(path, sqlledger.WithClock(clockwork.NewFakeClockAt(ledgerNow)))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { l.Close() })
	return l
}

func runCLIAt(now time.Time, args ...string) (stdout, stderr string, code int) {
	var o, e bytes.Buffer
	code = run(args, &o, &e, func() time.Time { return now })
	return o.String(), e.String(), code
}

// ledgerCases run on a fresh copy of the fixture each; $DB is its path.
var ledgerCases = []struct {
	name string
	args []string
	code int
}{
	{"ledger_help", []string{"ledger", "--help"}, 0},
	// Failed and abandoned first, then by period; the running one's lease.
	{"ledger_list", []string{"ledger", "list", "billing", "--sqlite", "$DB"}, 0},
	{"ledger_list_json", []string{"ledger", "list", "billing", "--sqlite", "$DB", "--json"}, 0},
	{"ledger_list_state", []string{"ledger", "list", "billing", "--sqlite", "$DB", "--state", "failed,abandoned"}, 0},
	// The fall-back night and the day before, both dates included.
	{"ledger_list_range", []string{"ledger", "list", "billing", "--sqlite", "$DB", "--from", "2024-11-02", "--to", "2024-11-03"}, 0},
	{"ledger_list_paused", []string{"ledger", "list", "report", "--sqlite", "$DB"}, 0},
	// A job the ledger never saw is refused, with the closest known name
	// when there is one: a typo never reads as "no periods".
	{"ledger_list_unknown_job", []string{"ledger", "list", "payroll", "--sqlite", "$DB"}, 1},
	{"ledger_list_typo", []string{"ledger", "list", "billng", "--sqlite", "$DB"}, 1},
	{"ledger_show_unknown_job", []string{"ledger", "show", "biling", "2024-11-02", "--sqlite", "$DB"}, 1},
	{"ledger_retry_unknown_job", []string{"ledger", "retry", "Billing", "2024-11-02", "--reason", "again", "--by", "ops@bastion", "--sqlite", "$DB"}, 1},
	{"ledger_skip_unknown_job", []string{"ledger", "skip", "reports", "2024-11-02", "--reason", "again", "--by", "ops@bastion", "--sqlite", "$DB"}, 1},
	{"ledger_pause_unknown_job", []string{"ledger", "pause", "nosuchjob", "--reason", "incident 42", "--by", "ops@bastion", "--sqlite", "$DB"}, 1},
	{"ledger_resume_unknown_job", []string{"ledger", "resume", "reprot", "--by", "ops@bastion", "--sqlite", "$DB"}, 1},
	// --force: an operator pauses a job before its first deploy.
	{"ledger_pause_force", []string{"ledger", "pause", "payroll", "--force", "--reason", "not live until the audit", "--by", "ops@bastion", "--sqlite", "$DB"}, 0},
	{"ledger_force_not_taken", []string{"ledger", "resume", "payroll", "--force", "--by", "ops@bastion", "--sqlite", "$DB"}, 2},
	{"ledger_jobs", []string{"ledger", "jobs", "--sqlite", "$DB"}, 0},
	{"ledger_jobs_json", []string{"ledger", "jobs", "--sqlite", "$DB", "--json"}, 0},
	{"ledger_jobs_extra_arg", []string{"ledger", "jobs", "billing", "--sqlite", "$DB"}, 2},
	// The fixture's billing job, 01:30 Chicago keyed by date, from the
	// 10-29 to the 11-05 (excluded): 10-29 has no record (missing),
	// 10-30 was skipped by the catch-up, 11-02 failed, 11-03's holder
	// died (abandoned), 11-04 is running; 10-31 and 11-01 succeeded.
	{"ledger_audit", []string{"ledger", "audit", "--job", "billing", "--schedule", "CRON_TZ=America/Chicago 30 1 * * *", "--key", "date",
		"--from", "2024-10-29", "--to", "2024-11-05", "--sqlite", "$DB"}, 1},
	{"ledger_audit_json", []string{"ledger", "audit", "--job", "billing", "--schedule", "CRON_TZ=America/Chicago 30 1 * * *", "--key", "date",
		"--from", "2024-10-29", "--to", "2024-11-05", "--sqlite", "$DB", "--json"}, 1},
	// 10-31 and 11-01 only: complete. The range runs past now (11-04
	// 12:00Z): the 11-05 and later periods are not due, not missing.
	{"ledger_audit_complete", []string{"ledger", "audit", "--job", "billing", "--schedule", "CRON_TZ=America/Chicago 30 1 * * *", "--key", "date",
		"--from", "2024-10-31", "--to", "2024-11-02", "--sqlite", "$DB"}, 0},
	{"ledger_audit_not_due", []string{"ledger", "audit", "--job", "report", "--schedule", "CRON_TZ=America/Chicago 0 2 * * *",
		"--from", "2024-11-03", "--to", "2024-11-08", "--sqlite", "$DB"}, 1},
	{"ledger_audit_unknown_job", []string{"ledger", "audit", "--job", "biling", "--schedule", "CRON_TZ=America/Chicago 30 1 * * *",
		"--from", "2024-10-29", "--to", "2024-11-05", "--sqlite", "$DB"}, 1},
	// No --schedule: the one the latest record was claimed under (the fixture has no registry entry).
	{"ledger_audit_schedule_from_records", []string{"ledger", "audit", "--job", "billing", "--from", "2024-10-29", "--to", "2024-11-05", "--sqlite", "$DB"}, 1},
	{"ledger_audit_bad_key", []string{"ledger", "audit", "--job", "billing", "--schedule", "30 1 * * *", "--key", "day",
		"--from", "2024-10-29", "--to", "2024-11-05", "--sqlite", "$DB"}, 2},
	{"ledger_audit_bad_range", []string{"ledger", "audit", "--job", "billing", "--schedule", "30 1 * * *",
		"--from", "2024-11-05", "--to", "2024-11-05", "--sqlite", "$DB"}, 2},
	{"ledger_list_bad_state", []string{"ledger", "list", "billing", "--sqlite", "$DB", "--state", "done"}, 2},
	{"ledger_list_bad_range", []string{"ledger", "list", "billing", "--sqlite", "$DB", "--from", "2024-11-04", "--to", "2024-11-03"}, 2},
	{"ledger_show", []string{"ledger", "show", "billing", "2024-11-02", "--sqlite", "$DB"}, 0},
	{"ledger_show_json", []string{"ledger", "show", "billing", "2024-11-03", "--sqlite", "$DB", "--json"}, 0},
	{"ledger_show_missing", []string{"ledger", "show", "billing", "2024-11-05", "--sqlite", "$DB"}, 1},
	{"ledger_retry", []string{"ledger", "retry", "billing", "2024-11-02", "--reason", "card processor back", "--by", "ops@bastion", "--sqlite", "$DB"}, 0},
	{"ledger_retry_abandoned_json", []string{"ledger", "retry", "billing", "2024-11-03", "--reason", "holder died", "--by", "ops@bastion", "--sqlite", "$DB", "--json"}, 0},
	{"ledger_retry_running", []string{"ledger", "retry", "billing", "2024-11-04", "--reason", "again", "--by", "ops@bastion", "--sqlite", "$DB"}, 1},
	{"ledger_retry_succeeded", []string{"ledger", "retry", "billing", "2024-11-01", "--reason", "again", "--by", "ops@bastion", "--sqlite", "$DB"}, 1},
	{"ledger_retry_missing", []string{"ledger", "retry", "billing", "2024-11-05", "--reason", "again", "--by", "ops@bastion", "--sqlite", "$DB"}, 1},
	{"ledger_retry_no_reason", []string{"ledger", "retry", "billing", "2024-11-02", "--sqlite", "$DB"}, 2},
	// A period without a record: claimed and finished skipped.
	{"ledger_skip_new", []string{"ledger", "skip", "billing", "2024-11-05", "--reason", "bank holiday", "--by", "ops@bastion", "--sqlite", "$DB"}, 0},
	{"ledger_skip_failed", []string{"ledger", "skip", "billing", "2024-11-02", "--reason", "charged by hand", "--by", "ops@bastion", "--sqlite", "$DB"}, 0},
	{"ledger_skip_abandoned_json", []string{"ledger", "skip", "billing", "2024-11-03", "--reason", "charged by hand", "--by", "ops@bastion", "--sqlite", "$DB", "--json"}, 0},
	{"ledger_skip_skipped", []string{"ledger", "skip", "billing", "2024-10-30", "--reason", "again", "--by", "ops@bastion", "--sqlite", "$DB"}, 0},
	{"ledger_skip_running", []string{"ledger", "skip", "billing", "2024-11-04", "--reason", "stop it", "--by", "ops@bastion", "--sqlite", "$DB"}, 1},
	{"ledger_skip_succeeded", []string{"ledger", "skip", "billing", "2024-10-31", "--reason", "undo", "--by", "ops@bastion", "--sqlite", "$DB"}, 1},
	{"ledger_pause", []string{"ledger", "pause", "billing", "--reason", "incident 42: double charges", "--by", "ops@bastion", "--sqlite", "$DB"}, 0},
	{"ledger_pause_paused", []string{"ledger", "pause", "report", "--reason", "again", "--by", "ops@bastion", "--sqlite", "$DB"}, 0},
	{"ledger_pause_no_reason", []string{"ledger", "pause", "billing", "--by", "ops@bastion", "--sqlite", "$DB"}, 2},
	{"ledger_resume", []string{"ledger", "resume", "report", "--by", "ops@bastion", "--sqlite", "$DB"}, 0},
	{"ledger_resume_running", []string{"ledger", "resume", "billing", "--by", "ops@bastion", "--sqlite", "$DB"}, 0},
	{"ledger_no_backend", []string{"ledger", "list", "billing"}, 2},
	{"ledger_two_backends", []string{"ledger", "list", "billing", "--sqlite", "$DB", "--redis", "127.0.0.1:6379"}, 2},
	{"ledger_missing_file", []string{"ledger", "list", "billing", "--sqlite", "$DIR/nope.db"}, 2},
	{"ledger_wrong_table", []string{"ledger", "list", "billing", "--sqlite", "$DB", "--table", "job_runs"}, 2},
	{"ledger_bad_table", []string{"ledger", "list", "billing", "--sqlite", "$DB", "--table", "job-runs"}, 2},
	{"ledger_prefix_on_sql", []string{"ledger", "list", "billing", "--sqlite", "$DB", "--prefix", "billing:"}, 2},
	{"ledger_flag_not_taken", []string{"ledger", "show", "billing", "2024-11-02", "--sqlite", "$DB", "--reason", "why"}, 2},
	{"ledger_missing_period", []string{"ledger", "show", "billing", "--sqlite", "$DB"}, 2},
	{"ledger_unknown_subcommand", []string{"ledger", "rerun", "billing", "--sqlite", "$DB"}, 2},
	{"ledger_no_subcommand", []string{"ledger"}, 2},
}

// expand puts the fixture's path (and its directory) into args.
func expand(args []string, db string) []string {
	out := slices.Clone(args)
	for i, a := range out {
		a = strings.ReplaceAll(a, "$DB", db)
		out[i] = strings.ReplaceAll(a, "$DIR", filepath.Dir(db))
	}
	return out
}

// unexpand writes the paths back as $DB and $DIR, for the golden file.
func unexpand(s, db string) string {
	return strings.ReplaceAll(strings.ReplaceAll(s, db, "$DB"), filepath.Dir(db), "$DIR")
}

func TestLedgerGolden(t *testing.T) {
	for _, tc := range ledgerCases {
		t.Run(tc.name, func(t *testing.T) {
			db := sqliteFixture(t)
			stdout, stderr, code := runCLIAt(ledgerNow, expand(tc.args, db)...)
			checkGolden(t, tc.name, tc.args, tc.code, unexpand(stdout, db), unexpand(stderr, db), code)
			if slices.Contains(tc.args, "--json") && tc.code != exitUsage {
				var v any
				if err := json.Unmarshal([]byte(stdout), &v); err != nil {
					t.Errorf("invalid JSON: %v\n%s", err, stdout)
				}
			}
		})
	}
}

// What the commands change, read back through the ledger's API: a retry
// lets exactly one claim take the failed period over, whatever the
// claim's retry policy; skip leaves each kind of period skipped by the
// operator; pause and resume are what every scheduler reads.
func TestLedgerCommandsChangeTheLedger(t *testing.T) {
	ctx := context.Background()
	cli := func(t *testing.T, args ...string) string {
		t.Helper()
		stdout, stderr, code := runCLIAt(ledgerNow, args...)
		if code != 0 {
			t.Fatalf("dstsafe %s: exit %d\n%s%s", strings.Join(args, " "), code, stdout, stderr)
		}
		return stdout
	}
	t.Run("retry", func(t *testing.T) {
		db := sqliteFixture(t)
		cli(t, "ledger", "retry", "billing", "2024-11-02", "--reason", "card processor back", "--by", "ops@bastion", "--sqlite", db)
		l := openSQLite(t, db)
		r, err := l.Claim(ctx, dstsafe.ClaimRequest{Job: "billing", Period: "2024-11-02", Owner: "billing-2"}) // no retry policy
		if err != nil || r.Attempt != 2 || r.ReleasedBy != "ops@bastion" || r.ReleaseReason != "card processor back" {
			t.Fatalf("claim after retry = %+v, %v; want the takeover (attempt 2) the operator allowed", r, err)
		}
		if _, err := l.Claim(ctx, dstsafe.ClaimRequest{Job: "billing", Period: "2024-11-02", Owner: "billing-3",
			Retry: dstsafe.RetryPolicy{MaxAttempts: 1, Failed: true}}); !errors.Is(err, dstsafe.ErrAlreadyClaimed) {
			t.Fatalf("a second claim after one retry = %v, want ErrAlreadyClaimed", err)
		}
	})
	t.Run("skip", func(t *testing.T) {
		db := sqliteFixture(t)
		for _, period := range []string{"2024-11-05", "2024-11-02", "2024-11-03"} { // no record, failed, abandoned
			cli(t, "ledger", "skip", "billing", period, "--reason", "charged by hand", "--by", "ops@bastion", "--sqlite", db)
		}
		l := openSQLite(t, db)
		for period, attempt := range map[string]int{"2024-11-05": 1, "2024-11-02": 2, "2024-11-03": 2} {
			r, err := l.Get(ctx, "billing", period)
			if err != nil || r.State != dstsafe.StateSkipped || r.Owner != "ops@bastion" || r.Reason != "charged by hand" || r.Attempt != attempt {
				t.Errorf("%s after skip = %+v, %v; want skipped by ops@bastion, attempt %d", period, r, err, attempt)
			}
			if _, err := l.Claim(ctx, dstsafe.ClaimRequest{Job: "billing", Period: period, Owner: "billing-1",
				Retry: dstsafe.RetryPolicy{MaxAttempts: 9, Failed: true, Abandoned: true}}); !errors.Is(err, dstsafe.ErrAlreadyClaimed) {
				t.Errorf("claim of skipped %s = %v, want ErrAlreadyClaimed", period, err)
			}
		}
		// A refused skip changed nothing.
		_, _, code := runCLIAt(ledgerNow, "ledger", "skip", "billing", "2024-11-04", "--reason", "stop", "--by", "ops", "--sqlite", db)
		if r, err := l.Get(ctx, "billing", "2024-11-04"); code != exitFindings || err != nil || r.State != dstsafe.StateRunning || r.Owner != "billing-1" {
			t.Errorf("skip of a running period: exit %d, record %+v, %v; want exit 1 and the run untouched", code, r, err)
		}
	})
	t.Run("pause and resume", func(t *testing.T) {
		db := sqliteFixture(t)
		before := time.Now().Add(-time.Second) // SQLite's 'now' has milliseconds
		cli(t, "ledger", "pause", "billing", "--reason", "incident 42", "--by", "ops@bastion", "--sqlite", db)
		after := time.Now()
		l := openSQLite(t, db)
		// Since is the store's clock (this host's, as SQLite reads it),
		// not the CLI's (ledgerNow): see TestLedgerPauseStoreClock.
		if p, err := l.GetPause(ctx, "billing"); err != nil || !p.Paused || p.By != "ops@bastion" || p.Reason != "incident 42" ||
			p.Since.Before(before) || p.Since.After(after) {
			t.Fatalf("GetPause after pause = %+v, %v", p, err)
		}
		cli(t, "ledger", "resume", "billing", "--by", "ops@bastion", "--sqlite", db)
		if p, err := l.GetPause(ctx, "billing"); err != nil || p.Paused {
			t.Fatalf("GetPause after resume = %+v, %v", p, err)
		}
	})
	t.Run("default by", func(t *testing.T) {
		db := sqliteFixture(t)
		cli(t, "ledger", "retry", "billing", "2024-11-02", "--reason", "back", "--sqlite", db)
		u, err := user.Current()
		if err != nil {
			t.Skip("no current user:", err)
		}
		host, _ := os.Hostname()
		r, err := openSQLite(t, db).Get(ctx, "billing", "2024-11-02")
		if err != nil || r.ReleasedBy != u.Username+"@"+host {
			t.Fatalf("released by %q, %v; want %s@%s", r.ReleasedBy, err, u.Username, host)
		}
	})
}

// A file with no ledger in it, or one at an older schema, is not
// changed unless --migrate says so.
func TestLedgerMigrateFlag(t *testing.T) {
	path := filepath.Join(t.TempDir(), "empty.db")
	l, err := sqlite.OpenSQLite(path) // creates the file, no table
	if err != nil {
		t.Fatal(err)
	}
	l.Close()
	_, stderr, code := runCLIAt(ledgerNow, "ledger", "list", "billing", "--sqlite", path)
	if code != exitUsage || !strings.Contains(stderr, "--migrate creates it") {
		t.Fatalf("list on a file without a ledger: exit %d, %s; want exit 2 pointing at --migrate", code, stderr)
	}
	if v, err := openSQLite(t, path).Version(context.Background()); err != nil || v != 0 {
		t.Fatalf("Version after a list without --migrate = %d, %v; want 0 (untouched)", v, err)
	}
	stdout, stderr, code := runCLIAt(ledgerNow, "ledger", "pause", "billing", "--force", "--reason", "not live yet", "--by", "ops", "--sqlite", path, "--migrate")
	if code != 0 {
		t.Fatalf("pause --migrate: exit %d\n%s%s", code, stdout, stderr)
	}
	if v, err := openSQLite(t, path).Version(context.Background()); err != nil || v != sqlledger.SchemaVersion {
		t.Fatalf("Version after --migrate = %d, %v; want %d", v, err, sqlledger.SchemaVersion)
	}
}

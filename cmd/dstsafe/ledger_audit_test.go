package main

import (
	"context"
	"database/sql"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/jonboulle/clockwork"
	"github.com/redis/go-redis/v9"

	"github.com/dstsafe/dstsafe"
	"github.com/dstsafe/dstsafe/internal/testkit"
	"github.com/dstsafe/dstsafe/redisledger"
	"github.com/dstsafe/dstsafe/sqlledger"
	"github.com/dstsafe/dstsafe/sqlledger/sqlite"
)

// auditNow is the CLI's now in the audit tests: after every period.
var auditNow = time.Date(2025, 1, 1, 0, 0, 0, 0, time.UTC)

// seeded is a record an audit case writes before it runs: the period
// claimed at its due instant and finished in state (running: never
// finished, its lease long over by auditNow, so abandoned).
type seeded struct {
	period string
	due    string // RFC 3339, the instant the scheduler claimed it
	state  dstsafe.State
	owner  string
	reason string
}

// wantRow is a period the audit must report, derived by hand from the
// zone's transitions (the comments), not from the code under test.
type wantRow struct {
	period, due, status, owner, reason string
}

// Every period a schedule had across the 2024 nights of America/Chicago
// (03-10: 02:00 CST -> 03:00 CDT; 11-03: 02:00 CDT -> 01:00 CST) and
// Australia/Lord_Howe (a 30-minute shift: 04-07: 02:00 +11 -> 01:30
// +10:30; 10-06: 02:00 +10:30 -> 02:30 +11) is audited once, keyed as
// the Scheduler keys it: a gap period once, at its shifted instant; a
// fixed-time job's repeated reading once; a periodic job's two readings
// as two periods. Each case runs on SQLite, PostgreSQL and Redis.
var auditCases = []struct {
	name, spec, key, from, to string
	periods                   int // the schedule's periods in [from, to)
	seed                      []seeded
	want                      []wantRow
	code                      int
}{
	{
		name: "chicago_gap_fixed", spec: "CRON_TZ=America/Chicago 30 2 * * *", key: "wall",
		from: "2024-03-09", to: "2024-03-12", periods: 3,
		seed: []seeded{
			{"2024-03-09T02:30:00", "2024-03-09T08:30:00Z", dstsafe.StateSucceeded, "w", ""}, // 02:30 CST
			{"2024-03-11T02:30:00", "2024-03-11T07:30:00Z", dstsafe.StateSucceeded, "w", ""}, // 02:30 CDT
		},
		// 02:30 never happens on 03-10: the period exists once, due at
		// 03:30 CDT (08:30Z), keyed by the 02:30 it was scheduled for.
		want: []wantRow{{"2024-03-10T02:30:00", "2024-03-10T08:30:00Z", "missing", "", ""}},
		code: 1,
	},
	{
		name: "chicago_fold_fixed", spec: "CRON_TZ=America/Chicago 30 1 * * *", key: "wall",
		from: "2024-11-02", to: "2024-11-05", periods: 3,
		seed: []seeded{
			{"2024-11-02T01:30:00", "2024-11-02T06:30:00Z", dstsafe.StateSucceeded, "w", ""}, // CDT
			{"2024-11-04T01:30:00", "2024-11-04T07:30:00Z", dstsafe.StateSucceeded, "w", ""}, // CST
		},
		// 01:30 happens twice on 11-03 (06:30Z CDT, 07:30Z CST): a
		// fixed-time job has one period, the first.
		want: []wantRow{{"2024-11-03T01:30:00", "2024-11-03T06:30:00Z", "missing", "", ""}},
		code: 1,
	},
	{
		name: "chicago_fold_fixed_by_date", spec: "CRON_TZ=America/Chicago 30 1 * * *", key: "date",
		from: "2024-11-02", to: "2024-11-05", periods: 3,
		seed: []seeded{
			{"2024-11-02", "2024-11-02T06:30:00Z", dstsafe.StateSucceeded, "w", ""},
			{"2024-11-03", "2024-11-03T06:30:00Z", dstsafe.StateSucceeded, "w", ""},
			{"2024-11-04", "2024-11-04T07:30:00Z", dstsafe.StateSucceeded, "w", ""},
		},
		want: nil, code: 0, // one period per civil date, all succeeded
	},
	{
		name: "chicago_fold_periodic", spec: "CRON_TZ=America/Chicago */30 * * * *", key: "wall",
		from: "2024-11-03T00:00", to: "2024-11-03T03:00", periods: 8, // 00:00 CDT (05:00Z) to 03:00 CST (09:00Z)
		seed: []seeded{
			{"2024-11-03T00:00:00", "2024-11-03T05:00:00Z", dstsafe.StateSucceeded, "w", ""},
			{"2024-11-03T00:30:00", "2024-11-03T05:30:00Z", dstsafe.StateSucceeded, "w", ""},
			{"2024-11-03T01:00:00", "2024-11-03T06:00:00Z", dstsafe.StateSucceeded, "w", ""},        // 01:00 CDT
			{"2024-11-03T01:30:00", "2024-11-03T06:30:00Z", dstsafe.StateFailed, "w", "timeout"},    // 01:30 CDT
			{"2024-11-03T01:00:00;fold=1", "2024-11-03T07:00:00Z", dstsafe.StateSucceeded, "w", ""}, // 01:00 CST
			// 01:30 CST (07:30Z): no record.
			{"2024-11-03T02:00:00", "2024-11-03T08:00:00Z", dstsafe.StateSucceeded, "w", ""},
			{"2024-11-03T02:30:00", "2024-11-03T08:30:00Z", dstsafe.StateSucceeded, "w", ""},
		},
		// Both 01:30s are periods of a job that follows real time.
		want: []wantRow{
			{"2024-11-03T01:30:00", "2024-11-03T06:30:00Z", "failed", "w", "timeout"},
			{"2024-11-03T01:30:00;fold=1", "2024-11-03T07:30:00Z", "missing", "", ""},
		},
		code: 1,
	},
	{
		name: "lord_howe_fold_fixed", spec: "CRON_TZ=Australia/Lord_Howe 45 1 * * *", key: "wall",
		from: "2024-04-06", to: "2024-04-09", periods: 3,
		seed: []seeded{
			{"2024-04-06T01:45:00", "2024-04-05T14:45:00Z", dstsafe.StateSucceeded, "w", ""}, // +11
			{"2024-04-08T01:45:00", "2024-04-07T15:15:00Z", dstsafe.StateSucceeded, "w", ""}, // +10:30
		},
		// 01:30-02:00 repeats on 04-07: 01:45 at +11 (14:45Z) and at
		// +10:30 (15:15Z); the fixed-time job's one period is the first.
		want: []wantRow{{"2024-04-07T01:45:00", "2024-04-06T14:45:00Z", "missing", "", ""}},
		code: 1,
	},
	{
		name: "lord_howe_fold_periodic", spec: "CRON_TZ=Australia/Lord_Howe */15 * * * *", key: "wall",
		from: "2024-04-07T01:00", to: "2024-04-07T02:30", periods: 8, // 01:00 +11 (14:00Z) to 02:30 +10:30 (16:00Z)
		seed: []seeded{
			{"2024-04-07T01:00:00", "2024-04-06T14:00:00Z", dstsafe.StateSucceeded, "w", ""},
			{"2024-04-07T01:15:00", "2024-04-06T14:15:00Z", dstsafe.StateSucceeded, "w", ""},
			{"2024-04-07T01:30:00", "2024-04-06T14:30:00Z", dstsafe.StateSucceeded, "w", ""}, // +11
			{"2024-04-07T01:45:00", "2024-04-06T14:45:00Z", dstsafe.StateSucceeded, "w", ""}, // +11
			// 01:30 +10:30 (15:00Z): no record.
			{"2024-04-07T01:45:00;fold=1", "2024-04-06T15:15:00Z", dstsafe.StateSucceeded, "w", ""},
			{"2024-04-07T02:00:00", "2024-04-06T15:30:00Z", dstsafe.StateSucceeded, "w", ""},
			{"2024-04-07T02:15:00", "2024-04-06T15:45:00Z", dstsafe.StateSucceeded, "w", ""},
		},
		want: []wantRow{{"2024-04-07T01:30:00;fold=1", "2024-04-06T15:00:00Z", "missing", "", ""}},
		code: 1,
	},
	{
		name: "lord_howe_gap_fixed", spec: "CRON_TZ=Australia/Lord_Howe 15 2 * * *", key: "wall",
		from: "2024-10-05", to: "2024-10-08", periods: 3,
		seed: []seeded{
			{"2024-10-05T02:15:00", "2024-10-04T15:45:00Z", dstsafe.StateSucceeded, "w", ""}, // +10:30
			{"2024-10-06T02:15:00", "2024-10-05T15:45:00Z", dstsafe.StateSkipped, "ops@bastion", "maintenance window"},
			{"2024-10-07T02:15:00", "2024-10-06T15:15:00Z", dstsafe.StateRunning, "w", ""}, // +11; its holder died
		},
		// 02:15 never happens on 10-06 (02:00 -> 02:30): the period is
		// due at 02:45 +11 (15:45Z), once; an operator skipped it.
		want: []wantRow{
			{"2024-10-06T02:15:00", "2024-10-05T15:45:00Z", "skipped", "ops@bastion", "maintenance window"},
			{"2024-10-07T02:15:00", "2024-10-06T15:15:00Z", "abandoned", "w", ""},
		},
		code: 1,
	},
	{
		name: "lord_howe_gap_periodic", spec: "CRON_TZ=Australia/Lord_Howe */30 * * * *", key: "wall",
		from: "2024-10-06T01:00", to: "2024-10-06T03:30", periods: 4, // 01:00 +10:30 (14:30Z) to 03:30 +11 (16:30Z)
		seed: []seeded{
			{"2024-10-06T01:00:00", "2024-10-05T14:30:00Z", dstsafe.StateSkipped, "w", "paused"},
		},
		// 02:00 never happens: 01:00, 01:30 (+10:30), 02:30, 03:00 (+11).
		want: []wantRow{
			{"2024-10-06T01:00:00", "2024-10-05T14:30:00Z", "skipped", "w", "paused"},
			{"2024-10-06T01:30:00", "2024-10-05T15:00:00Z", "missing", "", ""},
			{"2024-10-06T02:30:00", "2024-10-05T15:30:00Z", "missing", "", ""},
			{"2024-10-06T03:00:00", "2024-10-05T16:00:00Z", "missing", "", ""},
		},
		code: 1,
	},
}

// emptyLedger opens an empty ledger of a backend on a fake clock and
// returns the CLI flags that name it.
type emptyLedger func(t *testing.T, clock *clockwork.FakeClock) (dstsafe.ControlLedger, []string)

var emptyLedgers = map[string]emptyLedger{
	"sqlite": func(t *testing.T, clock *clockwork.FakeClock) (dstsafe.ControlLedger, []string) {
		path := filepath.Join(t.TempDir(), "ledger.db")
		l, err := sqlite.OpenSQLite(path, sqlledger.WithClock(clock))
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { l.Close() })
		if err := l.Migrate(context.Background()); err != nil {
			t.Fatal(err)
		}
		return l, []string{"--sqlite", path}
	},
	"postgres": func(t *testing.T, clock *clockwork.FakeClock) (dstsafe.ControlLedger, []string) {
		dsn := testkit.RequireEnv(t, "DSTSAFE_TEST_POSTGRES_DSN")
		serverSeq++
		schema := fmt.Sprintf("dstsafe_cli_audit_%d_%d", os.Getpid(), serverSeq)
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
		l, err := sqlledger.New(db, sqlledger.WithTable(schema+".job_runs"), sqlledger.WithClock(clock))
		if err != nil {
			t.Fatal(err)
		}
		if err := l.Migrate(context.Background()); err != nil {
			t.Fatal(err)
		}
		return l, []string{"--postgres", dsn, "--table", schema + ".job_runs"}
	},
	"redis": func(t *testing.T, clock *clockwork.FakeClock) (dstsafe.ControlLedger, []string) {
		addr := testkit.RequireEnv(t, "DSTSAFE_TEST_REDIS_ADDR")
		c := redis.NewClient(&redis.Options{Addr: addr})
		serverSeq++
		prefix := fmt.Sprintf("dstsafe-cli-audit:%d:%d:", os.Getpid(), serverSeq)
		t.Cleanup(func() {
			ctx := context.Background()
			if keys, err := c.Keys(ctx, prefix+"*").Result(); err == nil && len(keys) > 0 {
				c.Del(ctx, keys...)
			}
			c.Close()
		})
		l, err := redisledger.New(c, redisledger.WithKeyPrefix(prefix), redisledger.WithClock(clock))
		if err != nil {
			t.Fatal(err)
		}
		return l, []string{"--redis", addr, "--prefix", prefix}
	},
}

func TestLedgerAudit(t *testing.T) {
	ctx := context.Background()
	for _, backend := range []string{"sqlite", "postgres", "redis"} {
		t.Run(backend, func(t *testing.T) {
			for _, tc := range auditCases {
				t.Run(tc.name, func(t *testing.T) {
					clock := clockwork.NewFakeClockAt(time.Date(2024, 1, 1, 0, 0, 0, 0, time.UTC))
					l, flags := emptyLedgers[backend](t, clock)
					// Known to the ledger (paused and resumed before its
					// first period), whatever the case seeds.
					for _, paused := range []bool{true, false} {
						if _, err := l.SetPause(ctx, "audit", dstsafe.Pause{Paused: paused, By: "t"}); err != nil {
							t.Fatal(err)
						}
					}
					for _, s := range tc.seed {
						due, err := time.Parse(time.RFC3339, s.due)
						if err != nil {
							t.Fatal(err)
						}
						clock.Advance(due.Sub(clock.Now()))
						r, err := l.Claim(ctx, dstsafe.ClaimRequest{Job: "audit", Period: s.period, Owner: s.owner, Lease: time.Minute})
						if err != nil {
							t.Fatal(err)
						}
						if s.state != dstsafe.StateRunning {
							if _, err := l.Finish(ctx, "audit", s.period, r.Token, s.state, s.reason); err != nil {
								t.Fatal(err)
							}
						}
					}
					args := slices.Concat([]string{"ledger", "audit", "--job", "audit", "--schedule", tc.spec, "--key", tc.key,
						"--from", tc.from, "--to", tc.to, "--json"}, flags)
					stdout, stderr, code := runCLIAt(auditNow, args...)
					if code != tc.code {
						t.Fatalf("exit %d, want %d\n%s%s", code, tc.code, stdout, stderr)
					}
					var out struct {
						Periods    int
						Complete   bool
						Incomplete []struct{ Period, Due, Status, Owner, Reason string }
					}
					if err := json.Unmarshal([]byte(stdout), &out); err != nil {
						t.Fatalf("%v\n%s", err, stdout)
					}
					var got []wantRow
					for _, r := range out.Incomplete {
						got = append(got, wantRow{r.Period, r.Due, r.Status, r.Owner, r.Reason})
					}
					if out.Periods != tc.periods || !slices.Equal(got, tc.want) || out.Complete != (len(tc.want) == 0) {
						t.Errorf("audit of %s from %s to %s: %d periods, complete %v,\n%s\nwant %d periods,\n%s",
							tc.spec, tc.from, tc.to, out.Periods, out.Complete, rowsText(got), tc.periods, rowsText(tc.want))
					}
				})
			}
		})
	}
}

func rowsText(rows []wantRow) string {
	var b strings.Builder
	for _, r := range rows {
		fmt.Fprintf(&b, "  %+v\n", r)
	}
	return b.String()
}

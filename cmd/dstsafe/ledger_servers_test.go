package main

import (
	"context"
	"crypto/rand"
	"database/sql"
	"encoding/hex"
	"errors"
	"fmt"
	"os"
	"slices"
	"testing"
	"time"

	"github.com/jonboulle/clockwork"
	"github.com/redis/go-redis/v9"

	"github.com/dstsafe/dstsafe"
	"github.com/dstsafe/dstsafe/internal/testkit"
	"github.com/dstsafe/dstsafe/redisledger"
	"github.com/dstsafe/dstsafe/sqlledger"
)

// serverCasesLeftOut are the ledger cases about SQLite's flags and files,
// which a server does not have.
var serverCasesLeftOut = []string{
	"ledger_two_backends", "ledger_missing_file", "ledger_wrong_table", "ledger_bad_table", "ledger_prefix_on_sql",
}

// A server ledger, seeded with the fixture and named by CLI flags.
type serverLedger struct {
	flags  []string
	ledger dstsafe.ControlLedger // on a clock at ledgerNow, for checks
}

// Every ledger case that names a ledger runs against real PostgreSQL
// (--postgres, a table in a schema of its own) and Redis (--redis, a key
// prefix of its own), each seeded with the fixture through its backend:
// exit status, stdout and stderr are those of the same case on SQLite.
// After a retry, one claim through the backend takes the period over.
// scripts/test starts both servers; under CI=true a missing one fails.
func TestLedgerServers(t *testing.T) {
	backends := map[string]func(t *testing.T) serverLedger{
		"postgres": postgresLedger,
		"redis":    redisLedger,
	}
	for name, open := range backends {
		t.Run(name, func(t *testing.T) {
			for _, tc := range ledgerCases {
				i := slices.Index(tc.args, "--sqlite")
				if i < 0 || tc.args[i+1] != "$DB" || slices.Contains(serverCasesLeftOut, tc.name) {
					continue
				}
				t.Run(tc.name, func(t *testing.T) {
					db := sqliteFixture(t)
					wantOut, wantErr, wantCode := runCLIAt(ledgerNow, expand(tc.args, db)...)

					srv := open(t)
					args := slices.Concat(tc.args[:i], srv.flags, tc.args[i+2:])
					stdout, stderr, code := runCLIAt(ledgerNow, args...)
					if code != wantCode || stdout != wantOut || stderr != wantErr {
						t.Errorf("on %s: exit %d\n%s%s\nwant (as on SQLite) exit %d\n%s%s", name, code, stdout, stderr, wantCode, wantOut, wantErr)
					}
					if tc.name == "ledger_retry" {
						r, err := srv.ledger.Claim(context.Background(), dstsafe.ClaimRequest{Job: "billing", Period: "2024-11-02", Owner: "billing-2"})
						if err != nil || r.Attempt != 2 || r.ReleasedBy != "ops@bastion" {
							t.Errorf("claim after retry on %s = %+v, %v; want the takeover the operator allowed", name, r, err)
						}
						_, err = srv.ledger.Claim(context.Background(), dstsafe.ClaimRequest{Job: "billing", Period: "2024-11-02", Owner: "billing-3"})
						if !errors.Is(err, dstsafe.ErrAlreadyClaimed) {
							t.Errorf("second claim after one retry on %s = %v, want ErrAlreadyClaimed", name, err)
						}
					}
				})
			}
		})
	}
}

var serverSeq int

// postgresLedger is a fixture in a new schema on the server
// DSTSAFE_TEST_POSTGRES_DSN names, dropped when t ends.
func postgresLedger(t *testing.T) serverLedger {
	dsn := testkit.RequireEnv(t, "DSTSAFE_TEST_POSTGRES_DSN")
	serverSeq++
	schema := fmt.Sprintf("dstsafe_cli_%d_%d", os.Getpid(), serverSeq)
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
	clock := clockwork.NewFakeClockAt(time.Date(2024, 10, 31, 6, 0, 0, 0, time.UTC))
	l, err := sqlledger.New(db, sqlledger.WithTable(table), sqlledger.WithClock(clock))
	if err != nil {
		t.Fatal(err)
	}
	if err := l.Migrate(context.Background()); err != nil {
		t.Fatalf("Migrate on PostgreSQL: %v", err)
	}
	seedLedger(t, l, clock)
	check, err := sqlledger.New(db, sqlledger.WithTable(table), sqlledger.WithClock(clockwork.NewFakeClockAt(ledgerNow)))
	if err != nil {
		t.Fatal(err)
	}
	return serverLedger{flags: []string{"--postgres", dsn, "--table", table}, ledger: check}
}

// redisLedger is a fixture under a new key prefix on the server
// DSTSAFE_TEST_REDIS_ADDR names, deleted when t ends.
func redisLedger(t *testing.T) serverLedger {
	addr := testkit.RequireEnv(t, "DSTSAFE_TEST_REDIS_ADDR")
	var b [6]byte
	_, _ = rand.Read(b[:])
	prefix := "dstsafe-cli-test:" + hex.EncodeToString(b[:]) + ":"
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
	clock := clockwork.NewFakeClockAt(time.Date(2024, 10, 31, 6, 0, 0, 0, time.UTC))
	seed, err := redisledger.New(c, redisledger.WithKeyPrefix(prefix), redisledger.WithClock(clock))
	if err != nil {
		t.Fatal(err)
	}
	seedLedger(t, seed, clock)
	check, err := redisledger.New(c, redisledger.WithKeyPrefix(prefix), redisledger.WithClock(clockwork.NewFakeClockAt(ledgerNow)))
	if err != nil {
		t.Fatal(err)
	}
	return serverLedger{flags: []string{"--redis", addr, "--prefix", prefix}, ledger: check}
}

package sqlledger_test

import (
	"context"
	"database/sql"
	"fmt"
	"os"
	"strings"
	"sync/atomic"
	"testing"

	_ "github.com/jackc/pgx/v5/stdlib" // registers the "pgx" driver

	"github.com/dstsafe/dstsafe/dstsafetest"
	"github.com/dstsafe/dstsafe/internal/testkit"
	"github.com/dstsafe/dstsafe/sqlledger"
	"github.com/dstsafe/dstsafe/sqlledger/internal/ledgertest"
)

const pgEnv = "DSTSAFE_TEST_POSTGRES_DSN"

// postgres is the backend of the shared tests (package ledgertest): each
// target is a table in a schema of its own that does not exist yet, on
// the server DSTSAFE_TEST_POSTGRES_DSN names. (Set in init: its broken
// ledgers are made with it.)
var postgres ledgertest.Backend

func init() {
	postgres = ledgertest.Backend{
		Name: "postgres",
		Fresh: func(tb testing.TB) ledgertest.Target {
			tb.Helper()
			dsn := testkit.RequireEnv(tb, pgEnv)
			schema := uniqueName()
			tb.Cleanup(func() { dropSchema(tb, dsn, schema) })
			return ledgertest.Target{DSN: dsn, Table: schema + ".job_runs"}
		},
		Open:   openPostgres,
		Broken: func(*testing.T) []dstsafetest.LedgerSuiteOption { return postgresBroken() },
	}
}

func openPostgres(tg ledgertest.Target, opts ...sqlledger.Option) (*sqlledger.Ledger, error) {
	dsn := tg.DSN
	if tg.Relaxed {
		sep := "?"
		if strings.Contains(dsn, "?") {
			sep = "&"
		}
		dsn += sep + "synchronous_commit=off"
	}
	db, err := sql.Open("pgx", dsn)
	if err != nil {
		return nil, err
	}
	l, err := sqlledger.New(db, append([]sqlledger.Option{sqlledger.WithTable(tg.Table), ledgertest.OwnDB()}, opts...)...)
	if err != nil {
		db.Close()
	}
	return l, err
}

func TestMain(m *testing.M) { ledgertest.Main(m, postgres) }

// TestLedger runs the tests every SQL dialect passes (conformance suite,
// grouped claims, migrations, multi-process races) on PostgreSQL.
func TestLedger(t *testing.T) { ledgertest.Run(t, postgres) }

// Claims per second: see ledgertest.BenchmarkClaim. Targets on a 2-core
// machine: >= 4,000/s at 8 workers with durable commits (fsync and
// synchronous_commit on, as scripts/services.sh runs it); under
// contention a shared Ledger at least as fast as one Ledger per worker.
func BenchmarkClaim(b *testing.B) {
	ledgertest.BenchmarkClaim(b, "postgres", postgres)
}

// RegisterJob per operation: see ledgertest.BenchmarkRegisterJob.
func BenchmarkRegisterJob(b *testing.B) {
	ledgertest.BenchmarkRegisterJob(b, "postgres", postgres)
}

// pgDB opens the test PostgreSQL database (skipping, or failing under
// CI=true, without DSTSAFE_TEST_POSTGRES_DSN).
func pgDB(t testing.TB) *sql.DB {
	t.Helper()
	dsn := testkit.RequireEnv(t, pgEnv)
	db, err := sql.Open("pgx", dsn)
	if err != nil {
		t.Fatalf("open %s: %v", pgEnv, err)
	}
	t.Cleanup(func() { db.Close() })
	if err := db.PingContext(context.Background()); err != nil {
		t.Fatalf("ping PostgreSQL at %s: %v", pgEnv, err)
	}
	return db
}

var nameSeq atomic.Int64

// uniqueName names a schema no other test, or test process, uses.
func uniqueName() string {
	return fmt.Sprintf("dstsafe_test_%d_%d", os.Getpid(), nameSeq.Add(1))
}

func dropSchema(tb testing.TB, dsn, schema string) {
	tb.Helper()
	db, err := sql.Open("pgx", dsn)
	if err != nil {
		tb.Errorf("drop schema %s: %v", schema, err)
		return
	}
	defer db.Close()
	if _, err := db.ExecContext(context.Background(), `DROP SCHEMA IF EXISTS `+schema+` CASCADE`); err != nil {
		tb.Errorf("drop schema %s: %v", schema, err)
	}
}

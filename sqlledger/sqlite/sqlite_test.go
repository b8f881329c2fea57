package sqlite_test

import (
	"context"
	"path/filepath"
	"testing"
	"time"

	"github.com/jonboulle/clockwork"

	"github.com/dstsafe/dstsafe"
	"github.com/dstsafe/dstsafe/dstsafetest"
	"github.com/dstsafe/dstsafe/sqlledger"
	"github.com/dstsafe/dstsafe/sqlledger/internal/ledgertest"
	"github.com/dstsafe/dstsafe/sqlledger/sqlite"
)

// backend is SQLite for the shared tests (package ledgertest): each target
// is a file that does not exist yet in a new temporary directory. (Set in
// init: its broken ledgers are made with it.)
var backend ledgertest.Backend

func init() {
	backend = ledgertest.Backend{
		Name: "sqlite",
		Fresh: func(tb testing.TB) ledgertest.Target {
			return ledgertest.Target{DSN: filepath.Join(tb.TempDir(), "ledger.db"), Table: sqlledger.DefaultTable}
		},
		Open: func(tg ledgertest.Target, opts ...sqlledger.Option) (*sqlledger.Ledger, error) {
			if tg.Relaxed {
				opts = append([]sqlledger.Option{sqlite.WithSynchronous(sqlite.SyncNormal), sqlite.WithBusyTimeout(time.Minute)}, opts...)
			}
			return sqlite.OpenSQLite(tg.DSN, append([]sqlledger.Option{sqlledger.WithTable(tg.Table)}, opts...)...)
		},
		Broken: broken,
	}
}

// broken are the ways a SQLite ledger cannot work until someone changes
// something, for the suite's Permanent subtest.
func broken(*testing.T) []dstsafetest.LedgerSuiteOption {
	return []dstsafetest.LedgerSuiteOption{
		dstsafetest.WithBrokenLedger("never migrated", func(t *testing.T, clock *clockwork.FakeClock) dstsafe.Ledger {
			l, _ := backend.Unmigrated(t, sqlledger.WithClock(clock))
			return l
		}),
		dstsafetest.WithBrokenLedger("closed", func(t *testing.T, clock *clockwork.FakeClock) dstsafe.Ledger {
			l := backend.New(t, sqlledger.WithClock(clock))
			if err := l.Close(); err != nil {
				t.Fatalf("Close: %v", err)
			}
			return l
		}),
	}
}

func TestMain(m *testing.M) { ledgertest.Main(m, backend) }

// TestLedger runs the tests every SQL dialect passes (conformance suite,
// grouped claims, migrations, multi-process races and start-up) on SQLite.
func TestLedger(t *testing.T) { ledgertest.Run(t, backend) }

// Claims per second: see ledgertest.BenchmarkClaim. Targets on a 2-core
// machine: synchronous NORMAL >= 20,000/s; FULL (the default) is reported
// for reference; under contention a shared Ledger at least as fast as one
// Ledger per worker.
func BenchmarkClaim(b *testing.B) {
	ledgertest.BenchmarkClaim(b, "sqlite-full", backend)
	ledgertest.BenchmarkClaim(b, "sqlite-normal", backend, sqlite.WithSynchronous(sqlite.SyncNormal))
}

// RegisterJob per operation: see ledgertest.BenchmarkRegisterJob.
func BenchmarkRegisterJob(b *testing.B) {
	ledgertest.BenchmarkRegisterJob(b, "sqlite-full", backend)
}

// Jobs (the CLI's unknown-job check, `dstsafe ledger jobs`) on 100,000
// records of 20 jobs: a loose index scan costs a seek per job, where a
// SELECT DISTINCT, for comparison, reads every record.
func BenchmarkJobs(b *testing.B) {
	l := backend.New(b) // migrated
	ctx := context.Background()
	if _, err := l.DB().ExecContext(ctx, `WITH RECURSIVE n(i) AS (SELECT 0 UNION ALL SELECT i + 1 FROM n WHERE i < 99999)
INSERT INTO `+sqlledger.DefaultTable+` (job_name, period, status, owner, token, attempt, started_at, lease_until)
SELECT 'job-' || (i % 20), printf('p%06d', i), 'succeeded', 'w', 1, 1, 0, 0 FROM n`); err != nil {
		b.Fatal(err)
	}
	b.Run("Jobs", func(b *testing.B) {
		for b.Loop() {
			if jobs, err := l.Jobs(ctx); err != nil || len(jobs) != 20 {
				b.Fatalf("Jobs = %d jobs, %v", len(jobs), err)
			}
		}
	})
	b.Run("distinct", func(b *testing.B) {
		for b.Loop() {
			rows, err := l.DB().QueryContext(ctx, `SELECT DISTINCT job_name FROM `+sqlledger.DefaultTable)
			if err != nil {
				b.Fatal(err)
			}
			n := 0
			for rows.Next() {
				n++
			}
			rows.Close()
			if n != 20 {
				b.Fatalf("%d jobs", n)
			}
		}
	})
}

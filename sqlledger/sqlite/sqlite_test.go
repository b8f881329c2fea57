package sqlite_test

import (
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

package dstsafetest_test

import (
	"testing"

	"github.com/jonboulle/clockwork"

	"github.com/dstsafe/dstsafe"
	"github.com/dstsafe/dstsafe/dstsafetest"
	"github.com/dstsafe/dstsafe/internal/testkit"
)

// A backend's test file runs the suite with a constructor that gives each
// subtest a fresh, isolated ledger on the suite's fake clock. (Examples of
// test helpers compile but do not run: they need a *testing.T.)
func ExampleRunLedgerTests() {
	_ = func(t *testing.T) { // func TestMyLedger(t *testing.T)
		dstsafetest.RunLedgerTests(t, func(t *testing.T, clock *clockwork.FakeClock) dstsafe.Ledger {
			return dstsafe.NewMemoryLedger(clock) // e.g. mybackend.New(client, mybackend.WithClock(clock), prefix(t))
		})
	}
}

// A test that needs a real server reads its address from the environment,
// skipping without it (failing under CI=true).
func ExampleRequireEnv() {
	_ = func(t *testing.T) {
		dsn := testkit.RequireEnv(t, "DSTSAFE_TEST_POSTGRES_DSN")
		_ = dsn // sql.Open("pgx", dsn) ...
	}
}

func ExampleBenchmarkClaims() {
	_ = func(b *testing.B) { // func BenchmarkMyLedgerClaim(b *testing.B)
		testkit.BenchmarkClaims(b, dstsafe.NewMemoryLedger(nil), 8)
	}
}

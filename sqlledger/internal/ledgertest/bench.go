package ledgertest

import (
	"fmt"
	"testing"

	"github.com/dstsafe/dstsafe/dstsafetest"
	"github.com/dstsafe/dstsafe/sqlledger"
)

// BenchmarkClaim runs the claim benchmarks as b.Run(name + "/...") on
// ledgers from open, each a fresh migrated ledger.
func BenchmarkClaim(b *testing.B, name string, open func(b *testing.B) *sqlledger.Ledger) {
	for _, workers := range []int{1, 8} {
		b.Run(fmt.Sprintf("%s/distinct/workers=%d", name, workers), func(b *testing.B) {
			dstsafetest.BenchmarkClaims(b, open(b), workers)
		})
	}
}

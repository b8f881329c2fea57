package dstsafe_test

import (
	"fmt"
	"testing"

	"github.com/jonboulle/clockwork"

	"github.com/dstsafe/dstsafe"
	"github.com/dstsafe/dstsafe/dstsafetest"
)

// Target on a 2-core machine: at least 1,000,000 claims/s.
func BenchmarkMemoryLedgerClaim(b *testing.B) {
	for _, workers := range []int{1, 8} {
		b.Run(fmt.Sprintf("workers=%d", workers), func(b *testing.B) {
			l := dstsafe.NewMemoryLedger(clockwork.NewFakeClock())
			dstsafetest.BenchmarkClaims(b, l, workers)
		})
	}
}

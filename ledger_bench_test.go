package dstsafe_test

import (
	"fmt"
	"testing"

	"github.com/jonboulle/clockwork"

	"github.com/dstsafe/dstsafe"
	"github.com/dstsafe/dstsafe/internal/testkit"
)

// Claims per second: workers=N, each claim a new period (the name
// scripts/bench reads), and contended/workers=N, every period claimed by
// all N workers. Target on a 2-core machine: at least 1,000,000 claims/s.
func BenchmarkMemoryLedgerClaim(b *testing.B) {
	for _, workers := range []int{1, 8} {
		b.Run(fmt.Sprintf("workers=%d", workers), func(b *testing.B) {
			testkit.BenchmarkClaims(b, dstsafe.NewMemoryLedger(clockwork.NewFakeClock()), workers)
		})
	}
	for _, workers := range []int{1, 8} {
		b.Run(fmt.Sprintf("contended/workers=%d", workers), func(b *testing.B) {
			testkit.BenchmarkContendedClaims(b, workers, dstsafe.NewMemoryLedger(clockwork.NewFakeClock()))
		})
	}
}

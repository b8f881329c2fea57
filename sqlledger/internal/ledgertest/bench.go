package ledgertest

import (
	"context"
	"fmt"
	"testing"

	"github.com/dstsafe/dstsafe"
	"github.com/dstsafe/dstsafe/internal/testkit"
	"github.com/dstsafe/dstsafe/sqlledger"
)

// BenchmarkClaim runs the claim benchmarks of backend be (with opts) as
// b.Run(name + "/..."), each on fresh migrated ledgers:
//
//	<name>/distinct/workers=N               each claim a new period, one shared Ledger
//	<name>/contended/workers=N              every period claimed by all N workers, one shared Ledger
//	<name>/contended-ledger-each/workers=8  the same, one Ledger per worker on one table
//
// Each reports claims/s (testkit.BenchmarkClaims,
// testkit.BenchmarkContendedClaims).
func BenchmarkClaim(b *testing.B, name string, be Backend, opts ...sqlledger.Option) {
	open := func(b *testing.B, tg Target) *sqlledger.Ledger {
		l := be.open(b, tg, opts...)
		l.DB().SetMaxIdleConns(8) // no reconnecting between the workers' claims
		if err := l.Migrate(context.Background()); err != nil {
			b.Fatalf("Migrate: %v", err)
		}
		return l
	}
	for _, workers := range []int{1, 8} {
		b.Run(fmt.Sprintf("%s/distinct/workers=%d", name, workers), func(b *testing.B) {
			testkit.BenchmarkClaims(b, open(b, be.Fresh(b)), workers)
		})
	}
	for _, workers := range []int{1, 8} {
		b.Run(fmt.Sprintf("%s/contended/workers=%d", name, workers), func(b *testing.B) {
			testkit.BenchmarkContendedClaims(b, workers, open(b, be.Fresh(b)))
		})
	}
	b.Run(fmt.Sprintf("%s/contended-ledger-each/workers=8", name), func(b *testing.B) {
		tg := be.Fresh(b)
		ls := make([]dstsafe.Ledger, 8)
		for i := range ls {
			ls[i] = open(b, tg)
		}
		testkit.BenchmarkContendedClaims(b, len(ls), ls...)
	})
}

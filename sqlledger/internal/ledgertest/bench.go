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

// BenchmarkRegisterJob runs the job registry benchmarks of backend be as
// b.Run(name + "/..."), each on a fresh migrated ledger:
//
//	<name>/again  the same job and schedule registered again (a replica's
//	              start: read, Merge, compare-and-set update)
//	<name>/new    a new job each time (read, Merge, insert)
func BenchmarkRegisterJob(b *testing.B, name string, be Backend, opts ...sqlledger.Option) {
	ctx := context.Background()
	const fp = "cron1;America/Chicago;2025b;first;shift;date;0;0;30 1 * * *"
	b.Run(name+"/again", func(b *testing.B) {
		l := be.New(b, opts...)
		reg := dstsafe.JobRegistration{Job: "billing", Owner: "billing-1", Schedule: fp, Spec: "CRON_TZ=America/Chicago 30 1 * * *"}
		for b.Loop() {
			if _, err := l.RegisterJob(ctx, reg); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run(name+"/new", func(b *testing.B) {
		l := be.New(b, opts...)
		i := 0
		for b.Loop() {
			i++
			reg := dstsafe.JobRegistration{Job: fmt.Sprintf("job-%d", i), Owner: "billing-1", Schedule: fp}
			if _, err := l.RegisterJob(ctx, reg); err != nil {
				b.Fatal(err)
			}
		}
	})
}

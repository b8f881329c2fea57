package redisledger_test

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/jonboulle/clockwork"

	"github.com/dstsafe/dstsafe"
	"github.com/dstsafe/dstsafe/internal/testkit"
	"github.com/dstsafe/dstsafe/redisledger"
)

// BenchmarkClaim measures claims per second, with the names the SQL
// ledgers' benchmarks use:
//
//	redis[-autopipeline]/distinct/workers=N  each claim a new period, one shared Ledger
//	redis/contended/workers=N                every period claimed by all N workers, one shared Ledger
//	redis/contended-ledger-each/workers=8    the same, one Ledger (and client) per worker
//
// Target on the project's 2-core machine: >= 20,000/s at 8 workers.
func BenchmarkClaim(b *testing.B) {
	for _, name := range []string{"redis", "redis-autopipeline"} {
		for _, workers := range []int{1, 8} {
			b.Run(fmt.Sprintf("%s/distinct/workers=%d", name, workers), func(b *testing.B) {
				var opts []redisledger.Option
				if name == "redis-autopipeline" {
					opts = append(opts, redisledger.WithAutoPipeline())
				}
				testkit.BenchmarkClaims(b, benchLedger(b, testPrefix(b, testClient(b)), opts...), workers)
			})
		}
	}
	for _, workers := range []int{1, 8} {
		b.Run(fmt.Sprintf("redis/contended/workers=%d", workers), func(b *testing.B) {
			testkit.BenchmarkContendedClaims(b, workers, benchLedger(b, testPrefix(b, testClient(b))))
		})
	}
	b.Run("redis/contended-ledger-each/workers=8", func(b *testing.B) {
		prefix := testPrefix(b, testClient(b))
		ls := make([]dstsafe.Ledger, 8)
		for i := range ls {
			ls[i] = benchLedger(b, prefix)
		}
		testkit.BenchmarkContendedClaims(b, len(ls), ls...)
	})
}

// benchLedger is a Ledger under prefix on a client of its own.
func benchLedger(b *testing.B, prefix string, opts ...redisledger.Option) *redisledger.Ledger {
	return mustNew(testClient(b), append([]redisledger.Option{redisledger.WithKeyPrefix(prefix),
		redisledger.WithClock(clockwork.NewFakeClockAt(testkit.SuiteStart))}, opts...)...)
}

// BenchmarkClaimRefused measures claims of a period that is already
// claimed (the path every replica but one takes at 01:30): each returns
// ErrAlreadyClaimed with the existing record.
func BenchmarkClaimRefused(b *testing.B) {
	for _, workers := range []int{1, 8} {
		b.Run(fmt.Sprintf("workers=%d", workers), func(b *testing.B) {
			benchClaims(b, workers, func(int64) string { return "2024-11-03" }, dstsafe.ErrAlreadyClaimed)
		})
	}
}

func benchClaims(b *testing.B, workers int, period func(int64) string, wantErr error, opts ...redisledger.Option) {
	c := testClient(b)
	l := mustNew(c, append([]redisledger.Option{redisledger.WithKeyPrefix(testPrefix(b, c)),
		redisledger.WithClock(clockwork.NewFakeClockAt(testkit.SuiteStart))}, opts...)...)
	ctx := context.Background()
	if wantErr != nil {
		if _, err := l.Claim(ctx, dstsafe.ClaimRequest{Job: "bench", Period: period(0), Owner: "first"}); err != nil {
			b.Fatal(err)
		}
	}
	var (
		next     atomic.Int64
		wg       sync.WaitGroup
		firstErr atomic.Pointer[error]
	)
	b.ReportAllocs()
	b.ResetTimer()
	for w := range workers {
		wg.Go(func() {
			owner := fmt.Sprint("w", w)
			for {
				i := next.Add(1) - 1
				if i >= int64(b.N) {
					return
				}
				_, err := l.Claim(ctx, dstsafe.ClaimRequest{Job: "bench", Period: period(i), Owner: owner})
				if (wantErr == nil && err != nil) || (wantErr != nil && !errors.Is(err, wantErr)) {
					firstErr.CompareAndSwap(nil, &err)
					return
				}
			}
		})
	}
	wg.Wait()
	b.StopTimer()
	if err := firstErr.Load(); err != nil {
		b.Fatalf("claim: %v", *err)
	}
	b.ReportMetric(float64(b.N)/b.Elapsed().Seconds(), "claims/s")
}

// BenchmarkRegisterJob measures one RegisterJob, by Redis TIME (no
// WithClock, as in production), with the names of the SQL ledgers'
// benchmarks: "again" registers the same job and schedule (a replica's
// start), "new" a new job each time.
func BenchmarkRegisterJob(b *testing.B) {
	ctx := context.Background()
	const fp = "cron1;America/Chicago;2025b;first;shift;date;0;0;30 1 * * *"
	c := testClient(b)
	b.Run("redis/again", func(b *testing.B) {
		l := mustNew(c, redisledger.WithKeyPrefix(testPrefix(b, c)))
		reg := dstsafe.JobRegistration{Job: "billing", Owner: "billing-1", Schedule: fp, Spec: "CRON_TZ=America/Chicago 30 1 * * *"}
		for b.Loop() {
			if _, err := l.RegisterJob(ctx, reg); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("redis/new", func(b *testing.B) {
		l := mustNew(c, redisledger.WithKeyPrefix(testPrefix(b, c)))
		i := 0
		for b.Loop() {
			i++
			if _, err := l.RegisterJob(ctx, dstsafe.JobRegistration{Job: fmt.Sprintf("job-%d", i), Owner: "billing-1", Schedule: fp}); err != nil {
				b.Fatal(err)
			}
		}
	})
}

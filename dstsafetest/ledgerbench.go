package dstsafetest

import (
	"context"
	"errors"
	"fmt"
	"strconv"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/dstsafe/dstsafe"
)

var benchRun atomic.Int64

// BenchmarkClaims measures fresh claims on l: b.N claims of distinct
// periods of one job, spread over workers goroutines, each claim a
// separate call as a scheduler makes it. It reports "claims/s" next to
// ns/op. Every call uses new period keys, so it can run repeatedly on
// one ledger. Any error fails the benchmark.
func BenchmarkClaims(b *testing.B, l dstsafe.Ledger, workers int) {
	b.Helper()
	if workers < 1 {
		workers = 1
	}
	run := benchRun.Add(1)
	ctx := context.Background()
	var (
		next atomic.Int64
		wg   sync.WaitGroup
		fail atomic.Pointer[error]
	)
	b.ReportAllocs()
	b.ResetTimer()
	for w := range workers {
		owner := fmt.Sprintf("bench-worker-%d", w)
		wg.Go(func() {
			prefix := fmt.Appendf(nil, "r%d/", run)
			for {
				i := next.Add(1)
				if i > int64(b.N) || fail.Load() != nil {
					return
				}
				period := string(strconv.AppendInt(prefix, i, 10))
				req := dstsafe.ClaimRequest{Job: "bench", Period: period, Owner: owner}
				if _, err := l.Claim(ctx, req); err != nil {
					fail.CompareAndSwap(nil, &err)
					return
				}
			}
		})
	}
	wg.Wait()
	b.StopTimer()
	if err := fail.Load(); err != nil {
		b.Fatalf("claim: %v", *err)
	}
	b.ReportMetric(float64(b.N)/b.Elapsed().Seconds(), "claims/s")
}

// BenchmarkContendedClaims measures claims of periods that every worker
// claims, as every replica does at a due instant: workers goroutines each
// claim the same periods, in the same order, one call per claim; worker w
// claims through ledgers[w%len(ledgers)], so one ledger is shared by all
// workers and len(ledgers) == workers gives each its own. An op is one
// claim: about b.N/workers periods, each claimed workers times. Exactly
// one claim of each period must win and every other must fail with
// ErrAlreadyClaimed; anything else fails the benchmark. It reports
// "claims/s" next to ns/op, and uses new period keys on every call.
func BenchmarkContendedClaims(b *testing.B, workers int, ledgers ...dstsafe.Ledger) {
	b.Helper()
	if workers < 1 {
		workers = 1
	}
	if len(ledgers) == 0 {
		b.Fatal("dstsafetest: BenchmarkContendedClaims without a ledger")
	}
	run := benchRun.Add(1)
	periods := (b.N + workers - 1) / workers
	ctx := context.Background()
	var (
		wg   sync.WaitGroup
		won  atomic.Int64
		fail atomic.Pointer[error]
	)
	b.ReportAllocs()
	b.ResetTimer()
	for w := range workers {
		l := ledgers[w%len(ledgers)]
		owner := fmt.Sprintf("bench-worker-%d", w)
		wg.Go(func() {
			prefix := fmt.Appendf(nil, "c%d/", run)
			for i := range periods {
				if fail.Load() != nil {
					return
				}
				period := string(strconv.AppendInt(prefix, int64(i), 10))
				_, err := l.Claim(ctx, dstsafe.ClaimRequest{Job: "bench", Period: period, Owner: owner})
				switch {
				case err == nil:
					won.Add(1)
				case !errors.Is(err, dstsafe.ErrAlreadyClaimed):
					fail.CompareAndSwap(nil, &err)
					return
				}
			}
		})
	}
	wg.Wait()
	b.StopTimer()
	if err := fail.Load(); err != nil {
		b.Fatalf("claim: %v", *err)
	}
	if n := won.Load(); n != int64(periods) {
		b.Fatalf("%d claims won for %d periods", n, periods)
	}
	b.ReportMetric(float64(periods*workers)/b.Elapsed().Seconds(), "claims/s")
}

package dstsafetest

import (
	"context"
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

package testkit

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
	run := benchRun.Add(1)
	var next atomic.Int64
	claims := timeWorkers(b, workers, func(w int, failed func() bool) error {
		owner := fmt.Sprintf("bench-worker-%d", w)
		prefix := fmt.Appendf(nil, "r%d/", run)
		for {
			i := next.Add(1)
			if i > int64(b.N) || failed() {
				return nil
			}
			period := string(strconv.AppendInt(prefix, i, 10))
			if _, err := l.Claim(context.Background(), dstsafe.ClaimRequest{Job: "bench", Period: period, Owner: owner}); err != nil {
				return err
			}
		}
	})
	b.ReportMetric(float64(claims)/b.Elapsed().Seconds(), "claims/s")
}

// timeWorkers runs work on workers goroutines (at least one) with b's
// timer running, and fails b with the first error any returns; failed
// tells the others to stop. It returns b.N.
func timeWorkers(b *testing.B, workers int, work func(w int, failed func() bool) error) int {
	b.Helper()
	var (
		wg   sync.WaitGroup
		fail atomic.Pointer[error]
	)
	failed := func() bool { return fail.Load() != nil }
	b.ReportAllocs()
	b.ResetTimer()
	for w := range max(workers, 1) {
		wg.Go(func() {
			if err := work(w, failed); err != nil {
				fail.CompareAndSwap(nil, &err)
			}
		})
	}
	wg.Wait()
	b.StopTimer()
	if err := fail.Load(); err != nil {
		b.Fatalf("claim: %v", *err)
	}
	return b.N
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
	if len(ledgers) == 0 {
		b.Fatal("dstsafetest: BenchmarkContendedClaims without a ledger")
	}
	workers = max(workers, 1)
	run := benchRun.Add(1)
	periods := (b.N + workers - 1) / workers
	var won atomic.Int64
	timeWorkers(b, workers, func(w int, failed func() bool) error {
		l := ledgers[w%len(ledgers)]
		owner := fmt.Sprintf("bench-worker-%d", w)
		prefix := fmt.Appendf(nil, "c%d/", run)
		for i := 0; i < periods && !failed(); i++ {
			period := string(strconv.AppendInt(prefix, int64(i), 10))
			_, err := l.Claim(context.Background(), dstsafe.ClaimRequest{Job: "bench", Period: period, Owner: owner})
			switch {
			case err == nil:
				won.Add(1)
			case !errors.Is(err, dstsafe.ErrAlreadyClaimed):
				return err
			}
		}
		return nil
	})
	if n := won.Load(); n != int64(periods) {
		b.Fatalf("%d claims won for %d periods", n, periods)
	}
	b.ReportMetric(float64(periods*workers)/b.Elapsed().Seconds(), "claims/s")
}

package dstsafe_test

import (
	"context"
	"fmt"
	"runtime"
	"strconv"
	"sync/atomic"
	"testing"
	"time"

	"github.com/dstsafe/dstsafe"
)

// listCounter counts a ledger's List calls and the records they return:
// the reconciler's cost.
type listCounter struct {
	dstsafe.Ledger
	lists, rows atomic.Int64
}

func (l *listCounter) List(ctx context.Context, job, from, to string) ([]dstsafe.Record, error) {
	l.lists.Add(1)
	recs, err := l.Ledger.List(ctx, job, from, to)
	l.rows.Add(int64(len(recs)))
	return recs, err
}

// BenchmarkReconcileWake measures what the reconciler costs per wake of
// the loop against the number of jobs: N daily jobs (none due in the
// measured hours), 10 of them with an abandoned period in their recovery
// window that no policy takes over (so they stay open, and every wake
// reconciles them, for an operator's release). The cost per wake, and the
// ledger List calls per wake, depend on the open jobs only, not on N:
//
//	go test -run '^$' -bench ReconcileWake -benchtime 1x .
func BenchmarkReconcileWake(b *testing.B) {
	for _, n := range []int{100, 10_000} {
		b.Run(fmt.Sprintf("jobs=%d", n), func(b *testing.B) {
			const open = 10
			start := time.Date(2024, 11, 1, 12, 0, 0, 0, time.UTC)
			_, clock, mem := newSim(b, start)
			ledger := &listCounter{Ledger: mem}
			s := dstsafe.NewScheduler(dstsafe.WithClock(clock), dstsafe.WithLedger(ledger), dstsafe.WithLogger(quiet()), dstsafe.WithOwner("bench"))
			ctx := context.Background()
			for i := range n {
				// Jobs 0..9 were due at 11:50, the rest on the 15th.
				spec := fmt.Sprintf("%d %d * * *", 50, 11)
				if i >= open {
					spec = fmt.Sprintf("%d %d 15 * *", i%60, i/60%24)
				}
				name := "job-" + strconv.Itoa(i)
				if err := s.Add(name, mustCron(b, spec), nop, dstsafe.WithRecoveryWindow(24*time.Hour)); err != nil {
					b.Fatal(err)
				}
				if i < open { // claimed at 11:50 by a replica that died: abandoned at 11:51
					if _, err := mem.Claim(ctx, dstsafe.ClaimRequest{Job: name, Period: "2024-11-01T11:50:00", Owner: "dead"}); err != nil {
						b.Fatal(err)
					}
				}
			}
			if _, err := dstsafe.Simulate(ctx, s, time.Second); err != nil { // the start: every job resumes
				b.Fatal(err)
			}
			var wakes, lists int64
			var spent, cpu time.Duration
			var m0, m1 runtime.MemStats
			runtime.ReadMemStats(&m0)
			for b.Loop() {
				l0 := ledger.lists.Load()
				t, c := time.Now(), processCPU()
				if _, err := dstsafe.Simulate(ctx, s, 50*time.Minute); err != nil {
					b.Fatal(err)
				}
				spent += time.Since(t)
				cpu += processCPU() - c
				lists += ledger.lists.Load() - l0
				wakes += 50 // one sweep a minute
			}
			runtime.ReadMemStats(&m1)
			b.ReportMetric(float64(spent.Nanoseconds())/1e3/float64(wakes), "µs/wake")
			b.ReportMetric(float64(cpu.Nanoseconds())/1e3/float64(wakes), "cpu-µs/wake")
			b.ReportMetric(float64(m1.Mallocs-m0.Mallocs)/float64(wakes), "allocs/wake")
			b.ReportMetric(float64(lists)/float64(wakes), "lists/wake")
		})
	}
}

package dstsafetest_test

import (
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/dstsafe/dstsafe"
	"github.com/dstsafe/dstsafe/dstsafetest"
)

// BenchmarkSimulateCluster runs a year (2024, both Chicago transitions)
// of n daily jobs at distinct minutes on three replicas (one 2 s ahead,
// one 1 s behind drifting 20 ppm) sharing a MemoryLedger: every period is
// claimed by the first replica and found claimed by the two others.
// ns/period is the cost per period of one job, all three replicas'
// handling included.
func BenchmarkSimulateCluster(b *testing.B) {
	for _, n := range []int{10, 50, 200} {
		b.Run(fmt.Sprintf("jobs=%d", n), func(b *testing.B) {
			setup := func(r *dstsafetest.Replica) error {
				loc, err := r.LoadLocation("America/Chicago")
				if err != nil {
					return err
				}
				for i := range n {
					c, err := dstsafe.ParseCron(fmt.Sprintf("%d %d * * *", i%60, (i/60)%24), dstsafe.WithLocation(loc))
					if err != nil {
						return err
					}
					if err := r.Add(fmt.Sprintf("job%03d", i), c, func(context.Context, dstsafe.Run) error { return nil }); err != nil {
						return err
					}
				}
				return nil
			}
			c := dstsafetest.Cluster{
				Start:    time.Date(2024, 1, 1, 6, 0, 0, 0, time.UTC),
				Replicas: []dstsafetest.ReplicaSpec{{}, {Offset: 2 * time.Second}, {Offset: -time.Second, DriftPPM: 20}},
				Setup:    setup,
			}
			periods := 0
			b.ReportAllocs()
			for b.Loop() {
				res, err := dstsafetest.SimulateCluster(context.Background(), c, 366*24*time.Hour)
				if err != nil {
					b.Fatal(err)
				}
				if len(res.Violations) > 0 {
					b.Fatal(res.Violations[0])
				}
				periods = len(res.Periods)
			}
			b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/float64(periods), "ns/period")
			b.ReportMetric(float64(periods), "periods")
		})
	}
}

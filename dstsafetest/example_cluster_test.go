package dstsafetest_test

import (
	"context"
	"fmt"
	"time"

	"github.com/dstsafe/dstsafe"
	"github.com/dstsafe/dstsafe/dstsafetest"
)

// Three replicas of a billing service through the 2024-11-03 fold in
// Chicago: r1's clock is 1 s fast, r2's 7 s fast (beyond the 5 s the
// ledger accepts by default). r1 reaches each 01:30 first and bills it,
// once; r2's claims are refused for clock skew, and it runs nothing.
func ExampleSimulateCluster() {
	setup := func(r *dstsafetest.Replica) error {
		chicago, err := r.LoadLocation("America/Chicago")
		if err != nil {
			return err
		}
		billing, err := dstsafe.ParseCron("30 1 * * *", dstsafe.WithLocation(chicago))
		if err != nil {
			return err
		}
		return r.Add("billing", billing, func(ctx context.Context, run dstsafe.Run) error {
			return nil // charge the customers of run.RunDate
		})
	}
	res, err := dstsafetest.SimulateCluster(context.Background(), dstsafetest.Cluster{
		Start:    time.Date(2024, 11, 2, 12, 0, 0, 0, time.UTC),
		Replicas: []dstsafetest.ReplicaSpec{{}, {Offset: time.Second}, {Offset: 7 * time.Second}},
		Setup:    setup,
	}, 48*time.Hour)
	if err != nil {
		fmt.Println(err)
		return
	}
	for _, e := range res.Executions {
		fmt.Println(e.Run.Period, "by", e.Owner, "at", e.At.Format(time.RFC3339))
	}
	for _, r := range res.Refusals {
		fmt.Println(r.Period, "refused to", r.Owner, "offset", r.Offset, "done by", r.DoneBy)
	}
	fmt.Println("violations:", len(res.Violations))
	// Output:
	// 2024-11-03T01:30:00 by r1 at 2024-11-03T06:29:59Z
	// 2024-11-04T01:30:00 by r1 at 2024-11-04T07:29:59Z
	// 2024-11-03T01:30:00 refused to r2 offset 7s done by [r1]
	// 2024-11-04T01:30:00 refused to r2 offset 7s done by [r1]
	// violations: 0
}

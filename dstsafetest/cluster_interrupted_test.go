package dstsafetest_test

import (
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/dstsafe/dstsafe"
	"github.com/dstsafe/dstsafe/dstsafetest"
)

// slowExport registers a 01:30 Chicago export whose work takes five
// minutes of the replica's clock (heartbeats keep its claim meanwhile);
// abandoned periods are taken over.
func slowExport(r *dstsafetest.Replica) error {
	loc, err := r.LoadLocation("America/Chicago")
	if err != nil {
		return err
	}
	c, err := dstsafe.ParseCron("30 1 * * *", dstsafe.WithLocation(loc))
	if err != nil {
		return err
	}
	return r.Add("export", c, func(ctx context.Context, run dstsafe.Run) error {
		return r.Sleep(ctx, 5*time.Minute)
	}, dstsafe.WithRetry(dstsafe.RetryPolicy{MaxAttempts: 2, Abandoned: true}, 0))
}

// An interrupted run is reported at the instant of the crash that
// interrupted it, the same in every run of the same cluster: a replica
// killed two minutes into its five-minute export (01:32 CDT on the fold
// night) returns from its work at 06:32:00Z, not whenever its goroutine
// got to record it.
func TestClusterInterruptedRunDeterministic(t *testing.T) {
	crashAt := time.Date(2024, 11, 3, 6, 32, 0, 0, time.UTC)
	c := dstsafetest.Cluster{
		Start:    time.Date(2024, 11, 2, 6, 0, 0, 0, time.UTC),
		Replicas: []dstsafetest.ReplicaSpec{{Offset: -time.Second}, {Offset: time.Second}},
		Setup:    slowExport,
		Crashes:  []dstsafetest.Crash{{Replica: 1, Point: dstsafetest.CrashAtInstant, At: crashAt, RestartAfter: 10 * time.Minute}},
	}
	once := func() []string {
		res, err := dstsafetest.SimulateCluster(simCtx(t), c, 48*time.Hour)
		require.NoError(t, err)
		dstsafetest.RequireClusterOnce(t, res)
		var out []string
		for _, e := range res.Executions {
			out = append(out, fmt.Sprintf("%s %s attempt %d started %s at %s interrupted=%v err=%v", e.Owner, e.Run.Period,
				e.Run.Attempt, e.Started.UTC().Format(time.RFC3339Nano), e.At.UTC().Format(time.RFC3339Nano), e.Interrupted, e.Err))
		}
		return out
	}
	first := once()
	var interrupted int
	for _, line := range first {
		if line == fmt.Sprintf("r1 2024-11-03T01:30:00 attempt 1 started 2024-11-03T06:30:00Z at %s interrupted=true err=%v",
			crashAt.Format(time.RFC3339Nano), dstsafetest.ErrCrashed) {
			interrupted++
		}
	}
	require.Equal(t, 1, interrupted, "r1's run of the fold night, interrupted at the crash:\n%v", first)
	for i := range 4 {
		require.Equal(t, first, once(), "run %d differs from the first", i+2)
	}
}

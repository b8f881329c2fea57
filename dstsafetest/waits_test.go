package dstsafetest_test

import (
	"context"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/dstsafe/dstsafe"
	"github.com/dstsafe/dstsafe/dstsafetest"
)

// simCtx bounds a simulation in a test by real time, a safety net and
// never a synchronisation (time moves on fake clocks): a simulation that
// never reaches its end (a scheduler that keeps finding work) fails the
// test with SimulateCluster's error, which says how far true time got and
// what had run, instead of running until go test's timeout; a replica
// that never goes idle (a job waiting on something no clock drives) is
// named in a *StuckError.
func simCtx(t testing.TB) context.Context {
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	t.Cleanup(cancel)
	return ctx
}

// A replica whose job never returns and never sleeps on its clock (it
// waits on a channel nothing closes, ignoring its context) keeps the
// cluster busy: time cannot move, and once stopped its Scheduler drains
// on a clock nobody moves. The simulation fails when its context ends,
// naming the stuck replica and the instant, instead of waiting for it
// for ever.
func TestSimulateClusterStuckReplicaFails(t *testing.T) {
	never := make(chan struct{})
	t.Cleanup(func() { close(never) }) // let the leaked job go
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Second)
	defer cancel()
	start := time.Date(2024, 11, 2, 6, 0, 0, 0, time.UTC)
	res, err := dstsafetest.SimulateCluster(ctx, dstsafetest.Cluster{
		Start:    start,
		Replicas: []dstsafetest.ReplicaSpec{{Name: "stuck"}},
		Setup: func(r *dstsafetest.Replica) error {
			c, err := dstsafe.ParseCron("30 6 * * *", dstsafe.WithLocation(time.UTC))
			if err != nil {
				return err
			}
			return r.Add("export", c, func(context.Context, dstsafe.Run) error {
				<-never
				return nil
			})
		},
	}, 24*time.Hour)
	require.ErrorIs(t, err, context.DeadlineExceeded)
	require.NotNil(t, res)
	// Stuck at the job's due instant, the replica named.
	var stuck *dstsafetest.StuckError
	require.ErrorAs(t, err, &stuck)
	require.Equal(t, []string{"stuck"}, stuck.Members)
	require.True(t, stuck.At.Equal(time.Date(2024, 11, 2, 6, 30, 0, 0, time.UTC)), stuck.At)
	require.Positive(t, stuck.Busy, "the job's goroutine")
	require.Empty(t, res.Executions, "the job never returned")
}

package dstsafetest_test

import (
	"context"
	"errors"
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
// cluster busy: time cannot move, and a stopped Scheduler would drain it
// on a clock nobody moves. The simulation fails when its context ends
// instead of waiting for ever: at the job's due instant, the job busy
// there (it cannot move time); or, when the job gets stuck only once the
// window has ended and the replica was stopped (its work, asleep on the
// clock, was cut short by the stop), with a *StuckError naming the
// replica still running and where.
func TestSimulateClusterStuckReplicaFails(t *testing.T) {
	start := time.Date(2024, 11, 2, 6, 0, 0, 0, time.UTC)
	for _, tc := range []struct {
		name  string
		sleep bool // the job sleeps on its clock past the window first
	}{{"busy at its due instant", false}, {"busy once stopped", true}} {
		t.Run(tc.name, func(t *testing.T) {
			never := make(chan struct{})
			t.Cleanup(func() { close(never) }) // let the leaked job go
			ctx, cancel := context.WithTimeout(context.Background(), 2*time.Second)
			defer cancel()
			res, err := dstsafetest.SimulateCluster(ctx, dstsafetest.Cluster{
				Start:    start,
				Replicas: []dstsafetest.ReplicaSpec{{Name: "stuck"}},
				Setup: func(r *dstsafetest.Replica) error {
					c, err := dstsafe.ParseCron("30 6 * * *", dstsafe.WithLocation(time.UTC))
					if err != nil {
						return err
					}
					return r.Add("export", c, func(ctx context.Context, _ dstsafe.Run) error {
						if tc.sleep {
							_ = r.Sleep(ctx, 48*time.Hour)
						}
						<-never
						return nil
					})
				},
			}, 24*time.Hour)
			require.ErrorIs(t, err, context.DeadlineExceeded)
			require.NotNil(t, res)
			require.Empty(t, res.Executions, "the job never returned")
			var stuck *dstsafetest.StuckError
			if !tc.sleep {
				require.False(t, errors.As(err, &stuck), "stopped for its context, the replica's Run returned: %v", err)
				return
			}
			require.ErrorAs(t, err, &stuck)
			require.Equal(t, []string{"stuck"}, stuck.Members)
			require.True(t, stuck.At.Equal(start.Add(24*time.Hour)), "stuck at the window's end, not %v", stuck.At)
			// Its drain waits for the job until 30 s (the default drain
			// timeout) after the stop, on a clock nobody moves.
			require.Contains(t, stuck.Wakes, start.Add(24*time.Hour+30*time.Second), "the drain's timer")
		})
	}
}

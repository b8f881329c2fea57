package dstsafetest_test

import (
	"context"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/dstsafe/dstsafe"
	"github.com/dstsafe/dstsafe/dstsafetest"
)

// clusterJobs registers the three jobs of the cluster tests in zone name:
// a fixed-time daily job at hhmm (in the transition hour), a */15
// periodic job and a ByDate midnight job; takeovers of abandoned and
// failed periods allowed (a crashed replica's claim is taken over).
func clusterJobs(name, daily string) func(r *dstsafetest.Replica) error {
	return func(r *dstsafetest.Replica) error {
		loc, err := r.LoadLocation(name)
		if err != nil {
			return err
		}
		retry := dstsafe.WithRetry(dstsafe.RetryPolicy{MaxAttempts: 3, Failed: true, Abandoned: true}, time.Minute)
		nop := func(context.Context, dstsafe.Run) error { return nil }
		for _, j := range []struct {
			name, spec string
			opts       []dstsafe.CronOption
		}{
			{"daily", daily, nil},
			{"quarter", "*/15 * * * *", nil},
			{"midnight", "0 0 * * *", []dstsafe.CronOption{dstsafe.WithPeriodKey(dstsafe.ByDate)}},
		} {
			c, err := dstsafe.ParseCron(j.spec, append([]dstsafe.CronOption{dstsafe.WithLocation(loc)}, j.opts...)...)
			if err != nil {
				return err
			}
			if err := r.Add(j.name, c, nop, retry); err != nil {
				return err
			}
		}
		return nil
	}
}

func TestClusterChicagoFallBack(t *testing.T) {
	start := time.Date(2024, 11, 2, 6, 0, 0, 0, time.UTC)
	res, err := dstsafetest.SimulateCluster(context.Background(), dstsafetest.Cluster{
		Start:    start,
		Replicas: []dstsafetest.ReplicaSpec{{}, {Offset: 2 * time.Second}, {Offset: -3 * time.Second, DriftPPM: 20}},
		Setup:    clusterJobs("America/Chicago", "30 1 * * *"),
	}, 48*time.Hour)
	require.NoError(t, err)
	require.Empty(t, res.RunErrors)
	dstsafetest.RequireClusterOnce(t, res)
	dstsafetest.RequireClusterExpected(t, res, "daily", 2)
	t.Logf("periods %d fires %d execs %d", len(res.Periods), len(res.Fires), len(res.Executions))
}

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

// The checker finds what it is for. A replica that crashes right after
// claiming and never comes back leaves the period abandoned: its peers
// saw it claimed and moved on, so it is reported lost; a ledger that
// forgets claims lets every replica run each period: reported twice.
func TestClusterReportsViolations(t *testing.T) {
	start := time.Date(2024, 11, 2, 6, 0, 0, 0, time.UTC)
	replicas := []dstsafetest.ReplicaSpec{{}, {Offset: 2 * time.Second}, {Offset: -2 * time.Second}}
	res, err := dstsafetest.SimulateCluster(context.Background(), dstsafetest.Cluster{
		Start:    start,
		Replicas: replicas,
		Setup:    clusterJobs("America/Chicago", "30 1 * * *"),
		Crashes: []dstsafetest.Crash{{Replica: 1, Point: dstsafetest.CrashAfterClaim, Job: "daily",
			Period: "2024-11-03T01:30:00", RestartAfter: -1}},
	}, 48*time.Hour)
	require.NoError(t, err)
	require.Len(t, res.Violations, 1, "%v", res.Violations)
	v := res.Violations[0]
	require.Equal(t, dstsafetest.ViolationLost, v.Kind)
	require.Equal(t, "daily", v.Job)
	require.Equal(t, "2024-11-03T01:30:00", v.Period)
	// 01:30 CDT, the first of the two 01:30s that night.
	require.True(t, v.Due.Equal(time.Date(2024, 11, 3, 6, 30, 0, 0, time.UTC)), v.Due)
	f := &fakeT{}
	dstsafetest.RequireClusterOnce(f, res)
	require.True(t, f.failed)
	require.Contains(t, f.text(), "job daily period 2024-11-03T01:30:00 (due 2024-11-03T01:30:00-05:00): lost, done 0 times")

	res, err = dstsafetest.SimulateCluster(context.Background(), dstsafetest.Cluster{
		Start:    start,
		Replicas: replicas,
		Setup:    clusterJobs("America/Chicago", "30 1 * * *"),
		Ledger: func(store dstsafe.Clock) (dstsafe.Ledger, error) {
			return forgetful{dstsafe.NewMemoryLedger(store)}, nil
		},
	}, 48*time.Hour)
	require.NoError(t, err)
	expected := map[string]bool{}
	for _, p := range res.Periods {
		if p.Expected {
			expected[p.Job+" "+p.Period] = true
		}
	}
	thrice := 0
	for _, v := range res.Violations {
		require.Equal(t, dstsafetest.ViolationTwice, v.Kind, v.String())
		if !expected[v.Job+" "+v.Period] {
			// At the window's edges a replica whose clock is ahead
			// started after the period, or one behind ended before it.
			require.Equal(t, 2, v.Count, v.String())
			continue
		}
		require.Equal(t, 3, v.Count, v.String())
		require.Equal(t, []string{"r1", "r0", "r2"}, v.Replicas, "in the order their clocks reached the period")
		thrice++
	}
	require.Len(t, expected, thrice, "every expected period, of every job, reported")
	f = &fakeT{}
	dstsafetest.RequireClusterOnce(f, res)
	require.True(t, f.failed)

	f = &fakeT{}
	dstsafetest.RequireClusterOnce(f, &dstsafetest.ClusterResult{})
	require.False(t, f.failed, "no period, no violation")
	dstsafetest.RequireClusterExpected(f, res, "daily", 3)
	require.True(t, f.failed, "two daily periods in the window, not three")
}

// forgetful is a broken ledger: each claim succeeds under a fresh period
// key, so no claim ever meets another.
type forgetful struct{ *dstsafe.MemoryLedger }

func (l forgetful) Claim(ctx context.Context, req dstsafe.ClaimRequest) (dstsafe.Record, error) {
	req.Period += "#" + req.Owner
	return l.MemoryLedger.Claim(ctx, req)
}

func (l forgetful) Heartbeat(ctx context.Context, job, period string, token int64, lease time.Duration) (dstsafe.Record, error) {
	return dstsafe.Record{}, nil
}

func (l forgetful) Finish(ctx context.Context, job, period string, token int64, state dstsafe.State, reason string) (dstsafe.Record, error) {
	return dstsafe.Record{}, nil
}

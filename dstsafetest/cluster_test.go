package dstsafetest_test

import (
	"context"
	"errors"
	"fmt"
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
	return clusterJobsWith(name, daily, dstsafe.WithRetry(dstsafe.RetryPolicy{MaxAttempts: 3, Failed: true, Abandoned: true}, time.Minute))
}

// clusterJobsWith is clusterJobs with the jobs' options opts instead of
// their retry policy: none, and a crashed replica's claim is never taken
// over.
func clusterJobsWith(name, daily string, opts ...dstsafe.JobOption) func(r *dstsafetest.Replica) error {
	return func(r *dstsafetest.Replica) error {
		loc, err := r.LoadLocation(name)
		if err != nil {
			return err
		}
		nop := func(context.Context, dstsafe.Run) error { return nil }
		for _, j := range []struct {
			name, spec string
			opts       []dstsafe.CronOption
		}{
			{"daily", daily, nil},
			// Periodic, but never at the same instant as daily or midnight:
			// a replica crashed right after claiming daily must not have
			// another job in flight, or that job's run may finish but go
			// unrecorded, and its Abandoned takeover run it again (a real
			// at-least-once double, which the simulator rightly reports).
			{"quarter", "7-59/15 * * * *", nil},
			{"midnight", "0 0 * * *", []dstsafe.CronOption{dstsafe.WithPeriodKey(dstsafe.ByDate)}},
		} {
			c, err := dstsafe.ParseCron(j.spec, append([]dstsafe.CronOption{dstsafe.WithLocation(loc)}, j.opts...)...)
			if err != nil {
				return err
			}
			if err := r.Add(j.name, c, nop, opts...); err != nil {
				return err
			}
		}
		return nil
	}
}

// The checker finds what it is for. A replica that crashes right after
// claiming and never comes back leaves the period abandoned: when the
// job's RetryPolicy allows no takeover (the default), its peers report it
// missed and never run it, so it is reported lost (with takeovers
// allowed a peer runs it once the lease has lapsed: no violation); a
// ledger that forgets claims lets every replica run each period:
// reported twice.
func TestClusterReportsViolations(t *testing.T) {
	start := time.Date(2024, 11, 2, 6, 0, 0, 0, time.UTC)
	replicas := []dstsafetest.ReplicaSpec{{}, {Offset: 2 * time.Second}, {Offset: -2 * time.Second}}
	crash := []dstsafetest.Crash{{Replica: 1, Point: dstsafetest.CrashAfterClaim, Job: "daily",
		Period: "2024-11-03T01:30:00", RestartAfter: -1}}
	res, err := dstsafetest.SimulateCluster(simCtx(t), dstsafetest.Cluster{
		Start:    start,
		Replicas: replicas,
		Setup:    clusterJobs("America/Chicago", "30 1 * * *"),
		Crashes:  crash,
	}, 48*time.Hour)
	require.NoError(t, err)
	require.Empty(t, res.Violations, "the abandoned period taken over")
	dstsafetest.RequireClusterOnce(t, res)
	var takenOver []string
	for _, e := range res.Executions {
		if e.Run.Job == "daily" && e.Run.Period == "2024-11-03T01:30:00" {
			takenOver = append(takenOver, fmt.Sprintf("%s attempt %d", e.Owner, e.Run.Attempt))
		}
	}
	// r1 claimed first (its clock 2 s ahead) and did no work; r0 and r2
	// both reconcile once the lease has lapsed, the ledger lets one in.
	require.Len(t, takenOver, 1, "run by a survivor: %v", takenOver)
	require.Contains(t, []string{"r0 attempt 2", "r2 attempt 2"}, takenOver[0])

	res, err = dstsafetest.SimulateCluster(simCtx(t), dstsafetest.Cluster{
		Start:    start,
		Replicas: replicas,
		Setup:    clusterJobsWith("America/Chicago", "30 1 * * *"),
		Crashes:  crash,
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

	res, err = dstsafetest.SimulateCluster(simCtx(t), dstsafetest.Cluster{
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

func TestSimulateClusterInvalid(t *testing.T) {
	start := time.Date(2024, 11, 2, 6, 0, 0, 0, time.UTC)
	ok := dstsafetest.Cluster{Start: start, Replicas: []dstsafetest.ReplicaSpec{{}}, Setup: func(*dstsafetest.Replica) error { return nil }}
	for _, tc := range []struct {
		name string
		edit func(c *dstsafetest.Cluster)
		d    time.Duration
	}{
		{"zero start", func(c *dstsafetest.Cluster) { c.Start = time.Time{} }, time.Hour},
		{"no replica", func(c *dstsafetest.Cluster) { c.Replicas = nil }, time.Hour},
		{"nil setup", func(c *dstsafetest.Cluster) { c.Setup = nil }, time.Hour},
		{"negative duration", func(*dstsafetest.Cluster) {}, -time.Hour},
		{"negative settle", func(c *dstsafetest.Cluster) { c.Settle = -time.Second }, time.Hour},
		{"clock running backwards", func(c *dstsafetest.Cluster) { c.Replicas = []dstsafetest.ReplicaSpec{{DriftPPM: -1e6}} }, time.Hour},
		{"crash of no replica", func(c *dstsafetest.Cluster) {
			c.Crashes = []dstsafetest.Crash{{Replica: 1, Point: dstsafetest.CrashAtInstant}}
		}, time.Hour},
		{"crash at no point", func(c *dstsafetest.Cluster) { c.Crashes = []dstsafetest.Crash{{Replica: 0}} }, time.Hour},
	} {
		t.Run(tc.name, func(t *testing.T) {
			c := ok
			tc.edit(&c)
			_, err := dstsafetest.SimulateCluster(simCtx(t), c, tc.d)
			require.ErrorIs(t, err, dstsafetest.ErrInvalidCluster)
		})
	}
	setupErr := errors.New("no such zone")
	c := ok
	c.Setup = func(*dstsafetest.Replica) error { return setupErr }
	_, err := dstsafetest.SimulateCluster(simCtx(t), c, time.Hour)
	require.ErrorIs(t, err, setupErr)
}

// A replica's clock reads true time plus its offset plus its drift: a
// job sees 1000 ppm (86.4 s a day) on top of 3 s, computed here from the
// true instant the simulator recorded.
func TestClusterClockOffsetAndDrift(t *testing.T) {
	start := time.Date(2024, 6, 1, 0, 0, 0, 0, time.UTC)
	res, err := dstsafetest.SimulateCluster(simCtx(t), dstsafetest.Cluster{
		Start: start,
		// A bound wide enough for 4.5 minutes of error: this test is
		// about the clock, not about the ledger refusing it.
		Replicas: []dstsafetest.ReplicaSpec{{Offset: 3 * time.Second, DriftPPM: 1000,
			Options: []dstsafe.SchedulerOption{dstsafe.WithMaxClockOffset(time.Hour)}}},
		Setup:  clusterJobs("America/Chicago", "30 1 * * *"),
		Settle: time.Hour,
	}, 72*time.Hour)
	require.NoError(t, err)
	dstsafetest.RequireClusterOnce(t, res)
	require.NotEmpty(t, res.Executions)
	for _, e := range res.Executions {
		el := e.At.Sub(start)
		want := e.At.Add(3*time.Second + el/1000)
		require.True(t, e.Started.Sub(want).Abs() <= time.Microsecond, "true %v: clock %v, want %v", e.At, e.Started, want)
		// It fires by its own clock: at the due instant on it.
		require.True(t, e.Started.Equal(e.Run.Due), "%s: started %v, due %v", e.Run.Period, e.Started, e.Run.Due)
	}
}

// The same cluster twice gives the same runs, by the same replicas, at
// the same instants: skew, drift, and crashes at instants. (A crash at an
// event point races the replica's other goroutines at that instant, as a
// real crash does: whether a job due at the same instant claimed before
// it varies, never whether each period runs once.)
func TestClusterDeterministic(t *testing.T) {
	c := dstsafetest.Cluster{
		Start:    time.Date(2024, 11, 2, 6, 0, 0, 0, time.UTC),
		Replicas: []dstsafetest.ReplicaSpec{{}, {Offset: 2 * time.Second, DriftPPM: 5}, {Offset: -2 * time.Second}},
		Setup:    clusterJobs("America/Chicago", "30 1 * * *"),
		Crashes: []dstsafetest.Crash{{Replica: 1, Point: dstsafetest.CrashAtInstant, At: time.Date(2024, 11, 3, 6, 20, 0, 0, time.UTC), RestartAfter: 10 * time.Minute},
			{Replica: 0, Point: dstsafetest.CrashAtInstant, At: time.Date(2024, 11, 3, 7, 0, 0, 0, time.UTC), RestartAfter: time.Hour}},
	}
	type run struct {
		owner, job, period string
		at                 time.Time
		attempt            int
	}
	once := func() []run {
		res, err := dstsafetest.SimulateCluster(simCtx(t), c, 48*time.Hour)
		require.NoError(t, err)
		dstsafetest.RequireClusterOnce(t, res)
		var out []run
		for _, e := range res.Executions {
			out = append(out, run{e.Owner, e.Run.Job, e.Run.Period, e.At, e.Run.Attempt})
		}
		return out
	}
	first := once()
	for range 3 {
		require.Equal(t, first, once())
	}
}

// A replica crashed while its job works (a CrashAtInstant during the
// job's Sleep) leaves the work interrupted and the claim running; once
// the lease has lapsed the first replica to reconcile the job takes the
// abandoned period over: the survivor r0, a wake interval after the
// lease ended, well before r1 restarts ten minutes after its crash. The
// period runs exactly twice: attempt 1 interrupted, attempt 2 done.
func TestClusterCrashWhileWorking(t *testing.T) {
	start := time.Date(2024, 11, 2, 6, 0, 0, 0, time.UTC)
	var replica1 *dstsafetest.Replica
	res, err := dstsafetest.SimulateCluster(simCtx(t), dstsafetest.Cluster{
		Start:    start,
		Replicas: []dstsafetest.ReplicaSpec{{Offset: -time.Second}, {Offset: time.Second}},
		Setup: func(r *dstsafetest.Replica) error {
			if r.Index == 1 && r.Restarts == 0 {
				replica1 = r
			}
			loc, err := r.LoadLocation("America/Chicago")
			if err != nil {
				return err
			}
			c, err := dstsafe.ParseCron("30 1 * * *", dstsafe.WithLocation(loc))
			if err != nil {
				return err
			}
			return r.Add("export", c, func(ctx context.Context, run dstsafe.Run) error {
				return r.Sleep(ctx, 5*time.Minute) // five minutes of work: heartbeats keep the claim
			}, dstsafe.WithRetry(dstsafe.RetryPolicy{MaxAttempts: 2, Abandoned: true}, 0))
		},
		// 01:32 CDT on the fold night: two minutes into r1's run.
		Crashes: []dstsafetest.Crash{{Replica: 1, Point: dstsafetest.CrashAtInstant, At: time.Date(2024, 11, 3, 6, 32, 0, 0, time.UTC), RestartAfter: 10 * time.Minute}},
	}, 48*time.Hour)
	require.NoError(t, err)
	require.NotNil(t, replica1)
	dstsafetest.RequireClusterOnce(t, res)
	var got []string
	for _, e := range res.Executions {
		if e.Run.Period == "2024-11-03T01:30:00" {
			got = append(got, fmt.Sprintf("%s attempt %d interrupted=%v", e.Owner, e.Run.Attempt, e.Interrupted))
		}
	}
	require.Equal(t, []string{"r1 attempt 1 interrupted=true", "r0 attempt 2 interrupted=false"}, got)
}

func TestRequireSkewRefusedFails(t *testing.T) {
	res, err := dstsafetest.SimulateCluster(simCtx(t), dstsafetest.Cluster{
		Start:    time.Date(2024, 11, 2, 6, 0, 0, 0, time.UTC),
		Replicas: []dstsafetest.ReplicaSpec{{}, {Offset: time.Second}},
		Setup:    clusterJobs("America/Chicago", "30 1 * * *"),
	}, 6*time.Hour)
	require.NoError(t, err)
	f := &fakeT{}
	dstsafetest.RequireSkewRefused(f, res, 1)
	require.True(t, f.failed)
	require.Contains(t, f.text(), "replica 1 had no claim refused for clock skew")
	require.Contains(t, f.text(), "replica 1 (r1) did the work of job quarter")
}

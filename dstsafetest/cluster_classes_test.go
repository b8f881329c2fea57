package dstsafetest_test

import (
	"context"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/dstsafe/dstsafe"
	"github.com/dstsafe/dstsafe/dstsafetest"
)

// billingAt registers a daily Chicago billing job at spec (the
// replica's first process) and, after a restart, at restartSpec when it
// is not empty: a deploy that changed the schedule.
func billingAt(spec, restartSpec string) func(r *dstsafetest.Replica) error {
	return func(r *dstsafetest.Replica) error {
		loc, err := r.LoadLocation("America/Chicago")
		if err != nil {
			return err
		}
		if r.Restarts > 0 && restartSpec != "" {
			spec = restartSpec
		}
		c, err := dstsafe.ParseCron(spec, dstsafe.WithLocation(loc))
		if err != nil {
			return err
		}
		return r.Add("billing", c, func(context.Context, dstsafe.Run) error { return nil })
	}
}

// losing is a ledger that loses one success: from lag after the period's
// Finish(succeeded) on (by the store's clock), reads answer as if the
// period had never been claimed, as a store does after a failover to a
// replica that had not received the write, or a restore from an older
// backup.
type losing struct {
	dstsafe.Ledger
	store       dstsafe.Clock
	job, period string
	lag         time.Duration

	mu     sync.Mutex
	lostAt time.Time
}

func (l *losing) lost(job, period string) bool {
	l.mu.Lock()
	defer l.mu.Unlock()
	return job == l.job && period == l.period && !l.lostAt.IsZero() && !l.store.Now().Before(l.lostAt)
}

func (l *losing) Finish(ctx context.Context, job, period string, token int64, state dstsafe.State, reason string) (dstsafe.Record, error) {
	rec, err := l.Ledger.Finish(ctx, job, period, token, state, reason)
	if err == nil && state == dstsafe.StateSucceeded && job == l.job && period == l.period {
		l.mu.Lock()
		l.lostAt = l.store.Now().Add(l.lag)
		l.mu.Unlock()
	}
	return rec, err
}

func (l *losing) Get(ctx context.Context, job, period string) (dstsafe.Record, error) {
	if l.lost(job, period) {
		return dstsafe.Record{}, dstsafe.ErrNotFound
	}
	return l.Ledger.Get(ctx, job, period)
}

func (l *losing) List(ctx context.Context, job, from, to string) ([]dstsafe.Record, error) {
	recs, err := l.Ledger.List(ctx, job, from, to)
	kept := recs[:0]
	for _, r := range recs {
		if !l.lost(r.Job, r.Period) {
			kept = append(kept, r)
		}
	}
	return kept, err
}

// The cluster checker, one violation kind at a time, each with the
// smallest cluster that shows it: RequireClusterOnce must fail with the
// kind, the period and who did it, and report nothing else.
func TestClusterViolationClasses(t *testing.T) {
	start := time.Date(2024, 11, 2, 12, 0, 0, 0, time.UTC) // 07:00 CDT, the day before the fold
	fold := "2024-11-03T01:30:00"                          // 01:30 CDT, 06:30Z
	for _, tc := range []struct {
		name    string
		cluster dstsafetest.Cluster
		want    dstsafetest.ViolationKind
		period  string
		count   int
		by      []string
		zones   []string
	}{
		{
			// A plain double: two replicas on a ledger that forgets claims
			// both bill the night. (Three replicas would make it a triple.)
			name: "twice",
			cluster: dstsafetest.Cluster{Replicas: []dstsafetest.ReplicaSpec{{}, {Offset: time.Second}},
				Setup: billingAt("30 1 * * *", ""),
				Ledger: func(store dstsafe.Clock) (dstsafe.Ledger, error) {
					return forgetful{dstsafe.NewMemoryLedger(store)}, nil
				}},
			want: dstsafetest.ViolationTwice, period: fold, count: 2, by: []string{"r1", "r0"},
		},
		{
			// One replica dies right after claiming the night and never
			// comes back: nobody bills it.
			name: "missing",
			cluster: dstsafetest.Cluster{Replicas: []dstsafetest.ReplicaSpec{{}}, Setup: billingAt("30 1 * * *", ""),
				Crashes: []dstsafetest.Crash{{Replica: 0, Point: dstsafetest.CrashAfterClaim, Period: fold, RestartAfter: -1}}},
			want: dstsafetest.ViolationLost, period: fold, count: 0,
		},
		{
			// The store accepts the night's success and loses it ten
			// minutes later: billed once, but nothing in the ledger says
			// so, and a backfill would bill it again.
			name: "unrecorded",
			cluster: dstsafetest.Cluster{Replicas: []dstsafetest.ReplicaSpec{{}}, Setup: billingAt("30 1 * * *", ""),
				Ledger: func(store dstsafe.Clock) (dstsafe.Ledger, error) {
					return &losing{Ledger: dstsafe.NewMemoryLedger(store), store: store, job: "billing", period: fold, lag: 10 * time.Minute}, nil
				}},
			want: dstsafetest.ViolationUnrecorded, period: fold, count: 1, by: []string{"r0"},
		},
		{
			// The replica restarts (at 00:00 CDT) with a deploy that moved
			// billing to 03:30: the 03:30 run is a period the schedule the
			// cluster started with never had.
			name: "unexpected",
			cluster: dstsafetest.Cluster{Replicas: []dstsafetest.ReplicaSpec{{}}, Setup: billingAt("30 1 * * *", "30 3 * * *"),
				Crashes: []dstsafetest.Crash{{Replica: 0, Point: dstsafetest.CrashAtInstant,
					At: time.Date(2024, 11, 3, 5, 0, 0, 0, time.UTC), RestartAfter: 0}}},
			want: dstsafetest.ViolationUnexpected, period: "2024-11-03T03:30:00", count: 1, by: []string{"r0#1"},
		},
		{
			// One of two replicas is configured with UTC instead of
			// America/Chicago: it bills the night at 01:30 UTC, five hours
			// before 01:30 CDT, and the other finds it done. Once, recorded,
			// at the wrong instant.
			name: "wrong zone",
			cluster: dstsafetest.Cluster{Replicas: []dstsafetest.ReplicaSpec{{}, {}},
				Setup: func(r *dstsafetest.Replica) error {
					loc, err := r.LoadLocation("America/Chicago")
					if err != nil {
						return err
					}
					if r.Index == 1 {
						loc = time.UTC // the config bug
					}
					c, err := dstsafe.ParseCron("30 1 * * *", dstsafe.WithLocation(loc))
					if err != nil {
						return err
					}
					return r.Add("billing", c, func(context.Context, dstsafe.Run) error { return nil })
				}},
			want: dstsafetest.ViolationWrongZone, period: fold, count: 1, by: []string{"r1"},
			zones: []string{"America/Chicago 2024-11-03T06:30:00Z by r0", "UTC 2024-11-03T01:30:00Z by r1"},
		},
	} {
		t.Run(tc.name, func(t *testing.T) {
			c := tc.cluster
			c.Start = start
			res, err := dstsafetest.SimulateCluster(simCtx(t), c, 36*time.Hour)
			require.NoError(t, err)
			require.Empty(t, res.RunErrors)
			var found *dstsafetest.Violation
			for i, v := range res.Violations {
				if v.Job == "billing" && v.Period == tc.period && v.Kind == tc.want {
					found = &res.Violations[i]
				}
			}
			require.NotNil(t, found, "no %s violation for %s; got %v", tc.want, tc.period, res.Violations)
			require.Equal(t, tc.count, found.Count, found.String())
			if tc.by != nil {
				require.Equal(t, tc.by, found.Replicas, found.String())
			}
			require.Equal(t, tc.zones, found.Zones, found.String())
			f := &fakeT{}
			dstsafetest.RequireClusterOnce(f, res)
			require.True(t, f.failed, "RequireClusterOnce passed a cluster with a %s period", tc.want)
			head, _, _ := strings.Cut(found.String(), "\n")
			require.Contains(t, f.text(), head)
		})
	}
}

// The lost success alone: every other period of the window is fine, and
// the checker names only the night whose record the store lost, reading
// the ledger at the end rather than trusting Finish's answer.
func TestClusterLostSuccessIsUnrecorded(t *testing.T) {
	fold := "2024-11-03T01:30:00"
	res, err := dstsafetest.SimulateCluster(simCtx(t), dstsafetest.Cluster{
		Start:    time.Date(2024, 11, 1, 12, 0, 0, 0, time.UTC),
		Replicas: []dstsafetest.ReplicaSpec{{}, {Offset: time.Second}},
		Setup:    billingAt("30 1 * * *", ""),
		Ledger: func(store dstsafe.Clock) (dstsafe.Ledger, error) {
			return &losing{Ledger: dstsafe.NewMemoryLedger(store), store: store, job: "billing", period: fold, lag: 10 * time.Minute}, nil
		},
	}, 96*time.Hour)
	require.NoError(t, err)
	dstsafetest.RequireClusterExpected(t, res, "billing", 4)
	require.Len(t, res.Violations, 1, "%v", res.Violations)
	v := res.Violations[0]
	require.Equal(t, dstsafetest.ViolationUnrecorded, v.Kind, v.String())
	require.Equal(t, fold, v.Period)
	require.Equal(t, 1, v.Count)
	for _, p := range res.Periods {
		if p.Period == fold {
			require.Empty(t, p.Recorded, "the ledger holds no success for %s at the end", fold)
		} else {
			require.Len(t, p.Recorded, 1, "%s: %+v", p.Period, p)
		}
	}
	f := &fakeT{}
	dstsafetest.RequireClusterOnce(f, res)
	require.True(t, f.failed, "RequireClusterOnce passed a ledger that lost a success")
	require.Contains(t, f.text(), "job billing period 2024-11-03T01:30:00 (due 2024-11-03T01:30:00-05:00): unrecorded, done 1 times by r1")
}

package dstsafetest_test

import (
	"os"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/dstsafe/dstsafe/dstsafetest"
	"github.com/dstsafe/dstsafe/event"
)

// Three replicas through a summer week of 2023 in Mexico City, some on
// tz data from before Mexico abolished DST (tzdata 2022f), some after:
// the old rules put 01:30 at 06:30Z, the new ones at 07:30Z. Whichever
// side is the majority, every period of every job runs exactly once,
// none lost; whoever reaches a period second reports it (event.ZoneData),
// with its own instant and the record's, and for the daily job they are
// the abolished hour apart.
func TestClusterMixedZoneData(t *testing.T) {
	oldTree, newTree := dstsafetest.ZoneLoader(os.DirFS("testdata/tzdiff/old")), dstsafetest.ZoneLoader(os.DirFS("testdata/tzdiff/new"))
	for _, tc := range []struct {
		name  string
		trees []func(string) (*time.Location, error)
		// The replicas that reach each period second: the ones on the new
		// rules, whose instants are an hour later.
		late []int
	}{
		{"two old, one new", []func(string) (*time.Location, error){oldTree, oldTree, newTree}, []int{2}},
		{"one old, two new", []func(string) (*time.Location, error){oldTree, newTree, newTree}, []int{1, 2}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			specs := make([]dstsafetest.ReplicaSpec, len(tc.trees))
			for i, tr := range tc.trees {
				specs[i] = dstsafetest.ReplicaSpec{Zones: tr, Offset: time.Duration(i) * time.Second}
			}
			res, err := dstsafetest.SimulateCluster(simCtx(t), dstsafetest.Cluster{
				Start:    time.Date(2023, 6, 4, 0, 0, 0, 0, time.UTC),
				Replicas: specs,
				Setup:    clusterJobs("America/Mexico_City", "30 1 * * *"),
			}, 7*24*time.Hour)
			require.NoError(t, err)
			require.Empty(t, res.RunErrors)
			dstsafetest.RequireClusterOnce(t, res)
			dstsafetest.RequireClusterExpected(t, res, "daily", 7)
			late := map[int]bool{}
			for _, i := range tc.late {
				late[i] = true
			}
			daily := 0
			for _, e := range res.Events {
				if e.Type != event.ZoneData {
					continue
				}
				require.True(t, late[e.Replica], "replica %d reached %s %s first but reported it", e.Replica, e.Job, e.Period)
				require.Error(t, e.Err)
				require.NotNil(t, e.Recorded)
				if e.Job == "daily" {
					daily++
					require.Equal(t, time.Hour, e.Due.Sub(e.Recorded.StartedAt).Round(time.Minute), "%s: the abolished hour", e.Period)
				}
			}
			require.GreaterOrEqual(t, daily, 6, "the daily periods the new rules reach second are reported")
			for _, x := range res.Executions {
				if x.Run.Job == "daily" && x.Completed() {
					require.False(t, late[x.Replica], "%s ran on the new rules' replica %s", x.Run.Period, x.Owner)
					require.Equal(t, 6, x.Run.Due.UTC().Hour(), "old rules: 01:30 CDT is 06:30Z")
				}
			}
		})
	}
}

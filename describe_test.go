package dstsafe_test

import (
	"context"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/dstsafe/dstsafe"
)

// Describe lists the next occurrences with the Kind and Period the oracle
// gives them across both nights (a fold's two readings, a gap's shifted
// one), the jittered start of each, the latest record and the pause
// state.
func TestDescribeAcrossTheNights(t *testing.T) {
	chicago := zone(t, "America/Chicago")
	for _, night := range chicagoNights {
		for _, tc := range []struct {
			spec  string
			walls func(from, to int64) []int64
			p     policy
			n     int
		}{
			{"*/30 * * * *", every(30), periodicPolicy, 60},
			{"30 1 * * *", daily(1, 30), fixedPolicy, 3},
			{"30 2 * * *", daily(2, 30), fixedPolicy, 3},
		} {
			t.Run(night.name+"/"+tc.spec, func(t *testing.T) {
				s, _, _ := newSim(t, night.start)
				ctx := context.Background()
				require.NoError(t, s.Add("sync", mustCron(t, tc.spec, dstsafe.WithLocation(chicago)), nop, dstsafe.WithJitter(5*time.Minute)))
				d, err := s.Describe(ctx, "sync", tc.n)
				require.NoError(t, err)
				require.Nil(t, d.Last)
				require.Equal(t, tc.spec, d.Schedule.(*dstsafe.Cron).String())
				want := oracleFires(t, "America/Chicago", tc.walls, tc.p, night.start, night.start.Add(72*time.Hour))[:tc.n]
				require.Len(t, d.Next, tc.n)
				for i, u := range d.Next {
					require.Equal(t, want[i].Period, u.Period)
					require.Equal(t, want[i].Kind, u.Kind, u.Period)
					require.True(t, u.At.Equal(fireAt(want[i])), u.Period)
					j := u.Start.Sub(u.At)
					require.True(t, j >= 0 && j < 5*time.Minute, "jitter %v", j)
				}

				fires, err := dstsafe.Simulate(ctx, s, 24*time.Hour)
				require.NoError(t, err)
				require.NoError(t, s.Pause(ctx, "sync", "audit"))
				d, err = s.Describe(ctx, "sync", 1)
				require.NoError(t, err)
				require.NotNil(t, d.Last)
				require.Equal(t, fires[len(fires)-1].Period, d.Last.Period)
				require.Equal(t, dstsafe.StateSucceeded, d.Last.State)
				require.True(t, d.Pause.Paused)
				require.Equal(t, "audit", d.Pause.Reason)
				require.Equal(t, 5*time.Minute, d.Jitter)
				require.Equal(t, dstsafe.OverlapSkip, d.Overlap)
				require.Equal(t, dstsafe.CatchUpLatest{}, d.CatchUp)
			})
		}
	}
	s, _, _ := newSim(t, time.Date(2024, 1, 1, 0, 0, 0, 0, time.UTC))
	_, err := s.Describe(context.Background(), "nope", 1)
	require.ErrorIs(t, err, dstsafe.ErrUnknownJob)
}

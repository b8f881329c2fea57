package dstsafe_test

import (
	"context"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/dstsafe/dstsafe"
)

// WithBounds compares the instant a period fires at, never its wall
// reading: a start at 07:00Z on 2024-11-03 (01:00 CST, the instant the
// Chicago clocks went back) keeps the second 01:30 of a FoldBoth job and
// drops the first; an end at 03:00 CDT on 2024-03-10 drops the 02:30 run
// the gap shifted to 03:30 CDT, and a periodic job's last periods are
// 01:30 CST and 03:00 CDT, the end itself (02:00 and 02:30 never happen). Outside the bounds nothing runs or
// is recorded; after the end Describe lists nothing; RunNow refuses a
// period outside. The periods are the oracle's.
func TestBoundsAcrossTheNights(t *testing.T) {
	chicago := zone(t, "America/Chicago")
	for _, tc := range []struct {
		name       string
		spec       string
		opts       []dstsafe.CronOption
		walls      func(from, to int64) []int64
		p          policy
		start, end time.Time // bounds
		simStart   time.Time
		outside    string // a period of the schedule outside the bounds
	}{
		{"fold start", "30 1 * * *", []dstsafe.CronOption{dstsafe.WithFold(dstsafe.FoldBoth)}, daily(1, 30), fixedPolicy.with(dstsafe.FoldBoth, 0),
			time.Date(2024, 11, 3, 7, 0, 0, 0, time.UTC), time.Time{}, time.Date(2024, 11, 2, 12, 0, 0, 0, time.UTC), "2024-11-03T01:30:00"},
		{"gap end, fixed-time", "30 2 * * *", nil, daily(2, 30), fixedPolicy,
			time.Time{}, time.Date(2024, 3, 10, 8, 0, 0, 0, time.UTC), time.Date(2024, 3, 8, 12, 0, 0, 0, time.UTC), "2024-03-10T02:30:00"},
		{"gap end, periodic", "*/30 * * * *", nil, every(30), periodicPolicy,
			time.Date(2024, 3, 9, 18, 0, 0, 0, time.UTC), time.Date(2024, 3, 10, 8, 0, 0, 0, time.UTC), time.Date(2024, 3, 9, 12, 0, 0, 0, time.UTC), "2024-03-10T03:30:00"}, // 03:00 CDT is the end: in
	} {
		t.Run(tc.name, func(t *testing.T) {
			s, _, ledger := newSim(t, tc.simStart)
			require.NoError(t, s.Add("sync", mustCron(t, tc.spec, append(tc.opts, dstsafe.WithLocation(chicago))...), nop,
				dstsafe.WithBounds(tc.start, tc.end)))
			fires, err := dstsafe.Simulate(simCtx(t), s, 72*time.Hour)
			require.NoError(t, err)
			all := oracleFires(t, "America/Chicago", tc.walls, tc.p, tc.simStart.Add(-time.Second), tc.simStart.Add(72*time.Hour))
			lo, hi := tc.start, tc.end
			if lo.IsZero() {
				lo = tc.simStart
			}
			if hi.IsZero() {
				hi = tc.simStart.Add(72 * time.Hour)
			}
			want := inRange(all, lo, hi.Add(time.Nanosecond)) // both bounds included
			require.NotEmpty(t, want)
			require.Less(t, len(want), len(all))
			require.Equal(t, periods(want), firePeriods(fires, "sync"))
			require.Len(t, records(t, ledger, "sync"), len(want))
			require.ErrorIs(t, s.RunNow(context.Background(), "sync", tc.outside), dstsafe.ErrInvalidArgument)
			if !tc.end.IsZero() {
				d, err := s.Describe(context.Background(), "sync", 5)
				require.NoError(t, err)
				require.Empty(t, d.Next)
				require.True(t, d.End.Equal(tc.end))
			}
		})
	}
}

// An end before the start is refused; equal bounds keep the one instant.
func TestBoundsArguments(t *testing.T) {
	at := time.Date(2024, 6, 1, 6, 0, 0, 0, time.UTC)
	s, _, _ := newSim(t, at.Add(-time.Hour))
	err := s.Add("a", mustCron(t, "0 6 * * *"), nop, dstsafe.WithBounds(at, at.Add(-time.Second)))
	require.ErrorIs(t, err, dstsafe.ErrInvalidArgument)
	var ae *dstsafe.ArgError
	require.ErrorAs(t, err, &ae)
	require.Equal(t, "WithBounds", ae.Func)
	require.NoError(t, s.Add("b", mustCron(t, "0 6 * * *"), nop, dstsafe.WithBounds(at, at)))
	fires, err := dstsafe.Simulate(simCtx(t), s, 72*time.Hour)
	require.NoError(t, err)
	require.Equal(t, []string{"2024-06-01T06:00:00"}, firePeriods(fires, "b"))
}

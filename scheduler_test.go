package dstsafe_test

import (
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/jonboulle/clockwork"
	"github.com/stretchr/testify/require"

	"github.com/dstsafe/dstsafe"
	"github.com/dstsafe/dstsafe/dstsafetest"
)

// The postmortem's test: the 01:30 America/Chicago billing job, simulated
// across each transition night with a 20 s poll like the original worker,
// runs exactly once per run date.
func TestPostmortemBillingOncePerRunDate(t *testing.T) {
	chicago := zone(t, "America/Chicago")
	for _, tc := range []struct {
		name  string
		start time.Time
	}{
		{"2024 fall back", time.Date(2024, 11, 2, 12, 0, 0, 0, time.UTC)},     // 01:30 happens twice on 11-03 (CDT then CST)
		{"2024 spring forward", time.Date(2024, 3, 9, 12, 0, 0, 0, time.UTC)}, // 02:00-03:00 skipped on 03-10; 01:30 is fine
		{"2025 fall back", time.Date(2025, 11, 1, 12, 0, 0, 0, time.UTC)},     // 01:30 twice on 11-02
		{"2025 spring forward", time.Date(2025, 3, 8, 12, 0, 0, 0, time.UTC)}, // gap on 03-09
	} {
		t.Run(tc.name, func(t *testing.T) {
			s, _, _ := newSim(t, tc.start)
			require.NoError(t, s.Add("billing", mustCron(t, "30 1 * * *", dstsafe.WithLocation(chicago)), nop))
			fires, err := dstsafe.Simulate(simCtx(t), s, 48*time.Hour, dstsafe.WithStep(20*time.Second))
			require.NoError(t, err)
			require.Len(t, fires, 2, "fires: %v", fires)
			seen := map[dstsafe.Date]int{}
			for _, f := range fires {
				seen[f.RunDate]++
				// Expectation from time.Time, not from the code under test: the
				// first 01:30 of that date in Chicago.
				y, m, d := f.Due.In(chicago).Date()
				want := firstReading(t, chicago, wall(y, m, d, 1, 30, 0))
				require.True(t, f.Due.Equal(want), "fire %v due %v, want %v", f, f.Due, want)
				require.Equal(t, dstsafe.Date{Year: y, Month: m, Day: d}, f.RunDate)
			}
			for d, n := range seen {
				require.Equal(t, 1, n, "run date %v fired %d times", d, n)
			}
		})
	}
}

func TestAddErrors(t *testing.T) {
	s, _, _ := newSim(t, time.Date(2024, 11, 2, 12, 0, 0, 0, time.UTC))
	daily := mustCron(t, "30 1 * * *")
	require.NoError(t, s.Add("billing", daily, nop))
	for _, tc := range []struct {
		name  string
		job   string
		sched dstsafe.Schedule
		fn    func(context.Context, dstsafe.Run) error
		opts  []dstsafe.JobOption
		want  error
	}{
		{"empty name", "", daily, nop, nil, dstsafe.ErrInvalidArgument},
		{"name not UTF-8", "bill\xffing", daily, nop, nil, dstsafe.ErrInvalidArgument},
		{"duplicate", "billing", daily, nop, nil, dstsafe.ErrInvalidArgument},
		{"nil schedule", "a", nil, nop, nil, dstsafe.ErrInvalidArgument},
		{"nil *Cron", "b", (*dstsafe.Cron)(nil), nop, nil, dstsafe.ErrInvalidArgument},
		{"nil func", "c", daily, nil, nil, dstsafe.ErrInvalidArgument},
		// A location is never optional: nil is an error, not UTC.
		{"nil run-date location", "d", daily, nop,
			[]dstsafe.JobOption{dstsafe.WithRunDateLocation(nil)}, dstsafe.ErrInvalidArgument},
		{"nil schedule location", "e", dstsafe.Schedule(plain{daily}), nop,
			[]dstsafe.JobOption{dstsafe.WithScheduleLocation(nil)}, dstsafe.ErrInvalidArgument},
		{"unknown overlap", "f", daily, nop,
			[]dstsafe.JobOption{dstsafe.WithOverlap(dstsafe.Overlap(9))}, dstsafe.ErrInvalidArgument},
	} {
		t.Run(tc.name, func(t *testing.T) {
			err := s.Add(tc.job, tc.sched, tc.fn, tc.opts...)
			require.ErrorIs(t, err, tc.want)
			var je *dstsafe.JobError
			require.ErrorAs(t, err, &je)
			require.Equal(t, tc.job, je.Job)
		})
	}
	// Nothing half-registered: the failed names are free.
	require.NoError(t, s.Add("a", daily, nop))
}

// plain hides a schedule's NextOccurrence, as a robfig/cron schedule would.
type plain struct{ s dstsafe.Schedule }

func (p plain) Next(t time.Time) time.Time { return p.s.Next(t) }

// A scheduler down for three days (from 2024-11-02 12:00Z, after the
// 11-02 run, to 11-05 12:00Z) catches up per policy when a new one starts
// on the same ledger: every period from 11-02 to 11-06 ends with exactly
// one record, either run once or skipped, and nothing runs twice.
func TestCatchUpAfterThreeDaysDown(t *testing.T) {
	chicago := zone(t, "America/Chicago")
	day := func(d int) string { return fmt.Sprintf("2024-11-%02dT01:30:00", d) }
	for _, tc := range []struct {
		name    string
		policy  dstsafe.CatchUpPolicy
		ran     []int // days of November whose 01:30 runs after the restart
		skipped []int
	}{
		{"latest (default)", nil, []int{5, 6}, []int{3, 4}},
		{"all within a week", dstsafe.CatchUpAll{Window: 7 * 24 * time.Hour}, []int{3, 4, 5, 6}, nil},
		// 11-04 01:30 CST was 28.5 h before the restart, 11-03 01:30 CDT 53.5 h.
		{"all within 36 h", dstsafe.CatchUpAll{Window: 36 * time.Hour}, []int{4, 5, 6}, []int{3}},
		{"all, at most 1", dstsafe.CatchUpAll{Window: 7 * 24 * time.Hour, Max: 1}, []int{5, 6}, []int{3, 4}},
		{"skip", dstsafe.CatchUpSkip{}, []int{6}, []int{3, 4, 5}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			clock := clockwork.NewFakeClockAt(time.Date(2024, 11, 1, 12, 0, 0, 0, time.UTC))
			ledger := dstsafe.NewMemoryLedger(clock)
			sched := mustCron(t, "30 1 * * *", dstsafe.WithLocation(chicago))
			newS := func() *dstsafe.Scheduler {
				return dstsafe.NewScheduler(dstsafe.WithClock(clock), dstsafe.WithLedger(ledger), dstsafe.WithLogger(quiet()))
			}
			s1 := newS()
			require.NoError(t, s1.Add("billing", sched, nop))
			fires, err := dstsafe.Simulate(simCtx(t), s1, 24*time.Hour)
			require.NoError(t, err)
			dstsafetest.RequireFireCount(t, fires, 1)

			clock.Advance(72 * time.Hour) // down until 2024-11-05T12:00Z
			restart := clock.Now()
			s2 := newS()
			var opts []dstsafe.JobOption
			if tc.policy != nil { // nil: the default, no option
				opts = append(opts, dstsafe.WithCatchUp(tc.policy))
			}
			require.NoError(t, s2.Add("billing", sched, nop, opts...))
			fires, err = dstsafe.Simulate(simCtx(t), s2, 24*time.Hour)
			require.NoError(t, err)
			dstsafetest.RequireOncePerPeriod(t, fires)

			var got []string
			for _, f := range fires {
				got = append(got, f.Period)
				if f.Due.Before(restart) {
					require.True(t, f.Started.Equal(restart), "late run %v starts at the restart", f)
				} else {
					require.True(t, f.Started.Equal(f.Due), "on-time run %v", f)
				}
			}
			var want []string
			for _, d := range tc.ran {
				want = append(want, day(d))
			}
			require.Equal(t, want, got)

			recs, err := ledger.List(context.Background(), "billing", "", "")
			require.NoError(t, err)
			states := map[string]dstsafe.State{}
			for _, r := range recs {
				states[r.Period] = r.State
			}
			wantStates := map[string]dstsafe.State{day(2): dstsafe.StateSucceeded}
			for _, d := range tc.ran {
				wantStates[day(d)] = dstsafe.StateSucceeded
			}
			for _, d := range tc.skipped {
				wantStates[day(d)] = dstsafe.StateSkipped
			}
			require.Equal(t, wantStates, states)
		})
	}
}

package dstsafe_test

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/dstsafe/dstsafe"
	"github.com/dstsafe/dstsafe/dstsafetest"
	"github.com/dstsafe/dstsafe/event"
)

// instants is a plain Schedule that fires at the given instants.
type instants []time.Time

func (in instants) Next(t time.Time) time.Time {
	for _, at := range in {
		if at.After(t) {
			return at
		}
	}
	return time.Time{}
}

// records returns job's records by period.
func records(t testing.TB, l dstsafe.Ledger, job string) map[string]dstsafe.Record {
	t.Helper()
	recs, err := l.List(context.Background(), job, "", "")
	require.NoError(t, err)
	m := map[string]dstsafe.Record{}
	for _, r := range recs {
		m[r.Period] = r
	}
	return m
}

// firePeriods lists the fires' periods, for job.
func firePeriods(fires []dstsafe.Fire, job string) []string {
	var out []string
	for _, f := range fires {
		if f.Job == job {
			out = append(out, f.Period)
		}
	}
	return out
}

// A job paused while the Scheduler runs (by another job, at 00:10 local)
// and resumed at 09:10Z skips every period due in between, recorded as
// skipped ("paused"): across the fold both readings of a periodic job and
// the one reading of a fixed-time one, across the gap the periods that
// exist (a fixed-time 02:30 shifted to 03:30 CDT among them). On resume
// it runs on from the next period, with no burst, even under CatchUpAll.
// The periods are the oracle's (time package only).
func TestPauseAcrossTheNights(t *testing.T) {
	for _, tc := range []struct {
		night        string
		start, pause time.Time
		spec         string
		walls        func(from, to int64) []int64
		p            policy
	}{
		{"fold", time.Date(2024, 11, 2, 12, 0, 0, 0, time.UTC), time.Date(2024, 11, 3, 5, 10, 0, 0, time.UTC), // 00:10 CDT
			"*/30 * * * *", every(30), periodicPolicy},
		{"fold", time.Date(2024, 11, 2, 12, 0, 0, 0, time.UTC), time.Date(2024, 11, 3, 5, 10, 0, 0, time.UTC),
			"30 1 * * *", daily(1, 30), fixedPolicy},
		{"gap", time.Date(2024, 3, 9, 12, 0, 0, 0, time.UTC), time.Date(2024, 3, 10, 6, 10, 0, 0, time.UTC), // 00:10 CST
			"*/30 * * * *", every(30), periodicPolicy},
		{"gap", time.Date(2024, 3, 9, 12, 0, 0, 0, time.UTC), time.Date(2024, 3, 10, 6, 10, 0, 0, time.UTC),
			"30 2 * * *", daily(2, 30), fixedPolicy},
	} {
		t.Run(tc.night+"/"+tc.spec, func(t *testing.T) {
			chicago := zone(t, "America/Chicago")
			resume := time.Date(tc.pause.Year(), tc.pause.Month(), tc.pause.Day(), 9, 10, 0, 0, time.UTC) // 03:10 CST / 04:10 CDT
			ev := &eventLog{}
			s, _, ledger := newSim(t, tc.start, dstsafe.WithObserver(ev))
			require.NoError(t, s.Add("sync", mustCron(t, tc.spec, dstsafe.WithLocation(chicago)), nop,
				dstsafe.WithCatchUp(dstsafe.CatchUpAll{Window: 48 * time.Hour})))
			var states []dstsafe.Pause
			require.NoError(t, s.Add("ops", instants{tc.pause, resume}, func(ctx context.Context, r dstsafe.Run) error {
				if r.Due.Equal(tc.pause) {
					require.NoError(t, s.Pause(ctx, "sync", "upstream down"))
				} else {
					require.NoError(t, s.Resume(ctx, "sync"))
				}
				p, err := s.Paused(ctx, "sync")
				require.NoError(t, err)
				states = append(states, p)
				return nil
			}, dstsafe.WithScheduleLocation(time.UTC)))
			fires, err := dstsafe.Simulate(simCtx(t), s, 48*time.Hour)
			require.NoError(t, err)

			// Simulate's window is closed at both ends, the oracle's open at its start.
			want := oracleFires(t, "America/Chicago", tc.walls, tc.p, tc.start.Add(-time.Second), tc.start.Add(48*time.Hour))
			var ran, paused []string
			for _, f := range want {
				if at := fireAt(f); !at.Before(tc.pause) && at.Before(resume) {
					paused = append(paused, f.Period)
				} else {
					ran = append(ran, f.Period)
				}
			}
			require.NotEmpty(t, paused)
			require.Equal(t, ran, firePeriods(fires, "sync"), "periods run")
			recs := records(t, ledger, "sync")
			for _, p := range paused {
				require.Equal(t, dstsafe.StateSkipped, recs[p].State, p)
				require.Equal(t, "paused", recs[p].Reason, p)
				require.True(t, ev.has(event.Skipped, p), p)
			}
			require.Len(t, recs, len(want), "one record per period")
			// No burst: every run started when it was due.
			for _, f := range fires {
				require.True(t, f.Started.Equal(f.Due), "%v started late", f)
			}
			dstsafetest.RequireOncePerPeriod(t, fires)

			require.Len(t, states, 2)
			require.True(t, states[0].Paused)
			require.Equal(t, "upstream down", states[0].Reason)
			require.Equal(t, "test", states[0].By)
			require.True(t, states[0].Since.Equal(tc.pause))
			require.False(t, states[1].Paused)
			require.True(t, states[1].Since.Equal(resume))
			var types []event.Type
			for _, e := range ev.all() {
				if e.Job == "sync" && (e.Type == event.Paused || e.Type == event.Resumed) {
					types = append(types, e.Type)
				}
			}
			require.Equal(t, []event.Type{event.Paused, event.Resumed}, types)
		})
	}
}

// The pause lives in the ledger: a Scheduler started later, or another
// replica, finds the job paused and skips its periods; a Resume made
// while every Scheduler was down (here straight in the ledger, as the
// `dstsafe ledger resume` CLI does) makes the periods due before it
// "paused" and hands the ones after it to the catch-up policy.
func TestPauseIsDurableAndClusterWide(t *testing.T) {
	chicago := zone(t, "America/Chicago")
	start := time.Date(2024, 11, 2, 12, 0, 0, 0, time.UTC)
	hourly := mustCron(t, "0 * * * *", dstsafe.WithLocation(chicago))
	a, clock, ledger := newSim(t, start, dstsafe.WithOwner("a"))
	require.NoError(t, a.Add("sync", hourly, nop))
	_, err := dstsafe.Simulate(simCtx(t), a, 3*time.Hour) // 12:00Z..15:00Z ran
	require.NoError(t, err)
	require.NoError(t, a.Pause(context.Background(), "sync", "maintenance"))

	// Replica b, started later on the same ledger, obeys.
	b := dstsafe.NewScheduler(dstsafe.WithClock(clock), dstsafe.WithLedger(ledger), dstsafe.WithLogger(quiet()), dstsafe.WithOwner("b"))
	require.NoError(t, b.Add("sync", hourly, nop))
	fires, err := dstsafe.Simulate(simCtx(t), b, 3*time.Hour) // 16:00Z..18:00Z skipped
	require.NoError(t, err)
	require.Empty(t, fires)
	p, err := b.Paused(context.Background(), "sync")
	require.NoError(t, err)
	require.Equal(t, dstsafe.Pause{Paused: true, By: "a", Reason: "maintenance", Since: start.Add(3 * time.Hour)}, p)

	// Everyone down from 18:00Z. The operator resumes at 20:30Z; a
	// Scheduler starts at 23:10Z with CatchUpAll.
	clock.Advance(150 * time.Minute)
	_, err = ledger.SetPause(context.Background(), "sync", dstsafe.Pause{Paused: false, By: "operator"})
	require.NoError(t, err)
	clock.Advance(160 * time.Minute)
	c := dstsafe.NewScheduler(dstsafe.WithClock(clock), dstsafe.WithLedger(ledger), dstsafe.WithLogger(quiet()), dstsafe.WithOwner("c"))
	require.NoError(t, c.Add("sync", hourly, nop, dstsafe.WithCatchUp(dstsafe.CatchUpAll{Window: 24 * time.Hour})))
	fires, err = dstsafe.Simulate(simCtx(t), c, 0)
	require.NoError(t, err)

	recs := records(t, ledger, "sync")
	for h := 12; h <= 23; h++ {
		at := time.Date(2024, 11, 2, h, 0, 0, 0, time.UTC)
		period := dstsafe.WallOf(at.In(chicago)).String()
		r := recs[period]
		switch {
		case h <= 15: // ran by a
			require.Equal(t, dstsafe.StateSucceeded, r.State, period)
			require.Equal(t, "a", r.Owner)
		case h <= 20: // due while paused: b skipped 16-18, c the ones nobody saw
			require.Equal(t, dstsafe.StateSkipped, r.State, period)
			require.Equal(t, "paused", r.Reason, period)
		default: // after the resume: caught up by CatchUpAll
			require.Equal(t, dstsafe.StateSucceeded, r.State, period)
			require.Equal(t, "c", r.Owner)
		}
	}
	require.Equal(t, "b", recs[dstsafe.WallOf(start.Add(4*time.Hour).In(chicago)).String()].Owner)
	require.Equal(t, "c", recs[dstsafe.WallOf(start.Add(7*time.Hour).In(chicago)).String()].Owner)
	require.Len(t, fires, 3, "21:00Z, 22:00Z, 23:00Z caught up")
}

// noControl is a Ledger that is not a ControlLedger.
type noControl struct{ dstsafe.Ledger }

// Pause, Resume and Paused need a ControlLedger and a job that was added;
// pausing a paused job keeps the first reason and time.
func TestPauseErrors(t *testing.T) {
	start := time.Date(2024, 11, 2, 12, 0, 0, 0, time.UTC)
	s, clock, ledger := newSim(t, start)
	ctx := context.Background()
	require.NoError(t, s.Add("sync", mustCron(t, "0 * * * *"), nop))
	for _, err := range []error{s.Pause(ctx, "nope", "x"), s.Resume(ctx, "nope")} {
		require.ErrorIs(t, err, dstsafe.ErrUnknownJob)
	}
	_, err := s.Paused(ctx, "nope")
	require.ErrorIs(t, err, dstsafe.ErrUnknownJob)

	require.NoError(t, s.Pause(ctx, "sync", "first"))
	clock.Advance(time.Hour)
	require.NoError(t, s.Pause(ctx, "sync", "second"))
	p, err := s.Paused(ctx, "sync")
	require.NoError(t, err)
	require.Equal(t, "first", p.Reason)
	require.True(t, p.Since.Equal(start))
	require.NoError(t, s.Resume(ctx, "sync"))
	require.NoError(t, s.Resume(ctx, "sync"))

	plain := dstsafe.NewScheduler(dstsafe.WithClock(clock), dstsafe.WithLedger(noControl{ledger}), dstsafe.WithLogger(quiet()))
	require.NoError(t, plain.Add("sync", mustCron(t, "0 * * * *"), nop))
	for _, err := range []error{plain.Pause(ctx, "sync", "x"), plain.Resume(ctx, "sync")} {
		require.ErrorIs(t, err, dstsafe.ErrInvalidArgument)
		var je *dstsafe.JobError
		require.ErrorAs(t, err, &je)
	}
	_, err = plain.Paused(ctx, "sync")
	require.ErrorIs(t, err, dstsafe.ErrInvalidArgument)
	require.ErrorIs(t, plain.Add("b", mustCron(t, "0 * * * *"), nop, dstsafe.WithPauseOnFailure(3)), dstsafe.ErrInvalidArgument)
	// A plain ledger never pauses: its job runs, at 13:00Z and 14:00Z.
	fires, err := dstsafe.Simulate(ctx, plain, time.Hour)
	require.NoError(t, err)
	require.Len(t, fires, 2)
}

// WithPauseOnFailure(3) pauses the job after its third consecutive failed
// period (a success in between starts the count again, and so does a
// Resume), with the reason naming the count and the period; the periods
// after it are skipped as paused. The failures span the fold night, whose
// two 01:00 readings are two periods.
func TestPauseOnFailure(t *testing.T) {
	chicago := zone(t, "America/Chicago")
	start := time.Date(2024, 11, 2, 23, 30, 0, 0, time.UTC) // 18:30 CDT
	ev := &eventLog{}
	s, _, ledger := newSim(t, start, dstsafe.WithObserver(ev))
	// Hourly in Chicago: 19:00 CDT ok, then every period fails, but 21:00
	// CDT succeeds: the streak 20:00 | 22:00 23:00 00:00 -> paused.
	okAt := map[string]bool{"2024-11-02T19:00:00": true, "2024-11-02T21:00:00": true}
	boom := errors.New("downstream 503")
	var tried []string
	require.NoError(t, s.Add("sync", mustCron(t, "0 * * * *", dstsafe.WithLocation(chicago)), func(_ context.Context, r dstsafe.Run) error {
		tried = append(tried, r.Period)
		if okAt[r.Period] {
			return nil
		}
		return boom
	}, dstsafe.WithPauseOnFailure(3)))
	fires, err := dstsafe.Simulate(simCtx(t), s, 12*time.Hour) // to 06:30Z: past both 01:00s
	require.NoError(t, err)
	require.Equal(t, []string{"2024-11-02T19:00:00", "2024-11-02T20:00:00", "2024-11-02T21:00:00",
		"2024-11-02T22:00:00", "2024-11-02T23:00:00", "2024-11-03T00:00:00"}, tried)
	require.Len(t, fires, 6)
	p, err := s.Paused(context.Background(), "sync")
	require.NoError(t, err)
	require.True(t, p.Paused)
	require.Equal(t, "pause on failure: 3 consecutive failed periods, the last 2024-11-03T00:00:00", p.Reason)
	recs := records(t, ledger, "sync")
	for _, period := range []string{"2024-11-03T01:00:00", "2024-11-03T01:00:00;fold=1"} {
		require.Equal(t, dstsafe.StateSkipped, recs[period].State, period)
		require.Equal(t, "paused", recs[period].Reason)
	}
	i := slices.IndexFunc(ev.all(), func(e dstsafe.Event) bool { return e.Type == event.Paused })
	require.GreaterOrEqual(t, i, 0)
	require.Equal(t, "2024-11-03T00:00:00", ev.all()[i].Period)

	// Resumed, the count starts again: two more failures do not pause it,
	// the third does.
	require.NoError(t, s.Resume(context.Background(), "sync"))
	tried = nil
	_, err = dstsafe.Simulate(simCtx(t), s, 4*time.Hour)
	require.NoError(t, err)
	require.Len(t, tried, 3)
	p, err = s.Paused(context.Background(), "sync")
	require.NoError(t, err)
	require.True(t, p.Paused)
}

// WithRetry and WithPauseOnFailure together: each period is tried
// MaxAttempts times, and the period whose last attempt fails is the n-th
// failed one pauses the job, although the scheduler never asks the ledger
// for an attempt beyond MaxAttempts (which it would refuse: a refused
// claim ran nothing, so it must not be what decides the pause). An export
// that fails at every attempt, hourly, tried 3 times a period, paused
// after 2 failed periods: 01:00 and 02:00 run 3 attempts each, 03:00 to
// 05:00 are skipped as paused.
func TestPauseOnFailureWithRetry(t *testing.T) {
	start := time.Date(2024, 1, 1, 0, 30, 0, 0, time.UTC)
	for _, retry := range []dstsafe.RetryPolicy{
		{MaxAttempts: 3, Failed: true},
		{MaxAttempts: 3, Failed: true, Abandoned: true},
	} {
		t.Run(fmt.Sprintf("%+v", retry), func(t *testing.T) {
			ev := &eventLog{}
			s, _, ledger := newSim(t, start, dstsafe.WithObserver(ev))
			var tried []string
			require.NoError(t, s.Add("export", mustCron(t, "0 * * * *"), func(_ context.Context, r dstsafe.Run) error {
				tried = append(tried, fmt.Sprintf("%s#%d", r.Period, r.Attempt))
				return errors.New("bucket unreachable")
			}, dstsafe.WithRetry(retry, time.Minute), dstsafe.WithPauseOnFailure(2)))
			fires, err := dstsafe.Simulate(simCtx(t), s, 5*time.Hour) // to 05:30
			require.NoError(t, err)

			p, err := s.Paused(context.Background(), "export")
			require.NoError(t, err)
			require.True(t, p.Paused, "not paused after two periods that failed every attempt; tried %v", tried)
			require.Equal(t, "pause on failure: 2 consecutive failed periods, the last 2024-01-01T02:00:00", p.Reason)
			require.True(t, p.Since.Equal(time.Date(2024, 1, 1, 2, 2, 0, 0, time.UTC)), "paused since %v, want 02:02 (after the third attempt)", p.Since)
			i := slices.IndexFunc(ev.all(), func(e dstsafe.Event) bool { return e.Type == event.Paused })
			require.GreaterOrEqual(t, i, 0, "no event.Paused")
			require.Equal(t, "2024-01-01T02:00:00", ev.all()[i].Period)

			require.Equal(t, []string{
				"2024-01-01T01:00:00#1", "2024-01-01T01:00:00#2", "2024-01-01T01:00:00#3",
				"2024-01-01T02:00:00#1", "2024-01-01T02:00:00#2", "2024-01-01T02:00:00#3",
			}, tried)
			require.Len(t, fires, 6)
			recs := records(t, ledger, "export")
			for _, period := range []string{"2024-01-01T01:00:00", "2024-01-01T02:00:00"} {
				require.Equal(t, dstsafe.StateFailed, recs[period].State, period)
				require.Equal(t, 3, recs[period].Attempt, period)
			}
			for _, period := range []string{"2024-01-01T03:00:00", "2024-01-01T04:00:00", "2024-01-01T05:00:00"} {
				require.Equal(t, dstsafe.StateSkipped, recs[period].State, period)
				require.Equal(t, "paused", recs[period].Reason, period)
			}
		})
	}
}

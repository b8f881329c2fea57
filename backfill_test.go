package dstsafe_test

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/jonboulle/clockwork"
	"github.com/stretchr/testify/require"

	"github.com/dstsafe/dstsafe"
	"github.com/dstsafe/dstsafe/dstsafetest"
	"github.com/dstsafe/dstsafe/event"
)

// Backfilling the two Chicago nights days later runs exactly the periods
// the oracle (time package only) lists in [from, to), oldest first, with
// the schedule's fold and gap policies: a periodic job both 01:00-01:59
// readings of the fold and none in the gap, a fixed-time 01:30 job the
// first reading, a 02:30 job the gap's period at 03:30 CDT (Kind gap,
// Wall 02:30), a FoldBoth one both 01:30s. Backfilling again runs nothing.
func TestBackfillAcrossTheNights(t *testing.T) {
	chicago := zone(t, "America/Chicago")
	for _, night := range chicagoNights {
		for _, tc := range []struct {
			spec  string
			opts  []dstsafe.CronOption
			walls func(from, to int64) []int64
			p     policy
		}{
			{"*/30 * * * *", nil, every(30), periodicPolicy},
			{"30 1 * * *", nil, daily(1, 30), fixedPolicy},
			{"30 1 * * *", []dstsafe.CronOption{dstsafe.WithFold(dstsafe.FoldBoth)}, daily(1, 30), fixedPolicy.with(dstsafe.FoldBoth, 0)},
			{"30 2 * * *", nil, daily(2, 30), fixedPolicy},
		} {
			name := tc.spec
			if len(tc.opts) > 0 {
				name += " FoldBoth"
			}
			t.Run(night.name+"/"+name, func(t *testing.T) {
				from, to := night.start, night.start.Add(48*time.Hour)
				ev := &eventLog{}
				s, _, ledger := newSim(t, to.Add(72*time.Hour), dstsafe.WithObserver(ev))
				require.NoError(t, s.Add("sync", mustCron(t, tc.spec, append(tc.opts, dstsafe.WithLocation(chicago))...), nop))
				res, err := s.Backfill(context.Background(), "sync", from, to, nil)
				require.NoError(t, err)

				want := inRange(oracleFires(t, "America/Chicago", tc.walls, tc.p, from.Add(-time.Second), to), from, to)
				require.Equal(t, periods(want), firePeriods(res.Ran, "sync"))
				for i, f := range res.Ran {
					require.True(t, f.Due.Equal(fireAt(want[i])), "%v due, want %v", f, fireAt(want[i]))
					require.Equal(t, want[i].Kind, f.Kind, "%v", f)
					require.Equal(t, wallOfNaiveSeconds(want[i].Wall), f.Wall, "%v", f)
					require.NoError(t, f.Err)
					require.Equal(t, []event.Type{event.Due, event.Claimed, event.Started, event.Succeeded},
						ev.types("sync", f.Period), f.Period)
				}
				require.Zero(t, res.Recorded)
				require.Zero(t, res.Left)
				for _, r := range records(t, ledger, "sync") {
					require.Equal(t, dstsafe.StateSucceeded, r.State, r.Period)
				}

				again, err := s.Backfill(context.Background(), "sync", from, to, nil)
				require.NoError(t, err)
				require.Empty(t, again.Ran)
				require.Equal(t, len(want), again.Recorded)
			})
		}
	}
}

// wallOfNaiveSeconds is the Wall of naive wall seconds, by the time package.
func wallOfNaiveSeconds(w int64) dstsafe.Wall {
	u := time.Unix(w, 0).UTC()
	return dstsafe.Wall{Year: u.Year(), Month: u.Month(), Day: u.Day(), Hour: u.Hour(), Minute: u.Minute(), Second: u.Second()}
}

// Limit runs the oldest n periods and counts the rest in Left;
// calling again goes on where it stopped. One at a time by default: no two
// runs overlap; Concurrent runs them all at once (each
// run waits until all have started).
func TestBackfillLimitAndOverlap(t *testing.T) {
	start := time.Date(2024, 6, 11, 0, 0, 0, 0, time.UTC)
	from, to := time.Date(2024, 6, 1, 0, 0, 0, 0, time.UTC), time.Date(2024, 6, 11, 0, 0, 0, 0, time.UTC) // 10 days
	t.Run("limit", func(t *testing.T) {
		s, _, _ := newSim(t, start)
		var running, most atomic.Int32
		require.NoError(t, s.Add("report", mustCron(t, "0 6 * * *"), func(context.Context, dstsafe.Run) error {
			n := running.Add(1)
			defer running.Add(-1)
			for m := most.Load(); n > m && !most.CompareAndSwap(m, n); m = most.Load() {
			}
			return nil
		}))
		var ran []string
		for _, want := range []struct{ ran, left int }{{3, 7}, {3, 4}, {3, 1}, {1, 0}} {
			res, err := s.Backfill(context.Background(), "report", from, to, &dstsafe.BackfillOptions{Limit: 3})
			require.NoError(t, err)
			require.Len(t, res.Ran, want.ran)
			require.Equal(t, want.left, res.Left)
			require.Equal(t, len(ran), res.Recorded, "the periods run before")
			ran = append(ran, firePeriods(res.Ran, "report")...)
		}
		var days []string
		for d := from; d.Before(to); d = d.AddDate(0, 0, 1) {
			days = append(days, d.Add(6*time.Hour).Format("2006-01-02T15:04:05"))
		}
		require.Equal(t, days, ran, "oldest first, each once")
		require.Equal(t, int32(1), most.Load(), "one at a time")
	})
	t.Run("allow", func(t *testing.T) {
		for _, limit := range []int{0, 4} {
			s, _, _ := newSim(t, start)
			want := 10
			if limit > 0 {
				want = limit
			}
			var mu sync.Mutex
			entered, all := 0, make(chan struct{})
			require.NoError(t, s.Add("report", mustCron(t, "0 6 * * *"), func(ctx context.Context, _ dstsafe.Run) error {
				mu.Lock()
				if entered++; entered == want {
					close(all)
				}
				mu.Unlock()
				select {
				case <-all: // every run is going at once
					return nil
				case <-time.After(10 * time.Second): // safety net only
					return errors.New("runs did not overlap")
				}
			}))
			res, err := s.Backfill(context.Background(), "report", from, to, &dstsafe.BackfillOptions{Concurrent: true, Limit: limit})
			require.NoError(t, err)
			require.Len(t, res.Ran, want)
			require.Equal(t, 10-want, res.Left)
			for i, f := range res.Ran {
				require.NoError(t, f.Err)
				require.Equal(t, from.AddDate(0, 0, i).Add(6*time.Hour).Format("2006-01-02T15:04:05"), f.Period, "oldest first")
			}
		}
	})
}

// A failed period is in the result and recorded failed. It has no
// succeeded record, so the next backfill takes it over (attempt 2) and
// leaves the succeeded ones alone, whatever the job's RetryPolicy; an
// abandoned one (its holder died) too; a skipped one never. With
// OnlyMissing a failed period waits for the job's RetryPolicy or
// an operator's release, as the schedule's own runs do.
func TestBackfillFailedPeriods(t *testing.T) {
	start := time.Date(2024, 6, 11, 0, 0, 0, 0, time.UTC)
	from, to := time.Date(2024, 6, 1, 0, 0, 0, 0, time.UTC), time.Date(2024, 6, 5, 0, 0, 0, 0, time.UTC)
	setup := func(t *testing.T) (*dstsafe.Scheduler, *dstsafe.MemoryLedger, func(fail ...string), *dstsafe.Cron, *clockwork.FakeClock) {
		s, clock, ledger := newSim(t, start)
		var mu sync.Mutex
		failing := map[string]bool{}
		job := func(_ context.Context, r dstsafe.Run) error {
			mu.Lock()
			defer mu.Unlock()
			if failing[r.Period] {
				return fmt.Errorf("no data for %s", r.RunDate)
			}
			return nil
		}
		daily := mustCron(t, "0 6 * * *")
		require.NoError(t, s.Add("report", daily, job))
		setFailing := func(ps ...string) {
			mu.Lock()
			defer mu.Unlock()
			failing = map[string]bool{}
			for _, p := range ps {
				failing[p] = true
			}
		}
		return s, ledger, setFailing, daily, clock
	}
	const p2, p3 = "2024-06-02T06:00:00", "2024-06-03T06:00:00"

	t.Run("default", func(t *testing.T) {
		s, ledger, setFailing, _, _ := setup(t)
		setFailing(p2, p3)
		res, err := s.Backfill(context.Background(), "report", from, to, nil)
		require.NoError(t, err)
		require.Len(t, res.Ran, 4)
		require.Error(t, res.Ran[1].Err)
		require.Error(t, res.Ran[2].Err)
		require.Equal(t, dstsafe.StateFailed, records(t, ledger, "report")[p2].State)

		// p3 fails again: it is taken over once per call, not retried.
		setFailing(p3)
		res, err = s.Backfill(context.Background(), "report", from, to, nil)
		require.NoError(t, err)
		require.Equal(t, []string{p2, p3}, firePeriods(res.Ran, "report"), "the failed periods, oldest first")
		require.Equal(t, 2, res.Ran[0].Attempt)
		require.NoError(t, res.Ran[0].Err)
		require.Error(t, res.Ran[1].Err)
		require.Equal(t, 2, res.Recorded, "the two that succeeded the first time")

		setFailing()
		res, err = s.Backfill(context.Background(), "report", from, to, &dstsafe.BackfillOptions{Concurrent: true})
		require.NoError(t, err)
		require.Equal(t, []string{p3}, firePeriods(res.Ran, "report"))
		require.Equal(t, 3, res.Ran[0].Attempt)
		for _, r := range records(t, ledger, "report") {
			require.Equal(t, dstsafe.StateSucceeded, r.State, r.Period)
		}
		res, err = s.Backfill(context.Background(), "report", from, to, nil)
		require.NoError(t, err)
		require.Empty(t, res.Ran, "every period succeeded: nothing to run")
		require.Equal(t, 4, res.Recorded)
	})

	t.Run("abandoned and skipped", func(t *testing.T) {
		s, ledger, _, _, clock := setup(t)
		ctx := context.Background()
		// A holder that died without finishing: abandoned once its lease
		// is over.
		_, err := ledger.Claim(ctx, dstsafe.ClaimRequest{Job: "report", Period: p2, Owner: "crashed", Lease: time.Minute})
		require.NoError(t, err)
		clock.Advance(2 * time.Minute)
		// A period an operator did by hand and recorded skipped.
		rec, err := ledger.Claim(ctx, dstsafe.ClaimRequest{Job: "report", Period: p3, Owner: "alice"})
		require.NoError(t, err)
		_, err = ledger.Finish(ctx, "report", p3, rec.Token, dstsafe.StateSkipped, "charged by hand")
		require.NoError(t, err)
		res, err := s.Backfill(ctx, "report", from, to, nil)
		require.NoError(t, err)
		require.Equal(t, []string{"2024-06-01T06:00:00", p2, "2024-06-04T06:00:00"}, firePeriods(res.Ran, "report"))
		require.Equal(t, 2, res.Ran[1].Attempt, "the abandoned period, taken over")
		require.Equal(t, 1, res.Recorded, "the skipped period is final")
		require.Equal(t, dstsafe.StateSkipped, records(t, ledger, "report")[p3].State)
	})

	t.Run("only missing", func(t *testing.T) {
		s, ledger, setFailing, daily, _ := setup(t)
		setFailing(p2, p3)
		_, err := s.Backfill(context.Background(), "report", from, to, &dstsafe.BackfillOptions{OnlyMissing: true})
		require.NoError(t, err)
		setFailing()
		res, err := s.Backfill(context.Background(), "report", from, to, &dstsafe.BackfillOptions{OnlyMissing: true})
		require.NoError(t, err)
		require.Empty(t, res.Ran, "no retry policy: failed periods stay failed")
		require.Equal(t, 4, res.Recorded)

		_, err = ledger.Release(context.Background(), "report", p2, "alice", "data loaded")
		require.NoError(t, err)
		res, err = s.Backfill(context.Background(), "report", from, to, &dstsafe.BackfillOptions{OnlyMissing: true})
		require.NoError(t, err)
		require.Equal(t, []string{p2}, firePeriods(res.Ran, "report"), "the released period")
		require.Equal(t, 2, res.Ran[0].Attempt)

		require.NoError(t, s.Update("report", daily, dstsafe.WithRetry(dstsafe.RetryPolicy{MaxAttempts: 2, Failed: true}, 0)))
		res, err = s.Backfill(context.Background(), "report", from, to, &dstsafe.BackfillOptions{OnlyMissing: true, Concurrent: true})
		require.NoError(t, err)
		require.Equal(t, []string{p3}, firePeriods(res.Ran, "report"), "the retry policy takes over the other")
		for _, r := range records(t, ledger, "report") {
			require.Equal(t, dstsafe.StateSucceeded, r.State, r.Period)
		}
	})
}

// Two replicas backfilling one range at once, and a backfill racing the
// schedule's own catch-up under Simulate, run each period once: the
// claims decide.
func TestBackfillRaces(t *testing.T) {
	chicago := zone(t, "America/Chicago")
	every15 := mustCron(t, "*/15 * * * *", dstsafe.WithLocation(chicago))
	from, to := time.Date(2024, 11, 3, 4, 0, 0, 0, time.UTC), time.Date(2024, 11, 3, 10, 0, 0, 0, time.UTC) // across the fold
	want := inRange(oracleFires(t, "America/Chicago", every(15), periodicPolicy, from.Add(-time.Second), to), from, to)

	t.Run("replicas", func(t *testing.T) {
		a, clock, ledger := newSim(t, to.Add(time.Hour), dstsafe.WithOwner("a"))
		b := dstsafe.NewScheduler(dstsafe.WithClock(clock), dstsafe.WithLedger(ledger), dstsafe.WithLogger(quiet()), dstsafe.WithOwner("b"))
		var runs atomic.Int32
		job := func(context.Context, dstsafe.Run) error { runs.Add(1); return nil }
		require.NoError(t, a.Add("sync", every15, job))
		require.NoError(t, b.Add("sync", every15, job))
		var ra, rb dstsafe.BackfillResult
		var ea, eb error
		var wg sync.WaitGroup
		wg.Add(2)
		go func() {
			defer wg.Done()
			ra, ea = a.Backfill(context.Background(), "sync", from, to, &dstsafe.BackfillOptions{Concurrent: true})
		}()
		go func() { defer wg.Done(); rb, eb = b.Backfill(context.Background(), "sync", from, to, nil) }()
		waitWithin(t, &wg, stuckAfter, func() string {
			return fmt.Sprintf("two replicas' Backfill of %d periods: %d runs so far", len(want), runs.Load())
		})
		require.NoError(t, ea)
		require.NoError(t, eb)
		require.Equal(t, len(want), len(ra.Ran)+len(rb.Ran))
		require.Equal(t, len(want), ra.Recorded+rb.Recorded)
		require.Equal(t, int32(len(want)), runs.Load())
		require.Len(t, records(t, ledger, "sync"), len(want))
	})
	t.Run("schedule catch-up", func(t *testing.T) {
		// The scheduler was down over the fold; it comes back at 10:00Z
		// with CatchUpAll while an operator backfills the same hours.
		s, clock, ledger := newSim(t, from.Add(-time.Hour))
		require.NoError(t, s.Add("sync", every15, nop, dstsafe.WithCatchUp(dstsafe.CatchUpAll{Window: 24 * time.Hour})))
		_, err := dstsafe.Simulate(simCtx(t), s, 0) // records 03:00Z, so the restart catches up
		require.NoError(t, err)
		clock.Advance(to.Sub(clock.Now()))
		var res dstsafe.BackfillResult
		require.NoError(t, s.Add("ops", instants{to}, func(ctx context.Context, _ dstsafe.Run) error {
			var err error
			res, err = s.Backfill(ctx, "sync", from, to, nil)
			return err
		}, dstsafe.WithScheduleLocation(time.UTC)))
		fires, err := dstsafe.Simulate(simCtx(t), s, 0)
		require.NoError(t, err)
		var syncFires []dstsafe.Fire
		for _, f := range fires {
			if f.Job == "sync" {
				syncFires = append(syncFires, f)
			}
		}
		dstsafetest.RequireOncePerPeriod(t, syncFires)
		all := oracleFires(t, "America/Chicago", every(15), periodicPolicy, from.Add(-time.Hour), to)
		require.Equal(t, periods(all), firePeriods(syncFires, "sync"),
			"every period after the 03:00Z record to 10:00Z once: by the catch-up or the backfill")
		require.Equal(t, len(res.Ran)+res.Recorded, len(want))
		require.Len(t, records(t, ledger, "sync"), len(all)+1)
	})
}

// Backfill's arguments and limits: an empty range, an unknown job, an
// overlap other than queue or allow; periods after now are left to the
// schedule, periods outside the job's bounds are not its own, and a done
// context stops it.
func TestBackfillErrors(t *testing.T) {
	now := time.Date(2024, 6, 5, 12, 0, 0, 0, time.UTC)
	s, _, _ := newSim(t, now)
	daily := mustCron(t, "0 6 * * *")
	require.NoError(t, s.Add("report", daily, nop, dstsafe.WithBounds(time.Date(2024, 6, 2, 0, 0, 0, 0, time.UTC), time.Time{})))
	ctx := context.Background()
	_, err := s.Backfill(ctx, "report", now, now, nil)
	require.ErrorIs(t, err, dstsafe.ErrInvalidArgument)
	var ae *dstsafe.ArgError
	require.ErrorAs(t, err, &ae)
	_, err = s.Backfill(ctx, "nope", now.AddDate(0, 0, -1), now, nil)
	require.ErrorIs(t, err, dstsafe.ErrUnknownJob)
	res, err := s.Backfill(ctx, "report", time.Date(2024, 5, 30, 0, 0, 0, 0, time.UTC), now.AddDate(0, 0, 3), nil)
	require.NoError(t, err)
	require.Equal(t, []string{"2024-06-02T06:00:00", "2024-06-03T06:00:00", "2024-06-04T06:00:00", "2024-06-05T06:00:00"},
		firePeriods(res.Ran, "report"), "from the bounds' start to now")
	cancelled, cancel := context.WithCancel(ctx)
	cancel()
	res, err = s.Backfill(cancelled, "report", time.Date(2024, 6, 1, 0, 0, 0, 0, time.UTC), now, nil)
	require.ErrorIs(t, err, context.Canceled)
	require.Empty(t, res.Ran)
}

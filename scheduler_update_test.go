package dstsafe_test

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"testing"
	"time"

	"github.com/jonboulle/clockwork"
	"github.com/stretchr/testify/require"

	"github.com/dstsafe/dstsafe"
	"github.com/dstsafe/dstsafe/dstsafetest"
)

// Update while Run runs, from a job of the same scheduler at 2024-06-02
// 00:00Z: the old schedule's periods up to then ran, the new one's start
// after; the new schedule's period before the edit (06-01 01:00) never
// runs and is recorded as skipped, and the old schedule's 06-02 01:30 does
// not run either. Under every catch-up policy: nothing was missed.
func TestUpdateWhileRunning(t *testing.T) {
	for _, policy := range []dstsafe.CatchUpPolicy{
		dstsafe.CatchUpLatest{}, dstsafe.CatchUpAll{Window: 7 * 24 * time.Hour}, dstsafe.CatchUpSkip{},
	} {
		t.Run(fmt.Sprintf("%T", policy), func(t *testing.T) {
			s, _, ledger := newSim(t, time.Date(2024, 6, 1, 0, 0, 0, 0, time.UTC))
			require.NoError(t, s.Add("billing", mustCron(t, "30 1 * * *"), nop, dstsafe.WithCatchUp(policy)))
			var updErr error
			require.NoError(t, s.Add("ops", mustCron(t, "0 0 2 6 *"), func(context.Context, dstsafe.Run) error {
				updErr = s.Update("billing", mustCron(t, "0 1 * * *"), dstsafe.WithCatchUp(policy))
				return nil
			}))
			fires, err := dstsafe.Simulate(simCtx(t), s, 72*time.Hour)
			require.NoError(t, err)
			require.NoError(t, updErr)
			var billing []dstsafe.Fire
			for _, f := range fires {
				if f.Job == "billing" {
					billing = append(billing, f)
				}
			}
			dstsafetest.RequireFiresAt(t, billing,
				time.Date(2024, 6, 1, 1, 30, 0, 0, time.UTC), // the old schedule
				time.Date(2024, 6, 2, 1, 0, 0, 0, time.UTC),  // the new one, from 06-02 00:00
				time.Date(2024, 6, 3, 1, 0, 0, 0, time.UTC))
			for _, f := range billing {
				require.True(t, f.Started.Equal(f.Due), "on time: %v", f)
			}
			rec, err := ledger.Get(context.Background(), "billing", "2024-06-01T01:00:00")
			require.NoError(t, err)
			require.Equal(t, dstsafe.StateSkipped, rec.State)
			require.Equal(t, "before the schedule took effect", rec.Reason)
			_, err = ledger.Get(context.Background(), "billing", "2024-06-02T01:30:00")
			require.ErrorIs(t, err, dstsafe.ErrNotFound, "the old schedule is gone")
		})
	}
}

// A run in progress finishes under the schedule and options it started
// with: the 01:30 run updates its own job to a new schedule without
// retries and fails; its retry (the old options) still comes a minute
// later, for the old period.
func TestUpdateDuringRunKeepsItsOptions(t *testing.T) {
	s, _, ledger := newSim(t, time.Date(2024, 6, 1, 0, 0, 0, 0, time.UTC))
	calls := 0
	require.NoError(t, s.Add("billing", mustCron(t, "30 1 * * *"), func(_ context.Context, r dstsafe.Run) error {
		calls++
		if calls == 1 {
			require.NoError(t, s.Update("billing", mustCron(t, "0 3 * * *")))
			return errors.New("card declined")
		}
		return nil
	}, dstsafe.WithRetry(dstsafe.RetryPolicy{MaxAttempts: 2, Failed: true}, time.Minute)))
	fires, err := dstsafe.Simulate(simCtx(t), s, 24*time.Hour)
	require.NoError(t, err)
	require.Len(t, fires, 3, "%v", fires)
	require.Equal(t, "2024-06-01T01:30:00", fires[0].Period)
	require.Equal(t, "2024-06-01T01:30:00", fires[1].Period)
	require.Equal(t, 2, fires[1].Attempt)
	require.Equal(t, time.Date(2024, 6, 1, 1, 31, 0, 0, time.UTC), fires[1].Started.UTC())
	require.Equal(t, "2024-06-01T03:00:00", fires[2].Period, "the new schedule after the edit at 01:30")
	rec, err := ledger.Get(context.Background(), "billing", "2024-06-01T01:30:00")
	require.NoError(t, err)
	require.Equal(t, dstsafe.StateSucceeded, rec.State)
}

// An Update that keeps the schedule changes only the options: the cursor
// stays, nothing is skipped or re-run.
func TestUpdateSameSchedule(t *testing.T) {
	s, _, ledger := newSim(t, time.Date(2024, 6, 1, 0, 0, 0, 0, time.UTC))
	require.NoError(t, s.Add("billing", mustCron(t, "30 1 * * *"), nop))
	require.NoError(t, s.Add("ops", mustCron(t, "0 12 1 6 *"), func(context.Context, dstsafe.Run) error {
		return s.Update("billing", mustCron(t, "30  1 * * *"), dstsafe.WithTimeout(time.Hour)) // same spec, spaced
	}))
	fires, err := dstsafe.Simulate(simCtx(t), s, 48*time.Hour)
	require.NoError(t, err)
	require.Len(t, fires, 3)
	recs, err := ledger.List(context.Background(), "billing", "", "")
	require.NoError(t, err)
	require.Len(t, recs, 2, "two runs, no skip record: %v", recs)
}

// Remove while Run runs: no run of the job starts after it returns; the
// others go on; the name is free again and a job added under it resumes
// after its records.
func TestRemoveWhileRunning(t *testing.T) {
	s, _, _ := newSim(t, time.Date(2024, 6, 1, 0, 0, 0, 0, time.UTC))
	require.NoError(t, s.Add("billing", mustCron(t, "30 1 * * *"), nop))
	require.NoError(t, s.Add("report", mustCron(t, "0 2 * * *"), nop))
	var rmErr, again error
	require.NoError(t, s.Add("ops", mustCron(t, "0 0 2 6 *"), func(context.Context, dstsafe.Run) error {
		rmErr = s.Remove("billing")
		again = s.Remove("billing")
		return nil
	}))
	fires, err := dstsafe.Simulate(simCtx(t), s, 72*time.Hour)
	require.NoError(t, err)
	require.NoError(t, rmErr)
	require.ErrorIs(t, again, dstsafe.ErrUnknownJob)
	count := map[string]int{}
	for _, f := range fires {
		count[f.Job]++
	}
	require.Equal(t, map[string]int{"billing": 1, "report": 3, "ops": 1}, count)
	require.ErrorIs(t, s.RunNow(context.Background(), "billing", "2024-06-03T01:30:00"), dstsafe.ErrUnknownJob)
	require.ErrorIs(t, s.Update("billing", mustCron(t, "0 1 * * *")), dstsafe.ErrUnknownJob)

	// Added again (the scheduler stopped at 06-04 00:00): it resumes after
	// its last record, 06-01 01:30, and catches up the latest missed period.
	require.NoError(t, s.Add("billing", mustCron(t, "30 1 * * *"), nop))
	fires, err = dstsafe.Simulate(simCtx(t), s, time.Hour)
	require.NoError(t, err)
	var periods []string
	for _, f := range fires {
		if f.Job == "billing" {
			periods = append(periods, f.Period)
		}
	}
	require.Equal(t, []string{"2024-06-03T01:30:00"}, periods)
}

// Update, Remove, Add and RunNow from other goroutines while Run runs
// (under -race): every period still runs at most once, and nothing
// deadlocks.
func TestConcurrentEdits(t *testing.T) {
	clock := clockwork.NewFakeClockAt(time.Date(2024, 6, 1, 0, 0, 0, 0, time.UTC))
	ledger := dstsafe.NewMemoryLedger(clock)
	s := dstsafe.NewScheduler(dstsafe.WithClock(clock), dstsafe.WithLedger(ledger), dstsafe.WithLogger(quiet()))
	for i := range 20 {
		require.NoError(t, s.Add(fmt.Sprint("job", i), mustCron(t, fmt.Sprintf("%d * * * *", i)), nop))
	}
	var wg sync.WaitGroup
	for g := range 4 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			// A bounded number: edits keep the scheduler busy, and
			// Simulate moves the clock only when it is idle.
			for k := range 300 {
				name := fmt.Sprint("job", (g*7+k)%20)
				switch k % 4 {
				case 0:
					_ = s.Update(name, mustCron(t, fmt.Sprintf("%d * * * *", (k*13)%60)))
				case 1:
					if s.Remove(name) == nil {
						_ = s.Add(name, mustCron(t, fmt.Sprintf("%d * * * *", k%60)), nop)
					}
				case 2:
					_ = s.RunNow(context.Background(), name, "2024-06-01T05:05:00")
				default:
					_ = s.Add(fmt.Sprint("extra", g, k%3), mustCron(t, "*/7 * * * *"), nop)
				}
			}
		}()
	}
	fires, err := dstsafe.Simulate(simCtx(t), s, 24*time.Hour)
	waitWithin(t, &wg, stuckAfter, func() string { return "the goroutines editing jobs during the simulation never returned" })
	require.NoError(t, err)
	dstsafetest.RequireOncePerPeriod(t, fires)
}

// A job that removes itself during a catch-up batch (CatchUpAll, three
// missed periods run oldest first): the rest of the batch does not run.
func TestRemoveStopsABatch(t *testing.T) {
	clock := clockwork.NewFakeClockAt(time.Date(2024, 6, 1, 0, 0, 0, 0, time.UTC))
	ledger := dstsafe.NewMemoryLedger(clock)
	newS := func() *dstsafe.Scheduler {
		return dstsafe.NewScheduler(dstsafe.WithClock(clock), dstsafe.WithLedger(ledger), dstsafe.WithLogger(quiet()))
	}
	s1 := newS()
	require.NoError(t, s1.Add("report", mustCron(t, "0 1 * * *"), nop))
	_, err := dstsafe.Simulate(simCtx(t), s1, 2*time.Hour) // runs 06-01 01:00
	require.NoError(t, err)
	clock.Advance(70 * time.Hour) // down until 06-04 02:00: 06-02, 06-03, 06-04 missed
	s2 := newS()
	var ran []string
	require.NoError(t, s2.Add("report", mustCron(t, "0 1 * * *"), func(_ context.Context, r dstsafe.Run) error {
		ran = append(ran, r.Period)
		return s2.Remove("report")
	}, dstsafe.WithCatchUp(dstsafe.CatchUpAll{Window: 7 * 24 * time.Hour})))
	_, err = dstsafe.Simulate(simCtx(t), s2, time.Hour)
	require.NoError(t, err)
	require.Equal(t, []string{"2024-06-02T01:00:00"}, ran)
}

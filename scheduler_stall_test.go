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

// Regression tests for the stalls and silent errors of issue 10. Each one
// failed (hung, or passed over an error) on the runner before it; the
// safety nets below use real time only to turn such a hang into a
// failure, never to synchronise.

// within runs f and fails the test if it has not returned after a real
// 10 s (a hang: f waits on a clock nobody moves).
func within(t *testing.T, what string, f func()) {
	t.Helper()
	done := make(chan struct{})
	go func() {
		defer close(done)
		f()
	}()
	select {
	case <-done:
	case <-time.After(10 * time.Second):
		t.Fatalf("%s did not return: stalled", what)
	}
}

// RunNow made while Simulate runs, on a job whose first attempt fails and
// retries after a minute: RunNow's backoff waits on the fake clock, so the
// simulation must count it as a sleeper and move the clock to its wake.
// Before, RunNow was not counted and its park drove the busy count below
// zero: the simulation hung (5 of 8 runs in the issue; here the retry landed hours late or never).
func TestRunNowDuringSimulate(t *testing.T) {
	for i := range 20 {
		t.Run(fmt.Sprint(i), func(t *testing.T) {
			s, _, ledger := newSim(t, time.Date(2024, 6, 1, 0, 30, 0, 0, time.UTC))
			const manualPeriod = "2024-05-30T12:00:00"
			var mu sync.Mutex
			attempts := 0
			firstAttempt := make(chan struct{})
			require.NoError(t, s.Add("backfill", mustCron(t, "0 12 * * *"), func(_ context.Context, r dstsafe.Run) error {
				if r.Period != manualPeriod {
					return nil // the schedule's own 12:00 runs
				}
				mu.Lock()
				defer mu.Unlock()
				attempts++
				if attempts == 1 {
					close(firstAttempt)
					return errors.New("upstream 503")
				}
				return nil
			}, dstsafe.WithRetry(dstsafe.RetryPolicy{MaxAttempts: 3, Failed: true}, time.Minute)))
			started := make(chan struct{})
			require.NoError(t, s.Add("hourly", mustCron(t, "0 * * * *"), func(_ context.Context, r dstsafe.Run) error {
				if r.Wall.Hour == 1 {
					// The 01:00 run holds the simulation until RunNow's
					// first attempt has run: RunNow is then inside the
					// Scheduler, counted, wherever the Go scheduler put its
					// goroutine. Without the wait the simulation could
					// reach the schedule's own 12:00, or its end, first.
					close(started)
					<-firstAttempt
				}
				return nil
			}))
			runNow := make(chan error, 1)
			go func() {
				<-started
				runNow <- s.RunNow(context.Background(), "backfill", manualPeriod)
			}()
			var fires []dstsafe.Fire
			within(t, "Simulate", func() {
				var err error
				fires, err = dstsafe.Simulate(simCtx(t), s, 48*time.Hour)
				require.NoError(t, err)
			})
			require.NoError(t, <-runNow)
			rec, err := ledger.Get(context.Background(), "backfill", manualPeriod)
			require.NoError(t, err)
			require.Equal(t, dstsafe.StateSucceeded, rec.State)
			require.Equal(t, 2, rec.Attempt, "the retry after the backoff")
			// Simulate hands back RunNow's runs too, the retry a minute of
			// fake time after the first attempt.
			var manual []dstsafe.Fire
			for _, f := range fires {
				if f.Period == manualPeriod {
					manual = append(manual, f)
				}
			}
			require.Len(t, manual, 2)
			require.Equal(t, time.Minute, manual[1].Started.Sub(manual[0].Started))
		})
	}
}

// RunNow's retry backoff ends when its context does. Before, it waited
// only on the timer and the scheduler's stopping channel (nil for
// RunNow): on a fake clock nobody moves it never returned.
func TestRunNowBackoffHonoursContext(t *testing.T) {
	s, _, ledger := newSim(t, time.Date(2024, 6, 1, 0, 0, 0, 0, time.UTC))
	ctx, cancel := context.WithCancel(context.Background())
	errDeclined := errors.New("card declined")
	require.NoError(t, s.Add("billing", mustCron(t, "30 1 * * *"), func(context.Context, dstsafe.Run) error {
		cancel() // the operator gives up while the first attempt fails
		return errDeclined
	}, dstsafe.WithRetry(dstsafe.RetryPolicy{MaxAttempts: 3, Failed: true}, time.Minute)))
	var err error
	within(t, "RunNow", func() { err = s.RunNow(ctx, "billing", "2024-06-01T01:30:00") })
	require.ErrorIs(t, err, errDeclined)
	rec, gerr := ledger.Get(context.Background(), "billing", "2024-06-01T01:30:00")
	require.NoError(t, gerr)
	require.Equal(t, dstsafe.StateFailed, rec.State)
	require.Equal(t, 1, rec.Attempt, "no retry after the context ended")
}

// hungLedger is the real MemoryLedger whose List for one job never
// returns, whatever its context says: a database that accepts the
// connection and then stops answering.
type hungLedger struct {
	*dstsafe.MemoryLedger
	job     string
	entered chan struct{}
	release chan struct{}
	once    sync.Once
}

func newHungLedger(clock dstsafe.Clock, job string) *hungLedger {
	return &hungLedger{MemoryLedger: dstsafe.NewMemoryLedger(clock), job: job,
		entered: make(chan struct{}), release: make(chan struct{})}
}

func (h *hungLedger) List(ctx context.Context, job, from, to string) ([]dstsafe.Record, error) {
	if job == h.job {
		h.once.Do(func() { close(h.entered) })
		<-h.release
	}
	return h.MemoryLedger.List(ctx, job, from, to)
}

// A ledger that hangs while a job resumes delays that job only: another
// job still runs on time. Before, resuming ran on the loop goroutine and
// the hung call stalled every job.
func TestHungLedgerStallsOnlyItsJob(t *testing.T) {
	fc := clockwork.NewFakeClockAt(time.Date(2024, 6, 1, 12, 0, 30, 0, time.UTC))
	ledger := newHungLedger(fc, "stuck")
	s := dstsafe.NewScheduler(dstsafe.WithClock(fc), dstsafe.WithLedger(ledger), dstsafe.WithLogger(quiet()),
		dstsafe.WithWakeInterval(0), dstsafe.WithDrainTimeout(-1))
	require.NoError(t, s.Add("stuck", mustCron(t, "* * * * *"), nop))
	ran := make(chan dstsafe.Run, 1)
	require.NoError(t, s.Add("billing", mustCron(t, "1 12 * * *"), func(_ context.Context, r dstsafe.Run) error {
		ran <- r
		return nil
	}))
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- s.Run(ctx) }()
	defer func() {
		cancel()
		recvWithin(t, done, stuckAfter, "return of Run after its context ended")
	}()
	defer close(ledger.release) // first: so that Run can return
	within(t, "resuming stuck", func() { <-ledger.entered })
	within(t, "the loop", func() {
		// The loop's timer for billing's 12:01, the only timer there is.
		require.NoError(t, fc.BlockUntilContext(context.Background(), 1))
	})
	fc.Advance(30 * time.Second)
	within(t, "billing's run", func() {
		r := <-ran
		require.Equal(t, "2024-06-01T12:01:00", r.Period)
	})
}

// Run returns within the drain timeout after its context ends, whatever
// the ledger does. Before, a ledger that hung while a job resumed kept Run
// from ever returning.
func TestRunReturnsWithHungLedger(t *testing.T) {
	for _, drain := range []time.Duration{10 * time.Second, -1} {
		t.Run(fmt.Sprint("drain ", drain), func(t *testing.T) {
			fc := clockwork.NewFakeClockAt(time.Date(2024, 6, 1, 12, 0, 0, 0, time.UTC))
			ledger := newHungLedger(fc, "billing")
			defer close(ledger.release)
			s := dstsafe.NewScheduler(dstsafe.WithClock(fc), dstsafe.WithLedger(ledger), dstsafe.WithLogger(quiet()),
				dstsafe.WithWakeInterval(0), dstsafe.WithDrainTimeout(drain))
			require.NoError(t, s.Add("billing", mustCron(t, "30 1 * * *"), nop))
			ctx, cancel := context.WithCancel(context.Background())
			done := make(chan error, 1)
			go func() { done <- s.Run(ctx) }()
			within(t, "resuming billing", func() { <-ledger.entered })
			cancel()
			if drain > 0 {
				within(t, "the drain timer", func() {
					require.NoError(t, fc.BlockUntilContext(context.Background(), 1))
				})
				fc.Advance(drain)
			}
			within(t, "Run", func() { require.ErrorIs(t, <-done, dstsafe.ErrDrainTimeout) })
		})
	}
}

// permanentLedger is the real MemoryLedger whose List or Claim fails as a
// ledger whose table was never migrated does.
type permanentLedger struct {
	*dstsafe.MemoryLedger
	list, claim bool
}

var errNoTable = fmt.Errorf("sqlledger: relation \"dstsafe_runs\" does not exist: %w", dstsafe.ErrPermanent)

func (p *permanentLedger) List(ctx context.Context, job, from, to string) ([]dstsafe.Record, error) {
	if p.list {
		return nil, errNoTable
	}
	return p.MemoryLedger.List(ctx, job, from, to)
}

func (p *permanentLedger) Claim(ctx context.Context, req dstsafe.ClaimRequest) (dstsafe.Record, error) {
	if p.claim {
		return dstsafe.Record{}, errNoTable
	}
	return p.MemoryLedger.Claim(ctx, req)
}

// A permanent ledger error fails the job visibly: Run (here under
// Simulate) stops and returns an error naming the job and wrapping the
// cause. Before, only ErrInvalidArgument counted as permanent: a ledger without
// its table was retried for ever with nothing but log lines, and Simulate
// returned no error at all.
func TestPermanentLedgerErrorStopsRun(t *testing.T) {
	for _, tc := range []struct {
		name        string
		list, claim bool
	}{
		{"resume (List)", true, false},
		{"claim", false, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			fc := clockwork.NewFakeClockAt(time.Date(2024, 11, 2, 12, 0, 0, 0, time.UTC))
			ledger := &permanentLedger{MemoryLedger: dstsafe.NewMemoryLedger(fc), list: tc.list, claim: tc.claim}
			s := dstsafe.NewScheduler(dstsafe.WithClock(fc), dstsafe.WithLedger(ledger), dstsafe.WithLogger(quiet()))
			require.NoError(t, s.Add("billing", mustCron(t, "30 1 * * *", dstsafe.WithLocation(zone(t, "America/Chicago"))), nop))
			var fires []dstsafe.Fire
			var err error
			within(t, "Simulate", func() { fires, err = dstsafe.Simulate(simCtx(t), s, 48*time.Hour) })
			require.ErrorIs(t, err, dstsafe.ErrPermanent)
			require.ErrorIs(t, err, errNoTable)
			var je *dstsafe.JobError
			require.ErrorAs(t, err, &je)
			require.Equal(t, "billing", je.Job)
			require.Empty(t, fires)
		})
	}
}

// The kubernetes#63371 case: a job "0 23 * * *" (UTC) that ran at
// 2024-05-01T23:00Z, edited to "0 5 * * *" and restarted at
// 2024-05-02T08:00Z, must not run the 05:00 period at 08:00 under any
// catch-up policy: under the schedule in force until the restart nothing
// was missed, and the new one starts at the restart. Its 05:00 period is
// recorded as skipped, so a second restart does not run it either; the
// next run is 2024-05-03T05:00Z, on time. Before, missed periods were
// counted from the last record under the new spec: CatchUpLatest and
// CatchUpAll ran 2024-05-02T05:00:00 at 08:00.
func TestEditBetweenDeploysNeverRunsRetroactively(t *testing.T) {
	for _, policy := range []dstsafe.CatchUpPolicy{
		dstsafe.CatchUpLatest{}, dstsafe.CatchUpAll{Window: 7 * 24 * time.Hour}, dstsafe.CatchUpSkip{},
	} {
		t.Run(fmt.Sprintf("%T", policy), func(t *testing.T) {
			clock := clockwork.NewFakeClockAt(time.Date(2024, 5, 1, 22, 0, 0, 0, time.UTC))
			ledger := dstsafe.NewMemoryLedger(clock)
			newS := func() *dstsafe.Scheduler {
				return dstsafe.NewScheduler(dstsafe.WithClock(clock), dstsafe.WithLedger(ledger), dstsafe.WithLogger(quiet()))
			}
			before := newS()
			require.NoError(t, before.Add("report", mustCron(t, "0 23 * * *"), nop, dstsafe.WithCatchUp(policy)))
			fires, err := dstsafe.Simulate(simCtx(t), before, 2*time.Hour) // to 05-02 00:00
			require.NoError(t, err)
			dstsafetest.RequireFiresAt(t, fires, time.Date(2024, 5, 1, 23, 0, 0, 0, time.UTC))

			clock.Advance(8 * time.Hour) // the deploy: 2024-05-02T08:00Z
			for restart := range 2 {
				after := newS()
				require.NoError(t, after.Add("report", mustCron(t, "0 5 * * *"), nop, dstsafe.WithCatchUp(policy), dstsafe.WithTakeOver()))
				fires, err = dstsafe.Simulate(simCtx(t), after, time.Hour)
				require.NoError(t, err)
				require.Empty(t, fires, "restart %d ran a period of the edited schedule retroactively", restart)
				clock.Advance(time.Hour)
			}
			// From 05-02 10:00 on, the new schedule runs on time.
			after := newS()
			require.NoError(t, after.Add("report", mustCron(t, "0 5 * * *"), nop, dstsafe.WithCatchUp(policy), dstsafe.WithTakeOver()))
			fires, err = dstsafe.Simulate(simCtx(t), after, 24*time.Hour)
			require.NoError(t, err)
			dstsafetest.RequireFiresAt(t, fires, time.Date(2024, 5, 3, 5, 0, 0, 0, time.UTC))

			rec, err := ledger.Get(context.Background(), "report", "2024-05-02T05:00:00")
			require.NoError(t, err)
			require.Equal(t, dstsafe.StateSkipped, rec.State)
			require.Equal(t, "before the schedule took effect", rec.Reason)
		})
	}
}

// A schedule edited while the process was down: the periods the old
// schedule missed are caught up under it, by each policy, and the new
// schedule starts at the restart. "0 23 * * *" last ran 2024-04-28T23:00Z;
// the process was down until 2024-05-02T08:00Z (04-29, 04-30 and 05-01
// 23:00 missed) and came back with "0 5 * * *". Before, the misses were
// computed under the new spec: 04-29 ... 05-02 05:00.
func TestEditWhileDownCatchesUpTheOldSchedule(t *testing.T) {
	old := func(d int) string {
		return fmt.Sprintf("2024-%sT23:00:00", map[int]string{29: "04-29", 30: "04-30", 1: "05-01"}[d])
	}
	for _, tc := range []struct {
		name    string
		policy  dstsafe.CatchUpPolicy
		ran     []int
		skipped []int
	}{
		{"latest", dstsafe.CatchUpLatest{}, []int{1}, []int{29, 30}},
		{"all within a week", dstsafe.CatchUpAll{Window: 7 * 24 * time.Hour}, []int{29, 30, 1}, nil},
		// 04-30 23:00 was 33 h before the restart, 04-29 57 h.
		{"all within 36 h", dstsafe.CatchUpAll{Window: 36 * time.Hour}, []int{30, 1}, []int{29}},
		{"skip", dstsafe.CatchUpSkip{}, nil, []int{29, 30, 1}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			clock := clockwork.NewFakeClockAt(time.Date(2024, 4, 28, 22, 0, 0, 0, time.UTC))
			ledger := dstsafe.NewMemoryLedger(clock)
			newS := func() *dstsafe.Scheduler {
				return dstsafe.NewScheduler(dstsafe.WithClock(clock), dstsafe.WithLedger(ledger), dstsafe.WithLogger(quiet()))
			}
			s1 := newS()
			require.NoError(t, s1.Add("report", mustCron(t, "0 23 * * *"), nop))
			_, err := dstsafe.Simulate(simCtx(t), s1, 2*time.Hour)
			require.NoError(t, err)

			clock.Advance(time.Date(2024, 5, 2, 8, 0, 0, 0, time.UTC).Sub(clock.Now()))
			restart := clock.Now()
			s2 := newS()
			require.NoError(t, s2.Add("report", mustCron(t, "0 5 * * *"), nop, dstsafe.WithCatchUp(tc.policy), dstsafe.WithTakeOver()))
			fires, err := dstsafe.Simulate(simCtx(t), s2, 24*time.Hour)
			require.NoError(t, err)
			dstsafetest.RequireOncePerPeriod(t, fires)
			var got, want []string
			for _, f := range fires {
				got = append(got, f.Period)
				if f.Due.Before(restart) {
					require.True(t, f.Started.Equal(restart), "late run %v starts at the restart", f)
				}
			}
			for _, d := range tc.ran {
				want = append(want, old(d))
			}
			want = append(want, "2024-05-03T05:00:00") // the new schedule, on time
			require.Equal(t, want, got)

			recs, err := ledger.List(context.Background(), "report", "", "")
			require.NoError(t, err)
			states := map[string]dstsafe.State{}
			for _, r := range recs {
				states[r.Period] = r.State
			}
			wantStates := map[string]dstsafe.State{
				"2024-04-28T23:00:00": dstsafe.StateSucceeded,
				"2024-05-02T05:00:00": dstsafe.StateSkipped, // before the new schedule took effect
				"2024-05-03T05:00:00": dstsafe.StateSucceeded,
			}
			for _, d := range tc.ran {
				wantStates[old(d)] = dstsafe.StateSucceeded
			}
			for _, d := range tc.skipped {
				wantStates[old(d)] = dstsafe.StateSkipped
			}
			require.Equal(t, wantStates, states)
		})
	}
}

// A second restart after an edit finds the latest period made under the
// old schedule (05:00 sorts after the new schedule's 01:00), but the
// record of when the new one took effect: it catches up the new
// schedule's missed 01:00, not the old schedule's 05:00.
func TestSecondRestartAfterEdit(t *testing.T) {
	clock := clockwork.NewFakeClockAt(time.Date(2024, 5, 2, 4, 0, 0, 0, time.UTC))
	ledger := dstsafe.NewMemoryLedger(clock)
	newS := func(spec string) *dstsafe.Scheduler {
		s := dstsafe.NewScheduler(dstsafe.WithClock(clock), dstsafe.WithLedger(ledger), dstsafe.WithLogger(quiet()))
		require.NoError(t, s.Add("report", mustCron(t, spec), nop, dstsafe.WithTakeOver()))
		return s
	}
	fires, err := dstsafe.Simulate(simCtx(t), newS("0 5 * * *"), 2*time.Hour) // runs 05-02 05:00
	require.NoError(t, err)
	require.Len(t, fires, 1)
	clock.Advance(2 * time.Hour) // the deploy at 08:00: "0 1 * * *" from now on
	fires, err = dstsafe.Simulate(simCtx(t), newS("0 1 * * *"), time.Hour)
	require.NoError(t, err)
	require.Empty(t, fires)
	clock.Advance(21 * time.Hour) // down from 09:00 to 05-03 06:00
	restart := clock.Now()
	fires, err = dstsafe.Simulate(simCtx(t), newS("0 1 * * *"), time.Hour)
	require.NoError(t, err)
	require.Len(t, fires, 1)
	require.Equal(t, "2024-05-03T01:00:00", fires[0].Period, "the new schedule's missed period, late")
	require.True(t, fires[0].Started.Equal(restart))
	_, err = ledger.Get(context.Background(), "report", "2024-05-03T05:00:00")
	require.ErrorIs(t, err, dstsafe.ErrNotFound, "the old schedule is gone")
}

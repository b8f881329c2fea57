package dstsafe_test

import (
	"context"
	"errors"
	"slices"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/dstsafe/dstsafe"
	"github.com/dstsafe/dstsafe/dstsafetest"
	"github.com/dstsafe/dstsafe/event"
)

// billingCluster runs three replicas of a billing service (one job,
// "30 1 * * *" in Chicago, opts) through the 2024-11-03 fold, r0's clock
// a second ahead so that it claims 01:30 first, and crashes r0 mid-run
// of that period; restartAfter < 0 keeps it down.
func billingCluster(t *testing.T, replicas int, restartAfter time.Duration, opts ...dstsafe.JobOption) (*dstsafetest.ClusterResult, []*eventLog) {
	t.Helper()
	setup := func(r *dstsafetest.Replica) error {
		chicago, err := r.LoadLocation("America/Chicago")
		if err != nil {
			return err
		}
		billing, err := dstsafe.ParseCron("30 1 * * *", dstsafe.WithLocation(chicago))
		if err != nil {
			return err
		}
		return r.Add("billing", billing, func(ctx context.Context, run dstsafe.Run) error {
			return r.Sleep(ctx, 10*time.Second) // charge the customers of run.RunDate
		}, opts...)
	}
	specs := make([]dstsafetest.ReplicaSpec, replicas)
	specs[0].Offset = time.Second
	logs := make([]*eventLog, replicas)
	for i := range specs {
		logs[i] = &eventLog{}
		specs[i].Options = []dstsafe.SchedulerOption{dstsafe.WithObserver(logs[i])}
	}
	res, err := dstsafetest.SimulateCluster(context.Background(), dstsafetest.Cluster{
		Start:    time.Date(2024, 11, 2, 12, 0, 0, 0, time.UTC),
		Replicas: specs,
		Setup:    setup,
		Crashes: []dstsafetest.Crash{{Replica: 0, Point: dstsafetest.CrashMidRun, Job: "billing",
			Period: "2024-11-03T01:30:00", RestartAfter: restartAfter}},
	}, 48*time.Hour)
	require.NoError(t, err)
	return res, logs
}

// attemptsOf lists the executions of period, in order.
func attemptsOf(res *dstsafetest.ClusterResult, period string) []dstsafetest.Execution {
	var out []dstsafetest.Execution
	for _, e := range res.Executions {
		if e.Run.Period == period {
			out = append(out, e)
		}
	}
	return out
}

// eventsOf lists the events of typ about period, across replicas' logs.
func eventsOf(logs []*eventLog, typ event.Type, period string) []dstsafe.Event {
	var out []dstsafe.Event
	for _, l := range logs {
		for _, e := range l.all() {
			if e.Type == typ && e.Period == period {
				out = append(out, e)
			}
		}
	}
	return out
}

// A replica SIGKILLed mid-run of the 2024-11-03 bill, with
// RetryPolicy{MaxAttempts: 3, Abandoned: true}: its claim lapses after
// the lease (a minute), and a surviving replica's reconciler, which looks
// at the open period at every wake (a minute), takes it over as attempt
// 2 within lease + wake interval of the crash. Before the reconciler
// nobody ever ran it again: the survivors only reported it at risk, each.
func TestReconcileTakesOverAbandoned(t *testing.T) {
	const period = "2024-11-03T01:30:00"
	res, logs := billingCluster(t, 3, -1, dstsafe.WithRetry(dstsafe.RetryPolicy{MaxAttempts: 3, Abandoned: true}, 0))
	require.Len(t, res.Crashes, 1)
	crash := res.Crashes[0].At

	runs := attemptsOf(res, period)
	require.Len(t, runs, 2, "the crashed attempt, then the takeover: %+v", runs)
	require.Equal(t, "r0", runs[0].Owner)
	require.Equal(t, 1, runs[0].Run.Attempt)
	require.NotEqual(t, "r0", runs[1].Owner)
	require.Equal(t, 2, runs[1].Run.Attempt)
	latency := runs[1].At.Sub(crash)
	require.LessOrEqual(t, latency, dstsafe.DefaultLease+time.Minute, "takeover within lease + wake interval")
	t.Logf("takeover %v after the crash (simulated time)", latency)
	require.Empty(t, eventsOf(logs, event.Missed, period), "it ran: not missed")
	require.Len(t, attemptsOf(res, "2024-11-04T01:30:00"), 1)
}

// The only replica is SIGKILLed mid-run and restarted five minutes later,
// after its lease: the new process's first pass finds the period
// abandoned in its recovery window and runs attempt 2. Before, it resumed
// after the abandoned record's StartedAt, which is after the due instant,
// and the bill was never run.
func TestReconcileRestartTakesOverAbandoned(t *testing.T) {
	const period = "2024-11-03T01:30:00"
	res, _ := billingCluster(t, 1, 5*time.Minute, dstsafe.WithRetry(dstsafe.RetryPolicy{MaxAttempts: 3, Abandoned: true}, 0))
	runs := attemptsOf(res, period)
	require.Len(t, runs, 2, "%+v", runs)
	require.Equal(t, "r0", runs[0].Owner)
	require.Equal(t, "r0#1", runs[1].Owner)
	require.Equal(t, 2, runs[1].Run.Attempt)
	// At is when the 10 s run returned.
	require.LessOrEqual(t, runs[1].At.Sub(res.Crashes[0].At), 5*time.Minute+11*time.Second, "at the restart")
}

// With the default policy (no takeover) the abandoned bill is not run
// again, and the three replicas raise one page for it: exactly one
// event.AtRisk, then exactly one event.Missed, across all of them (the
// first replica to record the alert in the ledger reports it). Before,
// each survivor raised its own at-risk alert at the deadline and no
// Missed followed.
func TestReconcileOnePagePerPeriod(t *testing.T) {
	const period = "2024-11-03T01:30:00"
	res, logs := billingCluster(t, 3, -1)
	require.Len(t, attemptsOf(res, period), 1, "no takeover by default")
	risk := eventsOf(logs, event.AtRisk, period)
	missed := eventsOf(logs, event.Missed, period)
	require.Len(t, risk, 1, "%+v", risk)
	require.Len(t, missed, 1, "%+v", missed)
	require.False(t, missed[0].At.Before(risk[0].At), "Missed follows AtRisk")
	for _, l := range logs {
		types := l.types("billing", period)
		ir, im := slices.Index(types, event.AtRisk), slices.Index(types, event.Missed)
		if im >= 0 {
			require.True(t, ir >= 0 && ir < im, "the replica that reports Missed reported AtRisk first: %v", types)
		}
	}
	due := attemptsOf(res, period)[0].Run.Due
	t.Logf("at risk %v after due, missed %v after due, crash %v after due (replica clocks, simulated time)",
		risk[0].At.Sub(due), missed[0].At.Sub(due), res.Crashes[0].At.Sub(due))
}

// An operator releases a failed period (`dstsafe ledger retry`,
// ControlLedger.Release) of a job with no retry policy: the running
// Scheduler runs it again, as attempt 2, within one wake interval.
func TestReconcileRunsReleasedPeriod(t *testing.T) {
	chicago := zone(t, "America/Chicago")
	start := time.Date(2024, 11, 3, 6, 29, 0, 0, time.UTC) // 01:29 CDT
	s, clock, ledger := newSim(t, start)
	fail := true
	require.NoError(t, s.Add("billing", mustCron(t, "30 1 * * *", dstsafe.WithLocation(chicago)),
		func(context.Context, dstsafe.Run) error {
			if fail {
				fail = false
				return errors.New("card processor down")
			}
			return nil
		}))
	h := startRun(t, s)
	const period = "2024-11-03T01:30:00"
	due := time.Date(2024, 11, 3, 6, 30, 0, 0, time.UTC)
	h.advanceTo(clock, due)
	h.settle(due)
	rec, err := ledger.Get(context.Background(), "billing", period)
	require.NoError(t, err)
	require.Equal(t, dstsafe.StateFailed, rec.State)
	d, err := s.Describe(context.Background(), "billing", 0)
	require.NoError(t, err)
	require.Len(t, d.Recovery, 1, "Describe classifies the recovery window as the reconciler does")
	require.Equal(t, period, d.Recovery[0].Period)
	require.Equal(t, dstsafe.PeriodFailed, d.Recovery[0].Status)
	require.Equal(t, dstsafe.ActionReportMissed, d.Recovery[0].Action)

	_, err = ledger.Release(context.Background(), "billing", period, "ops", "processor back")
	require.NoError(t, err)
	wake := due.Add(time.Minute)
	h.advanceTo(clock, wake)
	h.settle(wake)
	rec, err = ledger.Get(context.Background(), "billing", period)
	require.NoError(t, err)
	require.Equal(t, dstsafe.StateSucceeded, rec.State, "run again within a wake interval")
	require.Equal(t, 2, rec.Attempt)
}

// A negative recovery window cannot apply: Add says so, naming the option.
func TestWithRecoveryWindowNegative(t *testing.T) {
	s, _, _ := newSim(t, time.Date(2024, 11, 2, 12, 0, 0, 0, time.UTC))
	err := s.Add("billing", mustCron(t, "30 1 * * *"), nop, dstsafe.WithRecoveryWindow(-time.Hour))
	require.ErrorIs(t, err, dstsafe.ErrInvalidArgument)
	var ae *dstsafe.ArgError
	require.ErrorAs(t, err, &ae)
	require.Equal(t, "WithRecoveryWindow", ae.Func)
}

// A period nobody recorded behind a later one that was (the replica that
// should have claimed 01:15 died before claiming it; another recorded
// 01:30): a replica that starts at 01:40 resumes after 01:30, the latest
// record, and its first pass finds 01:15 missing in its recovery window
// and runs it by the catch-up policy. Before, 01:15 was forgotten: the
// cursor only looked after the latest record.
func TestReconcileRunsMissingBehindLatestRecord(t *testing.T) {
	ctx := context.Background()
	start := time.Date(2024, 6, 1, 1, 40, 0, 0, time.UTC)
	s, _, ledger := newSim(t, start)
	for _, p := range []string{"2024-06-01T01:00:00", "2024-06-01T01:30:00"} {
		r, err := ledger.Claim(ctx, dstsafe.ClaimRequest{Job: "sync", Period: p, Owner: "r0"})
		require.NoError(t, err)
		_, err = ledger.Finish(ctx, "sync", p, r.Token, dstsafe.StateSucceeded, "")
		require.NoError(t, err)
	}
	require.NoError(t, s.Add("sync", mustCron(t, "*/15 * * * *"), nop))
	fires, err := dstsafe.Simulate(ctx, s, 10*time.Minute)
	require.NoError(t, err)
	var got []string
	for _, f := range fires {
		got = append(got, f.Period)
	}
	require.Equal(t, []string{"2024-06-01T01:15:00", "2024-06-01T01:45:00"}, got)
	require.True(t, fires[0].Started.Equal(start), "run late, at the start")
}

// A bill that failed (the card processor was down) on the only replica,
// which then died during its one-minute retry backoff and was restarted
// at 01:35: the new process's first pass finds the failed period in its
// recovery window, past its backoff, and retries it as attempt 2
// (RetryPolicy{MaxAttempts: 3, Failed: true}). Before, it resumed after
// the failed record and the bill was never retried.
func TestReconcileRetriesFailedAfterRestart(t *testing.T) {
	const period = "2024-11-03T01:30:00"
	setup := func(r *dstsafetest.Replica) error {
		chicago, err := r.LoadLocation("America/Chicago")
		if err != nil {
			return err
		}
		billing, err := dstsafe.ParseCron("30 1 * * *", dstsafe.WithLocation(chicago))
		if err != nil {
			return err
		}
		return r.Add("billing", billing, func(ctx context.Context, run dstsafe.Run) error {
			if run.Attempt == 1 {
				return errors.New("card processor down")
			}
			return nil
		}, dstsafe.WithRetry(dstsafe.RetryPolicy{MaxAttempts: 3, Failed: true}, time.Minute))
	}
	crash := time.Date(2024, 11, 3, 6, 30, 30, 0, time.UTC) // 01:30:30 CDT, in the backoff
	res, err := dstsafetest.SimulateCluster(context.Background(), dstsafetest.Cluster{
		Start:    time.Date(2024, 11, 2, 12, 0, 0, 0, time.UTC),
		Replicas: []dstsafetest.ReplicaSpec{{}},
		Setup:    setup,
		Crashes: []dstsafetest.Crash{{Replica: 0, Point: dstsafetest.CrashAtInstant, At: crash,
			RestartAfter: 4*time.Minute + 30*time.Second}},
	}, 48*time.Hour)
	require.NoError(t, err)
	runs := attemptsOf(res, period)
	require.Len(t, runs, 2, "%+v", runs)
	require.Equal(t, "r0", runs[0].Owner)
	require.Error(t, runs[0].Err)
	require.Equal(t, "r0#1", runs[1].Owner)
	require.Equal(t, 2, runs[1].Run.Attempt)
	require.NoError(t, runs[1].Err)
	require.True(t, runs[1].At.Equal(crash.Add(4*time.Minute+30*time.Second)), "at the restart: %v", runs[1].At)
}

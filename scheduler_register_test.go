package dstsafe_test

import (
	"context"
	"errors"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/jonboulle/clockwork"
	"github.com/stretchr/testify/require"

	"github.com/dstsafe/dstsafe"
)

// The quickstart's billing job: 01:30 in Chicago, one period per date.
const (
	billingSpec = "CRON_TZ=America/Chicago 30 1 * * *"
	otherSpec   = "CRON_TZ=America/New_York 0 9 * * *"
)

func byDate(t *testing.T, spec string) *dstsafe.Cron {
	t.Helper()
	return mustCron(t, spec, dstsafe.WithPeriodKey(dstsafe.ByDate))
}

// Two services picked one job name: the first has run billing at 01:30
// Chicago for two days; the second comes up with 09:00 New York under the
// same name. Its Run fails at start, naming both schedules, and writes
// nothing: no skipped "before the schedule took effect" record for a day
// before either existed, no claim, no run. The registry still holds the
// first schedule, and the first service keeps running.
func TestRegisterConflictWritesNothing(t *testing.T) {
	start := time.Date(2024, 11, 1, 12, 0, 0, 0, time.UTC)
	a, clock, ledger := newSim(t, start, dstsafe.WithOwner("billing-a"))
	require.NoError(t, a.Add("billing", byDate(t, billingSpec), nop))
	fires, err := dstsafe.Simulate(simCtx(t), a, 48*time.Hour)
	require.NoError(t, err)
	require.Len(t, fires, 2)
	before, err := ledger.List(context.Background(), "billing", "", "")
	require.NoError(t, err)
	info, err := ledger.LookupJob(context.Background(), "billing")
	require.NoError(t, err)
	require.Equal(t, billingSpec, info.Spec)
	require.Equal(t, "date", info.PeriodKey)
	require.Equal(t, "America/Chicago", info.Zone)
	require.Equal(t, []string{"billing-a"}, info.Owners)

	ran := false
	b := dstsafe.NewScheduler(dstsafe.WithClock(clock), dstsafe.WithLedger(ledger), dstsafe.WithLogger(quiet()),
		dstsafe.WithOwner("reports-b"))
	require.NoError(t, b.Add("billing", byDate(t, otherSpec), func(context.Context, dstsafe.Run) error {
		ran = true
		return nil
	}))
	fires, err = dstsafe.Simulate(simCtx(t), b, 48*time.Hour)
	require.ErrorIs(t, err, dstsafe.ErrJobConflict)
	var je *dstsafe.JobError
	require.ErrorAs(t, err, &je)
	require.Equal(t, "billing", je.Job)
	var ce *dstsafe.JobConflictError
	require.ErrorAs(t, err, &ce)
	require.Equal(t, billingSpec, ce.Registered.Spec, "names the registered schedule")
	require.Equal(t, otherSpec, ce.Spec, "and the refused one")
	require.Empty(t, fires)
	require.False(t, ran)

	after, err := ledger.List(context.Background(), "billing", "", "")
	require.NoError(t, err)
	require.Equal(t, before, after, "the refused service wrote nothing")
	now, err := ledger.LookupJob(context.Background(), "billing")
	require.NoError(t, err)
	require.Equal(t, info.Schedule, now.Schedule)
	require.Equal(t, []string{"billing-a"}, now.Owners, "nor registered itself")

	// The first service restarts under its own schedule: no conflict. The
	// refused Simulate moved the clock two days: it catches up the latest
	// missed date (11-05, CatchUpLatest) and runs 11-06 on time.
	a2 := dstsafe.NewScheduler(dstsafe.WithClock(clock), dstsafe.WithLedger(ledger), dstsafe.WithLogger(quiet()),
		dstsafe.WithOwner("billing-a2"))
	require.NoError(t, a2.Add("billing", byDate(t, billingSpec), nop))
	fires, err = dstsafe.Simulate(simCtx(t), a2, 24*time.Hour)
	require.NoError(t, err)
	require.Len(t, fires, 2)
	require.Equal(t, "2024-11-05", fires[0].Period)
	require.Equal(t, "2024-11-06", fires[1].Period)
}

// The conflict stops Run before any job runs, even a job that registers
// fine and comes due first.
func TestRegisterConflictStopsEveryJob(t *testing.T) {
	start := time.Date(2024, 6, 1, 0, 0, 0, 0, time.UTC)
	clock := clockwork.NewFakeClockAt(start)
	ledger := dstsafe.NewMemoryLedger(clock)
	_, err := ledger.RegisterJob(context.Background(), dstsafe.JobRegistration{Job: "billing", Owner: "elsewhere",
		Schedule: registeredFingerprint(t, clock, "30 1 * * *"), Spec: "30 1 * * *"})
	require.NoError(t, err)
	s := dstsafe.NewScheduler(dstsafe.WithClock(clock), dstsafe.WithLedger(ledger), dstsafe.WithLogger(quiet()))
	require.NoError(t, s.Add("heartbeat", mustCron(t, "* * * * *"), nop))
	require.NoError(t, s.Add("billing", mustCron(t, "0 2 * * *"), nop))
	fires, err := dstsafe.Simulate(simCtx(t), s, time.Hour)
	require.ErrorIs(t, err, dstsafe.ErrJobConflict)
	require.Empty(t, fires)
	jobs, err := ledger.Jobs(context.Background())
	require.NoError(t, err)
	require.Equal(t, []string{"billing"}, jobs, "only the registration that was there: heartbeat was not registered")
	recs, err := ledger.List(context.Background(), "billing", "", "")
	require.NoError(t, err)
	require.Empty(t, recs)
}

// registeredFingerprint is the fingerprint a Scheduler registers for spec,
// read back from a scratch ledger.
func registeredFingerprint(t *testing.T, clock clockwork.Clock, spec string) string {
	t.Helper()
	scratch := dstsafe.NewMemoryLedger(clock)
	s := dstsafe.NewScheduler(dstsafe.WithClock(clock), dstsafe.WithLedger(scratch), dstsafe.WithLogger(quiet()))
	require.NoError(t, s.Add("x", mustCron(t, spec), nop))
	_, err := dstsafe.Simulate(simCtx(t), s, time.Nanosecond)
	require.NoError(t, err)
	info, err := scratch.LookupJob(context.Background(), "x")
	require.NoError(t, err)
	require.NotEmpty(t, info.Schedule)
	return info.Schedule
}

// A job added while Run runs registers in Add, which returns the
// conflict; the running jobs go on.
func TestRegisterAddWhileRunning(t *testing.T) {
	s, clock, ledger := newSim(t, time.Date(2024, 6, 1, 0, 0, 0, 0, time.UTC))
	_, err := ledger.RegisterJob(context.Background(), dstsafe.JobRegistration{Job: "billing", Owner: "elsewhere",
		Schedule: registeredFingerprint(t, clock, "30 1 * * *"), Spec: "30 1 * * *"})
	require.NoError(t, err)
	var addErr, addSame error
	require.NoError(t, s.Add("ops", mustCron(t, "0 0 * * *"), func(context.Context, dstsafe.Run) error {
		addErr = s.Add("billing", mustCron(t, "0 3 * * *"), nop)
		addSame = s.Add("reports", mustCron(t, "0 3 * * *"), nop)
		return nil
	}))
	fires, err := dstsafe.Simulate(simCtx(t), s, 30*time.Hour)
	require.NoError(t, err)
	require.ErrorIs(t, addErr, dstsafe.ErrJobConflict)
	var je *dstsafe.JobError
	require.ErrorAs(t, addErr, &je)
	require.Equal(t, "billing", je.Job)
	require.NoError(t, addSame)
	var jobs []string
	for _, f := range fires {
		jobs = append(jobs, f.Job+" "+f.Period)
	}
	require.Equal(t, []string{"ops 2024-06-02T00:00:00", "reports 2024-06-02T03:00:00"}, jobs)
	_, err = ledger.Get(context.Background(), "billing", "2024-06-02T03:00:00")
	require.ErrorIs(t, err, dstsafe.ErrNotFound)
}

// Update takes the name over: the registry holds the new schedule from
// the Update on, and a replica still on the old one is refused at its
// next start; WithTakeOver takes it back explicitly.
func TestRegisterUpdateTakesOver(t *testing.T) {
	s, clock, ledger := newSim(t, time.Date(2024, 6, 1, 0, 0, 0, 0, time.UTC), dstsafe.WithOwner("v1"))
	require.NoError(t, s.Add("billing", mustCron(t, "30 1 * * *"), nop))
	var updErr error
	require.NoError(t, s.Add("ops", mustCron(t, "0 0 2 6 *"), func(context.Context, dstsafe.Run) error {
		updErr = s.Update("billing", mustCron(t, "0 1 * * *"))
		return nil
	}))
	_, err := dstsafe.Simulate(simCtx(t), s, 48*time.Hour)
	require.NoError(t, err)
	require.NoError(t, updErr)
	info, err := ledger.LookupJob(context.Background(), "billing")
	require.NoError(t, err)
	require.Equal(t, "0 1 * * *", info.Spec)
	require.Equal(t, time.Date(2024, 6, 2, 0, 0, 0, 0, time.UTC), info.Changed, "taken over at the Update")

	old := dstsafe.NewScheduler(dstsafe.WithClock(clock), dstsafe.WithLedger(ledger), dstsafe.WithLogger(quiet()), dstsafe.WithOwner("v0"))
	require.NoError(t, old.Add("billing", mustCron(t, "30 1 * * *"), nop))
	_, err = dstsafe.Simulate(simCtx(t), old, 24*time.Hour)
	require.ErrorIs(t, err, dstsafe.ErrJobConflict)

	back := dstsafe.NewScheduler(dstsafe.WithClock(clock), dstsafe.WithLedger(ledger), dstsafe.WithLogger(quiet()), dstsafe.WithOwner("v0b"))
	require.NoError(t, back.Add("billing", mustCron(t, "30 1 * * *"), nop, dstsafe.WithTakeOver()))
	_, err = dstsafe.Simulate(simCtx(t), back, 24*time.Hour)
	require.NoError(t, err)
	info, err = ledger.LookupJob(context.Background(), "billing")
	require.NoError(t, err)
	require.Equal(t, "30 1 * * *", info.Spec)
	require.Equal(t, "v0b", info.Owners[0])
}

// An Update while Run does not run takes the name over at the next Run.
func TestRegisterUpdateBeforeRun(t *testing.T) {
	s, clock, ledger := newSim(t, time.Date(2024, 6, 1, 0, 0, 0, 0, time.UTC))
	_, err := ledger.RegisterJob(context.Background(), dstsafe.JobRegistration{Job: "billing", Owner: "elsewhere",
		Schedule: registeredFingerprint(t, clock, "30 1 * * *"), Spec: "30 1 * * *"})
	require.NoError(t, err)
	require.NoError(t, s.Add("billing", mustCron(t, "0 2 * * *"), nop))
	require.NoError(t, s.Update("billing", mustCron(t, "0 3 * * *")))
	_, err = dstsafe.Simulate(simCtx(t), s, 24*time.Hour)
	require.NoError(t, err)
	info, err := ledger.LookupJob(context.Background(), "billing")
	require.NoError(t, err)
	require.Equal(t, "0 3 * * *", info.Spec)
}

// A replica deployed with other tz data runs the same schedule: no
// conflict, and the registry takes its zone data.
func TestRegisterOtherZoneDataIsTheSameJob(t *testing.T) {
	s, clock, ledger := newSim(t, time.Date(2024, 11, 1, 0, 0, 0, 0, time.UTC))
	fp := registeredFingerprint(t, clock, billingSpec)
	f := strings.SplitN(fp, ";", 9)
	require.Len(t, f, 9)
	mine := f[2]
	f[2] = "tzdata-2022a"
	_, err := ledger.RegisterJob(context.Background(), dstsafe.JobRegistration{Job: "billing", Owner: "old-replica",
		Schedule: strings.Join(f, ";"), Spec: billingSpec, ZoneData: "tzdata-2022a"})
	require.NoError(t, err)
	require.NoError(t, s.Add("billing", mustCron(t, billingSpec), nop))
	fires, err := dstsafe.Simulate(simCtx(t), s, 48*time.Hour)
	require.NoError(t, err)
	require.Len(t, fires, 2)
	info, err := ledger.LookupJob(context.Background(), "billing")
	require.NoError(t, err)
	require.Equal(t, mine, info.ZoneData)
	require.Equal(t, []string{"test", "old-replica"}, info.Owners)
}

// registryDown is the real MemoryLedger behind a connection that refuses
// the first n registrations, as a database restarting right after Run's
// first call would.
type registryDown struct {
	*dstsafe.MemoryLedger
	mu    sync.Mutex
	n     int
	calls int
}

func (r *registryDown) RegisterJob(ctx context.Context, reg dstsafe.JobRegistration) (dstsafe.JobInfo, error) {
	r.mu.Lock()
	r.calls++
	fail := r.calls <= r.n
	r.mu.Unlock()
	if fail {
		return dstsafe.JobInfo{}, errConnRefused
	}
	return r.MemoryLedger.RegisterJob(ctx, reg)
}

// A transient error at registration is retried with backoff (1 s, 2 s):
// the job registers and runs on time. One that lasts past the startup
// timeout makes Run return ErrLedgerUnreachable, nothing run, nothing
// written.
func TestRegisterLedgerDown(t *testing.T) {
	start := time.Date(2024, 6, 1, 0, 0, 0, 0, time.UTC)
	t.Run("recovers", func(t *testing.T) {
		clock := clockwork.NewFakeClockAt(start)
		ledger := &registryDown{MemoryLedger: dstsafe.NewMemoryLedger(clock), n: 2}
		s := dstsafe.NewScheduler(dstsafe.WithClock(clock), dstsafe.WithLedger(ledger), dstsafe.WithLogger(quiet()))
		require.NoError(t, s.Add("billing", mustCron(t, "30 1 * * *"), nop))
		fires, err := dstsafe.Simulate(simCtx(t), s, 24*time.Hour)
		require.NoError(t, err)
		require.Len(t, fires, 1)
		require.True(t, fires[0].Started.Equal(fires[0].Due))
		_, err = ledger.LookupJob(context.Background(), "billing")
		require.NoError(t, err)
	})
	t.Run("startup timeout", func(t *testing.T) {
		clock := clockwork.NewFakeClockAt(start)
		ledger := &registryDown{MemoryLedger: dstsafe.NewMemoryLedger(clock), n: 1 << 30}
		s := dstsafe.NewScheduler(dstsafe.WithClock(clock), dstsafe.WithLedger(ledger), dstsafe.WithLogger(quiet()),
			dstsafe.WithStartupTimeout(10*time.Second))
		require.NoError(t, s.Add("billing", mustCron(t, "* * * * *"), nop))
		fires, err := dstsafe.Simulate(simCtx(t), s, time.Hour)
		require.ErrorIs(t, err, dstsafe.ErrLedgerUnreachable)
		require.True(t, errors.Is(err, errConnRefused))
		require.Empty(t, fires)
		jobs, err := ledger.Jobs(context.Background())
		require.NoError(t, err)
		require.Empty(t, jobs)
	})
}

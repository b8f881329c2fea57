package dstsafe_test

import (
	"context"
	"sync/atomic"
	"testing"
	"time"

	"github.com/jonboulle/clockwork"
	"github.com/stretchr/testify/require"

	"github.com/dstsafe/dstsafe"
	"github.com/dstsafe/dstsafe/event"
)

// A jittered job's deadline counts from its jittered start, not from the
// schedule's instant: with up to 20 minutes of jitter and a 2-minute
// deadline, a nightly 01:30 Chicago job that starts 13 minutes after
// 01:30 and succeeds at once is on time, and must never page. Ten nights
// around the 2024-11-03 fold (where 01:30 happens twice and the job runs
// at the first).
func TestJitteredJobNotAtRiskEarly(t *testing.T) {
	const deadline = 2 * time.Minute
	chi := chicago()
	start := time.Date(2024, 10, 30, 12, 0, 0, 0, time.UTC)
	ev := &eventLog{}
	s := dstsafe.NewScheduler(dstsafe.WithClock(clockwork.NewFakeClockAt(start)), dstsafe.WithLogger(quiet()), dstsafe.WithObserver(ev))
	require.NoError(t, s.Add("billing", mustCron(t, "30 1 * * *", dstsafe.WithLocation(chi)), nop,
		dstsafe.WithJitter(20*time.Minute), dstsafe.WithDeadline(deadline)))
	fires, err := dstsafe.Simulate(simCtx(t), s, 10*24*time.Hour)
	require.NoError(t, err)
	require.Len(t, fires, 10)
	lateStarts := 0
	for _, f := range fires {
		require.NoError(t, f.Err)
		if f.Started.Sub(f.Due) > deadline {
			lateStarts++
		}
	}
	// The premise, from what ran: most nights start past due + deadline.
	require.GreaterOrEqual(t, lateStarts, 5, "jittered starts %v", fires)
	for _, e := range ev.all() {
		if e.Type == event.AtRisk || e.Type == event.Missed {
			t.Fatalf("a jittered run that started and succeeded on time paged: %s %s at %v (jitter %v): %s", e.Type, e.Period, e.At, e.Jitter, e.Reason)
		}
	}
}

// The deadline still holds for a jittered job, from its jittered start:
// billing's claims fail from the moment each night's period is found due
// (at its jittered start, event.Due) until it is reported at risk, which
// must be no sooner than the deadline after that start and no later than
// the next wake after it (a per-minute job wakes the loop: under
// Simulate the loop wakes only for work); then it runs late.
func TestJitteredJobAtRiskFromJitteredStart(t *testing.T) {
	const deadline = 2 * time.Minute
	chi := chicago()
	start := time.Date(2024, 10, 31, 12, 0, 0, 0, time.UTC)
	fc := clockwork.NewFakeClockAt(start)
	l := &jobOutage{MemoryLedger: dstsafe.NewMemoryLedger(fc), job: "billing"}
	ev := &eventLog{}
	obs := observerFunc(func(e dstsafe.Event) {
		if e.Job != "billing" {
			return
		}
		ev.Observe(e)
		switch e.Type {
		case event.Due:
			l.down.Store(true) // before the claim
		case event.AtRisk:
			l.down.Store(false)
		}
	})
	s := dstsafe.NewScheduler(dstsafe.WithClock(fc), dstsafe.WithLedger(l), dstsafe.WithLogger(quiet()), dstsafe.WithObserver(obs))
	require.NoError(t, s.Add("billing", mustCron(t, "30 1 * * *", dstsafe.WithLocation(chi)), nop,
		dstsafe.WithJitter(20*time.Minute), dstsafe.WithDeadline(deadline)))
	require.NoError(t, s.Add("probe", mustCron(t, "CRON_TZ=UTC * * * * *"), nop))
	fires, err := dstsafe.Simulate(simCtx(t), s, 3*24*time.Hour)
	require.NoError(t, err)
	var billed []dstsafe.Fire
	for _, f := range fires {
		if f.Job == "billing" {
			billed = append(billed, f)
		}
	}
	require.Len(t, billed, 3, "each night runs, late")
	dueAt := map[string]time.Time{}
	risks := 0
	for _, e := range ev.all() {
		switch e.Type {
		case event.Due:
			if _, ok := dueAt[e.Period]; !ok {
				dueAt[e.Period] = e.At
			}
		case event.AtRisk:
			risks++
			found, ok := dueAt[e.Period]
			require.True(t, ok, "at risk before due: %+v", e)
			after := e.At.Sub(found)
			require.True(t, after >= deadline && after <= deadline+time.Minute,
				"%s: found due (jittered start) at %v, at risk at %v: %v after, want the %v deadline (+ up to a minute to the next wake)",
				e.Period, found, e.At, after, deadline)
		}
	}
	require.Equal(t, 3, risks, "one page per night")
}

// jobOutage is the real MemoryLedger behind a connection that refuses
// one job's claims while down.
type jobOutage struct {
	*dstsafe.MemoryLedger
	job  string
	down atomic.Bool
}

func (l *jobOutage) Claim(ctx context.Context, r dstsafe.ClaimRequest) (dstsafe.Record, error) {
	if r.Job == l.job && l.down.Load() {
		return dstsafe.Record{}, errDBDown
	}
	return l.MemoryLedger.Claim(ctx, r)
}

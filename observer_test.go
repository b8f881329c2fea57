package dstsafe_test

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/jonboulle/clockwork"
	"github.com/stretchr/testify/require"

	"github.com/dstsafe/dstsafe"
	"github.com/dstsafe/dstsafe/event"
)

// Across both Chicago nights every period of a half-hourly job gets Due,
// Claimed, Started and Succeeded, in that order, with the Kind, Wall and
// Due the oracle gives it, on time and without jitter.
func TestObserverAcrossTheNights(t *testing.T) {
	chicago := zone(t, "America/Chicago")
	for _, night := range chicagoNights {
		t.Run(night.name, func(t *testing.T) {
			ev := &eventLog{}
			s, _, _ := newSim(t, night.start, dstsafe.WithObserver(ev))
			require.NoError(t, s.Add("sync", mustCron(t, "*/30 * * * *", dstsafe.WithLocation(chicago)), nop))
			_, err := dstsafe.Simulate(simCtx(t), s, 48*time.Hour)
			require.NoError(t, err)
			want := oracleFires(t, "America/Chicago", every(30), periodicPolicy, night.start.Add(-time.Second), night.start.Add(48*time.Hour))
			require.Len(t, ev.all(), 4*len(want))
			for _, f := range want {
				require.Equal(t, []event.Type{event.Due, event.Claimed, event.Started, event.Succeeded},
					ev.types("sync", f.Period), f.Period)
			}
			byPeriod := map[string]fire{}
			for _, f := range want {
				byPeriod[f.Period] = f
			}
			for _, e := range ev.all() {
				f := byPeriod[e.Period]
				require.Equal(t, f.Kind, e.Kind, e.Period)
				require.Equal(t, wallOfNaiveSeconds(f.Wall), e.Wall)
				require.True(t, e.Due.Equal(fireAt(f)), e.Period)
				require.True(t, e.At.Equal(e.Due), "%s %s at %v", e.Type, e.Period, e.At)
				require.Zero(t, e.Late)
				require.Zero(t, e.Jitter)
				require.False(t, e.Manual)
				if e.Type != event.Due {
					require.Equal(t, 1, e.Attempt)
				}
			}
		})
	}
}

// Each event.Type observer.go defines is emitted where its doc says: a
// failed run, a period another replica claimed, skipped and late periods
// after downtime, a lost lease whose Finish is refused, a pause and a
// resume, a backfill's manual runs.
func TestObserverEmitsEveryEventType(t *testing.T) {
	ctx := context.Background()
	seen := map[event.Type]bool{}
	note := func(ev *eventLog) {
		for _, e := range ev.all() {
			seen[e.Type] = true
		}
	}
	start := time.Date(2024, 6, 1, 0, 0, 0, 0, time.UTC)
	hourly := mustCron(t, "0 * * * *")

	t.Run("run, fail, claimed elsewhere", func(t *testing.T) {
		ev, evB := &eventLog{}, &eventLog{}
		a, clock, ledger := newSim(t, start, dstsafe.WithObserver(ev))
		boom := errors.New("boom")
		require.NoError(t, a.Add("sync", hourly, func(_ context.Context, r dstsafe.Run) error {
			if r.Wall.Hour == 1 {
				return boom
			}
			return nil
		}))
		_, err := dstsafe.Simulate(ctx, a, time.Hour)
		require.NoError(t, err)
		// No retry: the period will not run by its schedule. Missed
		// always follows AtRisk: one page, then its resolution.
		require.Equal(t, []event.Type{event.Due, event.Claimed, event.Started, event.Failed, event.AtRisk, event.Missed},
			ev.types("sync", "2024-06-01T01:00:00"))
		for _, e := range ev.all() {
			switch e.Type {
			case event.Failed:
				require.ErrorIs(t, e.Err, boom)
			case event.Missed:
				require.Equal(t, "failed: no retry left", e.Reason)
			}
		}
		b := dstsafe.NewScheduler(dstsafe.WithClock(clock), dstsafe.WithLedger(ledger), dstsafe.WithLogger(quiet()), dstsafe.WithObserver(evB))
		require.NoError(t, b.Add("sync", hourly, nop))
		require.ErrorIs(t, b.RunNow(ctx, "sync", "2024-06-01T00:00:00"), dstsafe.ErrAlreadyClaimed)
		require.Equal(t, []event.Type{event.Due, event.ClaimedElsewhere}, evB.types("sync", "2024-06-01T00:00:00"))
		e := evB.all()[0]
		require.True(t, e.Manual)
		require.Equal(t, 1, evB.all()[1].Attempt, "the existing record's attempt")
		note(ev)
		note(evB)
	})
	t.Run("downtime: skipped and late", func(t *testing.T) {
		for _, p := range []dstsafe.CatchUpPolicy{dstsafe.CatchUpLatest{}, dstsafe.CatchUpSkip{}} {
			ev := &eventLog{}
			s, clock, _ := newSim(t, start, dstsafe.WithObserver(ev))
			require.NoError(t, s.Add("sync", hourly, nop, dstsafe.WithCatchUp(p)))
			_, err := dstsafe.Simulate(ctx, s, 0) // 00:00
			require.NoError(t, err)
			clock.Advance(3*time.Hour + 30*time.Minute) // down until 03:30: 01:00, 02:00, 03:00 missed
			_, err = dstsafe.Simulate(ctx, s, 0)
			require.NoError(t, err)
			skipped := []event.Type{event.Due, event.Skipped, event.Missed}
			require.Equal(t, skipped, ev.types("sync", "2024-06-01T01:00:00"))
			require.Equal(t, skipped, ev.types("sync", "2024-06-01T02:00:00"))
			if _, latest := p.(dstsafe.CatchUpLatest); latest {
				// Caught up 25 minutes after its deadline (03:05): at risk
				// as it starts.
				require.Equal(t, []event.Type{event.Due, event.AtRisk, event.Claimed, event.Late, event.Started, event.Succeeded},
					ev.types("sync", "2024-06-01T03:00:00"))
			} else {
				require.Equal(t, skipped, ev.types("sync", "2024-06-01T03:00:00"))
			}
			for _, e := range ev.all() {
				switch e.Type {
				case event.Missed:
					require.Equal(t, "missed: catch-up policy", e.Reason)
				case event.Skipped:
					require.Equal(t, "missed: catch-up policy", e.Reason)
					require.Equal(t, clock.Now().Sub(e.Due), e.Late)
				case event.Late, event.Started:
					if e.Period == "2024-06-01T03:00:00" {
						require.Equal(t, 30*time.Minute, e.Late)
					}
				}
			}
			note(ev)
		}
	})
	t.Run("lease lost at finish", func(t *testing.T) {
		// The heartbeat cannot reach the ledger, the lease runs out, another
		// replica takes the period over, then the job returns nil: its
		// Finish is refused, and there is no event.Succeeded.
		fc := clockwork.NewFakeClockAt(time.Date(2024, 6, 1, 12, 0, 30, 0, time.UTC))
		ledger := &unreachableHeartbeat{dstsafe.NewMemoryLedger(fc)}
		ev := &eventLog{}
		s := dstsafe.NewScheduler(dstsafe.WithClock(fc), dstsafe.WithLedger(ledger), dstsafe.WithLogger(quiet()),
			dstsafe.WithWakeInterval(0), dstsafe.WithObserver(ev))
		job := newBlockingJob()
		require.NoError(t, s.Add("export", mustCron(t, "1 12 * * *"), job.run, dstsafe.WithLease(30*time.Second, 20*time.Second)))
		h := startRun(t, s)
		fc.Advance(30 * time.Second)
		r := recv(t, job.started)
		require.NoError(t, fc.BlockUntilContext(ctx, 2)) // the loop's timer and the leases' one
		fc.Advance(20 * time.Second)                     // the heartbeat fails; the lease holds until 30 s
		require.NoError(t, fc.BlockUntilContext(ctx, 2))
		fc.Advance(11 * time.Second) // 31 s: abandoned
		_, err := ledger.Claim(ctx, dstsafe.ClaimRequest{Job: "export", Period: r.Period, Owner: "b",
			Retry: dstsafe.RetryPolicy{MaxAttempts: 2, Abandoned: true}})
		require.NoError(t, err)
		job.release <- nil
		h.settle(fc.Now())
		require.Equal(t, []event.Type{event.Due, event.Claimed, event.Started, event.LeaseLost},
			ev.types("export", r.Period))
		note(ev)
	})
	t.Run("paused and resumed", func(t *testing.T) {
		ev := &eventLog{}
		s, _, _ := newSim(t, start, dstsafe.WithObserver(ev))
		require.NoError(t, s.Add("sync", hourly, nop))
		require.NoError(t, s.Pause(ctx, "sync", "release freeze"))
		require.NoError(t, s.Pause(ctx, "sync", "again")) // no change, no event
		require.NoError(t, s.Resume(ctx, "sync"))
		require.Len(t, ev.all(), 2)
		require.Equal(t, event.Paused, ev.all()[0].Type)
		require.Equal(t, "release freeze", ev.all()[0].Reason)
		require.Equal(t, event.Resumed, ev.all()[1].Type)
		note(ev)
	})
	t.Run("clock skew", func(t *testing.T) {
		// The ledger's clock is the fake clock; this replica's runs 6 s
		// ahead of it, past the default 5 s: its claim is refused.
		fc := clockwork.NewFakeClockAt(start)
		ev := &eventLog{}
		s := dstsafe.NewScheduler(dstsafe.WithClock(&steppedClock{fc: fc, offset: 6 * time.Second}), dstsafe.WithLedger(dstsafe.NewMemoryLedger(fc)),
			dstsafe.WithLogger(quiet()), dstsafe.WithObserver(ev))
		require.NoError(t, s.Add("sync", hourly, nop))
		require.ErrorIs(t, s.RunNow(ctx, "sync", "2024-06-01T00:00:00"), dstsafe.ErrClockSkew)
		require.Equal(t, []event.Type{event.Due, event.ClockSkew}, ev.types("sync", "2024-06-01T00:00:00"))
		require.Equal(t, 6*time.Second, ev.all()[1].Offset)
		require.ErrorIs(t, ev.all()[1].Err, dstsafe.ErrClockSkew)
		note(ev)
	})
	t.Run("zone data", func(t *testing.T) {
		// A replica whose tz data keeps Mexico's DST ran the period at
		// 06:30Z; this one's (tzdata 2025b) puts it at 07:30Z.
		fc := clockwork.NewFakeClockAt(time.Date(2023, 6, 4, 7, 30, 0, 0, time.UTC))
		ledger := dstsafe.NewMemoryLedger(fc)
		add := func(s *dstsafe.Scheduler, tree string) {
			require.NoError(t, s.Add("report", mustCron(t, "30 1 * * *", dstsafe.WithLocation(mexicoCity(t, tree))), nop))
		}
		old := dstsafe.NewScheduler(dstsafe.WithClock(fc), dstsafe.WithLedger(ledger), dstsafe.WithLogger(quiet()), dstsafe.WithOwner("old"))
		add(old, "old")
		require.NoError(t, old.RunNow(ctx, "report", "2023-06-04T01:30:00"))
		ev := &eventLog{}
		s := dstsafe.NewScheduler(dstsafe.WithClock(fc), dstsafe.WithLedger(ledger), dstsafe.WithLogger(quiet()), dstsafe.WithObserver(ev))
		add(s, "new")
		require.ErrorIs(t, s.RunNow(ctx, "report", "2023-06-04T01:30:00"), dstsafe.ErrAlreadyClaimed)
		require.Equal(t, []event.Type{event.Due, event.ClaimedElsewhere, event.ZoneData}, ev.types("report", "2023-06-04T01:30:00"))
		note(ev)
	})
	t.Run("ledger error", func(t *testing.T) {
		fc := clockwork.NewFakeClockAt(start)
		l := &outageLedger{MemoryLedger: dstsafe.NewMemoryLedger(fc)}
		l.down.Store(true)
		ev := &eventLog{}
		s := dstsafe.NewScheduler(dstsafe.WithClock(fc), dstsafe.WithLedger(l), dstsafe.WithLogger(quiet()),
			dstsafe.WithObserver(ev), dstsafe.WithStartupTimeout(time.Second))
		_, err := dstsafe.Simulate(ctx, s, time.Hour)
		require.ErrorIs(t, err, dstsafe.ErrLedgerUnreachable)
		require.Len(t, ev.all(), 2) // at 0 and at the 1 s bound
		note(ev)
	})
	t.Run("at risk", func(t *testing.T) {
		// The ledger is down from 01:00 until the 01:00 period is reported
		// at risk: its deadline is 01:05 (5 x the misfire threshold of a
		// minute), noticed when the loop next wakes (02:00, under
		// Simulate). The claim, retried all along, then runs it.
		fc := clockwork.NewFakeClockAt(start)
		l := &outageLedger{MemoryLedger: dstsafe.NewMemoryLedger(fc)}
		var s *dstsafe.Scheduler
		ev := &eventLog{}
		obs := observerFunc(func(e dstsafe.Event) {
			ev.Observe(e)
			switch {
			case e.Type == event.Due && e.Period == "2024-06-01T01:00:00":
				l.down.Store(true) // before the claim
			case e.Type == event.AtRisk:
				l.down.Store(false)
			}
		})
		s = dstsafe.NewScheduler(dstsafe.WithClock(fc), dstsafe.WithLedger(l), dstsafe.WithLogger(quiet()), dstsafe.WithObserver(obs))
		require.NoError(t, s.Add("sync", hourly, nop))
		_, err := dstsafe.Simulate(ctx, s, 2*time.Hour+2*time.Minute) // the retries back off up to a minute
		require.NoError(t, err)
		var atRisk []dstsafe.Event
		for _, e := range ev.all() {
			if e.Type == event.AtRisk {
				atRisk = append(atRisk, e)
			}
		}
		require.Len(t, atRisk, 1)
		require.Equal(t, "2024-06-01T01:00:00", atRisk[0].Period)
		require.Equal(t, "not claimed yet", atRisk[0].Reason)
		require.Equal(t, start.Add(2*time.Hour), atRisk[0].At)
		rec, err := l.Get(ctx, "sync", "2024-06-01T01:00:00")
		require.NoError(t, err)
		require.Equal(t, dstsafe.StateSucceeded, rec.State, "run late once the ledger was back")
		note(ev)
	})
	for typ := event.Due; typ <= event.Missed; typ++ {
		require.True(t, seen[typ], "no test emitted %s", typ)
	}
	require.Equal(t, "invalid", (event.Missed + 1).String(), "a new event.Type needs a case here")
}

// unreachableHeartbeat is the real MemoryLedger behind a connection that
// refuses every heartbeat.
type unreachableHeartbeat struct{ *dstsafe.MemoryLedger }

func (u *unreachableHeartbeat) Heartbeat(context.Context, string, string, int64, time.Duration) (dstsafe.Record, error) {
	return dstsafe.Record{}, errConnRefused
}

// observerFunc adapts a function to an Observer.
type observerFunc func(dstsafe.Event)

func (f observerFunc) Observe(e dstsafe.Event) { f(e) }

package dstsafetest

import (
	"context"
	"sync"
	"testing"
	"time"

	"github.com/jonboulle/clockwork"

	"github.com/dstsafe/dstsafe"
	"github.com/dstsafe/dstsafe/event"
)

// A period another replica claimed and never finished (it died holding
// it) is at risk at its deadline: the Scheduler reads its record once and
// reports its state and owner. One the other replica finished is not.
// A period skipped by the catch-up policy is missed.
func (s schedSuite) testAtRiskClaimedElsewhere(t *testing.T) {
	ctx := context.Background()
	start := time.Date(2024, 6, 1, 0, 30, 0, 0, time.UTC)
	clock := clockwork.NewFakeClockAt(start)
	l := s.newLedger(t, clock)
	must.NotNil(t, l, "newLedger returned nil")
	// Replica b claimed 01:00 and died holding it (a day's lease), and ran
	// 02:00 to the end.
	_, err := l.Claim(ctx, dstsafe.ClaimRequest{Job: "hourly", Period: "2024-06-01T01:00:00", Owner: "b", Lease: 24 * time.Hour})
	must.NoError(t, err, "Claim 01:00 as b")
	r, err := l.Claim(ctx, dstsafe.ClaimRequest{Job: "hourly", Period: "2024-06-01T02:00:00", Owner: "b", Lease: 24 * time.Hour})
	must.NoError(t, err, "Claim 02:00 as b")
	_, err = l.Finish(ctx, "hourly", r.Period, r.Token, dstsafe.StateSucceeded, "")
	must.NoError(t, err, "Finish 02:00 as b")

	ev := &suiteEvents{}
	a := newScheduler(clock, l, "a", dstsafe.WithObserver(ev))
	sched, err := dstsafe.ParseCron("CRON_TZ=UTC 0 * * * *")
	must.NoError(t, err, "ParseCron")
	must.NoError(t, a.Add("hourly", sched, func(context.Context, dstsafe.Run) error { return nil }), "Add")
	// To 03:30: 01:00's deadline (01:05) is looked at when the loop wakes
	// at 02:00.
	fires, err := dstsafe.Simulate(ctx, a, 3*time.Hour)
	must.NoError(t, err, "Simulate")
	must.Equal(t, 1, len(fires), "fires %v: want 03:00 only", fires)
	risks := ev.of(event.AtRisk)
	must.Equal(t, 1, len(risks), "at-risk events %v: want 01:00's only", risks)
	must.Equal(t, "2024-06-01T01:00:00", risks[0].Period)
	must.Equal(t, "claimed elsewhere, not succeeded: running by b", risks[0].Reason)
	must.Equal(t, 0, len(ev.of(event.Missed)), "nothing is missed: 01:00 is b's")
}

// suiteEvents keeps a Scheduler's events.
type suiteEvents struct {
	mu sync.Mutex
	ev []dstsafe.Event
}

func (o *suiteEvents) Observe(e dstsafe.Event) {
	o.mu.Lock()
	o.ev = append(o.ev, e)
	o.mu.Unlock()
}

func (o *suiteEvents) of(typ event.Type) []dstsafe.Event {
	o.mu.Lock()
	defer o.mu.Unlock()
	var out []dstsafe.Event
	for _, e := range o.ev {
		if e.Type == typ {
			out = append(out, e)
		}
	}
	return out
}

package dstsafeui_test

import (
	"context"
	"errors"
	"testing"
	"time"
	_ "time/tzdata" // the tests' zones, whatever the host has

	"github.com/jonboulle/clockwork"

	"github.com/dstsafe/dstsafe"
)

// The fixture: two Chicago jobs run by a Scheduler under Simulate across
// both 2024 transitions, as a service would have run them.
const (
	xssJob    = "<script>alert(1)</script>"
	xssReason = `<img src=x onerror="document.title='pwned'">`
	// billingSpec fires once on the fall-back night (01:30 CDT, the first
	// reading); reportSpec's 02:30 does not exist on the spring-forward
	// night and fires at 03:30 CDT.
	billingSpec = "CRON_TZ=America/Chicago 30 1 * * *"
	reportSpec  = "CRON_TZ=America/Chicago 30 2 * * *"
	xssSpec     = "CRON_TZ=America/Chicago 0 4 * * *"
)

var (
	chicago = mustZone("America/Chicago")
	// simStart and simEnd bound the simulation: 2024-03-08 00:00 CST to
	// 2024-11-07 00:00 CST.
	simStart = time.Date(2024, 3, 8, 6, 0, 0, 0, time.UTC)
	simEnd   = time.Date(2024, 11, 7, 6, 0, 0, 0, time.UTC)
	// uiNow is the UI's clock: 2024-11-08 12:00 CST. billing's
	// 2024-11-07 period was claimed and abandoned after the simulation,
	// its 2024-11-08 one never claimed (missing).
	uiNow = time.Date(2024, 11, 8, 18, 0, 0, 0, time.UTC)
)

func mustZone(name string) *time.Location {
	loc, err := time.LoadLocation(name)
	if err != nil {
		panic(err)
	}
	return loc
}

// fill runs the fixture's jobs on l, whose clock must be clock (at
// simStart), and leaves the clock at uiNow.
func fill(t testing.TB, l dstsafe.Ledger, clock *clockwork.FakeClock) {
	t.Helper()
	ctx := context.Background()
	s := dstsafe.NewScheduler(dstsafe.WithClock(clock), dstsafe.WithLedger(l), dstsafe.WithOwner("replica-a"))
	add := func(name, spec string, fn func(context.Context, dstsafe.Run) error) {
		c, err := dstsafe.ParseCron(spec)
		if err != nil {
			t.Fatal(err)
		}
		if err := s.Add(name, c, fn); err != nil {
			t.Fatal(err)
		}
	}
	ok := func(context.Context, dstsafe.Run) error { return nil }
	add("billing", billingSpec, ok)
	add("report", reportSpec, func(_ context.Context, r dstsafe.Run) error {
		if r.Period == "2024-11-05T02:30:00" {
			return errors.New("warehouse unreachable: dial tcp 10.0.0.7:5432: connection refused")
		}
		return nil
	})
	add(xssJob, xssSpec, func(_ context.Context, r dstsafe.Run) error {
		if r.Period == "2024-11-06T04:00:00" {
			return errors.New(xssReason)
		}
		return nil
	})
	if _, err := dstsafe.Simulate(ctx, s, simEnd.Sub(clock.Now())); err != nil {
		t.Fatalf("Simulate: %v", err)
	}
	// A replica claims billing's 2024-11-07 period at 01:30 CST and dies:
	// its lease runs out, the period is abandoned.
	clock.Advance(time.Date(2024, 11, 7, 7, 30, 0, 0, time.UTC).Sub(clock.Now()))
	if _, err := l.Claim(ctx, dstsafe.ClaimRequest{Job: "billing", Period: "2024-11-07T01:30:00", Owner: "replica-b", Lease: time.Minute}); err != nil {
		t.Fatal(err)
	}
	clock.Advance(uiNow.Sub(clock.Now()))
}

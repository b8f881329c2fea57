// Package uifixture is the ledger the dstsafeui tests look at: three
// America/Chicago jobs a Scheduler ran under dstsafe.Simulate across both
// 2024 transitions, a failure, an abandoned claim and a missing period.
// Both the handler's tests and the browser tests (module browsertest) fill
// their ledgers with it.
package uifixture

import (
	"context"
	"errors"
	"testing"
	"time"
	_ "time/tzdata" // the fixture's zone, whatever the host has

	"github.com/jonboulle/clockwork"

	"github.com/dstsafe/dstsafe"
)

// The fixture: two Chicago jobs run by a Scheduler under Simulate across
// both 2024 transitions, as a service would have run them.
const (
	XSSJob    = "<script>alert(1)</script>"
	XSSReason = `<img src=x onerror="document.title='pwned'">`
	// BillingSpec fires once on the fall-back night (01:30 CDT, the first
	// reading); ReportSpec's 02:30 does not exist on the spring-forward
	// night and fires at 03:30 CDT.
	BillingSpec = "CRON_TZ=America/Chicago 30 1 * * *"
	ReportSpec  = "CRON_TZ=America/Chicago 30 2 * * *"
	XSSSpec     = "CRON_TZ=America/Chicago 0 4 * * *"
)

var (
	// SimStart and SimEnd bound the simulation: 2024-03-08 00:00 CST to
	// 2024-11-07 00:00 CST.
	SimStart = time.Date(2024, 3, 8, 6, 0, 0, 0, time.UTC)
	SimEnd   = time.Date(2024, 11, 7, 6, 0, 0, 0, time.UTC)
	// UINow is the UI's clock: 2024-11-08 12:00 CST. billing's
	// 2024-11-07 period was claimed and abandoned after the simulation,
	// its 2024-11-08 one never claimed (missing).
	UINow = time.Date(2024, 11, 8, 18, 0, 0, 0, time.UTC)
)

// Fill runs the fixture's jobs on l, whose clock must be clock (at
// SimStart), and leaves the clock at UINow.
func Fill(t testing.TB, l dstsafe.Ledger, clock *clockwork.FakeClock) {
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
	add("billing", BillingSpec, ok)
	add("report", ReportSpec, func(_ context.Context, r dstsafe.Run) error {
		if r.Period == "2024-11-05T02:30:00" {
			return errors.New("warehouse unreachable: dial tcp 10.0.0.7:5432: connection refused")
		}
		return nil
	})
	add(XSSJob, XSSSpec, func(_ context.Context, r dstsafe.Run) error {
		if r.Period == "2024-11-06T04:00:00" {
			return errors.New(XSSReason)
		}
		return nil
	})
	if _, err := dstsafe.Simulate(ctx, s, SimEnd.Sub(clock.Now())); err != nil {
		t.Fatalf("Simulate: %v", err)
	}
	// A replica claims billing's 2024-11-07 period at 01:30 CST and dies:
	// its lease runs out, the period is abandoned.
	clock.Advance(time.Date(2024, 11, 7, 7, 30, 0, 0, time.UTC).Sub(clock.Now()))
	if _, err := l.Claim(ctx, dstsafe.ClaimRequest{Job: "billing", Period: "2024-11-07T01:30:00", Owner: "replica-b", Lease: time.Minute}); err != nil {
		t.Fatal(err)
	}
	clock.Advance(UINow.Sub(clock.Now()))
}

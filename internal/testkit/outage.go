package testkit

import (
	"context"
	"errors"
	"log/slog"
	"sync"
	"testing"
	"time"

	"github.com/jonboulle/clockwork"

	"github.com/dstsafe/dstsafe"
	"github.com/dstsafe/dstsafe/event"
)

// OpenVia opens a migrated ledger of a backend on the clock, whose client
// reaches the server through addr (a Proxy's), closed when t ends.
type OpenVia func(t *testing.T, clock *clockwork.FakeClock, addr string) dstsafe.Ledger

// SchedulerOutage checks, on a real server reached through a Proxy to
// server (host:port), what a Scheduler does when the server goes away
// (issue 21): down at startup, Run returns an error wrapping
// dstsafe.ErrLedgerUnreachable (not ErrPermanent) within the startup
// timeout on the scheduler's fake clock, and starts once the server is
// back; down after startup, every failed call is an event.LedgerError,
// Healthy reports the outage once it lasts the startup timeout, and the
// period due during it runs when the server is back.
func SchedulerOutage(t *testing.T, server string, open OpenVia) {
	ctx := context.Background()
	start := time.Date(2024, 6, 1, 0, 30, 0, 0, time.UTC)
	hourly := func(t *testing.T) dstsafe.Schedule {
		c, err := dstsafe.ParseCron("CRON_TZ=UTC 0 * * * *")
		if err != nil {
			t.Fatal(err)
		}
		return c
	}
	newScheduler := func(clock *clockwork.FakeClock, l dstsafe.Ledger, o dstsafe.Observer) *dstsafe.Scheduler {
		return dstsafe.NewScheduler(dstsafe.WithClock(clock), dstsafe.WithLedger(l), dstsafe.WithObserver(o),
			dstsafe.WithLogger(slog.New(slog.DiscardHandler)), dstsafe.WithStartupTimeout(5*time.Second))
	}

	t.Run("down at startup", func(t *testing.T) {
		clock := clockwork.NewFakeClockAt(start)
		proxy := NewProxy(t, server)
		l := open(t, clock, proxy.Addr())
		proxy.Cut() // the port is closed: connection refused
		obs := &observed{}
		s := newScheduler(clock, l, obs)
		if err := s.Add("hourly", hourly(t), func(context.Context, dstsafe.Run) error { return nil }); err != nil {
			t.Fatal(err)
		}
		fires, err := dstsafe.Simulate(ctx, s, time.Hour)
		if !errors.Is(err, dstsafe.ErrLedgerUnreachable) || errors.Is(err, dstsafe.ErrPermanent) {
			t.Fatalf("Run with the server down = %v, want ErrLedgerUnreachable, not ErrPermanent", err)
		}
		if len(fires) != 0 {
			t.Fatalf("ran %d periods without a ledger", len(fires))
		}
		evs := obs.all()
		if len(evs) == 0 || evs[0].Type != event.LedgerError || evs[len(evs)-1].At.Sub(start) != 5*time.Second {
			t.Fatalf("events %v: want ledger errors from 0 to the 5 s startup timeout", evs)
		}
		proxy.Restore()
		if fires, err = dstsafe.Simulate(ctx, s, time.Hour); err != nil || len(fires) == 0 {
			t.Fatalf("Run with the server back: %d fires, %v", len(fires), err)
		}
	})

	t.Run("down after startup", func(t *testing.T) {
		clock := clockwork.NewFakeClockAt(start)
		proxy := NewProxy(t, server)
		l := open(t, clock, proxy.Addr())
		due := time.Date(2024, 6, 1, 2, 0, 0, 0, time.UTC)
		var s *dstsafe.Scheduler
		var healthAtRestore error
		obs := &observed{on: func(e dstsafe.Event) {
			switch {
			case e.Type == event.Succeeded && e.Period == "2024-06-01T01:00:00":
				proxy.Cut() // the server goes away before the 02:00 period
			case e.Type == event.LedgerError && !e.At.Before(due.Add(7*time.Second)):
				// Claims failed at 02:00:00, :01, :03 and :07: 7 s >= 5 s.
				healthAtRestore = s.Healthy()
				proxy.Restore()
			}
		}}
		s = newScheduler(clock, l, obs)
		if err := s.Add("hourly", hourly(t), func(context.Context, dstsafe.Run) error { return nil }); err != nil {
			t.Fatal(err)
		}
		if _, err := dstsafe.Simulate(ctx, s, 2*time.Hour); err != nil { // to 02:30
			t.Fatalf("Run across an outage: %v", err)
		}
		if !errors.Is(healthAtRestore, dstsafe.ErrLedgerUnreachable) {
			t.Errorf("Healthy 7 s into the outage = %v, want ErrLedgerUnreachable", healthAtRestore)
		}
		var failed []time.Duration
		for _, e := range obs.all() {
			if e.Type == event.LedgerError {
				failed = append(failed, e.At.Sub(due))
			}
		}
		if len(failed) < 4 || failed[0] != 0 || failed[len(failed)-1] != 7*time.Second {
			t.Errorf("ledger errors at %v after 02:00: want 0 s, then retries, to 7 s", failed)
		}
		rec, err := l.Get(ctx, "hourly", "2024-06-01T02:00:00")
		if err != nil || rec.State != dstsafe.StateSucceeded {
			t.Errorf("the period due in the outage: %+v, %v; want succeeded", rec, err)
		}
		if err := s.Healthy(); err == nil || errors.Is(err, dstsafe.ErrLedgerUnreachable) {
			t.Errorf("Healthy after Run returned = %v, want not ready (stopped)", err)
		}
		d, err := s.Describe(ctx, "hourly", 0)
		if err != nil || !d.LedgerDownSince.IsZero() {
			t.Errorf("Describe after the outage: LedgerDownSince %v, %v; want zero", d.LedgerDownSince, err)
		}
	})
}

// observed keeps the events, calling on (if set) with each.
type observed struct {
	on func(dstsafe.Event)
	mu sync.Mutex
	ev []dstsafe.Event
}

func (o *observed) Observe(e dstsafe.Event) {
	o.mu.Lock()
	o.ev = append(o.ev, e)
	o.mu.Unlock()
	if o.on != nil {
		o.on(e)
	}
}

func (o *observed) all() []dstsafe.Event {
	o.mu.Lock()
	defer o.mu.Unlock()
	return append([]dstsafe.Event(nil), o.ev...)
}

package main

import (
	"context"
	"fmt"
	"log/slog"
	"time"

	"github.com/dstsafe/dstsafe"
	"github.com/dstsafe/dstsafe/examples/billing/internal/billing"
	"github.com/dstsafe/dstsafe/examples/billing/internal/payments"
	"github.com/dstsafe/dstsafe/sqlledger"
	"github.com/jonboulle/clockwork"
)

// LocalOutcome is the per-customer local-midnight part of the demo.
type LocalOutcome struct {
	Zones      int `json:"zones"`
	Charged    int `json:"charged"`
	Duplicates int `json:"duplicates"`
	// OffMidnight counts charges made at another instant than the first
	// instant of the customer's day.
	OffMidnight int `json:"off_midnight"`
	// Unusual are the zones whose midnight on the date was skipped or
	// doubled, and the famous cases.
	Unusual []LocalMidnight `json:"unusual"`
}

// LocalMidnight is one customer's billing instant.
type LocalMidnight struct {
	Zone string    `json:"zone"`
	Date string    `json:"date"`
	Kind string    `json:"kind"` // unique, gap (no 00:00), fold (two 00:00)
	At   time.Time `json:"at"`   // UTC
}

// famous are the midnights the second incident's replace(hour=0) got wrong.
var famous = []struct {
	zone string
	date dstsafe.Date
}{
	{"America/Havana", dstsafe.Date{Year: 2024, Month: time.March, Day: 10}},
	{"Asia/Beirut", dstsafe.Date{Year: 2024, Month: time.March, Day: 31}},
	{"America/Sao_Paulo", dstsafe.Date{Year: 2018, Month: time.November, Day: 4}},
	{"America/Havana", dstsafe.Date{Year: 2024, Month: time.November, Day: 3}},
}

// LocalSpec is the local-midnight job's schedule: every 15 minutes, which
// catches every zone's midnight (all offsets are multiples of 15 minutes).
const LocalSpec = "CRON_TZ=UTC */15 * * * *"

// replayLocal bills one customer per zone at its local midnight of
// cfg.Date: a job every 15 minutes (UTC) charges the subscriptions whose
// next_charge_at (their local midnight, stored in UTC) has come.
func replayLocal(ctx context.Context, cfg config, db *billing.DB) (LocalOutcome, error) {
	out := LocalOutcome{Zones: len(billing.Zones)}
	if err := billing.Migrate(ctx, db); err != nil {
		return out, err
	}
	var subs []billing.Subscription
	for i, name := range billing.Zones {
		loc, err := time.LoadLocation(name)
		if err != nil {
			return out, err
		}
		subs = append(subs, billing.Subscription{
			ID: int64(i + 1), CustomerRef: fmt.Sprintf("cus_local_%03d", i+1), AmountMinor: 1900, Currency: "usd",
			NextBillingDate: cfg.Date, Zone: loc,
		})
		if at, kind := billing.LocalMidnight(cfg.Date, loc); kind != dstsafe.Unique {
			out.Unusual = append(out.Unusual, LocalMidnight{name, cfg.Date.String(), kind.String(), at})
		}
	}
	if err := billing.InsertSubscriptions(ctx, db, subs); err != nil {
		return out, err
	}
	for _, f := range famous {
		if f.date == cfg.Date {
			continue // listed above if unusual
		}
		loc, err := time.LoadLocation(f.zone)
		if err != nil {
			return out, err
		}
		at, kind := billing.LocalMidnight(f.date, loc)
		out.Unusual = append(out.Unusual, LocalMidnight{f.zone, f.date.String(), kind.String(), at})
	}

	// From the first midnight on Earth (UTC+14) to well after the last.
	noon := time.Date(cfg.Date.Year, cfg.Date.Month, cfg.Date.Day, 12, 0, 0, 0, time.UTC)
	fc := clockwork.NewFakeClockAt(noon.Add(-28 * time.Hour))
	ledger, err := sqlledger.New(db.DB, sqlledger.WithClock(fc))
	if err != nil {
		return out, err
	}
	if err := ledger.Migrate(ctx); err != nil {
		return out, err
	}
	job := &billing.Job{DB: db, Processor: payments.NewSimulator(), Clock: fc, Zone: cfg.Zone}
	s := dstsafe.NewScheduler(dstsafe.WithClock(fc), dstsafe.WithLedger(ledger),
		dstsafe.WithOwner("billing-replay"), dstsafe.WithLogger(slog.New(slog.DiscardHandler)))
	cron, err := dstsafe.ParseCron(LocalSpec)
	if err != nil {
		return out, err
	}
	if err := s.Add("billing-local", cron, func(ctx context.Context, run dstsafe.Run) error {
		_, err := job.BillDue(ctx, run.Due, billing.RunID(run))
		return err
	}); err != nil {
		return out, err
	}
	fires, err := dstsafe.Simulate(ctx, s, 40*time.Hour)
	if err != nil {
		return out, err
	}
	for _, f := range fires {
		if f.Err != nil {
			return out, fmt.Errorf("local run %s: %w", f.Period, f.Err)
		}
	}

	// From the database: charges, duplicates, and when each was made.
	stats, err := billing.Stats(ctx, db, cfg.Date)
	if err != nil {
		return out, err
	}
	for _, st := range stats {
		out.Charged += st.Charged
	}
	rep, err := billing.Reconcile(ctx, db, cfg.Date)
	if err != nil {
		return out, err
	}
	out.Duplicates = len(rep.Duplicates)
	charges, err := billing.Charges(ctx, db, cfg.Date)
	if err != nil {
		return out, err
	}
	for _, c := range charges {
		at, _ := billing.LocalMidnight(c.PeriodStart, subs[c.SubscriptionID-1].Zone)
		if !c.CreatedAt.Equal(at) {
			out.OffMidnight++
		}
	}
	return out, nil
}

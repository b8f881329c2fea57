package main

import (
	"context"
	"fmt"
	"log/slog"
	"slices"
	"strings"
	"time"

	"github.com/dstsafe/dstsafe"
	"github.com/dstsafe/dstsafe/examples/billing/internal/billing"
	"github.com/dstsafe/dstsafe/examples/billing/internal/payments"
	"github.com/dstsafe/dstsafe/sqlledger"
	"github.com/jonboulle/clockwork"
)

// AnniversaryOutcome is the anniversary part of the demo, read back from
// its database.
type AnniversaryOutcome struct {
	Year          int    `json:"year"`
	Zones         int    `json:"zones"`
	Subscriptions int    `json:"subscriptions"`
	Rule          string `json:"rule"`
	Due           int    `json:"due"`     // anniversaries in the year, by date arithmetic
	Renewed       int    `json:"renewed"` // renewal rows for them
	Duplicates    int    `json:"duplicates"`
	Missed        int    `json:"missed"`
	// OffMidnight counts renewals made at another instant than the first
	// instant of the customer's local day.
	OffMidnight int `json:"off_midnight"`
	// ProcessorCharges is how many charges the processor made.
	ProcessorCharges int `json:"processor_charges"`
	// Clamped is one customer's renewal dates, anchored on the 31st.
	Clamped Clamped `json:"clamped"`
	// Unusual are the renewals whose local midnight was skipped (gap) or
	// doubled (fold).
	Unusual []AnniversaryRenewal `json:"unusual"`
}

// Clamped shows the SKIP=BACKWARD dates of one subscription.
type Clamped struct {
	Zone   string   `json:"zone"`
	Anchor string   `json:"anchor"`
	Dates  []string `json:"dates"`
}

// AnniversaryRenewal is one renewal, from the database.
type AnniversaryRenewal struct {
	Zone   string    `json:"zone"`
	Anchor string    `json:"anchor"`
	Date   string    `json:"date"`
	Kind   string    `json:"kind"`
	At     time.Time `json:"at"` // UTC
}

// anniversaryYear is the replayed year: anchors in its January, renewals
// over its twelve months.
const anniversaryYear = 2024

// anniversaryRRULE is the rule the replay renews by (a test swaps it to see
// the checks fail).
var anniversaryRRULE = billing.AnniversaryRRULE

// anniversarySubscriptions are the example's customers: in every zone of
// billing.Zones, subscriptions anchored on January 29, 30 and 31, plus one
// anchored on the day of each local midnight of the year that the clocks
// skip or repeat in that zone, so that some renewals meet them.
func anniversarySubscriptions() ([]billing.Renewal, error) {
	var subs []billing.Renewal
	for _, name := range billing.Zones {
		loc, err := time.LoadLocation(name)
		if err != nil {
			return nil, err
		}
		days := []int{29, 30, 31}
		for d := (dstsafe.Date{Year: anniversaryYear, Month: time.January, Day: 1}); d.Year == anniversaryYear; d = d.AddDays(1) {
			if k := dstsafe.Lookup(dstsafe.Wall{Year: d.Year, Month: d.Month, Day: d.Day}, loc).Kind; k != dstsafe.Unique && !slices.Contains(days, d.Day) {
				days = append(days, d.Day)
			}
		}
		for _, day := range days {
			subs = append(subs, billing.Renewal{ID: int64(len(subs) + 1), Zone: loc,
				Anchor: dstsafe.Date{Year: anniversaryYear, Month: time.January, Day: day}})
		}
	}
	return subs, nil
}

// replayAnniversary runs a year of anniversary renewals on a fake clock:
// one scheduler job per subscription, whose schedule is its RRULE, claiming
// (job, anniversary date) in the SQL ledger, then reads back what happened.
func replayAnniversary(ctx context.Context, db *billing.DB) (AnniversaryOutcome, error) {
	out := AnniversaryOutcome{Year: anniversaryYear, Zones: len(billing.Zones), Rule: anniversaryRRULE}
	if err := billing.MigrateAnniversary(ctx, db); err != nil {
		return out, err
	}
	subs, err := anniversarySubscriptions()
	if err != nil {
		return out, err
	}
	out.Subscriptions = len(subs)
	if err := billing.InsertRenewals(ctx, db, subs); err != nil {
		return out, err
	}

	// From before the first midnight of the year on Earth to after the last.
	start := time.Date(anniversaryYear-1, time.December, 31, 0, 0, 0, 0, time.UTC)
	fc := clockwork.NewFakeClockAt(start)
	ledger, err := sqlledger.New(db.DB, sqlledger.WithClock(fc))
	if err != nil {
		return out, err
	}
	if err := ledger.Migrate(ctx); err != nil {
		return out, err
	}
	sim := payments.NewSimulator()
	s := dstsafe.NewScheduler(dstsafe.WithClock(fc), dstsafe.WithLedger(ledger),
		dstsafe.WithOwner("billing-anniversary"), dstsafe.WithLogger(slog.New(slog.DiscardHandler)))
	for _, sub := range subs {
		text := fmt.Sprintf("DTSTART:%04d%02d%02dT000000\nRRULE:%s", sub.Anchor.Year, int(sub.Anchor.Month), sub.Anchor.Day, anniversaryRRULE)
		rule, err := dstsafe.ParseRRule(text, dstsafe.WithLocation(sub.Zone), dstsafe.WithPeriodKey(dstsafe.ByDate))
		if err != nil {
			return out, err
		}
		if err := s.Add(billing.RenewalJob(sub.ID), rule, func(ctx context.Context, run dstsafe.Run) error {
			return billing.Renew(ctx, db, sim, fc, sub, run)
		}); err != nil {
			return out, err
		}
	}
	end := time.Date(anniversaryYear+1, time.January, 1, 12, 0, 0, 0, time.UTC)
	fires, err := dstsafe.Simulate(ctx, s, end.Sub(start))
	if err != nil {
		return out, err
	}
	for _, f := range fires {
		if f.Err != nil {
			return out, fmt.Errorf("anniversary run %s %s: %w", f.Job, f.Period, f.Err)
		}
	}
	out.ProcessorCharges = len(sim.Captured())
	return out, readAnniversary(ctx, db, &out)
}

// readAnniversary fills the counts from the database: the subscriptions
// and renewals stored, against the anniversaries date arithmetic says are
// due in the year.
func readAnniversary(ctx context.Context, db *billing.DB, out *AnniversaryOutcome) error {
	from := dstsafe.Date{Year: anniversaryYear, Month: time.January, Day: 1}
	to := dstsafe.Date{Year: anniversaryYear + 1, Month: time.January, Day: 1}
	subs, err := billing.StoredRenewals(ctx, db)
	if err != nil {
		return err
	}
	rows, err := billing.Renewals(ctx, db, from, to)
	if err != nil {
		return err
	}
	type key struct {
		id int64
		d  dstsafe.Date
	}
	got := map[key][]time.Time{}
	for _, r := range rows {
		got[key{r.SubscriptionID, r.PeriodStart}] = append(got[key{r.SubscriptionID, r.PeriodStart}], r.RenewedAt)
	}
	for _, sub := range subs {
		for _, d := range billing.AnniversaryDue(sub, from, to) {
			out.Due++
			ats := got[key{sub.ID, d}]
			switch n := len(ats); {
			case n == 0:
				out.Missed++
				continue
			case n > 1:
				out.Duplicates++
			}
			out.Renewed++
			at, kind := billing.LocalMidnight(d, sub.Zone)
			if !ats[0].Equal(at) {
				out.OffMidnight++
			}
			if kind != dstsafe.Unique {
				out.Unusual = append(out.Unusual, AnniversaryRenewal{sub.Zone.String(), sub.Anchor.String(), d.String(), kind.String(), ats[0].UTC()})
			}
			if sub.Anchor.Day == 31 && sub.Zone.String() == "America/Chicago" {
				out.Clamped = Clamped{Zone: sub.Zone.String(), Anchor: sub.Anchor.String()}
			}
		}
		if out.Clamped.Anchor == sub.Anchor.String() && out.Clamped.Zone == sub.Zone.String() && out.Clamped.Dates == nil {
			for _, d := range billing.AnniversaryDue(sub, from, to) {
				if len(got[key{sub.ID, d}]) > 0 {
					out.Clamped.Dates = append(out.Clamped.Dates, d.String()[5:])
				}
			}
		}
	}
	// Renewals the year does not call for (a day the rule got wrong).
	for k, ats := range got {
		due := false
		for _, sub := range subs {
			if sub.ID == k.id && slices.Contains(billing.AnniversaryDue(sub, from, to), k.d) {
				due = true
			}
		}
		if !due {
			out.Duplicates += len(ats)
		}
	}
	slices.SortFunc(out.Unusual, func(a, b AnniversaryRenewal) int {
		if c := a.At.Compare(b.At); c != 0 {
			return c
		}
		return strings.Compare(a.Zone, b.Zone)
	})
	return nil
}

// anniversaryText prints the anniversary part of the demo.
func anniversaryText(p func(string, ...any), a AnniversaryOutcome) {
	p("anniversary renewals: %d subscriptions in %d zones renew at local midnight on their anniversary (RRULE:%s), %d",
		a.Subscriptions, a.Zones, a.Rule, a.Year)
	if len(a.Clamped.Dates) > 0 {
		p("  anchored %s in %s: %s", a.Clamped.Anchor, a.Clamped.Zone, strings.Join(a.Clamped.Dates, " "))
	}
	for _, u := range a.Unusual {
		loc, _ := time.LoadLocation(u.Zone)
		local := u.At.In(loc).Format("15:04 MST (-07:00)")
		switch u.Kind {
		case "gap":
			p("  %s, anchored %s: %s 00:00 never happens; renewed at the end of the gap, %s = %s UTC", u.Zone, u.Anchor[5:], u.Date, local, u.At.Format("15:04"))
		case "fold":
			p("  %s, anchored %s: %s 00:00 happens twice; renewed once, at the first, %s = %s UTC", u.Zone, u.Anchor[5:], u.Date, local, u.At.Format("15:04"))
		}
	}
	p("  %d renewals due, %d renewed: %d duplicates, %d missed, %d off local midnight; processor made %d charges",
		a.Due, a.Renewed, a.Duplicates, a.Missed, a.OffMidnight, a.ProcessorCharges)
}

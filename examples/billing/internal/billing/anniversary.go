package billing

import (
	"context"
	"database/sql"
	"fmt"
	"strings"
	"time"

	"github.com/dstsafe/dstsafe"
	"github.com/dstsafe/dstsafe/examples/billing/internal/payments"
)

// Anniversary billing: each subscription renews at local midnight of its
// anniversary in its customer's zone, every month. "The 31st" is the last
// day of a shorter month and the 31st again after it (RFC 7529's
// SKIP=BACKWARD), never the 29th for ever after as repeated AddMonths(1)
// would make it; a midnight the clocks skip renews at the end of the gap,
// and a midnight that happens twice renews once, at the first (RFC 5545).
// The scheduler claims (job, anniversary date) in the ledger before a
// renewal runs, so no renewal runs twice.

// AnniversaryRRULE is the renewal rule: monthly on DTSTART's day, moved
// back to the month's last day when the month is shorter.
const AnniversaryRRULE = "FREQ=MONTHLY;SKIP=BACKWARD"

// Renewal is a subscription of the anniversary example.
type Renewal struct {
	ID     int64
	Zone   *time.Location
	Anchor dstsafe.Date // the first day of the first period
}

// RenewalJob is the scheduler's job name for subscription id.
func RenewalJob(id int64) string { return fmt.Sprintf("renew-%d", id) }

// The anniversary tables. renewals has no unique key on purpose: the
// ledger's claim is what keeps a renewal from running twice, and a second
// one would show in Renewals as a duplicate.
const anniversarySchema = `
CREATE TABLE IF NOT EXISTS anniversary_subscriptions (
	id           %[1]s PRIMARY KEY,
	billing_zone TEXT NOT NULL,
	anchor       %[2]s NOT NULL
);
CREATE TABLE IF NOT EXISTS renewals (
	subscription_id %[1]s NOT NULL,
	period_start    %[2]s NOT NULL,
	renewed_at      %[3]s NOT NULL,
	run_id          TEXT NOT NULL
)`

// MigrateAnniversary creates the anniversary tables (after Migrate, which
// creates the schema on PostgreSQL).
func MigrateAnniversary(ctx context.Context, db *DB) error {
	if err := Migrate(ctx, db); err != nil {
		return err
	}
	types := map[Dialect][]any{SQLite: {"INTEGER", "TEXT", "TEXT"}, Postgres: {"BIGINT", "DATE", "TIMESTAMPTZ"}}[db.Dialect]
	return db.inTx(ctx, func(tx *sql.Tx) error {
		for _, stmt := range strings.Split(fmt.Sprintf(anniversarySchema, types...), ";") {
			if _, err := tx.ExecContext(ctx, stmt); err != nil {
				return fmt.Errorf("billing: migrate anniversary tables: %w", err)
			}
		}
		return nil
	})
}

// InsertRenewals stores the subscriptions.
func InsertRenewals(ctx context.Context, db *DB, subs []Renewal) error {
	return db.inTx(ctx, func(tx *sql.Tx) error {
		for _, s := range subs {
			if _, err := tx.ExecContext(ctx, db.q(`INSERT INTO anniversary_subscriptions (id, billing_zone, anchor) VALUES (?, ?, ?)`),
				s.ID, s.Zone.String(), s.Anchor); err != nil {
				return fmt.Errorf("billing: insert anniversary subscription %d: %w", s.ID, err)
			}
		}
		return nil
	})
}

// Renew is the renewal job of subscription sub: it charges the period
// run.Period (the anniversary date) with the processor key
// sub-<id>-renewal-<date> and records the renewal, at the instant of the
// clock.
func Renew(ctx context.Context, db *DB, p payments.Processor, clock dstsafe.Clock, sub Renewal, run dstsafe.Run) error {
	key := fmt.Sprintf("sub-%d-renewal-%s", sub.ID, run.Period)
	if _, err := p.Charge(ctx, payments.Request{IdempotencyKey: key, CustomerRef: fmt.Sprintf("cus_anniv_%03d", sub.ID), AmountMinor: 1900, Currency: "usd"}); err != nil {
		return fmt.Errorf("billing: renew subscription %d for %s: %w", sub.ID, run.Period, err)
	}
	_, err := db.ExecContext(ctx, db.q(`INSERT INTO renewals (subscription_id, period_start, renewed_at, run_id) VALUES (?, ?, ?, ?)`),
		sub.ID, run.RunDate, utc(clock.Now()), RunID(run))
	return err
}

// RenewalRow is a row of renewals.
type RenewalRow struct {
	SubscriptionID int64
	PeriodStart    dstsafe.Date
	RenewedAt      time.Time
}

// Renewals returns the renewals of periods starting in [from, to), by
// subscription and period.
func Renewals(ctx context.Context, db *DB, from, to dstsafe.Date) ([]RenewalRow, error) {
	rows, err := db.QueryContext(ctx, db.q(`SELECT subscription_id, period_start, renewed_at FROM renewals
		WHERE period_start >= ? AND period_start < ? ORDER BY subscription_id, period_start, renewed_at`), from, to)
	if err != nil {
		return nil, fmt.Errorf("billing: renewals: %w", err)
	}
	defer rows.Close()
	var out []RenewalRow
	for rows.Next() {
		var (
			r  RenewalRow
			at utc
		)
		if err := rows.Scan(&r.SubscriptionID, &r.PeriodStart, &at); err != nil {
			return nil, err
		}
		r.RenewedAt = time.Time(at)
		out = append(out, r)
	}
	return out, rows.Err()
}

// StoredRenewals reads the anniversary subscriptions back, by id.
func StoredRenewals(ctx context.Context, db *DB) ([]Renewal, error) {
	rows, err := db.QueryContext(ctx, `SELECT id, billing_zone, anchor FROM anniversary_subscriptions ORDER BY id`)
	if err != nil {
		return nil, fmt.Errorf("billing: anniversary subscriptions: %w", err)
	}
	defer rows.Close()
	var out []Renewal
	for rows.Next() {
		var (
			r    Renewal
			zone string
		)
		if err := rows.Scan(&r.ID, &zone, &r.Anchor); err != nil {
			return nil, err
		}
		if r.Zone, err = loadZone(zone); err != nil {
			return nil, err
		}
		out = append(out, r)
	}
	return out, rows.Err()
}

// AnniversaryDue lists the anniversary dates of sub in [from, to) by date
// arithmetic alone (AddMonths from the anchor, clamped to each month's
// last day): what the renewals must be, worked out without the rule.
func AnniversaryDue(sub Renewal, from, to dstsafe.Date) []dstsafe.Date {
	var out []dstsafe.Date
	for k := 0; ; k++ {
		d := sub.Anchor.AddMonths(k)
		if !d.Before(to) {
			return out
		}
		if !d.Before(from) {
			out = append(out, d)
		}
	}
}

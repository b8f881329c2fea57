package billing

import (
	"context"
	"database/sql"
	"fmt"
	"github.com/dstsafe/dstsafe"
	"sync"
	"time"
)

// Subscription is a row of subscriptions.
type Subscription struct {
	ID          int64
	CustomerRef string // the processor's customer id, never shown in keys
	AmountMinor int64  // cents
	Currency    string
	// NextBillingDate is the first day of the next unpaid period.
	NextBillingDate dstsafe.Date
	// Zone is the customer's billing zone; NextChargeAt is the first
	// instant of NextBillingDate there (see LocalMidnight), in UTC.
	Zone         *time.Location
	NextChargeAt time.Time
}

// InsertSubscriptions stores subs in one transaction, computing each
// NextChargeAt from NextBillingDate and Zone.
func InsertSubscriptions(ctx context.Context, db *DB, subs []Subscription) error {
	return db.inTx(ctx, func(tx *sql.Tx) error { return insertSubscriptions(ctx, db, tx, subs) })
}

func insertSubscriptions(ctx context.Context, db *DB, tx *sql.Tx, subs []Subscription) error {
	stmt, err := tx.PrepareContext(ctx, db.q(`INSERT INTO subscriptions
		(id, customer_ref, amount_minor, currency, next_billing_date, billing_zone, next_charge_at)
		VALUES (?, ?, ?, ?, ?, ?, ?)`))
	if err != nil {
		return err
	}
	defer stmt.Close()
	for _, s := range subs {
		at, _ := LocalMidnight(s.NextBillingDate, s.Zone)
		if _, err := stmt.ExecContext(ctx, s.ID, s.CustomerRef, s.AmountMinor, s.Currency,
			s.NextBillingDate, s.Zone.String(), utc(at)); err != nil {
			return fmt.Errorf("billing: insert subscription %d: %w", s.ID, err)
		}
	}
	return nil
}

const subscriptionColumns = `id, customer_ref, amount_minor, currency, next_billing_date, billing_zone, next_charge_at`

// DueOn returns the subscriptions whose next period starts on or before
// runDate, by id: a run for runDate bills them, including periods an
// earlier run missed.
func DueOn(ctx context.Context, db *DB, runDate dstsafe.Date) ([]Subscription, error) {
	return querySubscriptions(ctx, db, `SELECT `+subscriptionColumns+` FROM subscriptions
		WHERE next_billing_date <= ? ORDER BY id`, runDate)
}

// DueAt returns the subscriptions whose next charge instant (their local
// midnight, in UTC) is at or before now, by id.
func DueAt(ctx context.Context, db *DB, now time.Time) ([]Subscription, error) {
	return querySubscriptions(ctx, db, `SELECT `+subscriptionColumns+` FROM subscriptions
		WHERE next_charge_at <= ? ORDER BY id`, utc(now))
}

func querySubscriptions(ctx context.Context, db *DB, query string, args ...any) ([]Subscription, error) {
	rows, err := db.QueryContext(ctx, db.q(query), args...)
	if err != nil {
		return nil, fmt.Errorf("billing: select subscriptions: %w", err)
	}
	defer rows.Close()
	var subs []Subscription
	for rows.Next() {
		var (
			s    Subscription
			zone string
			at   utc
		)
		if err := rows.Scan(&s.ID, &s.CustomerRef, &s.AmountMinor, &s.Currency, &s.NextBillingDate, &zone, &at); err != nil {
			return nil, fmt.Errorf("billing: scan subscription: %w", err)
		}
		if s.Zone, err = loadZone(zone); err != nil {
			return nil, fmt.Errorf("billing: subscription %d: %w", s.ID, err)
		}
		s.NextChargeAt = time.Time(at)
		subs = append(subs, s)
	}
	return subs, rows.Err()
}

// advance moves sub past the period starting at period, in tx. It is a
// compare-and-set on next_billing_date: if the row no longer starts its
// next period there, someone else advanced it and the caller must not
// commit.
func advance(ctx context.Context, db *DB, tx *sql.Tx, sub Subscription, period dstsafe.Date) error {
	next := period.AddMonths(1)
	at, _ := LocalMidnight(next, sub.Zone)
	res, err := tx.ExecContext(ctx, db.q(`UPDATE subscriptions SET next_billing_date = ?, next_charge_at = ?
		WHERE id = ? AND next_billing_date = ?`), next, utc(at), sub.ID, period)
	if err != nil {
		return fmt.Errorf("billing: advance subscription %d: %w", sub.ID, err)
	}
	if n, err := res.RowsAffected(); err != nil || n != 1 {
		return fmt.Errorf("billing: advance subscription %d past %s: %w", sub.ID, period, ErrConcurrentUpdate)
	}
	return nil
}

var zones sync.Map // zone name -> *time.Location

// loadZone is time.LoadLocation with a cache: loading reads and parses a
// tzdata file, and the resolver caches its tables per *time.Location.
func loadZone(name string) (*time.Location, error) {
	if loc, ok := zones.Load(name); ok {
		return loc.(*time.Location), nil
	}
	loc, err := time.LoadLocation(name)
	if err != nil {
		return nil, err
	}
	actual, _ := zones.LoadOrStore(name, loc)
	return actual.(*time.Location), nil
}

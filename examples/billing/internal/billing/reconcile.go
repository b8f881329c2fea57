package billing

import (
	"context"
	"fmt"
	"github.com/dstsafe/dstsafe"
	"time"
)

// Report is what Reconcile found.
type Report struct {
	Since dstsafe.Date `json:"since"`
	// Duplicates are subscriptions charged more than once for one period:
	// the postmortem's query.
	Duplicates []Duplicate `json:"duplicates"`
	// DuplicateAmountMinor is the money taken twice (or more): the sum of
	// every successful charge beyond the first, per currency minor unit.
	DuplicateAmountMinor int64 `json:"duplicate_amount_minor"`
	// Unbilled are subscriptions still due for a period that was billed for
	// others, with no charge row for it: a run missed them.
	Unbilled []int64 `json:"unbilled"`
	// NotAdvanced are subscriptions charged for a period whose
	// next_billing_date still points at or before it: the next run would
	// charge them again.
	NotAdvanced []int64 `json:"not_advanced"`
	// Declined counts subscriptions whose charge for their current period
	// was declined: due but unpaid, dunning's business, not an error.
	Declined int `json:"declined"`
}

// OK reports whether nothing is wrong: no duplicate, no subscription
// missed or left behind. Declines are not errors.
func (r Report) OK() bool {
	return len(r.Duplicates) == 0 && len(r.Unbilled) == 0 && len(r.NotAdvanced) == 0
}

// Duplicate is one subscription charged Count times for one period.
type Duplicate struct {
	SubscriptionID int64        `json:"subscription_id"`
	PeriodStart    dstsafe.Date `json:"period_start"`
	Count          int          `json:"count"`
}

// Reconcile checks the charges of periods starting on or after since
// against the subscriptions.
func Reconcile(ctx context.Context, db *DB, since dstsafe.Date) (Report, error) {
	r := Report{Since: since}

	// The postmortem's query: money taken more than once per period.
	rows, err := db.QueryContext(ctx, db.q(`
		SELECT subscription_id, period_start, count(*), sum(amount_minor) - min(amount_minor)
		FROM charges
		WHERE status = 'succeeded' AND period_start >= ?
		GROUP BY subscription_id, period_start
		HAVING count(*) > 1
		ORDER BY subscription_id, period_start`), since)
	if err != nil {
		return r, fmt.Errorf("billing: reconcile duplicates: %w", err)
	}
	defer rows.Close()
	for rows.Next() {
		var (
			d     Duplicate
			extra int64
		)
		if err := rows.Scan(&d.SubscriptionID, &d.PeriodStart, &d.Count, &extra); err != nil {
			return r, err
		}
		r.Duplicates = append(r.Duplicates, d)
		r.DuplicateAmountMinor += extra
	}
	if err := rows.Err(); err != nil {
		return r, err
	}

	// Charges against subscriptions due: every subscription whose next
	// period is one that has been billed must have a charge row for it
	// (declined, or pending in a crashed run that never committed: no).
	if r.Unbilled, err = ids(ctx, db, `
		SELECT s.id FROM subscriptions s
		WHERE s.next_billing_date >= ?
		  AND s.next_billing_date <= (SELECT max(period_start) FROM charges)
		  AND NOT EXISTS (SELECT 1 FROM charges c
		                  WHERE c.subscription_id = s.id AND c.period_start = s.next_billing_date)
		ORDER BY s.id`, since); err != nil {
		return r, err
	}
	if r.NotAdvanced, err = ids(ctx, db, `
		SELECT DISTINCT s.id FROM subscriptions s
		JOIN charges c ON c.subscription_id = s.id
		WHERE c.status = 'succeeded' AND c.period_start >= ? AND s.next_billing_date <= c.period_start
		ORDER BY s.id`, since); err != nil {
		return r, err
	}
	if err := db.QueryRowContext(ctx, db.q(`
		SELECT count(DISTINCT s.id) FROM subscriptions s
		JOIN charges c ON c.subscription_id = s.id AND c.period_start = s.next_billing_date
		WHERE c.status = 'declined' AND c.period_start >= ?`), since).Scan(&r.Declined); err != nil {
		return r, fmt.Errorf("billing: reconcile declines: %w", err)
	}
	return r, nil
}

func ids(ctx context.Context, db *DB, query string, args ...any) ([]int64, error) {
	rows, err := db.QueryContext(ctx, db.q(query), args...)
	if err != nil {
		return nil, fmt.Errorf("billing: reconcile: %w", err)
	}
	defer rows.Close()
	var out []int64
	for rows.Next() {
		var id int64
		if err := rows.Scan(&id); err != nil {
			return nil, err
		}
		out = append(out, id)
	}
	return out, rows.Err()
}

// RunStats is what one run left in charges.
type RunStats struct {
	RunID        string
	Charged      int
	ChargedMinor int64
	Declined     int
}

// Stats returns, per run id in order of first charge, the charges made for
// periods starting on or after since.
func Stats(ctx context.Context, db *DB, since dstsafe.Date) ([]RunStats, error) {
	rows, err := db.QueryContext(ctx, db.q(`
		SELECT run_id,
		       sum(CASE WHEN status = 'succeeded' THEN 1 ELSE 0 END),
		       sum(CASE WHEN status = 'succeeded' THEN amount_minor ELSE 0 END),
		       sum(CASE WHEN status = 'declined' THEN 1 ELSE 0 END)
		FROM charges WHERE period_start >= ?
		GROUP BY run_id ORDER BY min(id)`), since)
	if err != nil {
		return nil, fmt.Errorf("billing: stats: %w", err)
	}
	defer rows.Close()
	var out []RunStats
	for rows.Next() {
		var s RunStats
		if err := rows.Scan(&s.RunID, &s.Charged, &s.ChargedMinor, &s.Declined); err != nil {
			return nil, err
		}
		out = append(out, s)
	}
	return out, rows.Err()
}

// Charge is a row of charges.
type Charge struct {
	SubscriptionID int64
	PeriodStart    dstsafe.Date
	Status         string
	RunID          string
	CreatedAt      time.Time
}

// Charges returns the charges for periods starting on or after since, by id.
func Charges(ctx context.Context, db *DB, since dstsafe.Date) ([]Charge, error) {
	rows, err := db.QueryContext(ctx, db.q(`SELECT subscription_id, period_start, status, run_id, created_at
		FROM charges WHERE period_start >= ? ORDER BY id`), since)
	if err != nil {
		return nil, fmt.Errorf("billing: charges: %w", err)
	}
	defer rows.Close()
	var out []Charge
	for rows.Next() {
		var (
			c  Charge
			at utc
		)
		if err := rows.Scan(&c.SubscriptionID, &c.PeriodStart, &c.Status, &c.RunID, &at); err != nil {
			return nil, err
		}
		c.CreatedAt = time.Time(at)
		out = append(out, c)
	}
	return out, rows.Err()
}

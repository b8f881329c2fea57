package billing

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"github.com/dstsafe/dstsafe"
	"time"

	"github.com/dstsafe/dstsafe/examples/billing/internal/payments"
)

// Naive is the billing worker from the postmortem, kept to replay the
// incident of 2024-11-03. Do not copy it. Every 20 seconds it asks "is it
// 01:30 in Chicago?"; a guard skips the run if the last one started less
// than 10 minutes ago; the charged subscriptions get their
// next_billing_date in a batch at 02:15. On the night the clocks go back,
// 01:30 happens twice, an hour apart, and 02:15 comes only after the
// second 01:30: the guard lets the second run through, and the second run
// finds every subscription still due.
//
// It runs on the legacy schema (MigrateLegacy): charges without the unique
// key. Its idempotency keys are fresh for each run, as the legacy client
// built them, so the processor sees two different requests.
type Naive struct {
	DB        *DB
	Processor payments.Processor
	Zone      *time.Location
	// At is the wall time the worker matches (01:30); BatchAt the wall time
	// of the deferred next_billing_date update (02:15).
	At, BatchAt [2]int
	Guard       time.Duration // 10 minutes
	Progress    func(done, total int)
	pending     []Subscription // charged, next_billing_date not yet advanced
}

// NewNaive returns the worker as the postmortem describes it.
func NewNaive(db *DB, p payments.Processor, zone *time.Location) *Naive {
	return &Naive{DB: db, Processor: p, Zone: zone, At: [2]int{1, 30}, BatchAt: [2]int{2, 15}, Guard: 10 * time.Minute}
}

// Tick is the worker's 20-second poll at instant now.
func (n *Naive) Tick(ctx context.Context, now time.Time) error {
	local := now.In(n.Zone)
	//dstsafevet:ignore replays the 2024-11-03 incident on purpose
	if local.Hour() == n.At[0] && local.Minute() == n.At[1] {
		var last *utc // NULL before the first run
		if err := n.DB.QueryRowContext(ctx, n.DB.q(`SELECT max(started_at) FROM job_runs WHERE job = ?`), JobName).Scan(&last); err != nil {
			return fmt.Errorf("naive: read last run: %w", err)
		}
		// The guard measures elapsed time since the last start. A real
		// hour separates the two 01:30s of a fall-back night.
		//dstsafevet:ignore replays the 2024-11-03 incident on purpose
		if last == nil || now.Sub(time.Time(*last)) >= n.Guard {
			if err := n.run(ctx, now); err != nil {
				return err
			}
		}
	}
	//dstsafevet:ignore replays the 2024-11-03 incident on purpose
	if len(n.pending) > 0 && local.Hour() == n.BatchAt[0] && local.Minute() == n.BatchAt[1] {
		return n.batchUpdate(ctx)
	}
	return nil
}

func (n *Naive) run(ctx context.Context, now time.Time) error {
	runID := "naive@" + now.In(n.Zone).Format("2006-01-02T15:04:05-07:00")
	if _, err := n.DB.ExecContext(ctx, n.DB.q(`INSERT INTO job_runs (job, run_id, started_at) VALUES (?, ?, ?)`),
		JobName, runID, utc(now)); err != nil {
		return fmt.Errorf("naive: record run: %w", err)
	}
	// The business date comes from the tick's local clock, as the
	// postmortem's worker took it, not from the scheduled instant.
	//dstsafevet:ignore replays the 2024-11-03 incident on purpose
	subs, err := DueOn(ctx, n.DB, dstsafe.DateOf(now, n.Zone))
	if err != nil {
		return err
	}
	for i, sub := range subs {
		c, err := n.Processor.Charge(ctx, payments.Request{
			IdempotencyKey: runID + "-sub-" + fmt.Sprint(sub.ID), // new for every run: no protection across runs
			CustomerRef:    sub.CustomerRef,
			AmountMinor:    sub.AmountMinor,
			Currency:       sub.Currency,
		})
		status, code := "succeeded", sql.NullString{}
		var decline *payments.DeclineError
		switch {
		case err == nil:
		case errors.As(err, &decline):
			status, code = "declined", sql.NullString{String: decline.Code, Valid: true}
		default:
			return fmt.Errorf("naive: charge subscription %d: %w", sub.ID, err)
		}
		if _, err := n.DB.ExecContext(ctx, n.DB.q(`INSERT INTO charges
			(subscription_id, period_start, amount_minor, currency, idempotency_key, status, processor_charge_id, decline_code, run_id, created_at)
			VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`),
			sub.ID, sub.NextBillingDate, sub.AmountMinor, sub.Currency, runID+"-sub-"+fmt.Sprint(sub.ID),
			status, sql.NullString{String: c.ID, Valid: c.ID != ""}, code, runID, utc(now)); err != nil {
			return fmt.Errorf("naive: record charge: %w", err)
		}
		if status == "succeeded" {
			n.pending = append(n.pending, sub)
		}
		if n.Progress != nil {
			n.Progress(i+1, len(subs))
		}
	}
	return nil
}

// batchUpdate is the deferred next_billing_date update.
func (n *Naive) batchUpdate(ctx context.Context) error {
	err := n.DB.inTx(ctx, func(tx *sql.Tx) error {
		for _, sub := range n.pending {
			next := sub.NextBillingDate.AddMonths(1)
			at, _ := LocalMidnight(next, sub.Zone)
			if _, err := tx.ExecContext(ctx, n.DB.q(`UPDATE subscriptions SET next_billing_date = ?, next_charge_at = ? WHERE id = ?`),
				next, utc(at), sub.ID); err != nil {
				return err
			}
		}
		return nil
	})
	if err != nil {
		return fmt.Errorf("naive: batch update: %w", err)
	}
	n.pending = nil
	return nil
}

// NaiveRun is a row of job_runs: a start of the naive worker.
type NaiveRun struct {
	RunID   string
	Started time.Time
}

// NaiveRuns returns the naive worker's runs, in order.
func NaiveRuns(ctx context.Context, db *DB) ([]NaiveRun, error) {
	rows, err := db.QueryContext(ctx, db.q(`SELECT run_id, started_at FROM job_runs WHERE job = ? ORDER BY started_at`), JobName)
	if err != nil {
		return nil, fmt.Errorf("naive: runs: %w", err)
	}
	defer rows.Close()
	var runs []NaiveRun
	for rows.Next() {
		var (
			r  NaiveRun
			at utc
		)
		if err := rows.Scan(&r.RunID, &at); err != nil {
			return nil, err
		}
		r.Started = time.Time(at)
		runs = append(runs, r)
	}
	return runs, rows.Err()
}

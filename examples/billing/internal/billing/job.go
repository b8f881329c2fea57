package billing

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"log/slog"
	"time"

	"github.com/dstsafe/dstsafe"
	"github.com/dstsafe/dstsafe/examples/billing/internal/payments"
	"github.com/jonboulle/clockwork"
)

// JobName is the billing job's name in the run ledger: a run claims
// (JobName, run_date) before it charges anyone.
const JobName = "billing"

// ErrConcurrentUpdate: a subscription's next period moved under a running
// charge. The charge's transaction is rolled back.
var ErrConcurrentUpdate = errors.New("billing: subscription advanced concurrently")

// Job bills subscriptions. Each subscription is billed in its own
// transaction, so a run that dies half-way leaves every subscription either
// billed for the period (charge row, processor result, next period) or
// untouched, and a rerun finishes the others.
type Job struct {
	DB        *DB
	Processor payments.Processor
	// Clock stamps charge rows. Defaults to the real clock.
	Clock dstsafe.Clock
	// Zone is the company's zone, where a run's run_date is derived.
	Zone *time.Location
	// Attempts is how many times a processor call is sent when the answer
	// is unknown (timeout, lost response, key in flight), always with the
	// same idempotency key. Defaults to 3.
	Attempts int
	// CallTimeout bounds each processor call. Defaults to 30 seconds.
	CallTimeout time.Duration
	// Log, if set, gets a line per run.
	Log *slog.Logger
	// Progress, if set, is called after each subscription.
	Progress func(done, total int)
	// Hooks let tests crash the job at its two dangerous points.
	Hooks Hooks
}

// Hooks are called inside a subscription's transaction.
type Hooks struct {
	// AfterChargeRow runs once the charge row is inserted, before the
	// processor is called.
	AfterChargeRow func(Subscription)
	// AfterProcessor runs once the processor has answered, before the
	// result is recorded and the transaction committed.
	AfterProcessor func(Subscription)
}

// Result counts what a run did.
type Result struct {
	Due           int // subscriptions due when the run started
	Charged       int // charged by this run
	Declined      int // declined by the processor in this run
	AlreadyBilled int // had a charge row for the period already
}

// RunDate is the run_date of a run firing at instant at: the date at
// reads in the company's zone. It is derived explicitly, never from the
// machine's zone or from UTC: the billing run at 07:30 UTC is 01:30 or
// 02:30 in Chicago, on the Chicago date being billed.
func (j *Job) RunDate(at time.Time) dstsafe.Date { return dstsafe.DateOf(at, j.Zone) }

// IdempotencyKey is the processor key for billing sub for the period
// starting at period: internal ids and the period only, no personal data,
// and the same in every run, process and retry.
func IdempotencyKey(subID int64, period dstsafe.Date) string {
	return fmt.Sprintf("sub-%d-period-%s", subID, period)
}

// Bill charges every subscription due on runDate once for its period.
// runID is written on the charge rows it creates. Bill does not claim the
// run: the scheduler (or ClaimAndBill) does, before calling it. Calling it
// again for the same runDate, concurrently or later, charges nobody twice:
// the charge row's UNIQUE (subscription_id, period_start) stops it.
//
// A subscription whose processor call fails with anything but a decline is
// left untouched (its transaction rolls back) and Bill goes on with the
// others; the returned error then lists them and the run must be retried.
func (j *Job) Bill(ctx context.Context, runDate dstsafe.Date, runID string) (Result, error) {
	subs, err := DueOn(ctx, j.DB, runDate)
	if err != nil {
		return Result{}, err
	}
	return j.billAll(ctx, subs, runID)
}

// BillDue charges every subscription whose next charge instant (its
// customer's local midnight, stored in UTC) is at or before now, for the
// period starting on its next_billing_date: per-customer local-midnight
// billing. Calling it on every tick of a frequent schedule bills each
// customer once per period, whatever the clocks did that night.
func (j *Job) BillDue(ctx context.Context, now time.Time, runID string) (Result, error) {
	subs, err := DueAt(ctx, j.DB, now)
	if err != nil {
		return Result{}, err
	}
	return j.billAll(ctx, subs, runID)
}

func (j *Job) billAll(ctx context.Context, subs []Subscription, runID string) (Result, error) {
	res := Result{Due: len(subs)}
	var errs []error
	for i, sub := range subs {
		if err := ctx.Err(); err != nil {
			return res, err
		}
		out, err := j.charge(ctx, sub, sub.NextBillingDate, runID)
		switch {
		case err != nil:
			errs = append(errs, err)
		case out == charged:
			res.Charged++
		case out == declined:
			res.Declined++
		case out == alreadyBilled:
			res.AlreadyBilled++
		}
		if j.Progress != nil {
			j.Progress(i+1, len(subs))
		}
	}
	if len(errs) > 0 {
		return res, fmt.Errorf("billing: %d of %d subscriptions not billed: %w", len(errs), len(subs), errors.Join(errs...))
	}
	return res, nil
}

type outcome uint8

const (
	charged outcome = iota + 1
	declined
	alreadyBilled
)

// charge bills sub for the period starting at period, in one transaction:
// insert the charge row (the unique key is the guard), call the processor
// with the period's idempotency key, record the result, advance the
// subscription. Nothing is deferred to after the run.
//
// The transaction stays open across the processor call on purpose: the
// uncommitted charge row makes a concurrent run billing the same
// subscription wait for it (PostgreSQL's unique index; SQLite's write lock),
// and a crash rolls the row back, so that a rerun asks the processor again
// with the same key and records what it replays. The price is a database
// connection held for the length of the call, and on SQLite the database's
// single write lock: other writers (another billing process's claim) wait.
// The alternative, committing a pending row first, needs a sweeper for rows
// whose outcome is unknown.
func (j *Job) charge(ctx context.Context, sub Subscription, period dstsafe.Date, runID string) (outcome, error) {
	key := IdempotencyKey(sub.ID, period)
	var out outcome
	err := j.DB.inTx(ctx, func(tx *sql.Tx) error {
		ins, err := tx.ExecContext(ctx, j.DB.q(`INSERT INTO charges
			(subscription_id, period_start, amount_minor, currency, idempotency_key, status, run_id, created_at)
			VALUES (?, ?, ?, ?, ?, 'pending', ?, ?)
			ON CONFLICT (subscription_id, period_start) DO NOTHING`),
			sub.ID, period, sub.AmountMinor, sub.Currency, key, runID, utc(j.now()))
		if err != nil {
			return fmt.Errorf("billing: insert charge for subscription %d: %w", sub.ID, err)
		}
		if n, err := ins.RowsAffected(); err != nil {
			return err
		} else if n == 0 {
			// Billed (or declined) for this period already, by an earlier
			// run or a concurrent one whose transaction we waited for.
			out = alreadyBilled
			return nil
		}
		if j.Hooks.AfterChargeRow != nil {
			j.Hooks.AfterChargeRow(sub)
		}

		c, perr := j.callProcessor(ctx, payments.Request{
			IdempotencyKey: key,
			CustomerRef:    sub.CustomerRef,
			AmountMinor:    sub.AmountMinor,
			Currency:       sub.Currency,
		})
		var decline *payments.DeclineError
		if perr != nil && !errors.As(perr, &decline) {
			// The money may or may not have moved: roll back, and let a
			// rerun ask again with the same key.
			return fmt.Errorf("billing: charge subscription %d for %s: %w", sub.ID, period, perr)
		}
		if j.Hooks.AfterProcessor != nil {
			j.Hooks.AfterProcessor(sub)
		}

		if decline != nil {
			// Dunning takes it from here; the subscription stays due.
			out = declined
			_, err = tx.ExecContext(ctx, j.DB.q(`UPDATE charges SET status = 'declined', decline_code = ?
				WHERE subscription_id = ? AND period_start = ?`), decline.Code, sub.ID, period)
			return err
		}
		out = charged
		if _, err := tx.ExecContext(ctx, j.DB.q(`UPDATE charges SET status = 'succeeded', processor_charge_id = ?
			WHERE subscription_id = ? AND period_start = ?`), c.ID, sub.ID, period); err != nil {
			return fmt.Errorf("billing: record charge of subscription %d: %w", sub.ID, err)
		}
		return advance(ctx, j.DB, tx, sub, period)
	})
	if err != nil {
		return 0, err
	}
	return out, nil
}

// callProcessor sends req, resending it with the same key while the
// answer is unknown. Resending is safe only because the key is the same:
// the processor replays the first result instead of charging again. A key
// still in flight elsewhere (a dead process's request) usually outlasts
// these immediate retries: the subscription then fails for this run and the
// scheduler's retry of the run picks it up.
func (j *Job) callProcessor(ctx context.Context, req payments.Request) (payments.Charge, error) {
	attempts := j.Attempts
	if attempts <= 0 {
		attempts = 3
	}
	timeout := j.CallTimeout
	if timeout <= 0 {
		timeout = 30 * time.Second
	}
	var err error
	for range attempts {
		callCtx, cancel := context.WithTimeout(ctx, timeout)
		var c payments.Charge
		c, err = j.Processor.Charge(callCtx, req)
		cancel()
		if err == nil || !payments.Retryable(err) || ctx.Err() != nil {
			return c, err
		}
	}
	return payments.Charge{}, err
}

func (j *Job) now() time.Time {
	if j.Clock == nil {
		return clockwork.NewRealClock().Now()
	}
	return j.Clock.Now()
}

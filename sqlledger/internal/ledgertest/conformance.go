package ledgertest

import (
	"context"
	"testing"
	"time"

	"github.com/jonboulle/clockwork"

	"github.com/dstsafe/dstsafe"
	"github.com/dstsafe/dstsafe/dstsafetest"
	"github.com/dstsafe/dstsafe/sqlledger"
)

// pendingSchedule: the table has no column for ClaimRequest.Schedule yet.
var pendingSchedule = dstsafetest.WithoutSchedule("sqlledger: schedule column pending")

func testConformance(t *testing.T, b Backend) {
	dstsafetest.RunLedgerTests(t, func(t *testing.T, clock *clockwork.FakeClock) dstsafe.Ledger {
		return b.New(t, sqlledger.WithClock(clock))
	}, append(b.Broken(t), pendingSchedule)...)
}

// The same suite through WithTx views, each call in its own committed
// transaction: a ledger used inside the caller's transactions behaves the
// same. Relaxed: this variant checks transactions, Conformance the
// durable default.
func testConformanceInTx(t *testing.T, b Backend) {
	dstsafetest.RunLedgerTests(t, func(t *testing.T, clock *clockwork.FakeClock) dstsafe.Ledger {
		tg := b.Fresh(t)
		tg.Relaxed = true
		l := b.open(t, tg, sqlledger.WithClock(clock))
		if err := l.Migrate(context.Background()); err != nil {
			t.Fatalf("Migrate: %v", err)
		}
		return txLedger{l}
	}, pendingSchedule)
}

// txLedger runs each call in a transaction of its own through WithTx,
// committing it unless the call failed.
type txLedger struct{ l *sqlledger.Ledger }

func inTx[T any](ctx context.Context, l *sqlledger.Ledger, f func(v *sqlledger.Ledger) (T, error)) (T, error) {
	var zero T
	tx, err := l.DB().BeginTx(ctx, nil)
	if err != nil {
		return zero, err
	}
	v, err := f(l.WithTx(tx))
	if err != nil {
		tx.Rollback()
		return zero, err
	}
	if err := tx.Commit(); err != nil {
		return zero, err
	}
	return v, nil
}

func (x txLedger) Claim(ctx context.Context, req dstsafe.ClaimRequest) (dstsafe.Record, error) {
	return inTx(ctx, x.l, func(v *sqlledger.Ledger) (dstsafe.Record, error) { return v.Claim(ctx, req) })
}

func (x txLedger) Heartbeat(ctx context.Context, job, period string, token int64, lease time.Duration) (dstsafe.Record, error) {
	return inTx(ctx, x.l, func(v *sqlledger.Ledger) (dstsafe.Record, error) {
		return v.Heartbeat(ctx, job, period, token, lease)
	})
}

func (x txLedger) Finish(ctx context.Context, job, period string, token int64, state dstsafe.State, reason string) (dstsafe.Record, error) {
	return inTx(ctx, x.l, func(v *sqlledger.Ledger) (dstsafe.Record, error) {
		return v.Finish(ctx, job, period, token, state, reason)
	})
}

func (x txLedger) Get(ctx context.Context, job, period string) (dstsafe.Record, error) {
	return inTx(ctx, x.l, func(v *sqlledger.Ledger) (dstsafe.Record, error) { return v.Get(ctx, job, period) })
}

func (x txLedger) List(ctx context.Context, job, from, to string) ([]dstsafe.Record, error) {
	return inTx(ctx, x.l, func(v *sqlledger.Ledger) ([]dstsafe.Record, error) { return v.List(ctx, job, from, to) })
}

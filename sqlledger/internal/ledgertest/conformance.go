package ledgertest

import (
	"context"
	"errors"
	"sync"
	"testing"
	"time"

	"github.com/jonboulle/clockwork"

	"github.com/dstsafe/dstsafe"
	"github.com/dstsafe/dstsafe/dstsafetest"
	"github.com/dstsafe/dstsafe/sqlledger"
)

func testConformance(t *testing.T, b Backend) {
	var (
		mu      sync.Mutex
		targets = map[dstsafe.Ledger]Target{}
		seconds int
	)
	dstsafetest.RunLedgerTests(t, func(t *testing.T, clock *clockwork.FakeClock) dstsafe.Ledger {
		l, tg := b.Unmigrated(t, sqlledger.WithClock(clock))
		if err := l.Migrate(context.Background()); err != nil {
			t.Fatalf("Migrate: %v", err)
		}
		mu.Lock()
		targets[l] = tg
		mu.Unlock()
		return requireControl(t, l)
	}, append(b.Broken(t), olderSchema(b), dstsafetest.WithSecondLedger(func(t *testing.T, clock *clockwork.FakeClock, l dstsafe.Ledger) dstsafe.Ledger {
		mu.Lock()
		tg, ok := targets[l]
		seconds++
		mu.Unlock()
		if !ok {
			t.Fatalf("second ledger asked for a ledger the suite was not given: %T", l)
		}
		return b.open(t, tg, sqlledger.WithClock(clock)) // its own *sql.DB: another process's pool
	}))...)
	if seconds == 0 && !t.Failed() {
		t.Error("the suite never opened a second ledger: ControlShared did not run")
	}
}

// testScheduler runs the runner's operating features (pause, backfill,
// the max-runs race, jitter, Describe) on the backend, each subtest on a
// freshly migrated ledger.
func testScheduler(t *testing.T, b Backend) {
	dstsafetest.RunSchedulerTests(t, func(t *testing.T, clock *clockwork.FakeClock) dstsafe.Ledger {
		l, _ := b.Unmigrated(t, sqlledger.WithClock(clock))
		if err := l.Migrate(context.Background()); err != nil {
			t.Fatalf("Migrate: %v", err)
		}
		return requireControl(t, l)
	})
}

// requireControl fails the test unless l is a dstsafe.ControlLedger and
// a dstsafe.JobRegistry, so that the suite's control and registry
// subtests cannot quietly skip.
func requireControl(t *testing.T, l dstsafe.Ledger) dstsafe.Ledger {
	t.Helper()
	if _, ok := l.(dstsafe.ControlLedger); !ok {
		t.Fatalf("%T is not a dstsafe.ControlLedger: the suite would skip its control subtests", l)
	}
	if _, ok := l.(dstsafe.JobRegistry); !ok {
		t.Fatalf("%T is not a dstsafe.JobRegistry: the suite would skip its registry subtests", l)
	}
	return l
}

// olderSchema is a ledger on a database migrated by the previous release
// (schema version 1) and not since: every call says ErrNotMigrated, which
// is permanent, rather than failing in a way a caller would retry.
func olderSchema(b Backend) dstsafetest.LedgerSuiteOption {
	return dstsafetest.WithBrokenLedger("schema version 1", func(t *testing.T, clock *clockwork.FakeClock) dstsafe.Ledger {
		l, _ := b.Unmigrated(t, sqlledger.WithClock(clock), AtVersion(1))
		if err := l.Migrate(context.Background()); err != nil {
			t.Fatalf("Migrate to version 1: %v", err)
		}
		return notMigrated{t, l}
	})
}

// notMigrated checks that every error of the ledger wraps
// sqlledger.ErrNotMigrated.
type notMigrated struct {
	t *testing.T
	*sqlledger.Ledger
}

func (n notMigrated) check(err error) error {
	n.t.Helper()
	if !errors.Is(err, sqlledger.ErrNotMigrated) {
		n.t.Errorf("on a version-1 database: %v, want ErrNotMigrated", err)
	}
	return err
}

func (n notMigrated) Claim(ctx context.Context, req dstsafe.ClaimRequest) (dstsafe.Record, error) {
	r, err := n.Ledger.Claim(ctx, req)
	return r, n.check(err)
}

func (n notMigrated) Heartbeat(ctx context.Context, job, period string, token int64, lease time.Duration) (dstsafe.Record, error) {
	r, err := n.Ledger.Heartbeat(ctx, job, period, token, lease)
	return r, n.check(err)
}

func (n notMigrated) Finish(ctx context.Context, job, period string, token int64, state dstsafe.State, reason string) (dstsafe.Record, error) {
	r, err := n.Ledger.Finish(ctx, job, period, token, state, reason)
	return r, n.check(err)
}

func (n notMigrated) Get(ctx context.Context, job, period string) (dstsafe.Record, error) {
	r, err := n.Ledger.Get(ctx, job, period)
	return r, n.check(err)
}

func (n notMigrated) List(ctx context.Context, job, from, to string) ([]dstsafe.Record, error) {
	r, err := n.Ledger.List(ctx, job, from, to)
	return r, n.check(err)
}

func (n notMigrated) SetPause(ctx context.Context, job string, p dstsafe.Pause) (dstsafe.Pause, error) {
	r, err := n.Ledger.SetPause(ctx, job, p)
	return r, n.check(err)
}

func (n notMigrated) GetPause(ctx context.Context, job string) (dstsafe.Pause, error) {
	r, err := n.Ledger.GetPause(ctx, job)
	return r, n.check(err)
}

func (n notMigrated) Release(ctx context.Context, job, period, by, reason string) (dstsafe.Record, error) {
	r, err := n.Ledger.Release(ctx, job, period, by, reason)
	return r, n.check(err)
}

// The same suite through WithTx views, each call in its own committed
// transaction: a ledger used inside the caller's transactions behaves the
// same. Relaxed: this variant checks transactions, Conformance the
// durable default.
func testConformanceInTx(t *testing.T, b Backend) {
	var (
		mu      sync.Mutex
		targets = map[dstsafe.Ledger]Target{}
	)
	dstsafetest.RunLedgerTests(t, func(t *testing.T, clock *clockwork.FakeClock) dstsafe.Ledger {
		tg := b.Fresh(t)
		tg.Relaxed = true
		l := b.open(t, tg, sqlledger.WithClock(clock))
		if err := l.Migrate(context.Background()); err != nil {
			t.Fatalf("Migrate: %v", err)
		}
		x := txLedger{l}
		mu.Lock()
		targets[x] = tg
		mu.Unlock()
		return requireControl(t, x)
	}, dstsafetest.WithSecondLedger(func(t *testing.T, clock *clockwork.FakeClock, l dstsafe.Ledger) dstsafe.Ledger {
		mu.Lock()
		tg := targets[l]
		mu.Unlock()
		return txLedger{b.open(t, tg, sqlledger.WithClock(clock))}
	}))
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

func (x txLedger) SetPause(ctx context.Context, job string, p dstsafe.Pause) (dstsafe.Pause, error) {
	return inTx(ctx, x.l, func(v *sqlledger.Ledger) (dstsafe.Pause, error) { return v.SetPause(ctx, job, p) })
}

func (x txLedger) GetPause(ctx context.Context, job string) (dstsafe.Pause, error) {
	return inTx(ctx, x.l, func(v *sqlledger.Ledger) (dstsafe.Pause, error) { return v.GetPause(ctx, job) })
}

func (x txLedger) Release(ctx context.Context, job, period, by, reason string) (dstsafe.Record, error) {
	return inTx(ctx, x.l, func(v *sqlledger.Ledger) (dstsafe.Record, error) { return v.Release(ctx, job, period, by, reason) })
}

func (x txLedger) RegisterJob(ctx context.Context, reg dstsafe.JobRegistration) (dstsafe.JobInfo, error) {
	return inTx(ctx, x.l, func(v *sqlledger.Ledger) (dstsafe.JobInfo, error) { return v.RegisterJob(ctx, reg) })
}

func (x txLedger) LookupJob(ctx context.Context, job string) (dstsafe.JobInfo, error) {
	return inTx(ctx, x.l, func(v *sqlledger.Ledger) (dstsafe.JobInfo, error) { return v.LookupJob(ctx, job) })
}

func (x txLedger) Jobs(ctx context.Context) ([]string, error) {
	return inTx(ctx, x.l, func(v *sqlledger.Ledger) ([]string, error) { return v.Jobs(ctx) })
}

func (n notMigrated) Jobs(ctx context.Context) ([]string, error) {
	r, err := n.Ledger.Jobs(ctx)
	return r, n.check(err)
}

func (n notMigrated) RegisterJob(ctx context.Context, reg dstsafe.JobRegistration) (dstsafe.JobInfo, error) {
	r, err := n.Ledger.RegisterJob(ctx, reg)
	return r, n.check(err)
}

func (n notMigrated) LookupJob(ctx context.Context, job string) (dstsafe.JobInfo, error) {
	r, err := n.Ledger.LookupJob(ctx, job)
	return r, n.check(err)
}

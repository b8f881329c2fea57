package sqlledger_test

import (
	"context"
	"database/sql"
	"fmt"
	"os"
	"path/filepath"
	"sync/atomic"
	"testing"
	"time"

	_ "github.com/jackc/pgx/v5/stdlib" // registers the "pgx" driver
	"github.com/jonboulle/clockwork"

	"github.com/dstsafe/dstsafe"
	"github.com/dstsafe/dstsafe/dstsafetest"
	"github.com/dstsafe/dstsafe/sqlledger"
)

const pgEnv = "DSTSAFE_TEST_POSTGRES_DSN"

// openSQLite returns a migrated ledger on a fresh file in t.TempDir().
func openSQLite(t testing.TB, opts ...sqlledger.Option) (*sqlledger.Ledger, string) {
	t.Helper()
	path := filepath.Join(t.TempDir(), "ledger.db")
	l, err := sqlledger.OpenSQLite(path, opts...)
	if err != nil {
		t.Fatalf("OpenSQLite: %v", err)
	}
	t.Cleanup(func() { l.Close() })
	if err := l.Migrate(context.Background()); err != nil {
		t.Fatalf("Migrate: %v", err)
	}
	return l, path
}

// pgDB opens the test PostgreSQL database named by DSTSAFE_TEST_POSTGRES_DSN
// (skipping, or failing under CI=true, without it).
func pgDB(t testing.TB) *sql.DB {
	t.Helper()
	dsn := dstsafetest.RequireEnv(t, pgEnv)
	db, err := sql.Open("pgx", dsn)
	if err != nil {
		t.Fatalf("open %s: %v", pgEnv, err)
	}
	t.Cleanup(func() { db.Close() })
	if err := db.PingContext(context.Background()); err != nil {
		t.Fatalf("ping PostgreSQL at %s: %v", pgEnv, err)
	}
	return db
}

var tableSeq atomic.Int64

// uniqueTable names a table no other test, or test process, uses.
func uniqueTable() string {
	return fmt.Sprintf("dstsafe_test_%d_%d", os.Getpid(), tableSeq.Add(1))
}

// pgLedger returns a migrated ledger on its own table in db, dropped at
// the end of the test.
func pgLedger(t testing.TB, db *sql.DB, opts ...sqlledger.Option) *sqlledger.Ledger {
	t.Helper()
	table := uniqueTable()
	l, err := sqlledger.New(db, append([]sqlledger.Option{sqlledger.WithTable(table)}, opts...)...)
	if err != nil {
		t.Fatalf("New: %v", err)
	}
	if err := l.Migrate(context.Background()); err != nil {
		t.Fatalf("Migrate: %v", err)
	}
	t.Cleanup(func() { dropTable(t, db, table) })
	return l
}

func dropTable(t testing.TB, db *sql.DB, table string) {
	t.Helper()
	for _, tb := range []string{table, table + "_schema"} {
		if _, err := db.ExecContext(context.Background(), `DROP TABLE IF EXISTS "`+tb+`"`); err != nil {
			t.Errorf("drop %s: %v", tb, err)
		}
	}
}

func TestSQLiteConformance(t *testing.T) {
	dstsafetest.RunLedgerTests(t, func(t *testing.T, clock *clockwork.FakeClock) dstsafe.Ledger {
		l, _ := openSQLite(t, sqlledger.WithClock(clock))
		return l
	}, append(sqliteBroken(), pendingSchedule)...)
}

func TestPostgresConformance(t *testing.T) {
	db := pgDB(t)
	dstsafetest.RunLedgerTests(t, func(t *testing.T, clock *clockwork.FakeClock) dstsafe.Ledger {
		return pgLedger(t, db, sqlledger.WithClock(clock))
	}, append(postgresBroken(db), pendingSchedule)...)
}

// The same suite through WithTx views, each call in its own committed
// transaction: a ledger used inside the caller's transactions behaves the
// same.
func TestSQLiteConformanceInTx(t *testing.T) {
	dstsafetest.RunLedgerTests(t, func(t *testing.T, clock *clockwork.FakeClock) dstsafe.Ledger {
		// NORMAL: this variant checks transactions, TestSQLiteConformance
		// the durable default.
		l, _ := openSQLite(t, sqlledger.WithClock(clock), sqlledger.WithSynchronous(sqlledger.SyncNormal))
		return txLedger{l}
	}, pendingSchedule)
}

func TestPostgresConformanceInTx(t *testing.T) {
	db := pgDB(t)
	dstsafetest.RunLedgerTests(t, func(t *testing.T, clock *clockwork.FakeClock) dstsafe.Ledger {
		return txLedger{pgLedger(t, db, sqlledger.WithClock(clock))}
	}, pendingSchedule)
}

// txLedger runs each call in a transaction of its own through WithTx,
// committing it unless the call failed with an error other than a
// ledger sentinel.
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

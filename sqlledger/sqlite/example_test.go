package sqlite_test

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"time"

	"github.com/jonboulle/clockwork"

	"github.com/dstsafe/dstsafe"
	"github.com/dstsafe/dstsafe/sqlledger"
	"github.com/dstsafe/dstsafe/sqlledger/sqlite"
)

// The embedded default: one SQLite file, shared by every process of the
// service on the machine.
func ExampleOpenSQLite() {
	dir, _ := os.MkdirTemp("", "dstsafe-example")
	defer os.RemoveAll(dir)
	ctx := context.Background()
	clock := clockwork.NewFakeClockAt(time.Date(2024, 11, 3, 6, 30, 0, 0, time.UTC))

	ledger, err := sqlite.OpenSQLite(filepath.Join(dir, "ledger.db"), sqlledger.WithClock(clock))
	if err != nil {
		panic(err)
	}
	defer ledger.Close()
	if err := ledger.Migrate(ctx); err != nil {
		panic(err)
	}
	req := dstsafe.ClaimRequest{Job: "billing", Period: "2024-11-03", Owner: "worker-1"}
	r, err := ledger.Claim(ctx, req)
	fmt.Println(r.State, r.Token, err)
	clock.Advance(70 * time.Minute) // the second 01:30
	_, err = ledger.Claim(ctx, req)
	fmt.Println(errors.Is(err, dstsafe.ErrAlreadyClaimed))
	// Output:
	// running 1 <nil>
	// true
}

// Ledger.WithTx: the claim commits with the charges, or neither does: a
// run that fails before commit leaves no claim behind, and the period can
// run again. The charges live in the ledger's database, Ledger.DB().
func ExampleOpenSQLite_transaction() {
	dir, _ := os.MkdirTemp("", "dstsafe-example")
	defer os.RemoveAll(dir)
	ctx := context.Background()
	ledger, _ := sqlite.OpenSQLite(filepath.Join(dir, "ledger.db"))
	defer ledger.Close()
	ledger.Migrate(ctx)
	db := ledger.DB()
	db.ExecContext(ctx, `CREATE TABLE charges (customer TEXT, period TEXT, PRIMARY KEY (customer, period))`)

	charge := func(fail bool) error {
		tx, err := db.BeginTx(ctx, nil)
		if err != nil {
			return err
		}
		defer tx.Rollback()
		r, err := ledger.WithTx(tx).Claim(ctx, dstsafe.ClaimRequest{Job: "billing", Period: "2024-11-03", Owner: "w"})
		if err != nil {
			return err
		}
		if _, err := tx.ExecContext(ctx, `INSERT INTO charges VALUES ('cus_1', ?1)`, r.Period); err != nil {
			return err
		}
		if fail {
			return errors.New("card processor down")
		}
		if _, err := ledger.WithTx(tx).Finish(ctx, r.Job, r.Period, r.Token, dstsafe.StateSucceeded, ""); err != nil {
			return err
		}
		return tx.Commit()
	}
	fmt.Println(charge(true))
	fmt.Println(charge(false))
	fmt.Println(errors.Is(charge(false), dstsafe.ErrAlreadyClaimed))
	var n int
	db.QueryRowContext(ctx, `SELECT count(*) FROM charges`).Scan(&n)
	fmt.Println(n, "charge")
	// Output:
	// card processor down
	// <nil>
	// true
	// 1 charge
}

// Ledger.Migrate: a ledger that was never migrated says so; migrating is
// idempotent.
func ExampleOpenSQLite_migrate() {
	dir, _ := os.MkdirTemp("", "dstsafe-example")
	defer os.RemoveAll(dir)
	ctx := context.Background()
	ledger, _ := sqlite.OpenSQLite(filepath.Join(dir, "ledger.db"))
	defer ledger.Close()

	_, err := ledger.Claim(ctx, dstsafe.ClaimRequest{Job: "billing", Period: "2024-11-03", Owner: "w"})
	fmt.Println(errors.Is(err, sqlledger.ErrNotMigrated))
	v, _ := ledger.Version(ctx)
	fmt.Println("version", v)
	ledger.Migrate(ctx)
	ledger.Migrate(ctx) // idempotent
	v, _ = ledger.Version(ctx)
	fmt.Println("version", v)
	// Output:
	// true
	// version 0
	// version 4
}

// Durable by default; NORMAL trades the last commits on power loss for
// speed, and a shorter busy timeout fails sooner when another process
// holds the write lock.
func ExampleWithSynchronous() {
	dir, _ := os.MkdirTemp("", "dstsafe-example")
	defer os.RemoveAll(dir)
	ledger, err := sqlite.OpenSQLite(filepath.Join(dir, "ledger.db"),
		sqlite.WithSynchronous(sqlite.SyncNormal), sqlite.WithBusyTimeout(2*time.Second))
	if err != nil {
		panic(err)
	}
	defer ledger.Close()
	var mode string
	var sync, busy int
	db := ledger.DB()
	db.QueryRow(`PRAGMA journal_mode`).Scan(&mode)
	db.QueryRow(`PRAGMA synchronous`).Scan(&sync)
	db.QueryRow(`PRAGMA busy_timeout`).Scan(&busy)
	fmt.Println(mode, sync, busy)
	// Output: wal 1 2000
}

// A busy timeout of 0 makes every wait for another writer an immediate
// SQLITE_BUSY; a negative one is refused.
func ExampleWithBusyTimeout() {
	_, err := sqlite.OpenSQLite("ledger.db", sqlite.WithBusyTimeout(-time.Second))
	fmt.Println(err)
	// Output: sqlledger: invalid configuration: WithBusyTimeout "-1s": negative
}

// Ledger.Release: the 2024-11-03 billing run failed when the card
// processor went down, and billing never retries by policy. Once the
// processor is back, an operator releases the period; the next claim,
// from any process on the file, takes it over once.
func ExampleOpenSQLite_release() {
	dir, _ := os.MkdirTemp("", "dstsafe-example")
	defer os.RemoveAll(dir)
	ctx := context.Background()
	clock := clockwork.NewFakeClockAt(time.Date(2024, 11, 3, 6, 30, 0, 0, time.UTC))
	ledger, _ := sqlite.OpenSQLite(filepath.Join(dir, "ledger.db"), sqlledger.WithClock(clock))
	defer ledger.Close()
	ledger.Migrate(ctx)

	req := dstsafe.ClaimRequest{Job: "billing", Period: "2024-11-03", Owner: "billing-1"}
	r, _ := ledger.Claim(ctx, req)
	ledger.Finish(ctx, "billing", "2024-11-03", r.Token, dstsafe.StateFailed, "card processor down")
	_, err := ledger.Claim(ctx, req)
	fmt.Println(errors.Is(err, dstsafe.ErrAlreadyClaimed))

	rel, _ := ledger.Release(ctx, "billing", "2024-11-03", "ops@bastion", "processor back")
	fmt.Println(rel.State, rel.Released, rel.ReleasedBy)
	again, _ := ledger.Claim(ctx, req)
	fmt.Println(again.State, again.Attempt, again.Released)
	_, err = ledger.Release(ctx, "billing", "2024-11-03", "ops@bastion", "twice?")
	fmt.Println(errors.Is(err, dstsafe.ErrAlreadyClaimed)) // running: nothing to release
	// Output:
	// true
	// failed true ops@bastion
	// running 2 false
	// true
}

// Ledger.SetPause and GetPause: the pause is a row in the database, so
// every process on it, and the next one to start, sees it. Pausing a
// paused job keeps the first pause.
func ExampleOpenSQLite_pause() {
	dir, _ := os.MkdirTemp("", "dstsafe-example")
	defer os.RemoveAll(dir)
	ctx := context.Background()
	clock := clockwork.NewFakeClockAt(time.Date(2024, 11, 3, 6, 30, 0, 0, time.UTC))
	path := filepath.Join(dir, "ledger.db")
	ledger, _ := sqlite.OpenSQLite(path, sqlledger.WithClock(clock))
	ledger.Migrate(ctx)
	ledger.SetPause(ctx, "billing", dstsafe.Pause{Paused: true, By: "ops@bastion", Reason: "incident 42"})
	clock.Advance(time.Hour)
	p, _ := ledger.SetPause(ctx, "billing", dstsafe.Pause{Paused: true, By: "replica-2", Reason: "3 failures"})
	fmt.Println(p.Paused, p.By, p.Since.Format(time.RFC3339))
	ledger.Close()

	restarted, _ := sqlite.OpenSQLite(path, sqlledger.WithClock(clock))
	defer restarted.Close()
	p, _ = restarted.GetPause(ctx, "billing")
	fmt.Println(p.Paused, p.Reason)
	p, _ = restarted.SetPause(ctx, "billing", dstsafe.Pause{By: "ops@bastion", Reason: "fixed"})
	fmt.Println(p.Paused, p.Since.Format(time.RFC3339))
	// Output:
	// true ops@bastion 2024-11-03T06:30:00Z
	// true incident 42
	// false 2024-11-03T07:30:00Z
}

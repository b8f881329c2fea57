package sqlledger_test

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"time"

	"github.com/jonboulle/clockwork"

	"github.com/dstsafe/dstsafe"
	"github.com/dstsafe/dstsafe/sqlledger"
)

// The embedded default: one SQLite file, shared by every process of the
// service on the machine.
func ExampleOpenSQLite() {
	dir, _ := os.MkdirTemp("", "dstsafe-example")
	defer os.RemoveAll(dir)
	ctx := context.Background()
	clock := clockwork.NewFakeClockAt(time.Date(2024, 11, 3, 6, 30, 0, 0, time.UTC))

	ledger, err := sqlledger.OpenSQLite(filepath.Join(dir, "ledger.db"), sqlledger.WithClock(clock))
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

// A *sql.DB of your own (PostgreSQL works the same: sql.Open("pgx", dsn)).
// The dialect is detected from the driver.
func ExampleNew() {
	dir, _ := os.MkdirTemp("", "dstsafe-example")
	defer os.RemoveAll(dir)
	db, err := sql.Open("sqlite", filepath.Join(dir, "app.db")+"?_pragma=busy_timeout(10000)&_pragma=journal_mode(WAL)&_txlock=immediate")
	if err != nil {
		panic(err)
	}
	defer db.Close()
	ledger, err := sqlledger.New(db, sqlledger.WithTable("billing_runs"))
	if err != nil {
		panic(err)
	}
	fmt.Println(ledger.Dialect(), ledger.Table(), ledger.Migrate(context.Background()))
	// Output: sqlite billing_runs <nil>
}

// The claim commits with the charges, or neither does: a run that fails
// before commit leaves no claim behind, and the period can run again.
func ExampleLedger_WithTx() {
	dir, _ := os.MkdirTemp("", "dstsafe-example")
	defer os.RemoveAll(dir)
	ctx := context.Background()
	ledger, _ := sqlledger.OpenSQLite(filepath.Join(dir, "ledger.db"))
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

func ExampleLedger_Migrate() {
	dir, _ := os.MkdirTemp("", "dstsafe-example")
	defer os.RemoveAll(dir)
	ctx := context.Background()
	ledger, _ := sqlledger.OpenSQLite(filepath.Join(dir, "ledger.db"))
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
	// version 1
}

func ExampleConfigError() {
	_, err := sqlledger.OpenSQLite("ledger.db", sqlledger.WithTable("job-runs"))
	var ce *sqlledger.ConfigError
	fmt.Println(errors.As(err, &ce), ce.Option)
	fmt.Println(err)
	// Output:
	// true WithTable
	// sqlledger: invalid configuration: WithTable "job-runs": not an identifier of letters, digits and underscores
}

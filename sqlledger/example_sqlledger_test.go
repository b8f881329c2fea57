package sqlledger_test

import (
	"database/sql"
	"errors"
	"fmt"

	"github.com/dstsafe/dstsafe/sqlledger"
)

// A *sql.DB of your own, here PostgreSQL through pgx's database/sql
// driver: the dialect is detected from the driver, and New does not
// connect (Migrate does). The embedded SQLite ledger is
// sqlite.OpenSQLite, whose examples claim, migrate and use WithTx.
func ExampleNew() {
	db, err := sql.Open("pgx", "postgres://billing@db.internal/billing")
	if err != nil {
		panic(err)
	}
	defer db.Close()
	ledger, err := sqlledger.New(db, sqlledger.WithTable("billing.job_runs"))
	if err != nil {
		panic(err)
	}
	fmt.Println(ledger.Dialect(), ledger.Table())
	// Output: postgres billing.job_runs
}

func ExampleConfigError() {
	db, _ := sql.Open("pgx", "postgres://billing@db.internal/billing")
	defer db.Close()
	_, err := sqlledger.New(db, sqlledger.WithTable("job-runs"))
	var ce *sqlledger.ConfigError
	fmt.Println(errors.As(err, &ce), ce.Option)
	fmt.Println(err)
	// Output:
	// true WithTable
	// sqlledger: invalid configuration: WithTable "job-runs": not an identifier of letters, digits and underscores
}

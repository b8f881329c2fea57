package dstsaferiver_test

import (
	"context"
	"database/sql"
	"testing"
	"time"

	"github.com/riverqueue/river/riverdriver/riverdatabasesql"
	"github.com/riverqueue/river/rivermigrate"
	"github.com/stretchr/testify/require"

	"github.com/dstsafe/dstsafe/sqlledger"
)

// riverSchema gives a test on the shared PostgreSQL server a schema of its
// own, dropped when the test ends: river's tables migrated into it, a
// dstsafe ledger (<schema>.dstsafe_job_runs) and a table "worked" with
// the given columns, where the test's workers record what they ran. It
// returns the ledger.
func riverSchema(t *testing.T, ctx context.Context, db *sql.DB, schema, workedColumns string) *sqlledger.Ledger {
	t.Helper()
	_, err := db.Exec("DROP SCHEMA IF EXISTS " + schema + " CASCADE; CREATE SCHEMA " + schema)
	require.NoError(t, err)
	t.Cleanup(func() { _, _ = db.Exec("DROP SCHEMA IF EXISTS " + schema + " CASCADE") })
	migrator, err := rivermigrate.New(riverdatabasesql.New(db), &rivermigrate.Config{Schema: schema})
	require.NoError(t, err)
	_, err = migrator.Migrate(ctx, rivermigrate.DirectionUp, nil)
	require.NoError(t, err)
	ledger, err := sqlledger.New(db, sqlledger.WithTable(schema+".dstsafe_job_runs"))
	require.NoError(t, err)
	require.NoError(t, ledger.Migrate(ctx))
	_, err = db.Exec("CREATE TABLE " + schema + ".worked (" + workedColumns + ")")
	require.NoError(t, err)
	return ledger
}

// countOf runs a count query on db: -1 when it fails (the server may be
// away on purpose).
func countOf(ctx context.Context, db *sql.DB, q string, args ...any) int {
	var n int
	if err := db.QueryRowContext(ctx, q, args...).Scan(&n); err != nil {
		return -1
	}
	return n
}

// pollFor checks cond every 100 ms and fails the test naming what if it
// does not hold within limit.
func pollFor(t *testing.T, what string, limit time.Duration, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(limit)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("%s: not within %s", what, limit)
		}
		time.Sleep(100 * time.Millisecond)
	}
}

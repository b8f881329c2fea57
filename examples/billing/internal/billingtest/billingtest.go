// Package billingtest opens throwaway billing databases for tests: a SQLite
// file in the test's temp dir, or a fresh schema in the real PostgreSQL that
// scripts/test starts.
package billingtest

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"sync/atomic"
	"testing"

	"github.com/dstsafe/dstsafe/examples/billing/internal/billing"
	"github.com/dstsafe/dstsafe/internal/testkit"
	"github.com/stretchr/testify/require"
)

// PostgresEnv names the variable with the DSN of the test PostgreSQL.
const PostgresEnv = "DSTSAFE_TEST_POSTGRES_DSN"

// Backend makes fresh databases of one kind.
type Backend struct {
	Name string
	// New names a database that does not exist yet (a file path, or a DSN
	// plus a schema), for a child process or the code under test to
	// create; it is removed when t ends.
	New func(t testing.TB) Location
}

// Open returns a fresh, migrated-nothing database, closed (and for
// PostgreSQL dropped) when t ends, and where it lives, for a child process
// to open.
func (b Backend) Open(t testing.TB) (*billing.DB, Location) {
	t.Helper()
	loc := b.New(t)
	return Connect(t, loc), loc
}

// Connect opens the database at loc, closed when t ends.
func Connect(t testing.TB, loc Location) *billing.DB {
	t.Helper()
	var (
		db  *billing.DB
		err error
	)
	if loc.SQLitePath != "" {
		db, err = billing.OpenSQLite(loc.SQLitePath)
	} else {
		db, err = billing.OpenPostgres(context.Background(), loc.PostgresDSN, loc.PostgresSchema)
	}
	require.NoError(t, err)
	t.Cleanup(func() { db.Close() })
	return db
}

// Location says where a test database lives.
type Location struct {
	SQLitePath     string
	PostgresDSN    string
	PostgresSchema string
}

// ForEach runs fn as a subtest against SQLite and against PostgreSQL
// (skipped without DSTSAFE_TEST_POSTGRES_DSN, failed under CI=true).
func ForEach(t *testing.T, fn func(t *testing.T, b Backend)) {
	t.Run("sqlite", func(t *testing.T) { fn(t, SQLite()) })
	t.Run("postgres", func(t *testing.T) {
		dsn := testkit.RequireEnv(t, PostgresEnv)
		fn(t, Postgres(dsn))
	})
}

// SQLite makes database files in the test's temp dir.
func SQLite() Backend {
	return Backend{Name: "sqlite", New: func(t testing.TB) Location {
		return Location{SQLitePath: filepath.Join(t.TempDir(), "billing.db")}
	}}
}

var schemas atomic.Int64

// Postgres makes fresh schemas of the PostgreSQL database dsn.
func Postgres(dsn string) Backend {
	return Backend{Name: "postgres", New: func(t testing.TB) Location {
		t.Helper()
		schema := fmt.Sprintf("billing_test_%d_%d", os.Getpid(), schemas.Add(1))
		require.NoError(t, billing.DropSchema(context.Background(), dsn, schema))
		// Registered before Connect's close, so it runs after it.
		t.Cleanup(func() {
			if err := billing.DropSchema(context.Background(), dsn, schema); err != nil {
				t.Errorf("drop schema %s: %v", schema, err)
			}
		})
		return Location{PostgresDSN: dsn, PostgresSchema: schema}
	}}
}

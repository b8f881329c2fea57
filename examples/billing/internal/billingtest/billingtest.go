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

	"github.com/dstsafe/dstsafe/dstsafetest"
	"github.com/dstsafe/dstsafe/examples/billing/internal/billing"
	"github.com/stretchr/testify/require"
)

// PostgresEnv names the variable with the DSN of the test PostgreSQL.
const PostgresEnv = "DSTSAFE_TEST_POSTGRES_DSN"

// Backend opens fresh databases of one kind.
type Backend struct {
	Name string
	// Open returns a fresh, migrated-nothing database, closed (and for
	// PostgreSQL dropped) when t ends, and where it lives: a file path
	// or a DSN plus schema, for a child process to open.
	Open func(t testing.TB) (*billing.DB, Location)
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
		dsn := dstsafetest.RequireEnv(t, PostgresEnv)
		fn(t, Postgres(dsn))
	})
}

// SQLite opens a database file in the test's temp dir.
func SQLite() Backend {
	return Backend{Name: "sqlite", Open: func(t testing.TB) (*billing.DB, Location) {
		t.Helper()
		path := filepath.Join(t.TempDir(), "billing.db")
		db, err := billing.OpenSQLite(path)
		require.NoError(t, err)
		t.Cleanup(func() { db.Close() })
		return db, Location{SQLitePath: path}
	}}
}

var schemas atomic.Int64

// Postgres opens a fresh schema of the PostgreSQL database dsn.
func Postgres(dsn string) Backend {
	return Backend{Name: "postgres", Open: func(t testing.TB) (*billing.DB, Location) {
		t.Helper()
		ctx := context.Background()
		schema := fmt.Sprintf("billing_test_%d_%d", os.Getpid(), schemas.Add(1))
		require.NoError(t, billing.DropSchema(ctx, dsn, schema))
		db, err := billing.OpenPostgres(ctx, dsn, schema)
		require.NoError(t, err)
		t.Cleanup(func() {
			db.Close()
			if err := billing.DropSchema(context.Background(), dsn, schema); err != nil {
				t.Errorf("drop schema %s: %v", schema, err)
			}
		})
		return db, Location{PostgresDSN: dsn, PostgresSchema: schema}
	}}
}

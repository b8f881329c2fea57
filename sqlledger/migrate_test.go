package sqlledger_test

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"path/filepath"
	"sync"
	"testing"

	"github.com/dstsafe/dstsafe"
	"github.com/dstsafe/dstsafe/sqlledger"
)

// migrateCases returns, per dialect, a function making a ledger on a
// table that does not exist yet (dropped at the end of the test).
func migrateCases(t *testing.T) map[string]func(t *testing.T) (*sqlledger.Ledger, *sql.DB) {
	return map[string]func(t *testing.T) (*sqlledger.Ledger, *sql.DB){
		"sqlite": func(t *testing.T) (*sqlledger.Ledger, *sql.DB) {
			l, err := sqlledger.OpenSQLite(filepath.Join(t.TempDir(), "ledger.db"))
			if err != nil {
				t.Fatal(err)
			}
			t.Cleanup(func() { l.Close() })
			return l, l.DB()
		},
		"postgres": func(t *testing.T) (*sqlledger.Ledger, *sql.DB) {
			db := pgDB(t)
			table := uniqueTable()
			t.Cleanup(func() { dropTable(t, db, table) })
			l, err := sqlledger.New(db, sqlledger.WithTable(table))
			if err != nil {
				t.Fatal(err)
			}
			return l, db
		},
	}
}

func TestMigrate(t *testing.T) {
	for name, newLedger := range migrateCases(t) {
		t.Run(name, func(t *testing.T) {
			ctx := context.Background()
			l, _ := newLedger(t)
			if v, err := l.Version(ctx); err != nil || v != 0 {
				t.Fatalf("Version before Migrate = %d, %v; want 0", v, err)
			}
			// Forgetting Migrate is an error that says so, not a lost claim.
			_, err := l.Claim(ctx, dstsafe.ClaimRequest{Job: "billing", Period: "2024-11-03", Owner: "w"})
			if !errors.Is(err, sqlledger.ErrNotMigrated) {
				t.Fatalf("Claim before Migrate = %v, want ErrNotMigrated", err)
			}
			if errors.Is(err, dstsafe.ErrAlreadyClaimed) {
				t.Fatalf("Claim before Migrate = %v, must not look like a refusal", err)
			}
			// Every replica runs Migrate at start-up, at the same time.
			var wg sync.WaitGroup
			errs := make([]error, 8)
			for i := range errs {
				wg.Go(func() { errs[i] = l.Migrate(ctx) })
			}
			wg.Wait()
			for i, err := range errs {
				if err != nil {
					t.Fatalf("concurrent Migrate %d: %v", i, err)
				}
			}
			if v, err := l.Version(ctx); err != nil || v != sqlledger.SchemaVersion {
				t.Fatalf("Version after Migrate = %d, %v; want %d", v, err, sqlledger.SchemaVersion)
			}
			if _, err := l.Claim(ctx, dstsafe.ClaimRequest{Job: "billing", Period: "2024-11-03", Owner: "w"}); err != nil {
				t.Fatalf("Claim after Migrate: %v", err)
			}
			// Migrating again keeps the records.
			if err := l.Migrate(ctx); err != nil {
				t.Fatal(err)
			}
			if _, err := l.Get(ctx, "billing", "2024-11-03"); err != nil {
				t.Fatalf("Get after a second Migrate: %v", err)
			}
		})
	}
}

func TestMigrateSchemaTooNew(t *testing.T) {
	for name, newLedger := range migrateCases(t) {
		t.Run(name, func(t *testing.T) {
			ctx := context.Background()
			l, db := newLedger(t)
			if err := l.Migrate(ctx); err != nil {
				t.Fatal(err)
			}
			// A newer release migrated this database, then was rolled back.
			q := fmt.Sprintf(`INSERT INTO "%s_schema" (version, about, applied_at) VALUES (%d, 'from the future', %s)`,
				l.Table(), sqlledger.SchemaVersion+1, map[sqlledger.Dialect]string{sqlledger.SQLite: "0", sqlledger.PostgreSQL: "now()"}[l.Dialect()])
			if _, err := db.ExecContext(ctx, q); err != nil {
				t.Fatal(err)
			}
			if err := l.Migrate(ctx); !errors.Is(err, sqlledger.ErrSchemaTooNew) {
				t.Fatalf("Migrate on a newer schema = %v, want ErrSchemaTooNew", err)
			}
		})
	}
}

// A schema-qualified table: the ledger in a schema of its own.
func TestPostgresSchemaQualifiedTable(t *testing.T) {
	ctx := context.Background()
	db := pgDB(t)
	schema := uniqueTable()
	if _, err := db.ExecContext(ctx, `CREATE SCHEMA `+schema); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.ExecContext(context.Background(), `DROP SCHEMA `+schema+` CASCADE`) })
	l, err := sqlledger.New(db, sqlledger.WithTable(schema+".job_runs"))
	if err != nil {
		t.Fatal(err)
	}
	if err := l.Migrate(ctx); err != nil {
		t.Fatal(err)
	}
	if _, err := l.Claim(ctx, dstsafe.ClaimRequest{Job: "billing", Period: "2024-11-03", Owner: "w"}); err != nil {
		t.Fatal(err)
	}
	var n int
	if err := db.QueryRowContext(ctx, `SELECT count(*) FROM `+schema+`.job_runs`).Scan(&n); err != nil || n != 1 {
		t.Fatalf("rows in %s.job_runs = %d, %v; want 1", schema, n, err)
	}
}

// Keys compare as bytes whatever the database's locale: under en_US
// collation "a" < "B" and List would interleave cases and hour suffixes.
// The test server runs C.UTF-8, where the suite cannot tell, so check the
// columns themselves.
func TestPostgresKeyColumnsCollateC(t *testing.T) {
	db := pgDB(t)
	l := pgLedger(t, db)
	rows, err := db.QueryContext(context.Background(), `SELECT column_name, collation_name FROM information_schema.columns
WHERE table_name = $1 AND column_name IN ('job_name', 'period') ORDER BY column_name`, l.Table())
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	n := 0
	for rows.Next() {
		var col string
		var coll sql.NullString
		if err := rows.Scan(&col, &coll); err != nil {
			t.Fatal(err)
		}
		n++
		if coll.String != "C" {
			t.Errorf("column %s collates %q, want C", col, coll.String)
		}
	}
	if n != 2 {
		t.Fatalf("found %d key columns, want 2", n)
	}
}

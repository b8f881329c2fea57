package sqlledger_test

import (
	"context"
	"database/sql"
	"errors"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/dstsafe/dstsafe/sqlledger"
)

func TestNewBadConfig(t *testing.T) {
	db, err := sql.Open("sqlite", filepath.Join(t.TempDir(), "x.db"))
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	tests := []struct {
		name   string
		opts   []sqlledger.Option
		option string
	}{
		{"empty table", []sqlledger.Option{sqlledger.WithTable("")}, "WithTable"},
		{"starts with a digit", []sqlledger.Option{sqlledger.WithTable("2024_runs")}, "WithTable"},
		{"hyphen", []sqlledger.Option{sqlledger.WithTable("job-runs")}, "WithTable"},
		// A table name is spliced into SQL: anything but an identifier is refused.
		{"injection", []sqlledger.Option{sqlledger.WithTable(`runs"; DROP TABLE invoices; --`)}, "WithTable"},
		{"two qualifiers", []sqlledger.Option{sqlledger.WithTable("db.billing.runs")}, "WithTable"},
		{"empty schema", []sqlledger.Option{sqlledger.WithTable(".runs")}, "WithTable"},
		{"too long for PostgreSQL with _schema", []sqlledger.Option{sqlledger.WithTable(strings.Repeat("r", 57))}, "WithTable"},
		{"unknown dialect", []sqlledger.Option{sqlledger.WithDialect(sqlledger.Dialect(9))}, "WithDialect"},
		// Pragmas belong to the DSN of a database the caller opened.
		{"synchronous on New", []sqlledger.Option{sqlledger.WithSynchronous(sqlledger.SyncNormal)}, "WithSynchronous"},
		{"busy timeout on New", []sqlledger.Option{sqlledger.WithBusyTimeout(time.Second)}, "WithBusyTimeout"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			l, err := sqlledger.New(db, tt.opts...)
			if !errors.Is(err, sqlledger.ErrInvalidConfig) {
				t.Fatalf("New = %v, %v; want ErrInvalidConfig", l, err)
			}
			var ce *sqlledger.ConfigError
			if !errors.As(err, &ce) || ce.Option != tt.option {
				t.Fatalf("New error = %#v, want a *ConfigError for %s", err, tt.option)
			}
		})
	}
	for _, ok := range []string{"billing_runs", "_runs", "public.billing_runs", strings.Repeat("r", 56)} {
		if _, err := sqlledger.New(db, sqlledger.WithTable(ok)); err != nil {
			t.Errorf("WithTable(%q): %v", ok, err)
		}
	}
}

func TestOpenSQLiteBadPath(t *testing.T) {
	for _, path := range []string{"", ":memory:", "file:ledger.db", "ledger.db?mode=ro", "file::memory:?cache=shared"} {
		l, err := sqlledger.OpenSQLite(path)
		var ce *sqlledger.ConfigError
		if !errors.As(err, &ce) || ce.Option != "path" || !errors.Is(err, sqlledger.ErrInvalidConfig) {
			t.Errorf("OpenSQLite(%q) = %v, %v; want a *ConfigError for path", path, l, err)
		}
	}
	// A directory that does not exist: not a configuration error, but an
	// error now rather than at the first claim.
	l, err := sqlledger.OpenSQLite(filepath.Join(t.TempDir(), "no", "such", "dir", "ledger.db"))
	if err == nil {
		l.Close()
		t.Fatal("OpenSQLite in a missing directory succeeded")
	}
	if errors.Is(err, sqlledger.ErrInvalidConfig) {
		t.Errorf("OpenSQLite in a missing directory = %v, want an I/O error, not ErrInvalidConfig", err)
	}
}

func TestOpenSQLitePragmas(t *testing.T) {
	tests := []struct {
		name string
		opts []sqlledger.Option
		sync int // PRAGMA synchronous: 1 NORMAL, 2 FULL
		busy int // ms
	}{
		{"defaults: durable", nil, 2, int(sqlledger.DefaultBusyTimeout.Milliseconds())},
		{"normal", []sqlledger.Option{sqlledger.WithSynchronous(sqlledger.SyncNormal), sqlledger.WithBusyTimeout(2500 * time.Millisecond)}, 1, 2500},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			l, _ := openSQLite(t, tt.opts...)
			ctx := context.Background()
			// Pin one connection: pragmas are per connection.
			conn, err := l.DB().Conn(ctx)
			if err != nil {
				t.Fatal(err)
			}
			defer conn.Close()
			var mode string
			var sync, busy int
			if err := conn.QueryRowContext(ctx, "PRAGMA journal_mode").Scan(&mode); err != nil {
				t.Fatal(err)
			}
			if err := conn.QueryRowContext(ctx, "PRAGMA synchronous").Scan(&sync); err != nil {
				t.Fatal(err)
			}
			if err := conn.QueryRowContext(ctx, "PRAGMA busy_timeout").Scan(&busy); err != nil {
				t.Fatal(err)
			}
			if mode != "wal" || sync != tt.sync || busy != tt.busy {
				t.Errorf("journal_mode %s, synchronous %d, busy_timeout %d; want wal, %d, %d", mode, sync, busy, tt.sync, tt.busy)
			}
			if l.Dialect() != sqlledger.SQLite {
				t.Errorf("Dialect = %v, want sqlite", l.Dialect())
			}
		})
	}
}

func TestDetectDialect(t *testing.T) {
	db, err := sql.Open("sqlite", filepath.Join(t.TempDir(), "x.db"))
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	l, err := sqlledger.New(db)
	if err != nil || l.Dialect() != sqlledger.SQLite || l.Table() != sqlledger.DefaultTable {
		t.Fatalf("New(sqlite db) = %v, %v; want the sqlite dialect on %s", l, err, sqlledger.DefaultTable)
	}
	// pgx's driver is detected without a server: New does not connect.
	pg, err := sql.Open("pgx", "postgres://nobody@127.0.0.1:1/none")
	if err != nil {
		t.Fatal(err)
	}
	defer pg.Close()
	l, err = sqlledger.New(pg)
	if err != nil || l.Dialect() != sqlledger.PostgreSQL {
		t.Fatalf("New(pgx db) = %v, %v; want the postgres dialect", l, err)
	}
}

package sqlite_test

import (
	"context"
	"database/sql"
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/dstsafe/dstsafe/sqlledger"
	"github.com/dstsafe/dstsafe/sqlledger/sqlite"
)

// Pragmas belong to the DSN of a database the caller opened: New refuses
// this package's options, even on a SQLite database.
func TestNewRefusesSQLiteOptions(t *testing.T) {
	db, err := sql.Open("sqlite", filepath.Join(t.TempDir(), "x.db"))
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	for name, opt := range map[string]sqlledger.Option{
		"sqlite.WithSynchronous": sqlite.WithSynchronous(sqlite.SyncNormal),
		"sqlite.WithBusyTimeout": sqlite.WithBusyTimeout(time.Second),
	} {
		l, err := sqlledger.New(db, opt)
		var ce *sqlledger.ConfigError
		if !errors.As(err, &ce) || ce.Option != name || !errors.Is(err, sqlledger.ErrInvalidConfig) {
			t.Errorf("New(db, %s) = %v, %v; want a *ConfigError for %s", name, l, err, name)
		}
	}
}

func TestOpenSQLiteBadConfig(t *testing.T) {
	dir := t.TempDir()
	for _, tc := range []struct {
		option string
		opt    sqlledger.Option
	}{
		{"WithSynchronous", sqlite.WithSynchronous(sqlite.Synchronous(7))},
		{"WithBusyTimeout", sqlite.WithBusyTimeout(-time.Second)},
		{"WithDialect", sqlledger.WithDialect(sqlledger.PostgreSQL)},
		{"WithTable", sqlledger.WithTable("job-runs")},
	} {
		path := filepath.Join(dir, tc.option+".db")
		l, err := sqlite.OpenSQLite(path, tc.opt)
		var ce *sqlledger.ConfigError
		if !errors.As(err, &ce) || ce.Option != tc.option {
			t.Errorf("OpenSQLite with a bad %s = %v, %v; want a *ConfigError for it", tc.option, l, err)
		}
		if _, err := os.Stat(path); !errors.Is(err, fs.ErrNotExist) {
			t.Errorf("OpenSQLite with a bad %s created %s: %v", tc.option, path, err)
		}
	}
}

func TestOpenSQLiteBadPath(t *testing.T) {
	for _, path := range []string{"", ":memory:", "file:ledger.db", "ledger.db?mode=ro", "file::memory:?cache=shared"} {
		l, err := sqlite.OpenSQLite(path)
		var ce *sqlledger.ConfigError
		if !errors.As(err, &ce) || ce.Option != "path" || !errors.Is(err, sqlledger.ErrInvalidConfig) {
			t.Errorf("OpenSQLite(%q) = %v, %v; want a *ConfigError for path", path, l, err)
		}
	}
}

// A ledger path in a directory that does not exist (a fresh container
// without its volume, a typo in the data dir): the error names the missing
// directory and says OpenSQLite does not create it, rather than the
// driver's "unable to open database file (14)"; never a nil ledger with a
// nil error (the README's old snippet then panicked in Migrate).
func TestOpenSQLiteMissingDir(t *testing.T) {
	tmp := t.TempDir()
	file := filepath.Join(tmp, "file")
	if err := os.WriteFile(file, nil, 0o600); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name, path, dir string
		want            error
	}{
		{"missing", filepath.Join(tmp, "no", "such", "dir", "ledger.db"), filepath.Join(tmp, "no", "such", "dir"), fs.ErrNotExist},
		{"parent is a file", filepath.Join(file, "ledger.db"), file, fs.ErrInvalid},
	} {
		t.Run(tc.name, func(t *testing.T) {
			l, err := sqlite.OpenSQLite(tc.path)
			if err == nil {
				l.Close()
				t.Fatal("OpenSQLite succeeded")
			}
			if l != nil {
				t.Errorf("OpenSQLite returned a ledger beside its error")
			}
			var pe *fs.PathError
			if !errors.Is(err, tc.want) || !errors.As(err, &pe) || pe.Path != tc.dir {
				t.Fatalf("OpenSQLite(%s) = %v; want %v on the directory %s", tc.path, err, tc.want, tc.dir)
			}
			if errors.Is(err, sqlledger.ErrInvalidConfig) {
				t.Errorf("OpenSQLite in a missing directory = %v, want an I/O error, not ErrInvalidConfig", err)
			}
			// The message is the feature: it names the directory and the fix.
			if tc.want == fs.ErrNotExist {
				want := "sqlite: open " + tc.path + ": the directory " + tc.dir + " does not exist; create it first (os.MkdirAll): stat " + tc.dir + ": file does not exist"
				if err.Error() != want {
					t.Errorf("message:\n got %s\nwant %s", err, want)
				}
			}
		})
	}
}

func TestOpenSQLitePragmas(t *testing.T) {
	tests := []struct {
		name string
		opts []sqlledger.Option
		sync int // PRAGMA synchronous: 1 NORMAL, 2 FULL
		busy int // ms
	}{
		{"defaults: durable", nil, 2, int(sqlite.DefaultBusyTimeout.Milliseconds())},
		// A nil option is no option.
		{"nil option", []sqlledger.Option{{}}, 2, int(sqlite.DefaultBusyTimeout.Milliseconds())},
		{"normal", []sqlledger.Option{sqlite.WithSynchronous(sqlite.SyncNormal), sqlite.WithBusyTimeout(2500 * time.Millisecond)}, 1, 2500},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			l := backend.New(t, tt.opts...)
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

// sqlledger.New on a *sql.DB of modernc.org/sqlite detects SQLite.
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
}

// Package billing is the billing job of the example: its schema and
// repository, the dstsafe run (one transaction per subscription, guarded by
// a unique charge key and the processor's idempotency key), the postmortem's
// naive job kept as a replica to replay the incident, per-customer local
// midnight billing, and Reconcile.
//
// Everything runs on SQLite and PostgreSQL with the same schema.
package billing

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"net/url"
	"strconv"
	"strings"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/stdlib"
	"modernc.org/sqlite" // registers the "sqlite" database/sql driver
	sqlite3 "modernc.org/sqlite/lib"
)

// Dialect is the SQL flavour of a database.
type Dialect uint8

const (
	// SQLite through modernc.org/sqlite: the default, a file.
	SQLite Dialect = iota + 1
	// Postgres through pgx's database/sql driver.
	Postgres
)

func (d Dialect) String() string {
	switch d {
	case SQLite:
		return "sqlite"
	case Postgres:
		return "postgres"
	}
	return "invalid"
}

// DB is a database the billing job runs on.
type DB struct {
	*sql.DB
	Dialect Dialect
	// Schema is the PostgreSQL schema of the billing tables; empty: the
	// DSN's search_path.
	Schema string
}

// where says, for errors, in which schema a PostgreSQL database is.
func (db *DB) where() string {
	if db.Schema == "" {
		return ""
	}
	return " in schema " + db.Schema
}

// busyTimeout is how long a SQLite statement waits for another
// connection's lock (busy_timeout) before it fails with SQLITE_BUSY.
const busyTimeout = 30 * time.Second

// OpenSQLite opens (creating it if needed) the SQLite database at path, in
// WAL mode. Write transactions take the write lock when they begin (BEGIN
// IMMEDIATE), so concurrent billing runs queue instead of failing with
// SQLITE_BUSY when they upgrade a read lock. Processes opening a new file
// at the same moment all succeed: the switch to WAL is retried for up to
// the busy timeout.
func OpenSQLite(path string) (*DB, error) {
	q := url.Values{}
	q.Add("_pragma", fmt.Sprintf("busy_timeout(%d)", busyTimeout.Milliseconds()))
	q.Add("_pragma", "synchronous(NORMAL)")
	q.Add("_pragma", "foreign_keys(ON)")
	q.Set("_txlock", "immediate")
	db, err := sql.Open("sqlite", "file:"+path+"?"+q.Encode())
	if err == nil {
		err = useWAL(db)
	}
	if err != nil {
		if db != nil {
			db.Close()
		}
		return nil, fmt.Errorf("billing: open sqlite %s: %w", path, err)
	}
	return &DB{DB: db, Dialect: SQLite}, nil
}

// useWAL switches the database to WAL mode, which the file keeps. The
// switch needs the file to itself, and SQLite answers SQLITE_BUSY at once,
// without calling the busy handler, when another process is opening or
// switching the same new file: so it is retried until the busy timeout.
func useWAL(db *sql.DB) error {
	deadline := time.Now().Add(busyTimeout)
	for wait := time.Millisecond; ; wait = min(2*wait, 100*time.Millisecond) {
		var mode string
		err := db.QueryRow(`PRAGMA journal_mode = WAL`).Scan(&mode)
		switch {
		case err == nil && strings.EqualFold(mode, "wal"):
			return nil
		case err == nil:
			return fmt.Errorf("journal mode is %s, not wal", mode)
		case !isBusy(err) || time.Now().After(deadline):
			return err
		}
		// Real processes hold the lock: wait for them in real time.
		time.Sleep(wait)
	}
}

// isBusy reports whether err is SQLite's SQLITE_BUSY (any extended code).
func isBusy(err error) bool {
	var se *sqlite.Error
	return errors.As(err, &se) && se.Code()&0xff == sqlite3.SQLITE_BUSY
}

// OpenPostgres connects to the PostgreSQL database dsn (a URL or a
// keyword/value string, as pgx accepts). A non-empty schema becomes the
// connections' search_path, so that several billing databases (the naive
// replica, the dstsafe run, parallel tests) can share one server; Migrate
// creates it. params are extra session settings ("synchronous_commit").
func OpenPostgres(ctx context.Context, dsn, schema string, params ...string) (*DB, error) {
	cfg, err := pgx.ParseConfig(dsn)
	if err != nil {
		return nil, fmt.Errorf("billing: postgres dsn: %w", err)
	}
	if schema != "" {
		cfg.RuntimeParams["search_path"] = schema
	}
	for i := 0; i+1 < len(params); i += 2 {
		cfg.RuntimeParams[params[i]] = params[i+1]
	}
	db := stdlib.OpenDB(*cfg)
	if err := db.PingContext(ctx); err != nil {
		db.Close()
		return nil, fmt.Errorf("billing: connect to postgres: %w", err)
	}
	return &DB{DB: db, Dialect: Postgres, Schema: schema}, nil
}

// DropSchema drops a schema made by OpenPostgres and everything in it.
func DropSchema(ctx context.Context, dsn, schema string) error {
	cfg, err := pgx.ParseConfig(dsn)
	if err != nil {
		return err
	}
	db := stdlib.OpenDB(*cfg)
	defer db.Close()
	_, err = db.ExecContext(ctx, "DROP SCHEMA IF EXISTS "+pgx.Identifier{schema}.Sanitize()+" CASCADE")
	return err
}

// q rewrites the ? placeholders of query for the database's dialect
// ($1, $2, ... on PostgreSQL). Queries in this package never contain a ?
// inside a string literal.
func (db *DB) q(query string) string {
	if db.Dialect != Postgres {
		return query
	}
	var b strings.Builder
	n := 0
	for _, r := range query {
		if r == '?' {
			n++
			b.WriteString("$" + strconv.Itoa(n))
			continue
		}
		b.WriteRune(r)
	}
	return b.String()
}

// inTx runs fn in a transaction, committing if it returns nil.
func (db *DB) inTx(ctx context.Context, fn func(tx *sql.Tx) error) error {
	tx, err := db.BeginTx(ctx, nil)
	if err != nil {
		return err
	}
	if err := fn(tx); err != nil {
		_ = tx.Rollback()
		return err
	}
	return tx.Commit()
}

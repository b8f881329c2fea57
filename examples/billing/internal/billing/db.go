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
	"fmt"
	"net/url"
	"strconv"
	"strings"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/stdlib"
	_ "modernc.org/sqlite" // registers the "sqlite" database/sql driver
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
}

// OpenSQLite opens (creating it if needed) the SQLite database at path.
// Write transactions take the write lock when they begin (BEGIN IMMEDIATE),
// so concurrent billing runs queue instead of failing with SQLITE_BUSY when
// they upgrade a read lock.
func OpenSQLite(path string) (*DB, error) {
	q := url.Values{}
	q.Add("_pragma", "busy_timeout(30000)")
	q.Add("_pragma", "journal_mode(WAL)")
	q.Add("_pragma", "synchronous(NORMAL)")
	q.Add("_pragma", "foreign_keys(ON)")
	q.Set("_txlock", "immediate")
	db, err := sql.Open("sqlite", "file:"+path+"?"+q.Encode())
	if err != nil {
		return nil, fmt.Errorf("billing: open sqlite %s: %w", path, err)
	}
	if err := db.Ping(); err != nil {
		db.Close()
		return nil, fmt.Errorf("billing: open sqlite %s: %w", path, err)
	}
	return &DB{DB: db, Dialect: SQLite}, nil
}

// OpenPostgres connects to the PostgreSQL database dsn (a URL or a
// keyword/value string, as pgx accepts). A non-empty schema is created if
// needed and becomes the connections' search_path, so that several billing
// databases (the naive replica, the dstsafe run, parallel tests) can share
// one server. params are extra session settings ("synchronous_commit").
func OpenPostgres(ctx context.Context, dsn, schema string, params ...string) (*DB, error) {
	cfg, err := pgx.ParseConfig(dsn)
	if err != nil {
		return nil, fmt.Errorf("billing: postgres dsn: %w", err)
	}
	if schema != "" {
		admin := stdlib.OpenDB(*cfg)
		_, err := admin.ExecContext(ctx, "CREATE SCHEMA IF NOT EXISTS "+pgx.Identifier{schema}.Sanitize())
		admin.Close()
		if err != nil {
			return nil, fmt.Errorf("billing: create schema %s: %w", schema, err)
		}
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
	return &DB{DB: db, Dialect: Postgres}, nil
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

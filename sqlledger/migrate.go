package sqlledger

import (
	"context"
	"database/sql/driver"
	"fmt"
	"hash/fnv"
	"strings"
)

// Migrate creates the ledger's table, or upgrades it, to SchemaVersion,
// recording each applied step in the "<table>_schema" table; on
// PostgreSQL it also creates the schema of a qualified table name
// ("billing.job_runs") if there is none. It is idempotent and safe to run
// from every replica at once, on a database nobody has migrated yet:
// PostgreSQL serialises it with a transaction-scoped advisory lock (one
// per schema, taken before anything is created: CREATE ... IF NOT EXISTS
// alone is not safe against itself), SQLite with BEGIN IMMEDIATE, which
// waits up to the busy timeout for another process's migration. Each run
// applies the missing steps in one transaction, so a failure leaves the
// schema as it was. A database migrated by a newer version of this
// package gives an error wrapping ErrSchemaTooNew and is left untouched.
//
// Version 1 creates the table; version 2 adds the schedule fingerprint
// and release columns (with defaults: rows written before read as no
// schedule, never released) and the "<table>_pauses" table. A database
// at version 1 is upgraded in place, its records kept; until then this
// package's calls on it fail with ErrNotMigrated. Replicas of the
// previous release keep working on an upgraded database (they name the
// columns they use), except that their takeovers do not use an
// operator's release up: upgrade every replica before releasing periods.
//
// Version 3 adds the claim_id column (default empty: rows written before
// read as claims without an ID, which no retried claim matches) and the
// "<table>_jobs" table of the job registry. A database at version 2 is
// upgraded in place; until then Claim, Get, List, Heartbeat, Finish,
// RegisterJob and LookupJob fail with ErrNotMigrated (permanent), while
// pauses still work. Replicas of the previous release keep working on an
// upgraded database, except that their takeovers leave the previous
// attempt's claim_id on the row; since a retried claim must match both
// its owner and that ID, the worst case is that a replica of the new
// release that had the same owner name retries into it: upgrade every
// replica, or give each its own owner (the default: host and process).
//
// Version 4 adds the job limits to "<table>_jobs" (max_runs,
// bounds_start, bounds_end, with defaults: registrations written before
// read as no limits). A database at version 3 is upgraded in place, its
// registrations kept; until then RegisterJob and LookupJob fail with
// ErrNotMigrated (permanent), while claims and pauses still work.
// Replicas of the previous release keep working on an upgraded database:
// they never write the limits, so a job they register anew has none and
// one they register again keeps the ones stored.
func (l *Ledger) Migrate(ctx context.Context) (err error) {
	conn, err := l.db.Conn(ctx)
	if err != nil {
		return fmt.Errorf("sqlledger: migrate %s: %w", l.table, err)
	}
	defer conn.Close()
	begin := "BEGIN"
	if l.dialect == SQLite {
		begin = "BEGIN IMMEDIATE" // take the write lock now: no upgrade, no SQLITE_BUSY_SNAPSHOT
	}
	if _, err := conn.ExecContext(ctx, begin); err != nil {
		return fmt.Errorf("sqlledger: migrate %s: %w", l.table, err)
	}
	done := false
	defer func() {
		if done {
			return
		}
		// The transaction is ours, not database/sql's: end it before the
		// connection goes back to the pool, or drop the connection.
		if _, rbErr := conn.ExecContext(context.WithoutCancel(ctx), "ROLLBACK"); rbErr != nil {
			_ = conn.Raw(func(any) error { return driver.ErrBadConn })
		}
	}()
	fail := func(step string, e error) error {
		return fmt.Errorf("sqlledger: migrate %s: %s: %w", l.table, step, e)
	}

	schema := quoteTable(l.table + "_schema")
	ts := "BIGINT"
	if l.dialect == PostgreSQL {
		schemaName, _, qualified := strings.Cut(l.table, ".")
		if !qualified {
			schemaName = "" // the search_path's
		}
		if _, err := conn.ExecContext(ctx, `SELECT pg_advisory_xact_lock($1)`, migrateLockKey(schemaName)); err != nil {
			return fail("lock", err)
		}
		if qualified {
			// Only when missing: CREATE SCHEMA IF NOT EXISTS needs the
			// CREATE privilege on the database even when the schema exists.
			var found bool
			if err := conn.QueryRowContext(ctx, `SELECT EXISTS (SELECT 1 FROM pg_namespace WHERE nspname = $1)`, schemaName).Scan(&found); err != nil {
				return fail("look for schema", err)
			}
			if !found {
				if _, err := conn.ExecContext(ctx, `CREATE SCHEMA `+quoteTable(schemaName)); err != nil {
					return fail("create schema", err)
				}
			}
		}
		ts = "TIMESTAMPTZ"
	}
	if _, err := conn.ExecContext(ctx, `CREATE TABLE IF NOT EXISTS `+schema+` (
    version    INTEGER PRIMARY KEY,
    about      TEXT NOT NULL,
    applied_at `+ts+` NOT NULL
)`); err != nil {
		return fail("create schema table", err)
	}
	var cur int
	if err := conn.QueryRowContext(ctx, `SELECT COALESCE(MAX(version), 0) FROM `+schema).Scan(&cur); err != nil {
		return fail("read version", err)
	}
	if cur > SchemaVersion {
		return fmt.Errorf("sqlledger: migrate %s: database at version %d, this package knows %d: %w", l.table, cur, SchemaVersion, ErrSchemaTooNew)
	}
	insert := `INSERT INTO ` + schema + ` (version, about, applied_at) VALUES ($1, $2, $3)`
	if l.dialect == SQLite {
		insert = `INSERT INTO ` + schema + ` (version, about, applied_at) VALUES (?1, ?2, ?3)`
	}
	for _, m := range migrations {
		if m.version <= cur || m.version > l.upTo {
			continue
		}
		for _, stmt := range m.stmts(l.dialect, l.table) {
			if _, err := conn.ExecContext(ctx, stmt); err != nil {
				return fail(fmt.Sprintf("version %d (%s)", m.version, m.about), err)
			}
		}
		now, err := l.nowOn(ctx, conn)
		if err != nil {
			return fail(fmt.Sprintf("record version %d", m.version), err)
		}
		if _, err := conn.ExecContext(ctx, insert, m.version, m.about, l.timeArg(now)); err != nil {
			return fail(fmt.Sprintf("record version %d", m.version), err)
		}
	}
	if _, err := conn.ExecContext(ctx, "COMMIT"); err != nil {
		return fail("commit", err)
	}
	done = true
	return nil
}

// migrateLockKey is the PostgreSQL advisory lock Migrate holds for the
// tables of schema ("" for the search_path's): the ledgers of one schema
// migrate one at a time, since they may all be creating it.
func migrateLockKey(schema string) int64 {
	h := fnv.New64a()
	h.Write([]byte("dstsafe/sqlledger:" + schema))
	return int64(h.Sum64())
}

// Version returns the schema version of the database: 0 before the first
// Migrate, SchemaVersion after it.
func (l *Ledger) Version(ctx context.Context) (int, error) {
	var v int
	err := l.db.QueryRowContext(ctx, `SELECT COALESCE(MAX(version), 0) FROM `+quoteTable(l.table+"_schema")).Scan(&v)
	if err != nil {
		if missingTable(err) {
			return 0, nil
		}
		return 0, fmt.Errorf("sqlledger: schema version of %s: %w", l.table, err)
	}
	return v, nil
}

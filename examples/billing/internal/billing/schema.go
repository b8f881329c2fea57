package billing

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"hash/fnv"
	"strings"

	"github.com/jackc/pgx/v5"
)

// The schema, written once for both dialects. Types differ: SQLite keeps
// dates and instants as TEXT ("2024-11-03", "2024-11-03T07:30:00Z", both
// sortable), PostgreSQL as DATE and TIMESTAMPTZ.
const schema = `
CREATE TABLE IF NOT EXISTS subscriptions (
	id                {{bigint}} PRIMARY KEY,
	customer_ref      TEXT NOT NULL,
	amount_minor      {{bigint}} NOT NULL CHECK (amount_minor > 0),
	currency          TEXT NOT NULL,
	-- the first day of the next unpaid period
	next_billing_date {{date}} NOT NULL,
	-- the customer's zone, and the first instant of next_billing_date in it
	billing_zone      TEXT NOT NULL,
	next_charge_at    {{instant}} NOT NULL
);
CREATE INDEX IF NOT EXISTS subscriptions_due ON subscriptions (next_billing_date);
CREATE INDEX IF NOT EXISTS subscriptions_charge_at ON subscriptions (next_charge_at);

CREATE TABLE IF NOT EXISTS charges (
	id                  {{serial}},
	subscription_id     {{bigint}} NOT NULL REFERENCES subscriptions (id),
	period_start        {{date}} NOT NULL,
	amount_minor        {{bigint}} NOT NULL,
	currency            TEXT NOT NULL,
	idempotency_key     TEXT NOT NULL,
	status              TEXT NOT NULL CHECK (status IN ('pending', 'succeeded', 'declined')),
	processor_charge_id TEXT,
	decline_code        TEXT,
	run_id              TEXT NOT NULL,
	created_at          {{instant}} NOT NULL{{guard}}
);
CREATE INDEX IF NOT EXISTS charges_period ON charges (period_start);

CREATE TABLE IF NOT EXISTS job_runs (
	job        TEXT NOT NULL,
	run_id     TEXT NOT NULL,
	started_at {{instant}} NOT NULL
);
`

// guard is the constraint the postmortem asked for: one charge per
// subscription and period, whoever tries to insert a second one and when.
const guard = `,
	UNIQUE (subscription_id, period_start)`

// Migrate creates the billing tables (and on PostgreSQL the DB's schema)
// if they do not exist, and does nothing if they do. Every process may call
// it at the same moment on a new database: the creation runs in one
// transaction under a lock (PostgreSQL: an advisory lock keyed by the
// schema; SQLite: BEGIN IMMEDIATE, which waits up to the busy timeout), so
// one process creates the tables and the others find them. Once the
// tables exist it only checks that the last one does, without the lock: a
// real service runs migrations in a deploy step, not from every billing
// process, where even CREATE INDEX IF NOT EXISTS waits on PostgreSQL for
// the running billing transactions (it locks the table before it looks).
func Migrate(ctx context.Context, db *DB) error { return migrate(ctx, db, guard, nil) }

// MigrateLegacy creates the tables as they were on 2024-11-03: the same,
// but charges has no unique key, so nothing in the database stops a second
// charge for the same subscription and period. Only the naive replica uses
// it.
func MigrateLegacy(ctx context.Context, db *DB) error { return migrate(ctx, db, "", nil) }

// MigrateSeed is Migrate, then, in the same locked transaction, inserts
// subs if the subscriptions table is empty. Processes that call it at the
// same moment on a new database seed it once; on a database with
// subscriptions it inserts nothing.
func MigrateSeed(ctx context.Context, db *DB, subs []Subscription) error {
	return migrate(ctx, db, guard, subs)
}

func migrate(ctx context.Context, db *DB, guard string, seed []Subscription) error {
	if seed == nil {
		// The common case: every table is there, nothing to lock.
		if done, err := hasTable(ctx, db.DB, db.Dialect, "job_runs"); err != nil || done {
			return wrapMigrate(db, err)
		}
	}
	// BeginTx is BEGIN IMMEDIATE on SQLite (OpenSQLite's _txlock): the
	// write lock, waited for up to the busy timeout, before anything is
	// read.
	err := db.inTx(ctx, func(tx *sql.Tx) error {
		if db.Dialect == Postgres {
			// CREATE ... IF NOT EXISTS is not safe against itself: two
			// sessions both find the name free and one fails on the
			// catalog's unique index. Creating the schema is inside the
			// lock too.
			if _, err := tx.ExecContext(ctx, `SELECT pg_advisory_xact_lock($1)`, migrateLockKey(db.Schema)); err != nil {
				return err
			}
			if db.Schema != "" {
				if _, err := tx.ExecContext(ctx, "CREATE SCHEMA IF NOT EXISTS "+pgx.Identifier{db.Schema}.Sanitize()); err != nil {
					return err
				}
			}
		}
		done, err := hasTable(ctx, tx, db.Dialect, "job_runs")
		if err != nil {
			return err
		}
		if !done {
			if err := createTables(ctx, tx, db.Dialect, guard); err != nil {
				return err
			}
		}
		if seed == nil {
			return nil
		}
		var seeded bool
		if err := tx.QueryRowContext(ctx, `SELECT EXISTS (SELECT 1 FROM subscriptions)`).Scan(&seeded); err != nil || seeded {
			return err
		}
		return insertSubscriptions(ctx, db, tx, seed)
	})
	return wrapMigrate(db, err)
}

func wrapMigrate(db *DB, err error) error {
	if err == nil {
		return nil
	}
	return fmt.Errorf("billing: migrate %s%s: %w", db.Dialect, db.where(), err)
}

func createTables(ctx context.Context, tx *sql.Tx, d Dialect, guard string) error {
	types := map[Dialect][]string{
		SQLite:   {"{{bigint}}", "INTEGER", "{{date}}", "TEXT", "{{instant}}", "TEXT", "{{serial}}", "INTEGER PRIMARY KEY"},
		Postgres: {"{{bigint}}", "BIGINT", "{{date}}", "DATE", "{{instant}}", "TIMESTAMPTZ", "{{serial}}", "BIGINT GENERATED ALWAYS AS IDENTITY PRIMARY KEY"},
	}
	ddl := strings.NewReplacer(append(types[d], "{{guard}}", guard)...).Replace(schema)
	for _, stmt := range strings.Split(ddl, ";") {
		if strings.TrimSpace(stmt) == "" {
			continue
		}
		if _, err := tx.ExecContext(ctx, stmt); err != nil {
			return err
		}
	}
	return nil
}

// migrateLockKey is the PostgreSQL advisory lock Migrate takes for the
// billing tables of schema: one key per schema, so databases in different
// schemas of one server migrate side by side. Databases on the DSN's
// search_path (schema "") share a key.
func migrateLockKey(schema string) int64 {
	h := fnv.New64a()
	h.Write([]byte("dstsafe/examples/billing:" + schema))
	return int64(h.Sum64())
}

// ErrNotSeeded: the database has no subscriptions table, or no
// subscriptions. Billing it would bill nobody and mark the date billed.
var ErrNotSeeded = errors.New("billing: database not seeded")

// RequireSeeded returns an error wrapping ErrNotSeeded unless the
// subscriptions table exists and has a row.
func RequireSeeded(ctx context.Context, db *DB) error {
	found, err := hasTable(ctx, db.DB, db.Dialect, "subscriptions")
	if err != nil {
		return fmt.Errorf("billing: look for subscriptions: %w", err)
	}
	if !found {
		return fmt.Errorf("%w: no subscriptions table%s", ErrNotSeeded, db.where())
	}
	var seeded bool
	if err := db.QueryRowContext(ctx, `SELECT EXISTS (SELECT 1 FROM subscriptions)`).Scan(&seeded); err != nil {
		return fmt.Errorf("billing: look for subscriptions: %w", err)
	}
	if !seeded {
		return fmt.Errorf("%w: the subscriptions table is empty%s", ErrNotSeeded, db.where())
	}
	return nil
}

// queryRower is a *sql.DB, *sql.Conn or *sql.Tx.
type queryRower interface {
	QueryRowContext(ctx context.Context, query string, args ...any) *sql.Row
}

// hasTable reports whether table exists (on PostgreSQL, on the search_path).
// It fails no transaction it runs in when the table is missing.
func hasTable(ctx context.Context, q queryRower, d Dialect, table string) (bool, error) {
	var found bool
	var err error
	if d == Postgres {
		err = q.QueryRowContext(ctx, `SELECT to_regclass($1) IS NOT NULL`, table).Scan(&found)
	} else {
		err = q.QueryRowContext(ctx, `SELECT EXISTS (SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = ?)`, table).Scan(&found)
	}
	return found, err
}

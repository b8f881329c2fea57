package billing

import (
	"context"
	"fmt"
	"strings"
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

// Migrate creates the billing tables if they do not exist, and does
// nothing if they do. It only checks that the last table exists: a real
// service runs migrations in a deploy step, not from every billing process,
// where even CREATE INDEX IF NOT EXISTS waits on PostgreSQL for the running
// billing transactions (it locks the table before it looks).
func Migrate(ctx context.Context, db *DB) error { return migrate(ctx, db, guard) }

// MigrateLegacy creates the tables as they were on 2024-11-03: the same,
// but charges has no unique key, so nothing in the database stops a second
// charge for the same subscription and period. Only the naive replica uses
// it.
func MigrateLegacy(ctx context.Context, db *DB) error { return migrate(ctx, db, "") }

func migrate(ctx context.Context, db *DB, guard string) error {
	if _, err := db.ExecContext(ctx, `SELECT 1 FROM job_runs WHERE 1 = 0`); err == nil {
		return nil
	}
	types := map[Dialect][]string{
		SQLite:   {"{{bigint}}", "INTEGER", "{{date}}", "TEXT", "{{instant}}", "TEXT", "{{serial}}", "INTEGER PRIMARY KEY"},
		Postgres: {"{{bigint}}", "BIGINT", "{{date}}", "DATE", "{{instant}}", "TIMESTAMPTZ", "{{serial}}", "BIGINT GENERATED ALWAYS AS IDENTITY PRIMARY KEY"},
	}
	ddl := strings.NewReplacer(append(types[db.Dialect], "{{guard}}", guard)...).Replace(schema)
	for _, stmt := range strings.Split(ddl, ";") {
		if strings.TrimSpace(stmt) == "" {
			continue
		}
		if _, err := db.ExecContext(ctx, stmt); err != nil {
			return fmt.Errorf("billing: migrate %s: %w", db.Dialect, err)
		}
	}
	return nil
}

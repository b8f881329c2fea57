package sqlledger

import (
	"github.com/dstsafe/dstsafe"
	"github.com/dstsafe/dstsafe/sqlledger/internal/config"
)

// Dialect is the SQL dialect a Ledger speaks.
type Dialect int

const (
	// DetectDialect (the zero value) picks the dialect from the type of the
	// *sql.DB's driver: modernc.org/sqlite or mattn/go-sqlite3 for SQLite,
	// pgx or lib/pq for PostgreSQL.
	DetectDialect Dialect = iota
	// SQLite 3.35 or later (RETURNING).
	SQLite
	// PostgreSQL 9.5 or later (ON CONFLICT).
	PostgreSQL
)

// String returns "sqlite", "postgres" or "detect".
func (d Dialect) String() string {
	switch d {
	case SQLite:
		return "sqlite"
	case PostgreSQL:
		return "postgres"
	case DetectDialect:
		return "detect"
	}
	return "invalid"
}

// DefaultTable is the table a Ledger uses unless WithTable names another.
const DefaultTable = "dstsafe_job_runs"

// An Option configures New. Package sqlite's OpenSQLite takes the same
// options, and adds its own for the SQLite connection (sqlite.WithSynchronous,
// sqlite.WithBusyTimeout), which New refuses: each setting has one place.
//
// An option given a nil value (WithClock(nil)) means the option's
// default, as if it were not given; it never panics. The zero Option sets
// nothing.
type Option struct{ set func(*config.Config) }

// option makes an Option of a setter.
func option(set func(*config.Config)) Option { return Option{set} }

// apply sets what o sets in c.
func (o Option) apply(c *config.Config) {
	if o.set != nil {
		o.set(c)
	}
}

// The driver packages below sqlledger (sqlite) and its tests make and read
// Options through package config, which cannot import sqlledger.
func init() {
	config.MakeOption = func(set func(*config.Config)) any { return option(set) }
	config.ApplyOption = func(o any, c *config.Config) { o.(Option).apply(c) }
}

// WithTable sets the table name: an SQL identifier of letters, digits and
// underscores not starting with a digit, at most 55 bytes, optionally
// qualified by a schema ("billing.job_runs"; Migrate creates the schema
// if it is missing). Migrate also creates a table named like it with the
// suffix "_schema" for the schema version. Defaults to DefaultTable. A bad
// name makes New fail with a *ConfigError.
func WithTable(name string) Option { return option(func(c *config.Config) { c.Table = name }) }

// WithDialect sets the SQL dialect instead of detecting it from the driver:
// needed for drivers the detection does not know. Defaults to DetectDialect.
func WithDialect(d Dialect) Option { return option(func(c *config.Config) { c.Dialect = int(d) }) }

// WithClock makes the Ledger judge time by clock instead of the
// database's: it stamps claims, heartbeats, finishes and pauses, decides
// whether a lease is over, and is what ClaimRequest.Now is checked
// against. For tests and simulation (a *clockwork.FakeClock drives lease
// expiry); production uses the database's clock, which every replica
// shares: PostgreSQL's clock_timestamp(), or for SQLite the host's clock.
// Defaults to the database's clock, also when clock is nil. Never give
// replicas sharing a database their own real clocks: a lease would then be
// judged by the clock of whoever reads it.
func WithClock(clock dstsafe.Clock) Option { return option(func(c *config.Config) { c.Clock = clock }) }

package sqlledger

import (
	"time"

	"github.com/dstsafe/dstsafe"
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

// Synchronous is SQLite's PRAGMA synchronous for OpenSQLite.
type Synchronous int

const (
	// SyncFull (the default): every commit is on disk when Claim returns,
	// even if the machine loses power. A claim that is not durable can be
	// claimed again after a crash.
	SyncFull Synchronous = iota
	// SyncNormal: in WAL mode a commit survives a crash of the process but
	// may be lost with the last transactions on power loss. Several times
	// faster.
	SyncNormal
)

// DefaultTable is the table a Ledger uses unless WithTable names another.
const DefaultTable = "dstsafe_job_runs"

// DefaultBusyTimeout is how long an OpenSQLite connection waits for the
// write lock before a claim fails with SQLITE_BUSY.
const DefaultBusyTimeout = 10 * time.Second

// An Option configures New or OpenSQLite.
type Option func(*config)

type config struct {
	table       string
	dialect     Dialect
	clock       dstsafe.Clock
	sync        *Synchronous
	busyTimeout *time.Duration
}

// WithTable sets the table name: an SQL identifier of letters, digits and
// underscores not starting with a digit, at most 55 bytes, optionally
// qualified by a schema ("billing.job_runs"). Migrate also creates a
// table named like it with the suffix "_schema" for the schema version.
// Defaults to DefaultTable. A bad name makes New fail with a *ConfigError.
func WithTable(name string) Option { return func(c *config) { c.table = name } }

// WithDialect sets the SQL dialect instead of detecting it from the driver:
// needed for drivers the detection does not know. Defaults to DetectDialect.
func WithDialect(d Dialect) Option { return func(c *config) { c.dialect = d } }

// WithClock sets the clock leases are measured by and instants taken
// from. Defaults to dstsafe.RealClock(). Give every process sharing a
// database a clock that agrees with the others: a lease is compared with
// the reader's clock.
func WithClock(clock dstsafe.Clock) Option { return func(c *config) { c.clock = clock } }

// WithSynchronous sets PRAGMA synchronous for OpenSQLite. Defaults to
// SyncFull. New, which gets an opened *sql.DB, refuses it with a
// *ConfigError.
func WithSynchronous(s Synchronous) Option { return func(c *config) { c.sync = &s } }

// WithBusyTimeout sets PRAGMA busy_timeout for OpenSQLite: how long a
// claim waits for another connection's write. Defaults to
// DefaultBusyTimeout. New refuses it with a *ConfigError.
func WithBusyTimeout(d time.Duration) Option { return func(c *config) { c.busyTimeout = &d } }

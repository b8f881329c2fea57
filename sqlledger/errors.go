package sqlledger

import (
	"errors"
	"fmt"
	"strings"

	"modernc.org/sqlite"
)

var (
	// ErrInvalidConfig: New or OpenSQLite got an option or argument it
	// cannot use. The error is a *ConfigError.
	ErrInvalidConfig = errors.New("sqlledger: invalid configuration")
	// ErrNotMigrated: the ledger's table does not exist; call Migrate.
	ErrNotMigrated = errors.New("sqlledger: ledger table missing (run Migrate)")
	// ErrSchemaTooNew: the database's ledger schema was migrated by a newer
	// version of this package, which this one does not know how to use.
	ErrSchemaTooNew = errors.New("sqlledger: ledger schema newer than this package")
)

// ConfigError reports a bad option or argument to New or OpenSQLite.
// errors.Is(err, ErrInvalidConfig) reports true for it.
type ConfigError struct {
	Option string // "WithTable", "WithDialect", "path", ...
	Value  string
	Reason string
}

func (e *ConfigError) Error() string {
	return fmt.Sprintf("sqlledger: invalid configuration: %s %q: %s", e.Option, e.Value, e.Reason)
}

// Unwrap returns ErrInvalidConfig.
func (e *ConfigError) Unwrap() error { return ErrInvalidConfig }

// mapErr wraps a database error from op with context, and adds
// ErrNotMigrated when the table is missing. Context errors stay visible to
// errors.Is through %w.
func mapErr(op, job, period string, err error) error {
	if err == nil {
		return nil
	}
	if missingTable(err) {
		return fmt.Errorf("sqlledger: %s job %q period %q: %w: %w", op, job, period, ErrNotMigrated, err)
	}
	return fmt.Errorf("sqlledger: %s job %q period %q: %w", op, job, period, err)
}

func missingTable(err error) bool {
	// pgx's *pgconn.PgError and lib/pq's *pq.Error both report SQLSTATE
	// this way; 42P01 is undefined_table.
	var st interface{ SQLState() string }
	if errors.As(err, &st) && st.SQLState() == "42P01" {
		return true
	}
	// SQLite reports a missing table as a generic SQLITE_ERROR (1) at
	// prepare time; only the message tells it apart.
	var se *sqlite.Error
	if errors.As(err, &se) && se.Code()&0xff == 1 && strings.Contains(se.Error(), "no such table") {
		return true
	}
	return false
}

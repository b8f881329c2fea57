package sqlledger

import (
	"errors"
	"fmt"
	"strings"

	"github.com/dstsafe/dstsafe"
	"github.com/dstsafe/dstsafe/ledgerkit"
)

var (
	// ErrInvalidConfig: New or sqlite.OpenSQLite got an option or argument
	// it cannot use. The error is a *ConfigError.
	ErrInvalidConfig = errors.New("sqlledger: invalid configuration")
	// ErrNotMigrated: the ledger's table does not exist, or lacks what
	// this version of the package needs (a database at an older
	// SchemaVersion); call Migrate.
	ErrNotMigrated = errors.New("sqlledger: ledger table missing or out of date (run Migrate)")
	// ErrSchemaTooNew: the database's ledger schema was migrated by a newer
	// version of this package, which this one does not know how to use.
	ErrSchemaTooNew = errors.New("sqlledger: ledger schema newer than this package")
)

// ConfigError reports a bad option or argument to New or sqlite.OpenSQLite.
// errors.Is(err, ErrInvalidConfig) and errors.Is(err,
// dstsafe.ErrInvalidArgument) report true for it.
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

// Is reports dstsafe.ErrInvalidArgument as a match: a bad option is a bad
// argument, as in every dstsafe constructor.
func (e *ConfigError) Is(target error) bool { return target == dstsafe.ErrInvalidArgument }

// mapErr wraps a database error from op with context (period "" for an
// operation on a job). It is the one place where sqlledger decides what
// a database error means: a missing table or column adds ErrNotMigrated,
// and the errors that retrying cannot fix add
// dstsafe.ErrPermanent (see permanent). Context errors stay visible to
// errors.Is through %w.
func mapErr(op, job, period string, err error) error {
	switch {
	case err == nil:
		return nil
	case missingTable(err), missingColumn(err):
		err = fmt.Errorf("%w: %w", ErrNotMigrated, ledgerkit.Permanent(err))
	case permanent(err):
		err = ledgerkit.Permanent(err)
	}
	if job == "" { // an operation on the whole ledger (Jobs)
		return fmt.Errorf("sqlledger: %s: %w", op, err)
	}
	if period == "" {
		return fmt.Errorf("sqlledger: %s job %q: %w", op, job, err)
	}
	return fmt.Errorf("sqlledger: %s job %q period %q: %w", op, job, period, err)
}

// permanent reports whether err, which is not a missing table, leaves the
// ledger unusable until someone changes something: a closed *sql.DB, or
// credentials the server refused. A dropped connection, a timeout, a
// serialization failure or a server shutting down are not: the next call
// may work.
func permanent(err error) bool {
	// database/sql's error for a closed DB is unexported; its text is
	// fixed ("sql: database is closed") since Go 1.0.
	for e := err; e != nil; e = errors.Unwrap(e) {
		if e.Error() == "sql: database is closed" {
			return true
		}
	}
	var st interface{ SQLState() string }
	if errors.As(err, &st) {
		switch st.SQLState() {
		case "28000", // invalid_authorization_specification: no such role, pg_hba refused
			"28P01": // invalid_password
			return true
		}
	}
	return false
}

func missingTable(err error) bool {
	// pgx's *pgconn.PgError and lib/pq's *pq.Error both report SQLSTATE
	// this way; 42P01 is undefined_table.
	var st interface{ SQLState() string }
	if errors.As(err, &st) && st.SQLState() == "42P01" {
		return true
	}
	// SQLite (modernc's *sqlite.Error) reports a missing table as a
	// generic SQLITE_ERROR (1) at prepare time; only the message tells it
	// apart.
	var se interface {
		error
		Code() int
	}
	if errors.As(err, &se) && se.Code()&0xff == 1 && strings.Contains(se.Error(), "no such table") {
		return true
	}
	return false
}

// missingColumn reports an error about a column the table lacks: a
// database still at an older schema version.
func missingColumn(err error) bool {
	var st interface{ SQLState() string }
	if errors.As(err, &st) && st.SQLState() == "42703" { // undefined_column
		return true
	}
	var se interface {
		error
		Code() int
	}
	return errors.As(err, &se) && se.Code()&0xff == 1 &&
		(strings.Contains(se.Error(), "no such column") || strings.Contains(se.Error(), "has no column named"))
}

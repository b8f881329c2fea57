package sqlite

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"

	"modernc.org/sqlite" // registers the "sqlite" driver
	sqlite3 "modernc.org/sqlite/lib"

	"github.com/dstsafe/dstsafe/sqlledger"
	"github.com/dstsafe/dstsafe/sqlledger/internal/config"
)

// OpenSQLite opens (creating if needed) the SQLite database file at path
// with modernc.org/sqlite and returns a Ledger on it whose Close closes
// the database. Every connection gets the settings a ledger needs:
//
//   - journal_mode WAL, switched once by the first open of the file:
//     readers never block the writer;
//   - busy_timeout (WithBusyTimeout, default DefaultBusyTimeout): a claim
//     waits for another writer instead of failing with SQLITE_BUSY (without
//     it, 19,038 of 20,000 concurrent claims failed here);
//   - synchronous FULL, or NORMAL with WithSynchronous(SyncNormal);
//   - _txlock=immediate: transactions (Ledger.WithTx) take the write lock
//     at BEGIN, so they never fail with SQLITE_BUSY_SNAPSHOT when they
//     first write.
//
// Several processes may open a file that does not exist yet at the same
// moment: switching a new file to WAL needs it to itself, and SQLite
// answers SQLITE_BUSY at once (its busy handler would deadlock) to all but
// one; OpenSQLite then waits in the busy handler for the switching process
// (BEGIN IMMEDIATE, up to the busy timeout) and switches again, which now
// finds the file in WAL.
//
// opts are sqlledger's (WithClock, WithTable) and this package's. Call
// Migrate before use. A path that is empty, ":memory:" (every pooled
// connection would get its own database) or a URI gives a
// *sqlledger.ConfigError, and so do bad options; a path that cannot be
// opened fails now, not at the first claim. A path whose directory does
// not exist gives an error that names the directory (errors.Is
// fs.ErrNotExist, errors.As *fs.PathError with the directory's Path):
// OpenSQLite creates the file, never its directories. It never returns a
// nil Ledger with a nil error.
func OpenSQLite(path string, opts ...sqlledger.Option) (*sqlledger.Ledger, error) {
	var c config.Config
	for _, o := range opts {
		config.ApplyOption(o, &c)
	}
	switch {
	case path == "":
		return nil, &sqlledger.ConfigError{Option: "path", Value: path, Reason: "empty"}
	case path == ":memory:" || strings.Contains(path, "mode=memory"):
		return nil, &sqlledger.ConfigError{Option: "path", Value: path, Reason: "an in-memory database is not shared between pooled connections; use a file (or dstsafe.MemoryLedger)"}
	case strings.ContainsAny(path, "?#"), strings.HasPrefix(path, "file:"):
		return nil, &sqlledger.ConfigError{Option: "path", Value: path, Reason: "a file path, not a URI, without '?' or '#'"}
	}
	if d := sqlledger.Dialect(c.Dialect); d != sqlledger.DetectDialect && d != sqlledger.SQLite {
		return nil, &sqlledger.ConfigError{Option: "WithDialect", Value: d.String(), Reason: "OpenSQLite opens SQLite"}
	}
	sync := "FULL"
	if c.Synchronous != nil {
		switch Synchronous(*c.Synchronous) {
		case SyncFull:
		case SyncNormal:
			sync = "NORMAL"
		default:
			return nil, &sqlledger.ConfigError{Option: "WithSynchronous", Value: fmt.Sprint(*c.Synchronous), Reason: "unknown synchronous level"}
		}
	}
	busy := DefaultBusyTimeout
	if c.BusyTimeout != nil {
		if *c.BusyTimeout < 0 {
			return nil, &sqlledger.ConfigError{Option: "WithBusyTimeout", Value: c.BusyTimeout.String(), Reason: "negative"}
		}
		busy = *c.BusyTimeout
	}
	if err := checkDir(path); err != nil {
		return nil, err
	}
	// No journal_mode here: a connection that set it on open would fail to
	// open while another process switches a new file (see useWAL).
	dsn := fmt.Sprintf("%s?_pragma=busy_timeout(%d)&_pragma=synchronous(%s)&_txlock=immediate",
		path, busy.Milliseconds(), sync)
	db, err := sql.Open("sqlite", dsn)
	if err != nil {
		return nil, fmt.Errorf("sqlite: open %s: %w", path, err)
	}
	l, err := sqlledger.New(db, append(opts, option(func(c *config.Config) {
		c.Dialect, c.Opened, c.CloseDB = int(sqlledger.SQLite), true, true
	}))...)
	if err == nil {
		if err = useWAL(context.Background(), db); err != nil {
			err = fmt.Errorf("sqlite: open %s: %w", path, err)
		}
	}
	if err != nil {
		db.Close()
		return nil, err
	}
	return l, nil
}

// checkDir reports a missing (or non-directory) parent of path in words
// that point at the fix; the driver would say only "unable to open
// database file (14)".
func checkDir(path string) error {
	dir := filepath.Dir(path)
	fi, err := os.Stat(dir)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return fmt.Errorf("sqlite: open %s: the directory %s does not exist; create it first (os.MkdirAll): %w",
			path, dir, &fs.PathError{Op: "stat", Path: dir, Err: fs.ErrNotExist})
	case err != nil:
		return fmt.Errorf("sqlite: open %s: %w", path, err)
	case !fi.IsDir():
		return fmt.Errorf("sqlite: open %s: %s is not a directory: %w",
			path, dir, &fs.PathError{Op: "stat", Path: dir, Err: fs.ErrInvalid})
	}
	return nil
}

// maxSwitches bounds useWAL's rounds. Each lost round means another
// process switched the file meanwhile (or was about to), so a round that
// follows one finds the file in WAL; a handful is plenty.
const maxSwitches = 100

// useWAL switches the database to WAL, which the file keeps, on one of
// db's connections. Switching a file that is not in WAL yet takes a read
// lock and then the write lock; a process that holds the read lock while
// another one holds or wants the write lock gets SQLITE_BUSY at once,
// without the busy handler (waiting would deadlock both). Then it waits
// for the other process in the busy handler, with a BEGIN IMMEDIATE that
// takes the write lock from no lock at all (the handler's wait, bounded by
// busy_timeout, not a sleep of ours), lets it go, and switches again.
func useWAL(ctx context.Context, db *sql.DB) error {
	conn, err := db.Conn(ctx)
	if err != nil {
		return err
	}
	defer conn.Close()
	for range maxSwitches {
		var mode string
		err := conn.QueryRowContext(ctx, `PRAGMA journal_mode = WAL`).Scan(&mode)
		switch {
		case err == nil && strings.EqualFold(mode, "wal"):
			return nil
		case err == nil:
			return fmt.Errorf("journal mode is %s, not wal", mode)
		case !isBusy(err):
			return err
		}
		if _, err := conn.ExecContext(ctx, `BEGIN IMMEDIATE`); err != nil {
			return fmt.Errorf("wait for another process switching to WAL: %w", err)
		}
		if _, err := conn.ExecContext(ctx, `ROLLBACK`); err != nil {
			return err
		}
	}
	return fmt.Errorf("switch to WAL: SQLITE_BUSY %d times in a row", maxSwitches)
}

// isBusy reports whether err is SQLITE_BUSY (any extended code).
func isBusy(err error) bool {
	var se *sqlite.Error
	return errors.As(err, &se) && se.Code()&0xff == sqlite3.SQLITE_BUSY
}

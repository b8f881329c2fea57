package sqlite

import (
	"time"

	"github.com/dstsafe/dstsafe/sqlledger"
	"github.com/dstsafe/dstsafe/sqlledger/internal/config"
)

// Synchronous is SQLite's PRAGMA synchronous, set by WithSynchronous.
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

// DefaultBusyTimeout is how long an OpenSQLite connection waits for
// another connection's write lock (PRAGMA busy_timeout) before a claim
// fails with SQLITE_BUSY.
const DefaultBusyTimeout = 10 * time.Second

// WithSynchronous sets PRAGMA synchronous for OpenSQLite. Defaults to
// SyncFull. An unknown level makes OpenSQLite fail with a
// *sqlledger.ConfigError; sqlledger.New refuses the option.
func WithSynchronous(s Synchronous) sqlledger.Option {
	return option(func(c *config.Config) { v := int(s); c.Synchronous = &v })
}

// WithBusyTimeout sets PRAGMA busy_timeout for OpenSQLite: how long a
// statement waits for another connection's write, and how long the first
// open of a new file waits for another process switching it to WAL.
// Defaults to DefaultBusyTimeout. A negative d makes OpenSQLite fail with
// a *sqlledger.ConfigError; sqlledger.New refuses the option.
func WithBusyTimeout(d time.Duration) sqlledger.Option {
	return option(func(c *config.Config) { c.BusyTimeout = &d })
}

// option makes a sqlledger.Option of a setter (see config.MakeOption).
func option(set func(*config.Config)) sqlledger.Option {
	return config.MakeOption(set).(sqlledger.Option)
}

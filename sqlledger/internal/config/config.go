// Package config holds the settings a sqlledger.Option sets. It is internal
// so that only sqlledger and the driver packages below it (sqlledger/sqlite)
// can write options: users pick them from those packages' With functions.
package config

import (
	"time"

	"github.com/dstsafe/dstsafe"
)

// Config is what the options of sqlledger.New and sqlite.OpenSQLite set.
// Nil pointers and zero values mean "not given".
type Config struct {
	Table   string
	Dialect int // a sqlledger.Dialect
	Clock   dstsafe.Clock
	// CloseDB: the Ledger's Close closes its *sql.DB (OpenSQLite's).
	CloseDB bool

	// SQLite connection settings, given with package sqlite's options
	// and read by sqlite.OpenSQLite. sqlledger.New, which gets an opened
	// *sql.DB, refuses them unless Opened is set.
	Synchronous *int
	BusyTimeout *time.Duration
	// OnCommit, if set, is called after every commit of claims with the
	// number of claims it answered (ledgertest counts group commits).
	OnCommit func(claims int)
	// Opened: the *sql.DB was opened by OpenSQLite with the settings
	// above already applied.
	Opened bool
	// MigrateTo, if not zero, is the schema version Migrate stops at
	// (ledgertest makes databases of older versions with it).
	MigrateTo int
}

// MakeOption and ApplyOption are set by package sqlledger's init: they make
// a sqlledger.Option (as an any) of a setter, and apply one to a Config.
// sqlledger.Option keeps its setter unexported, so that Config stays out of
// sqlledger's API; the packages below it reach the setter through these.
var (
	MakeOption  func(set func(*Config)) any
	ApplyOption func(o any, c *Config)
)

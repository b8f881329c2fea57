// Package sqlite is the embedded SQLite ledger: OpenSQLite opens a file
// with modernc.org/sqlite (pure Go, no cgo) and returns a *sqlledger.Ledger
// on it. It is its own module, github.com/dstsafe/dstsafe/sqlledger/sqlite,
// so that modernc.org/sqlite is required only by the services that use it;
// the Ledger itself, its options and Migrate are package sqlledger's.
//
// # Options
//
// OpenSQLite takes sqlledger's options (sqlledger.WithClock,
// sqlledger.WithTable) and this package's, which set the SQLite connection
// and so exist only here: WithSynchronous and WithBusyTimeout.
// sqlledger.New, which gets a *sql.DB somebody else opened, refuses them
// with a *sqlledger.ConfigError: set pragmas in your own DSN instead.
//
// # Many processes on one file
//
// Every process of a service on one machine can open the same file at
// once, even one that does not exist yet: the first open switches the file
// to WAL, and a process that finds another one switching it waits for it
// in SQLite's busy handler (up to the busy timeout) and tries again.
// Migrate is safe from all of them at once (BEGIN IMMEDIATE, waited for up
// to the busy timeout). SQLite has one writer at a time: within a process,
// share one Ledger, whose writers queue on a Go lock and whose concurrent
// claims commit together; processes queue in the busy handler.
package sqlite

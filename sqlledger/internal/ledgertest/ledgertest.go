// Package ledgertest holds the tests that every SQL dialect of sqlledger
// passes, written once: package sqlledger's tests run them on PostgreSQL
// and package sqlite's (module sqlledger/sqlite) on SQLite, each through a
// Backend. What only one dialect has (PostgreSQL restarts and row locks,
// SQLite pragmas and file paths) stays in that module's tests.
//
// It is a non-test package so that both modules can import it; it is
// internal to sqlledger so that nobody else can.
package ledgertest

import (
	"context"
	"testing"

	"github.com/jonboulle/clockwork"

	"github.com/dstsafe/dstsafe/dstsafetest"
	"github.com/dstsafe/dstsafe/sqlledger"
	"github.com/dstsafe/dstsafe/sqlledger/internal/config"
)

// Target is where a ledger lives.
type Target struct {
	// DSN is the SQLite file path or the PostgreSQL connection string.
	DSN string
	// Table is the ledger's table (WithTable).
	Table string
	// Relaxed: the test checks exclusion, not durability, so the ledger
	// may commit without waiting for the disk (SQLite synchronous NORMAL,
	// PostgreSQL synchronous_commit off); locking and visibility are the
	// same. SQLite also waits a minute, not 10 s, for the write lock: its
	// busy handler is not fair, and under the race detector on a loaded
	// 2-core machine one process can be starved past the default.
	Relaxed bool
}

// Backend is one dialect's way to make ledgers for the shared tests.
type Backend struct {
	// Name is "sqlite" or "postgres", in subtest and benchmark names.
	Name string
	// Fresh returns a target nobody has used: a path in a new temporary
	// directory, or a table in a PostgreSQL schema that does not exist
	// yet (Migrate creates it). It is removed when tb ends.
	Fresh func(tb testing.TB) Target
	// Open opens a Ledger on tg whose Close releases what Open opened.
	// It also runs in the child processes of the multi-process tests.
	Open func(tg Target, opts ...sqlledger.Option) (*sqlledger.Ledger, error)
	// Broken returns the ways the dialect's ledgers break for good, for
	// the conformance suite's Permanent subtest.
	Broken func(t *testing.T) []dstsafetest.LedgerSuiteOption
}

// OwnDB is the option Backend.Open of PostgreSQL gives New for a *sql.DB
// it opened: the Ledger's Close closes it.
func OwnDB() sqlledger.Option {
	return config.MakeOption(func(c *config.Config) { c.CloseDB = true }).(sqlledger.Option)
}

// AtVersion is an option for a ledger whose Migrate stops at schema
// version v: a database as an older release of the package left it.
func AtVersion(v int) sqlledger.Option {
	return config.MakeOption(func(c *config.Config) { c.MigrateTo = v }).(sqlledger.Option)
}

// Unmigrated returns a ledger on a fresh target, closed when tb ends.
func (b Backend) Unmigrated(tb testing.TB, opts ...sqlledger.Option) (*sqlledger.Ledger, Target) {
	tb.Helper()
	tg := b.Fresh(tb)
	return b.open(tb, tg, opts...), tg
}

// New returns a migrated ledger on a fresh target, closed when tb ends.
func (b Backend) New(tb testing.TB, opts ...sqlledger.Option) *sqlledger.Ledger {
	tb.Helper()
	l, _ := b.Unmigrated(tb, opts...)
	if err := l.Migrate(context.Background()); err != nil {
		tb.Fatalf("Migrate: %v", err)
	}
	return l
}

// open opens tg, closed when tb ends.
func (b Backend) open(tb testing.TB, tg Target, opts ...sqlledger.Option) *sqlledger.Ledger {
	tb.Helper()
	l, err := b.Open(tg, opts...)
	if err != nil {
		tb.Fatalf("open %s ledger: %v", b.Name, err)
	}
	tb.Cleanup(func() { l.Close() })
	return l
}

// wallClock is real time, for what these tests measure or start from in
// real time (a race's duration, a crashed holder's claim): the ledgers
// under test run on fake clocks.
var wallClock = clockwork.NewRealClock()

// Run runs every shared test on b, each as a subtest named for it.
func Run(t *testing.T, b Backend) {
	for _, tt := range []struct {
		name string
		fn   func(t *testing.T, b Backend)
	}{
		{"Conformance", testConformance},
		{"Scheduler", testScheduler},
		{"ConformanceInTx", testConformanceInTx},
		{"GroupedClaims", testGroupedClaims},
		{"GroupedClaimRetries", testGroupedClaimRetries},
		{"GroupCommit", testGroupCommit},
		{"GroupedClaimsSkew", testGroupedClaimsSkew},
		{"Migrate", testMigrate},
		{"MigrateSchemaTooNew", testMigrateSchemaTooNew},
		{"MigrateUpgrade", testMigrateUpgrade},
		{"MigrateUpgradeV2", testMigrateUpgradeV2},
		{"MigrateUpgradeV3", testMigrateUpgradeV3},
		{"EditBetweenDeploys", testEditBetweenDeploys},
		{"FreshStart", testFreshStart},
		{"ClaimCommitsWithBusinessRows", testClaimCommitsWithBusinessRows},
		{"RaceProcesses", testRaceProcesses},
		{"CrashedHolder", testCrashedHolder},
		{"TakeoverRace", testTakeoverRace},
	} {
		t.Run(tt.name, func(t *testing.T) { tt.fn(t, b) })
	}
}

// Package ledgerlink hands package ledgerkit the checks that package
// dstsafe keeps unexported for its MemoryLedger, so that every Ledger runs
// one implementation of them.
//
// The checks need dstsafe's types (ClaimRequest, Record, State, KeyError)
// and ledgerkit imports dstsafe, so dstsafe cannot import ledgerkit. This
// package imports neither: dstsafe registers its checks here in its init,
// and ledgerkit fetches them when it is initialised, which Go does after
// dstsafe's init because ledgerkit imports dstsafe. The type parameters
// stand for dstsafe's types; Get panics at ledgerkit's initialisation if
// they disagree with what Set was given, so any test of ledgerkit catches a
// mismatch.
package ledgerlink

import (
	"context"
	"time"
)

// Checks are the checks of package dstsafe, with Req, Rec and St standing
// for its ClaimRequest, Record and State.
type Checks[Req, Rec, St any] struct {
	Claim     func(ctx context.Context, req Req) (time.Duration, error)
	ClockSkew func(req Req, storeNow time.Time) error
	Heartbeat func(ctx context.Context, job, period string, lease time.Duration) (time.Duration, error)
	Finish    func(ctx context.Context, job, period string, state St, reason string) (string, error)
	Get       func(ctx context.Context, job, period string) error
	List      func(ctx context.Context, job, from, to string) error
	Key       func(field, s string) error
	Bound     func(field, s string) error
	Lease     func(d time.Duration) (time.Duration, error)
	Reason    func(s string) string
	Time      func(t time.Time) time.Time
	LeaseLost func(cur Rec, token int64) error
	NotFound  func(job, period string) error
	SetPause  func(ctx context.Context, job, by, reason string) (string, error)
	Job       func(ctx context.Context, job string) error
	Release   func(ctx context.Context, job, period, by, reason string) (string, error)
	// JobNotFound is LookupJob's error for a job never registered.
	JobNotFound func(job string) error
}

var checks any

// Set registers c. Package dstsafe calls it once, in its init.
func Set[Req, Rec, St any](c Checks[Req, Rec, St]) { checks = c }

// Get returns the checks Set registered.
func Get[Req, Rec, St any]() Checks[Req, Rec, St] {
	c, ok := checks.(Checks[Req, Rec, St])
	if !ok {
		panic("ledgerlink: package dstsafe registered no checks for these types")
	}
	return c
}

package ledgerkit

import (
	"context"
	"fmt"
	"time"

	"github.com/dstsafe/dstsafe"
	"github.com/dstsafe/dstsafe/internal/ledgerlink"
)

// Limits on what a ledger stores. Every backend enforces them (through
// CheckKey and NormalizeReason), so a key that one backend accepts is
// accepted by all.
const (
	// MaxKeyLen is the longest job name, period, owner or schedule
	// fingerprint, in bytes.
	MaxKeyLen = 255
	// MaxReasonLen is the longest failure reason kept, in bytes; longer
	// reasons are cut at a rune boundary.
	MaxReasonLen = 4096
)

// checks are package dstsafe's, the ones its MemoryLedger runs.
var checks = ledgerlink.Get[dstsafe.ClaimRequest, dstsafe.Record, dstsafe.State]()

// CheckClaim is the preamble of Claim: it returns ctx.Err() if ctx is done,
// a *dstsafe.KeyError (wrapping dstsafe.ErrInvalidArgument) for a bad Job,
// Period, Owner or non-empty Schedule, and an error wrapping
// dstsafe.ErrInvalidArgument for a negative Lease or Retry.MaxAttempts.
// Otherwise it returns the lease the claim gets (see EffectiveLease).
func CheckClaim(ctx context.Context, req dstsafe.ClaimRequest) (lease time.Duration, err error) {
	return checks.Claim(ctx, req)
}

// CheckClockSkew is the check a Claim makes once it has the store's clock
// reading storeNow (LedgerTime of it), before it writes anything: it
// returns an error wrapping dstsafe.ErrClockSkew (the one every backend
// returns, which the Scheduler reads the offset from) when
// req.Now is set and differs from storeNow by more than
// req.MaxClockOffset (5 s when zero), nil
// otherwise. Read storeNow in the same transaction or script as the
// claim's other reads, or just before it, and refuse before any write, for
// first claims and takeovers alike.
func CheckClockSkew(req dstsafe.ClaimRequest, storeNow time.Time) error {
	return checks.ClockSkew(req, storeNow)
}

// CheckHeartbeat is the preamble of Heartbeat: ctx, the keys, and the
// lease, which it returns as EffectiveLease does.
func CheckHeartbeat(ctx context.Context, job, period string, lease time.Duration) (time.Duration, error) {
	return checks.Heartbeat(ctx, job, period, lease)
}

// CheckFinish is the preamble of Finish: ctx, the keys, and a state a run
// can finish in (dstsafe.StateSucceeded, StateFailed or StateSkipped; any
// other is an error wrapping dstsafe.ErrInvalidArgument). It returns the
// reason to store, as NormalizeReason makes it: a result is never refused
// for its reason.
func CheckFinish(ctx context.Context, job, period string, state dstsafe.State, reason string) (string, error) {
	return checks.Finish(ctx, job, period, state, reason)
}

// CheckGet is the preamble of Get: ctx and the keys.
func CheckGet(ctx context.Context, job, period string) error {
	return checks.Get(ctx, job, period)
}

// CheckList is the preamble of List: ctx, the job, and the bounds (see
// ValidateBound).
func CheckList(ctx context.Context, job, from, to string) error {
	return checks.List(ctx, job, from, to)
}

// CheckSetPause is the preamble of dstsafe.ControlLedger.SetPause: ctx,
// the job, and a non-empty p.By (field "by"). It returns the reason to
// store, as NormalizeReason makes it.
func CheckSetPause(ctx context.Context, job string, p dstsafe.Pause) (string, error) {
	return checks.SetPause(ctx, job, p.By, p.Reason)
}

// CheckGetPause is the preamble of dstsafe.ControlLedger.GetPause: ctx and
// the job.
func CheckGetPause(ctx context.Context, job string) error {
	return checks.Job(ctx, job)
}

// CheckRelease is the preamble of dstsafe.ControlLedger.Release: ctx, the
// keys, and a non-empty by (field "by"). It returns the reason to store,
// as NormalizeReason makes it.
func CheckRelease(ctx context.Context, job, period, by, reason string) (string, error) {
	return checks.Release(ctx, job, period, by, reason)
}

// CheckRegisterJob is the preamble of dstsafe.JobRegistry.RegisterJob:
// reg.Check (ctx, the job and owner keys, each descriptive field that is
// set, and the limits when set: a negative MaxRuns or an End before
// Start is a *dstsafe.ArgError wrapping dstsafe.ErrInvalidArgument).
func CheckRegisterJob(ctx context.Context, reg dstsafe.JobRegistration) error {
	return reg.Check(ctx)
}

// CheckLookupJob is the preamble of dstsafe.JobRegistry.LookupJob: ctx
// and the job.
func CheckLookupJob(ctx context.Context, job string) error {
	return checks.Job(ctx, job)
}

// JobNotFound returns the error wrapping dstsafe.ErrNotFound that
// LookupJob reports for a job never registered.
func JobNotFound(job string) error {
	return checks.JobNotFound(job)
}

// ValidateKey checks a job name, period or owner: non-empty, at most
// ledgerkit.MaxKeyLen bytes, valid UTF-8 and free of NUL bytes (PostgreSQL's
// text type cannot hold NUL). field names the argument in the error, a
// *dstsafe.KeyError wrapping dstsafe.ErrInvalidArgument. The Check functions
// call it; a backend calls it for the keys of methods of its own.
func ValidateKey(field, s string) error {
	return checks.Key(field, s)
}

// ValidateBound checks a bound of a range of periods: like ValidateKey,
// except that empty means open and the length is not limited.
func ValidateBound(field, s string) error {
	return checks.Bound(field, s)
}

// EffectiveLease returns the lease a claim or heartbeat asking for d gets:
// dstsafe.DefaultLease for zero, d itself when positive, and an error
// wrapping dstsafe.ErrInvalidArgument when negative. Leases below a
// microsecond round up to one, since instants are kept to microseconds.
func EffectiveLease(d time.Duration) (time.Duration, error) {
	return checks.Lease(d)
}

// NormalizeReason returns the reason a ledger stores for Finish: invalid
// UTF-8 replaced by U+FFFD, NUL bytes dropped, cut to ledgerkit.MaxReasonLen
// bytes at a rune boundary.
func NormalizeReason(s string) string {
	return checks.Reason(s)
}

// LedgerTime returns t as ledgers store and report it: in UTC, truncated
// to microseconds (PostgreSQL's precision), without a monotonic clock
// reading. A backend's now is LedgerTime of its store's clock (the
// server's, for a server: PostgreSQL's clock_timestamp(), Redis's TIME),
// or of the Clock it was given for tests and simulation (a WithClock
// option), never of the claimer's machine: two replicas must judge a lease
// by one clock (see dstsafe.Ledger).
func LedgerTime(t time.Time) time.Time {
	return checks.Time(t)
}

// LeaseLost returns the error Heartbeat and Finish report when token no
// longer holds the period whose record is cur (its State as of now, see
// dstsafe.Record.StateAt): it wraps dstsafe.ErrLeaseLost and names the
// current token, state and owner.
func LeaseLost(cur dstsafe.Record, token int64) error {
	return checks.LeaseLost(cur, token)
}

// NotFound returns the error wrapping dstsafe.ErrNotFound for a period
// without a record.
func NotFound(job, period string) error {
	return checks.NotFound(job, period)
}

// Permanent returns err marked as permanent: errors.Is reports true for
// both dstsafe.ErrPermanent and everything err wraps. A backend's
// error-mapping function calls it for the errors retrying cannot fix (see
// the package doc). It returns nil for nil.
func Permanent(err error) error {
	if err == nil {
		return nil
	}
	return fmt.Errorf("%w: %w", dstsafe.ErrPermanent, err)
}

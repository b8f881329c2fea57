package dstsafe

import (
	"context"
	"errors"
	"time"
)

// A Ledger records which logical periods of which jobs have been claimed,
// so that a period runs once no matter how many times, from how many
// processes, or how late a scheduler asks to run it. It is the guard the
// 2024-11-03 billing incident lacked: runs are keyed by logical period
// ("billing", "2024-11-03") under a unique constraint, never guarded by
// elapsed time.
//
// A claim moves a period to StateRunning with a lease and a fencing token.
// The holder extends the lease with Heartbeat and ends the run with Finish.
// Both are compare-and-set on the token: once a period has been taken over,
// the old holder gets ErrLeaseLost and its late result is never written.
//
// Implementations: MemoryLedger here, sqlledger (SQLite, PostgreSQL) and
// redisledger. All of them pass dstsafetest.RunLedgerTests.
type Ledger interface {
	// Claim claims (req.Job, req.Period) for req.Owner. It fails with an
	// error wrapping ErrAlreadyClaimed (a *ClaimedError carrying the
	// existing record) when the period is running, succeeded or skipped, or
	// when it failed or was abandoned and req.Retry does not allow a takeover.
	Claim(ctx context.Context, req ClaimRequest) (Record, error)
	// Heartbeat extends the lease of a running claim held with token to
	// now+lease. ErrLeaseLost if the token no longer holds the period.
	Heartbeat(ctx context.Context, job, period string, token int64, lease time.Duration) (Record, error)
	// Finish ends a running claim held with token in state (StateSucceeded,
	// StateFailed or StateSkipped), with reason kept for failures.
	// ErrLeaseLost if the token no longer holds the period.
	Finish(ctx context.Context, job, period string, token int64, state State, reason string) (Record, error)
	// Get returns the record of a period, ErrNotFound if it was never claimed.
	Get(ctx context.Context, job, period string) (Record, error)
	// List returns the records of job whose period keys p satisfy
	// from <= p < to (byte order; an empty bound is open), ordered by period.
	List(ctx context.Context, job, from, to string) ([]Record, error)
}

// State is the state of a claimed period.
type State uint8

const (
	// StateRunning: claimed, the holder is (or was) running it.
	StateRunning State = iota + 1
	// StateSucceeded: done. Terminal: never claimed again.
	StateSucceeded
	// StateFailed: the run returned an error. Taken over only when the
	// job's RetryPolicy allows it.
	StateFailed
	// StateAbandoned: running, but the holder stopped heartbeating and the
	// lease has expired. Never stored: reported for running records whose
	// lease is over, by the ledger's Clock.
	StateAbandoned
	// StateSkipped: deliberately not run (catch-up policy). Terminal.
	StateSkipped
)

// String returns the state's lower-case name ("running", ...).
func (s State) String() string {
	switch s {
	case StateRunning:
		return "running"
	case StateSucceeded:
		return "succeeded"
	case StateFailed:
		return "failed"
	case StateAbandoned:
		return "abandoned"
	case StateSkipped:
		return "skipped"
	}
	return "invalid"
}

// Record is a ledger's row for one (job, period).
// All instants are in UTC.
type Record struct {
	Job, Period string
	State       State
	Owner       string
	// Token is the fencing token: it increases with every claim or takeover
	// of the period. Heartbeat and Finish must present the current one.
	Token int64
	// Attempt counts claims of the period, starting at 1.
	Attempt    int
	StartedAt  time.Time // when the current attempt was claimed
	FinishedAt time.Time // zero while running
	LeaseUntil time.Time // running claims: abandoned after this instant
	Reason     string    // why it failed
}

// ClaimRequest asks a Ledger for a period.
type ClaimRequest struct {
	Job, Period string
	Owner       string
	// Lease is how long the claim holds without a heartbeat.
	// Zero means DefaultLease.
	Lease time.Duration
	// Retry says whether a failed or abandoned period may be taken over.
	// The zero value never takes over: a money-moving job must opt in.
	Retry RetryPolicy
}

// DefaultLease is the lease of a claim that does not name one.
const DefaultLease = time.Minute

// RetryPolicy allows taking over a period whose earlier attempt failed or
// was abandoned. The zero value allows nothing.
type RetryPolicy struct {
	// MaxAttempts is the most attempts a period may have in all, the first
	// included. 0 or 1 means no takeover.
	MaxAttempts int
	// Failed allows taking over a period in StateFailed.
	Failed bool
	// Abandoned allows taking over a period in StateAbandoned.
	Abandoned bool
}

var (
	// ErrAlreadyClaimed: the period has been claimed before and may not be
	// claimed again. The error is a *ClaimedError with the existing record.
	ErrAlreadyClaimed = errors.New("dstsafe: period already claimed")
	// ErrLeaseLost: the token no longer holds the period (taken over, or
	// finished by someone else).
	ErrLeaseLost = errors.New("dstsafe: lease lost")
	// ErrNotFound: the period has no record.
	ErrNotFound = errors.New("dstsafe: no record")
	// ErrInvalidKey: an empty, over-long or non-UTF-8 job name, period or owner.
	ErrInvalidKey = errors.New("dstsafe: invalid ledger key")
)

// ClaimedError is returned by Claim when the period was claimed before.
// errors.Is(err, ErrAlreadyClaimed) reports true for it.
type ClaimedError struct {
	Existing Record
}

func (e *ClaimedError) Error() string {
	r := e.Existing
	return "dstsafe: period already claimed: job " + r.Job + " period " + r.Period +
		" is " + r.State.String() + " (owner " + r.Owner + ", started " + r.StartedAt.Format(time.RFC3339) + ")"
}

// Unwrap returns ErrAlreadyClaimed.
func (e *ClaimedError) Unwrap() error { return ErrAlreadyClaimed }

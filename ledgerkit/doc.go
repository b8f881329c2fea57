// Package ledgerkit is for people who write a [dstsafe.Ledger] backend: the
// checks every backend makes, the errors every backend returns, and how to
// map a storage's failures onto them. People who use a Ledger never need it:
// they branch on the sentinels of package dstsafe (ErrAlreadyClaimed,
// ErrLeaseLost, ErrNotFound, ErrInvalidArgument, ErrInvalidArgument,
// ErrPermanent), which stay there.
//
// The memory ledger of package dstsafe, sqlledger and redisledger are built
// on it, and so run one implementation of every check: a key that one
// backend refuses, every backend refuses, with the same error.
//
// # The contract
//
// The contract is the [dstsafe.Ledger] interface and its doc. In short:
//
//   - A claim of (job, period) is decided by the storage's own atomic
//     operation (a primary key, SET NX, a compare-and-set), never by a read
//     followed by a write: of many concurrent claims exactly one wins, and a
//     refused claim returns a *dstsafe.ClaimedError with the record it lost
//     to.
//   - Every claim or takeover increases the record's Token; Heartbeat and
//     Finish are compare-and-set on it and return [LeaseLost] when it no
//     longer holds the period.
//   - Time comes from the store's clock (the server's, for a server), as
//     [LedgerTime] of it, or from a dstsafe.Clock given for tests and
//     simulation (a WithClock option), never from the claimer's machine:
//     every replica must judge a lease by the same clock. Instants are
//     stored and returned in UTC to the microsecond.
//   - A claim whose req.Now is set is refused by [CheckClockSkew] against
//     the store's clock before anything is written, first claims and
//     takeovers alike.
//   - A running record is stored as running; reads report it as of now with
//     [dstsafe.Record.StateAt] (abandoned once its lease is over), and a
//     takeover is allowed by [dstsafe.RetryPolicy.Allows] on that state.
//   - ClaimRequest.Schedule is stored with the attempt and returned in
//     Record.Schedule; a takeover replaces it. So is ClaimRequest.ID, in
//     Record.ClaimID.
//   - A claim that finds a record first asks [dstsafe.ClaimRequest.Retries]
//     (before RetryPolicy.Allows): true means the record is the attempt an
//     earlier try of this same claim made, whose answer was lost (same
//     Owner and ID, running or abandoned). Return that record with its
//     lease extended to now plus the claim's lease, written by the same
//     compare-and-set on the Token as a Heartbeat (a takeover in between
//     makes it fail: decide again on the taker's record). Never a
//     *dstsafe.ClaimedError naming the claimer itself.
//   - List orders periods by bytes and returns an empty slice, not an error,
//     for a range without records.
//   - A [dstsafe.ControlLedger] keeps a job's pause state and a period's
//     release in the storage, shared by every process on it. SetPause
//     writes only when the state changes (Since from the Clock); Release
//     marks a failed or abandoned record, refuses the others with a
//     *dstsafe.ClaimedError, and the next takeover clears the mark in the
//     same atomic write that bumps the Token (RetryPolicy.Allows honours
//     it). Jobs lists every job with a record, a pause state or a
//     registration.
//   - A [dstsafe.JobRegistry] keeps one registration per job. RegisterJob
//     reads the stored registration (nil for none) and the store's clock,
//     calls [dstsafe.JobRegistration.Merge] and writes what it returns
//     only if the stored registration is still the one read (a
//     transaction, a row version, a compare-and-set of the stored bytes);
//     when the write loses, it reads again and decides again. Merge's
//     *dstsafe.JobConflictError is returned as it is, with nothing
//     written. So of concurrent registrations of one name under two
//     schedules exactly one is stored. LookupJob returns [JobNotFound]
//     for a job never registered. Store FirstSeen, LastSeen and Changed to
//     the microsecond in UTC, Owners in order, and Limits as Merge
//     returns them (MaxRuns; Start and End to the nanosecond, zero when
//     open).
//
// # What to validate
//
// Each method starts with its check, before it touches storage, and uses
// what the check returns:
//
//	Claim      lease, err := ledgerkit.CheckClaim(ctx, req)
//	           then, with the store's now: err := ledgerkit.CheckClockSkew(req, now)
//	Heartbeat  lease, err := ledgerkit.CheckHeartbeat(ctx, job, period, lease)
//	Finish     reason, err := ledgerkit.CheckFinish(ctx, job, period, state, reason)
//	Get        err := ledgerkit.CheckGet(ctx, job, period)
//	List       err := ledgerkit.CheckList(ctx, job, from, to)
//	SetPause   reason, err := ledgerkit.CheckSetPause(ctx, job, p)
//	GetPause   err := ledgerkit.CheckGetPause(ctx, job)
//	Release    reason, err := ledgerkit.CheckRelease(ctx, job, period, by, reason)
//	RegisterJob  err := ledgerkit.CheckRegisterJob(ctx, reg)
//	LookupJob    err := ledgerkit.CheckLookupJob(ctx, job)
//
// A check returns ctx.Err() if ctx is done, a *dstsafe.KeyError for a bad
// key and an error wrapping dstsafe.ErrInvalidArgument for an argument out
// of range: return it as it is. Do not validate again, or differently.
//
// # Mapping errors
//
// A backend returns the sentinels for the ledger's own conditions
// (&dstsafe.ClaimedError{}, [LeaseLost], [NotFound]) and nothing else
// for a failure of its storage: an outage is not an answer, and the caller
// cannot know whether a write it made happened. Each backend decides what a
// storage error means in one function (sqlledger's mapErr, redisledger's
// interpretError; riverpgxv5's interpretError is the model). That function
// marks with [Permanent] the errors that retrying cannot fix, so that
// callers and the Scheduler can tell them from transient ones:
//
//   - the table or schema was never migrated (PostgreSQL SQLSTATE 42P01,
//     SQLite "no such table"), or migrated by an older version (42703,
//     "no such column");
//   - the pool or client was closed ("sql: database is closed",
//     redis.ErrClosed);
//   - the server refused the credentials or the permission (PostgreSQL
//     28P01, 28000; Redis NOAUTH, WRONGPASS, NOPERM);
//   - a key or row holds something the backend did not write (Redis
//     WRONGTYPE).
//
// A timeout, a dropped or refused connection, a serialization failure or a
// server restarting are transient: leave them unmarked, wrapped with the
// operation, the job and the period.
//
// # Testing
//
// Run the conformance suite from the backend's tests, giving every subtest
// a fresh, isolated ledger on the suite's fake clock, and the ways the
// backend can break:
//
//	func TestConformance(t *testing.T) {
//		dstsafetest.RunLedgerTests(t, func(t *testing.T, clock *clockwork.FakeClock) dstsafe.Ledger {
//			return mybackend.New(client, mybackend.WithClock(clock), mybackend.WithPrefix(unique(t)))
//		}, dstsafetest.WithBrokenLedger("closed client", newClosed),
//			dstsafetest.WithSecondLedger(openOnSamePrefix))
//	}
//
// A ControlLedger is checked as one too, and so is a JobRegistry (its
// subtests skip, naming the capability, for a Ledger that is not one);
// WithSecondLedger opens a second Ledger on the same storage, as another
// process would, to check that pause state and releases are shared. The
// suite's ClaimAnswerLost subtests wrap the Ledger in one whose Claim
// commits and then returns a transient error, and check that the retry
// gets its own attempt back.
//
// A backend that cannot do something the suite checks yet says so with an
// option (dstsafetest.WithoutSchedule), and the subtest skips naming it.
package ledgerkit

package dstsafetest

// A claim whose answer was lost: the store committed it, the reply never
// reached the claimer (a dropped connection, a timeout after the commit),
// and the claimer tries again with the same Owner and ClaimRequest.ID.
// The ledger must hand it its own attempt back (dstsafe.ClaimRequest.
// Retries), never a *ClaimedError naming the claimer itself: a Scheduler
// that took that for "claimed elsewhere" would lose the period.

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/dstsafe/dstsafe"
)

// claimIDTests are the subtests of ClaimRequest.ID.
func (s suite) claimIDTests() []subtest {
	return []subtest{
		{"ClaimAnswerLost", s.testClaimAnswerLost},
		{"ClaimAnswerLostTakeover", s.testClaimAnswerLostTakeover},
		{"ClaimIDKeys", s.testClaimIDKeys},
	}
}

// errAnswerLost is the transient error a lossyLedger returns after its
// claim committed.
var errAnswerLost = errors.New("dstsafetest: connection reset after the claim committed")

// lossyLedger lets the real Claim commit, then loses its answer: the
// claimer sees a transient error, as after a connection reset between the
// store's commit and its reply.
type lossyLedger struct{ dstsafe.Ledger }

func (l lossyLedger) Claim(ctx context.Context, req dstsafe.ClaimRequest) (dstsafe.Record, error) {
	if _, err := l.Ledger.Claim(ctx, req); err != nil {
		return dstsafe.Record{}, err
	}
	return dstsafe.Record{}, errAnswerLost
}

// loseClaim claims req through a lossyLedger on l and returns the record
// it committed, as Get reads it.
func loseClaim(t *testing.T, l dstsafe.Ledger, req dstsafe.ClaimRequest) dstsafe.Record {
	t.Helper()
	_, err := lossyLedger{l}.Claim(context.Background(), req)
	must.ErrorIs(t, err, errAnswerLost, "the lossy claim")
	r := get(t, l, req.Job, req.Period)
	must.Equal(t, req.Owner, r.Owner, "the lost claim's record was not committed for its owner: %+v", r)
	return r
}

// The 2024-11-03 bill is claimed by billing-1, whose connection resets
// right after the commit. Its retry, with the same owner and ID, is its
// own claim: the same attempt and token, the lease counted from the
// retry, even after the lease ran out while it retried. Any other claimer
// (another ID, another owner, no ID) is refused with the record. A retry
// of an attempt that already finished is refused too: the ID names one
// running attempt, never a second run.
func (s suite) testClaimAnswerLost(t *testing.T) {
	l, clock := s.setup(t)
	ctx := context.Background()
	req := dstsafe.ClaimRequest{Job: "billing", Period: "2024-11-03", Owner: "billing-1", Lease: time.Minute,
		ID: "billing-1/2024-11-03/7f3a"}
	lost := loseClaim(t, l, req)
	check.Equal(t, 1, lost.Attempt, "attempt of the lost claim")
	check.Equal(t, req.ID, lost.ClaimID, "ClaimID of the lost claim's record")

	// The claimer's retry, three seconds later.
	clock.Advance(3 * time.Second)
	r, err := l.Claim(ctx, req)
	must.NoError(t, err, "retry of a claim whose answer was lost")
	check.Equal(t, dstsafe.StateRunning, r.State)
	check.Equal(t, lost.Token, r.Token, "token of the retry")
	check.Equal(t, 1, r.Attempt, "attempt of the retry")
	check.Equal(t, "billing-1", r.Owner)
	check.Equal(t, req.ID, r.ClaimID)
	sameInstant(t, lost.StartedAt, r.StartedAt, "StartedAt of the retry")
	sameInstant(t, now(clock).Add(time.Minute), r.LeaseUntil, "LeaseUntil of the retry")
	requireUTC(t, r)
	g := get(t, l, req.Job, req.Period)
	check.Equal(t, r.Token, g.Token, "Get after the retry")
	sameInstant(t, r.LeaseUntil, g.LeaseUntil, "stored LeaseUntil after the retry")

	// Everyone else is refused, and the record stays the claimer's.
	for _, other := range []dstsafe.ClaimRequest{
		{Job: "billing", Period: "2024-11-03", Owner: "billing-1", ID: "billing-1/2024-11-03/other"}, // its next claim, not this one
		{Job: "billing", Period: "2024-11-03", Owner: "billing-2", ID: req.ID},                       // another replica with the same ID
		{Job: "billing", Period: "2024-11-03", Owner: "billing-1"},                                   // no ID: no such check
	} {
		_, err := l.Claim(ctx, other)
		ce := requireClaimed(t, err, dstsafe.StateRunning)
		check.Equal(t, "billing-1", ce.Existing.Owner, "refusal of %+v", other)
		check.Equal(t, lost.Token, ce.Existing.Token, "refusal of %+v", other)
	}

	// Lost again, and the retry comes after the lease ran out (the
	// claimer was partitioned for two minutes): still its own attempt,
	// running again, not a takeover.
	req2 := dstsafe.ClaimRequest{Job: "billing", Period: "2024-11-04", Owner: "billing-1", Lease: time.Minute, ID: "billing-1/2024-11-04/19c0"}
	lost2 := loseClaim(t, l, req2)
	clock.Advance(2 * time.Minute)
	check.Equal(t, dstsafe.StateAbandoned, get(t, l, req2.Job, req2.Period).State, "the lost claim after its lease")
	r2, err := l.Claim(ctx, req2)
	must.NoError(t, err, "retry after the lease of the lost claim ran out")
	check.Equal(t, lost2.Token, r2.Token, "token")
	check.Equal(t, 1, r2.Attempt, "attempt")
	check.Equal(t, dstsafe.StateRunning, r2.State)
	check.Equal(t, dstsafe.StateRunning, get(t, l, req2.Job, req2.Period).State, "Get after the retry")
	// The holder finishes with the token it got back.
	f := finish(t, l, r2, dstsafe.StateSucceeded, "")
	check.Equal(t, dstsafe.StateSucceeded, f.State)

	// A retry of a finished attempt is no claim: the period ran.
	_, err = l.Claim(ctx, req2)
	requireClaimed(t, err, dstsafe.StateSucceeded)
}

// billing-1's attempt failed; billing-2 takes it over (RetryPolicy
// Failed) and its answer is lost. billing-2's retry gets attempt 2 back,
// with the takeover's token, not a third attempt; billing-3 is refused,
// and billing-1, whose ID named attempt 1, cannot revive it.
func (s suite) testClaimAnswerLostTakeover(t *testing.T) {
	l, clock := s.setup(t)
	ctx := context.Background()
	retry := dstsafe.RetryPolicy{MaxAttempts: 3, Failed: true, Abandoned: true}
	first := dstsafe.ClaimRequest{Job: "billing", Period: "2024-11-03", Owner: "billing-1", Lease: time.Minute, Retry: retry, ID: "a1"}
	r1 := claim(t, l, first)
	finish(t, l, r1, dstsafe.StateFailed, "card processor down")

	clock.Advance(5 * time.Minute)
	req := dstsafe.ClaimRequest{Job: "billing", Period: "2024-11-03", Owner: "billing-2", Lease: time.Minute, Retry: retry, ID: "a2"}
	lost := loseClaim(t, l, req)
	check.Equal(t, 2, lost.Attempt, "attempt of the lost takeover")
	check.True(t, lost.Token > r1.Token, "takeover token %d not past %d", lost.Token, r1.Token)

	clock.Advance(time.Second)
	r, err := l.Claim(ctx, req)
	must.NoError(t, err, "retry of a takeover whose answer was lost")
	check.Equal(t, lost.Token, r.Token, "token of the retry")
	check.Equal(t, 2, r.Attempt, "attempt of the retry")
	check.Equal(t, "billing-2", r.Owner)
	sameInstant(t, now(clock).Add(time.Minute), r.LeaseUntil, "LeaseUntil of the retry")

	_, err = l.Claim(ctx, dstsafe.ClaimRequest{Job: "billing", Period: "2024-11-03", Owner: "billing-3", Retry: retry, ID: "a3"})
	requireClaimed(t, err, dstsafe.StateRunning)
	_, err = l.Claim(ctx, first)
	ce := requireClaimed(t, err, dstsafe.StateRunning)
	check.Equal(t, "billing-2", ce.Existing.Owner, "after billing-1's retry with its old ID")

	// The lost takeover abandoned, then taken over by billing-3: billing-2's
	// late retry finds billing-3's attempt, not its own.
	clock.Advance(2 * time.Minute)
	r3 := claim(t, l, dstsafe.ClaimRequest{Job: "billing", Period: "2024-11-03", Owner: "billing-3", Lease: time.Minute, Retry: retry, ID: "a3"})
	check.Equal(t, 3, r3.Attempt)
	_, err = l.Claim(ctx, req)
	ce = requireClaimed(t, err, dstsafe.StateRunning)
	check.Equal(t, "billing-3", ce.Existing.Owner)
	check.Equal(t, r3.Token, ce.Existing.Token)
}

// An ID is held to the rules of a key, except that it may be empty.
func (s suite) testClaimIDKeys(t *testing.T) {
	l, _ := s.setup(t)
	ctx := context.Background()
	for _, id := range []string{"a\x00b", "\xff\xfe"} {
		_, err := l.Claim(ctx, dstsafe.ClaimRequest{Job: "billing", Period: "2024-11-03", Owner: "w", ID: id})
		var ke *dstsafe.KeyError
		must.ErrorAs(t, err, &ke, "ID %q", id)
		check.Equal(t, "id", ke.Field)
		must.ErrorIs(t, err, dstsafe.ErrInvalidArgument)
	}
	_, err := l.Get(ctx, "billing", "2024-11-03")
	must.ErrorIs(t, err, dstsafe.ErrNotFound, "a claim refused for its ID wrote a record")
	r := claim(t, l, dstsafe.ClaimRequest{Job: "billing", Period: "2024-11-03", Owner: "w"})
	check.Equal(t, "", r.ClaimID, "ClaimID of a claim without an ID")
}

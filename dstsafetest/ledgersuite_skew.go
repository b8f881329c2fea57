package dstsafetest

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/jonboulle/clockwork"

	"github.com/dstsafe/dstsafe"
)

// skewTests check the maximum clock offset (dstsafe.Ledger, "Time"): a
// claim whose claimer's clock (ClaimRequest.Now) is further from the
// ledger's clock than its MaxClockOffset is refused with a
// error wrapping dstsafe.ErrClockSkew before anything is written, first claims and
// takeovers alike, and a claim within it is stamped by the ledger's clock,
// never the claimer's.
func (s suite) skewTests() []subtest {
	return []subtest{
		{"ClockSkewFirstClaim", s.testClockSkewFirstClaim},
		{"ClockSkewTakeover", s.testClockSkewTakeover},
	}
}

// defaultMaxClockOffset is the bound dstsafe.ClaimRequest documents for a
// zero MaxClockOffset.
const defaultMaxClockOffset = 5 * time.Second

// requireSkew checks that err is a refusal for the claimer's clock, and
// none of the answers about the period.
func requireSkew(t *testing.T, err error) {
	t.Helper()
	must.ErrorIs(t, err, dstsafe.ErrClockSkew)
	must.True(t, !errors.Is(err, dstsafe.ErrAlreadyClaimed) && !errors.Is(err, dstsafe.ErrPermanent),
		"a refusal for the clock also reads as another answer: %v", err)
}

func (s suite) testClockSkewFirstClaim(t *testing.T) {
	def := defaultMaxClockOffset
	tests := []struct {
		name   string
		offset time.Duration // the claimer's clock minus the ledger's
		max    time.Duration // ClaimRequest.MaxClockOffset
		refuse bool
	}{
		// A host in sync with NTP: milliseconds off.
		{"in sync", 3 * time.Millisecond, 0, false},
		// At the bound, either way: still accepted.
		{"ahead by the default max", def, 0, false},
		{"behind by the default max", -def, 0, false},
		// A nanosecond past it: a clock that is broken, not merely off.
		{"ahead past the default max", def + time.Nanosecond, 0, true},
		{"behind past the default max", -def - time.Nanosecond, 0, true},
		// A VM resumed from a snapshot an hour old, before its time sync.
		{"an hour behind", -time.Hour, 0, true},
		// More than the lease ahead: the replica that, judging leases by
		// its own clock, took running claims over as abandoned.
		{"two minutes ahead", 2 * time.Minute, 0, true},
		// A tighter bound set by the claimer.
		{"within a 100ms max", 100 * time.Millisecond, 100 * time.Millisecond, false},
		{"past a 100ms max", 150 * time.Millisecond, 100 * time.Millisecond, true},
		// A looser one: a claim 30 s off passes a 1-minute bound.
		{"within a 1m max", 30 * time.Second, time.Minute, false},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			ctx := context.Background()
			l, clock := s.setup(t)
			store := now(clock)
			claimer := store.Add(tc.offset)
			req := dstsafe.ClaimRequest{Job: "billing", Period: "2024-11-03", Owner: "replica-b", Lease: 30 * time.Second,
				Now: claimer, MaxClockOffset: tc.max}
			r, err := l.Claim(ctx, req)
			if !tc.refuse {
				must.NoError(t, err, "claim %v off with max %v", tc.offset, tc.max)
				// The ledger's clock stamps the record, not the claimer's.
				sameInstant(t, store, r.StartedAt, "StartedAt")
				sameInstant(t, store.Add(30*time.Second), r.LeaseUntil, "LeaseUntil")
				return
			}
			requireSkew(t, err)
			_, err = l.Get(ctx, "billing", "2024-11-03")
			must.ErrorIs(t, err, dstsafe.ErrNotFound, "a claim refused for its clock left a record")
			list, err := l.List(ctx, "billing", "", "")
			must.NoError(t, err)
			must.Empty(t, list, "a claim refused for its clock is listed")
			// The period stays claimable by a replica whose clock is right.
			r = claim(t, l, dstsafe.ClaimRequest{Job: "billing", Period: "2024-11-03", Owner: "replica-a", Now: store})
			check.Equal(t, 1, r.Attempt)
			check.Equal(t, "replica-a", r.Owner)
		})
	}
	t.Run("zero Now is not checked", func(t *testing.T) {
		l, _ := s.setup(t)
		claim(t, l, dstsafe.ClaimRequest{Job: "billing", Period: "2024-11-03", Owner: "w"})
	})
	t.Run("negative MaxClockOffset", func(t *testing.T) {
		ctx := context.Background()
		l, clock := s.setup(t)
		_, err := l.Claim(ctx, dstsafe.ClaimRequest{Job: "billing", Period: "2024-11-03", Owner: "w",
			Now: now(clock), MaxClockOffset: -time.Second})
		must.ErrorIs(t, err, dstsafe.ErrInvalidArgument)
		_, err = l.Get(ctx, "billing", "2024-11-03")
		must.ErrorIs(t, err, dstsafe.ErrNotFound, "a refused claim was stored")
	})
}

// A period whose holder died (abandoned) or failed, and a replica allowed
// to take it over whose clock is too far off: refused, and the record is
// exactly as it was (same token, owner, attempt, lease), so the zombie
// holder is not fenced off by a claim that never ran and a healthy
// replica can still take it over.
func (s suite) testClockSkewTakeover(t *testing.T) {
	retry := dstsafe.RetryPolicy{MaxAttempts: 3, Failed: true, Abandoned: true}
	for _, tc := range []struct {
		name  string
		end   func(*testing.T, dstsafe.Ledger, *clockwork.FakeClock, dstsafe.Record)
		state dstsafe.State
	}{
		{"abandoned", endAbandoned, dstsafe.StateAbandoned},
		{"failed", endFailed, dstsafe.StateFailed},
	} {
		t.Run(tc.name, func(t *testing.T) {
			ctx := context.Background()
			l, clock := s.setup(t)
			first := claim(t, l, dstsafe.ClaimRequest{Job: "billing", Period: "2024-11-03", Owner: "replica-a", Retry: retry})
			tc.end(t, l, clock, first)
			before := get(t, l, "billing", "2024-11-03")
			must.Equal(t, tc.state, before.State)

			store := now(clock)
			fast := store.Add(defaultMaxClockOffset + time.Microsecond)
			_, err := l.Claim(ctx, dstsafe.ClaimRequest{Job: "billing", Period: "2024-11-03", Owner: "replica-b", Retry: retry, Now: fast})
			requireSkew(t, err)
			after := get(t, l, "billing", "2024-11-03")
			check.Equal(t, before, after, "a takeover refused for its clock changed the record")

			taker := claim(t, l, dstsafe.ClaimRequest{Job: "billing", Period: "2024-11-03", Owner: "replica-c", Retry: retry,
				Now: store.Add(-time.Second)})
			check.Equal(t, 2, taker.Attempt)
			check.Equal(t, first.Token+1, taker.Token)
			sameInstant(t, store, taker.StartedAt, "StartedAt of the takeover: the ledger's clock")
		})
	}
}

package redisledger_test

import (
	"context"
	"errors"
	"fmt"
	"testing"
	"time"

	"github.com/jonboulle/clockwork"
	"github.com/redis/go-redis/v9"

	"github.com/dstsafe/dstsafe"
	"github.com/dstsafe/dstsafe/internal/testkit"
	"github.com/dstsafe/dstsafe/redisledger"
)

// Issue 22: replicas as separate processes on one Redis ledger, each with
// its own client and no WithClock (production). Replica B's clock runs 2
// minutes ahead of A's, more than the 1-minute lease. When each replica
// judged leases by its own clock, B saw A's running claim as abandoned,
// took it over and ran the period a second time. Now the lease is judged
// by Redis TIME: B sees it running, and B's claims are refused for its
// clock anyway.
func TestFastReplicaDoesNotTakeOver(t *testing.T) {
	ctx := context.Background()
	ca := testClient(t)
	prefix := testPrefix(t, ca)
	cb := redis.NewClient(&redis.Options{Addr: ca.Options().Addr}) // another process's client
	t.Cleanup(func() { _ = cb.Close() })
	a, err := redisledger.New(ca, redisledger.WithKeyPrefix(prefix))
	noErr(t, err, "New")
	b, err := redisledger.New(cb, redisledger.WithKeyPrefix(prefix))
	noErr(t, err, "New")

	server, err := ca.Time(ctx).Result()
	noErr(t, err, "TIME")
	aClock := clockwork.NewFakeClockAt(server)                      // in sync
	bClock := clockwork.NewFakeClockAt(server.Add(2 * time.Minute)) // 2 minutes fast
	retry := dstsafe.RetryPolicy{MaxAttempts: 2, Abandoned: true}

	held, err := a.Claim(ctx, dstsafe.ClaimRequest{Job: "billing", Period: "2024-11-03", Owner: "replica-a",
		Retry: retry, Now: aClock.Now()})
	noErr(t, err, "A's claim")
	if d := held.StartedAt.Sub(server); d < -time.Microsecond || d > time.Minute {
		t.Errorf("StartedAt %v is not Redis's clock (%v)", held.StartedAt, server)
	}

	got, err := b.Get(ctx, "billing", "2024-11-03")
	noErr(t, err, "B's Get")
	if got.State != dstsafe.StateRunning {
		t.Errorf("B reads A's claim as %s, want running", got.State)
	}

	// B's claim, with the default bound: refused for B's clock.
	_, err = b.Claim(ctx, dstsafe.ClaimRequest{Job: "billing", Period: "2024-11-03", Owner: "replica-b",
		Retry: retry, Now: bClock.Now()})
	if !errors.Is(err, dstsafe.ErrClockSkew) {
		t.Fatalf("B's claim 2 minutes fast: %v, want an error wrapping ErrClockSkew", err)
	}

	// Even with a bound loose enough to let B's clock pass, the lease is
	// Redis's to judge: A's claim is running, not abandoned.
	_, err = b.Claim(ctx, dstsafe.ClaimRequest{Job: "billing", Period: "2024-11-03", Owner: "replica-b",
		Retry: retry, Now: bClock.Now(), MaxClockOffset: time.Hour})
	var ce *dstsafe.ClaimedError
	if !errors.As(err, &ce) {
		t.Fatalf("B's takeover of A's running claim: %v, want ErrAlreadyClaimed", err)
	}
	if ce.Existing.State != dstsafe.StateRunning {
		t.Errorf("B sees A's claim as %s, want running", ce.Existing.State)
	}
	got, err = a.Get(ctx, "billing", "2024-11-03")
	noErr(t, err, "A's Get")
	if got.Owner != "replica-a" || got.Token != held.Token {
		t.Errorf("the period was taken over: %+v", got)
	}
	_, err = a.Heartbeat(ctx, "billing", "2024-11-03", held.Token, 0)
	noErr(t, err, "A's heartbeat")
	f, err := a.Finish(ctx, "billing", "2024-11-03", held.Token, dstsafe.StateSucceeded, "")
	noErr(t, err, "A's finish")
	if f.FinishedAt.Before(held.StartedAt) {
		t.Errorf("FinishedAt %v before StartedAt %v", f.FinishedAt, held.StartedAt)
	}
}

// The cost of judging time by Redis TIME (one EVALSHA per call, the
// default) against a Clock in the process (WithClock, as every ledger did
// before issue 22): run both and compare claims/s.
//
//	go test -run '^$' -bench 'BenchmarkClaimClock' -benchtime 1s -count 3 .
func BenchmarkClaimClock(b *testing.B) {
	for _, workers := range []int{1, 8} {
		b.Run(fmt.Sprintf("server/workers=%d", workers), func(b *testing.B) {
			c := testClient(b)
			testkit.BenchmarkClaims(b, mustNew(c, redisledger.WithKeyPrefix(testPrefix(b, c))), workers)
		})
		b.Run(fmt.Sprintf("host/workers=%d", workers), func(b *testing.B) {
			c := testClient(b)
			testkit.BenchmarkClaims(b, mustNew(c, redisledger.WithKeyPrefix(testPrefix(b, c)),
				redisledger.WithClock(clockwork.NewRealClock())), workers)
		})
	}
}

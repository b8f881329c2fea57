package sqlledger_test

import (
	"context"
	"database/sql"
	"errors"
	"testing"
	"time"

	"github.com/jonboulle/clockwork"

	"github.com/dstsafe/dstsafe"
	"github.com/dstsafe/dstsafe/sqlledger"
	"github.com/dstsafe/dstsafe/sqlledger/internal/ledgertest"
)

// pgNow is PostgreSQL's clock.
func pgNow(t *testing.T, db *sql.DB) time.Time {
	t.Helper()
	var now time.Time
	if err := db.QueryRowContext(context.Background(), `SELECT clock_timestamp()`).Scan(&now); err != nil {
		t.Fatalf("clock_timestamp(): %v", err)
	}
	return now
}

// Issue 22: replicas as separate processes on one PostgreSQL ledger, each
// with its own connection pool and no WithClock (production). Replica B's
// clock runs 2 minutes ahead of A's, more than the 1-minute lease. When
// each replica judged leases by its own clock, B saw A's running claim as
// abandoned, took it over and ran the period a second time. Now the lease
// is judged by PostgreSQL's clock: B sees it running, and B's claims are
// refused for its clock anyway.
func TestPostgresFastReplicaDoesNotTakeOver(t *testing.T) {
	ctx := context.Background()
	tg := postgres.Fresh(t)
	aLedger, err := openPostgres(tg)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { aLedger.Close() })
	if err := aLedger.Migrate(ctx); err != nil {
		t.Fatal(err)
	}
	bLedger, err := openPostgres(tg) // its own *sql.DB: another process
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { bLedger.Close() })

	server := pgNow(t, aLedger.DB())
	aClock := clockwork.NewFakeClockAt(server)                      // in sync
	bClock := clockwork.NewFakeClockAt(server.Add(2 * time.Minute)) // 2 minutes fast
	retry := dstsafe.RetryPolicy{MaxAttempts: 2, Abandoned: true}

	held, err := aLedger.Claim(ctx, dstsafe.ClaimRequest{Job: "billing", Period: "2024-11-03", Owner: "replica-a",
		Retry: retry, Now: aClock.Now()})
	if err != nil {
		t.Fatalf("A's claim: %v", err)
	}
	if d := held.StartedAt.Sub(server); d < 0 || d > time.Minute {
		t.Errorf("StartedAt %v is not PostgreSQL's clock (%v)", held.StartedAt, server)
	}

	// B reads the record: running, by the server's clock.
	got, err := bLedger.Get(ctx, "billing", "2024-11-03")
	if err != nil {
		t.Fatal(err)
	}
	if got.State != dstsafe.StateRunning {
		t.Errorf("B reads A's claim as %s, want running", got.State)
	}

	// B's claim, with the default bound: refused for B's clock.
	_, err = bLedger.Claim(ctx, dstsafe.ClaimRequest{Job: "billing", Period: "2024-11-03", Owner: "replica-b",
		Retry: retry, Now: bClock.Now()})
	if !errors.Is(err, dstsafe.ErrClockSkew) {
		t.Fatalf("B's claim 2 minutes fast: %v, want an error wrapping ErrClockSkew", err)
	}

	// Even with a bound loose enough to let B's clock pass, the lease is
	// PostgreSQL's to judge: A's claim is running, not abandoned.
	_, err = bLedger.Claim(ctx, dstsafe.ClaimRequest{Job: "billing", Period: "2024-11-03", Owner: "replica-b",
		Retry: retry, Now: bClock.Now(), MaxClockOffset: time.Hour})
	var ce *dstsafe.ClaimedError
	if !errors.As(err, &ce) {
		t.Fatalf("B's takeover of A's running claim: %v, want ErrAlreadyClaimed", err)
	}
	if ce.Existing.State != dstsafe.StateRunning {
		t.Errorf("B sees A's claim as %s, want running", ce.Existing.State)
	}
	got, err = aLedger.Get(ctx, "billing", "2024-11-03")
	if err != nil {
		t.Fatal(err)
	}
	if got.Owner != "replica-a" || got.Token != held.Token {
		t.Errorf("the period was taken over: %+v", got)
	}
	// A's heartbeat and finish still hold.
	if _, err := aLedger.Heartbeat(ctx, "billing", "2024-11-03", held.Token, 0); err != nil {
		t.Errorf("A's heartbeat: %v", err)
	}
	if _, err := aLedger.Finish(ctx, "billing", "2024-11-03", held.Token, dstsafe.StateSucceeded, ""); err != nil {
		t.Errorf("A's finish: %v", err)
	}
}

// The cost of judging time by PostgreSQL's clock (one SELECT
// clock_timestamp() per call, the default) against the host's clock
// (WithClock, as every ledger did before issue 22): run both and compare
// claims/s.
//
//	go test -run '^$' -bench 'BenchmarkClaimClock' -benchtime 1s -count 3 .
func BenchmarkClaimClock(b *testing.B) {
	b.Run("server", func(b *testing.B) {
		ledgertest.BenchmarkClaim(b, "postgres", postgres)
	})
	b.Run("host", func(b *testing.B) {
		ledgertest.BenchmarkClaim(b, "postgres", postgres, sqlledger.WithClock(clockwork.NewRealClock()))
	})
}

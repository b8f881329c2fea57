package redisledger_test

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/dstsafe/dstsafe"
	"github.com/dstsafe/dstsafe/redisledger"
)

// Every replica of the billing worker runs this at 01:30: the first claim
// of the period wins, the others learn who has it and do nothing. The
// example needs a Redis server, so it is compiled but not run by go test
// (it has no Output comment); redisledger's tests run the same calls
// against a real server.
func Example() {
	ctx := context.Background()
	client := redis.NewClient(&redis.Options{Addr: "127.0.0.1:6379"})
	defer client.Close()
	ledger, err := redisledger.New(client)
	if err != nil {
		fmt.Println("ledger:", err)
		return
	}

	rec, err := ledger.Claim(ctx, dstsafe.ClaimRequest{
		Job: "billing", Period: "2024-11-03", Owner: "worker-1", Lease: 5 * time.Minute,
	})
	var claimed *dstsafe.ClaimedError
	switch {
	case errors.As(err, &claimed):
		fmt.Printf("billing 2024-11-03 is %s by %s: not charging again\n",
			claimed.Existing.State, claimed.Existing.Owner)
		return
	case err != nil:
		// Redis is down, or the reply was lost: the claim may or may not
		// be recorded. Not running is the safe side.
		fmt.Println("ledger unavailable, not charging:", err)
		return
	}

	// ... charge, calling ledger.Heartbeat(ctx, rec.Job, rec.Period,
	// rec.Token, 5*time.Minute) well within the lease ...

	_, err = ledger.Finish(ctx, rec.Job, rec.Period, rec.Token, dstsafe.StateSucceeded, "")
	if errors.Is(err, dstsafe.ErrLeaseLost) {
		fmt.Println("someone took the period over: our result is not recorded")
	}
}

// A ledger for a job that is harmless to repeat, whose records Redis may
// drop 90 days after they finished. Never do this for a job that moves
// money: once the record is gone, the period can run again. Compiled, not
// run (no server).
func ExampleWithFinishedTTL() {
	client := redis.NewClient(&redis.Options{Addr: "127.0.0.1:6379"})
	defer client.Close()
	ledger, err := redisledger.New(client,
		redisledger.WithKeyPrefix("reports:"),
		redisledger.WithFinishedTTL(90*24*time.Hour),
	)
	if err != nil {
		fmt.Println("ledger:", err)
		return
	}
	_ = ledger
}

// The 2024-11-03 billing run failed (the card processor was down) and
// billing never retries by policy. Once the processor is back, an
// operator releases the period: the next claim, by any replica, takes it
// over once. Compiled, not run (no server).
func ExampleLedger_Release() {
	ctx := context.Background()
	client := redis.NewClient(&redis.Options{Addr: "127.0.0.1:6379"})
	defer client.Close()
	ledger, err := redisledger.New(client)
	if err != nil {
		fmt.Println("ledger:", err)
		return
	}

	rec, err := ledger.Release(ctx, "billing", "2024-11-03", "ops@bastion", "processor back")
	var claimed *dstsafe.ClaimedError
	switch {
	case errors.As(err, &claimed):
		fmt.Printf("billing 2024-11-03 is %s: nothing to release\n", claimed.Existing.State)
	case err != nil:
		fmt.Println("release failed:", err)
	default:
		fmt.Printf("billing 2024-11-03 (%s, attempt %d) released by %s\n", rec.State, rec.Attempt, rec.ReleasedBy)
	}
}

// Pausing a job is kept in Redis: every replica's Scheduler sharing the
// ledger sees it, and a restart does not undo it. Compiled, not run (no
// server).
func ExampleLedger_SetPause() {
	ctx := context.Background()
	client := redis.NewClient(&redis.Options{Addr: "127.0.0.1:6379"})
	defer client.Close()
	ledger, err := redisledger.New(client)
	if err != nil {
		fmt.Println("ledger:", err)
		return
	}

	p, err := ledger.SetPause(ctx, "billing", dstsafe.Pause{Paused: true, By: "ops@bastion", Reason: "incident 42"})
	if err != nil {
		fmt.Println("pause failed:", err)
		return
	}
	fmt.Printf("billing paused by %s since %s: %s\n", p.By, p.Since.Format(time.RFC3339), p.Reason)
	p, _ = ledger.GetPause(ctx, "billing")
	fmt.Println("paused:", p.Paused)
}

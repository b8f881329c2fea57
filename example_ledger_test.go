package dstsafe_test

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/jonboulle/clockwork"

	"github.com/dstsafe/dstsafe"
)

// exampleClock is 01:30 CDT on 2024-11-03, the first of that night's two
// 01:30s in America/Chicago.
func exampleClock() *clockwork.FakeClock {
	return clockwork.NewFakeClockAt(time.Date(2024, 11, 3, 6, 30, 0, 0, time.UTC))
}

// The billing incident, replayed: the run at the first 01:30 claims the
// period; the run at the second 01:30, 70 real minutes later, is refused,
// however long ago the first run started.
func ExampleMemoryLedger() {
	ctx := context.Background()
	clock := exampleClock()
	ledger := dstsafe.NewMemoryLedger(clock)

	req := dstsafe.ClaimRequest{Job: "billing", Period: "2024-11-03", Owner: "worker-1"}
	first, err := ledger.Claim(ctx, req)
	fmt.Println("01:30 CDT:", first.State, err)
	ledger.Finish(ctx, "billing", "2024-11-03", first.Token, dstsafe.StateSucceeded, "")

	clock.Advance(70 * time.Minute) // 01:30 CST
	_, err = ledger.Claim(ctx, req)
	fmt.Println("01:30 CST:", errors.Is(err, dstsafe.ErrAlreadyClaimed))
	// Output:
	// 01:30 CDT: running <nil>
	// 01:30 CST: true
}

func ExampleNewMemoryLedger() {
	ledger := dstsafe.NewMemoryLedger(exampleClock())
	r, _ := ledger.Claim(context.Background(), dstsafe.ClaimRequest{Job: "report", Period: "2024-11-03", Owner: "w"})
	fmt.Println(r.StartedAt, r.LeaseUntil.Sub(r.StartedAt))
	// Output: 2024-11-03 06:30:00 +0000 UTC 1m0s
}

func ExampleMemoryLedger_Claim() {
	ledger := dstsafe.NewMemoryLedger(exampleClock())
	r, err := ledger.Claim(context.Background(), dstsafe.ClaimRequest{
		Job: "billing", Period: "2024-11-03", Owner: "worker-1", Lease: 30 * time.Second,
	})
	fmt.Println(r.Job, r.Period, r.State, r.Owner, r.Token, r.Attempt, r.LeaseUntil.Format(time.TimeOnly), err)
	// Output: billing 2024-11-03 running worker-1 1 1 06:30:30 <nil>
}

// A refusal carries the record that caused it: who holds the period, since
// when, and in which state.
func ExampleClaimedError() {
	ctx := context.Background()
	ledger := dstsafe.NewMemoryLedger(exampleClock())
	ledger.Claim(ctx, dstsafe.ClaimRequest{Job: "billing", Period: "2024-11-03", Owner: "worker-1"})

	_, err := ledger.Claim(ctx, dstsafe.ClaimRequest{Job: "billing", Period: "2024-11-03", Owner: "worker-2"})
	var ce *dstsafe.ClaimedError
	if errors.As(err, &ce) {
		fmt.Println(ce.Existing.Owner, ce.Existing.State, ce.Existing.StartedAt.Format(time.RFC3339))
	}
	fmt.Println(err)
	// Output:
	// worker-1 running 2024-11-03T06:30:00Z
	// dstsafe: period already claimed: job billing period 2024-11-03 is running (owner worker-1, started 2024-11-03T06:30:00Z)
}

// A holder extends its lease while it works; without heartbeats the claim
// is reported abandoned once the lease is over.
func ExampleMemoryLedger_Heartbeat() {
	ctx := context.Background()
	clock := exampleClock()
	ledger := dstsafe.NewMemoryLedger(clock)
	r, _ := ledger.Claim(ctx, dstsafe.ClaimRequest{Job: "export", Period: "2024-11-03", Owner: "w", Lease: 30 * time.Second})

	clock.Advance(20 * time.Second)
	h, err := ledger.Heartbeat(ctx, "export", "2024-11-03", r.Token, 30*time.Second)
	fmt.Println(h.LeaseUntil.Format(time.TimeOnly), err)

	clock.Advance(31 * time.Second) // the holder stopped heartbeating
	g, _ := ledger.Get(ctx, "export", "2024-11-03")
	fmt.Println(g.State)
	// Output:
	// 06:30:50 <nil>
	// abandoned
}

func ExampleMemoryLedger_Finish() {
	ctx := context.Background()
	clock := exampleClock()
	ledger := dstsafe.NewMemoryLedger(clock)
	r, _ := ledger.Claim(ctx, dstsafe.ClaimRequest{Job: "billing", Period: "2024-11-03", Owner: "w"})
	clock.Advance(42 * time.Second)
	f, _ := ledger.Finish(ctx, "billing", "2024-11-03", r.Token, dstsafe.StateFailed, "card processor timeout")
	fmt.Println(f.State, f.FinishedAt.Format(time.TimeOnly), f.Reason)

	// Finishing twice is refused: a result is written once.
	_, err := ledger.Finish(ctx, "billing", "2024-11-03", r.Token, dstsafe.StateSucceeded, "")
	fmt.Println(errors.Is(err, dstsafe.ErrLeaseLost))
	// Output:
	// failed 06:30:42 card processor timeout
	// true
}

func ExampleMemoryLedger_Get() {
	ctx := context.Background()
	ledger := dstsafe.NewMemoryLedger(exampleClock())
	_, err := ledger.Get(ctx, "billing", "2024-11-03")
	fmt.Println(errors.Is(err, dstsafe.ErrNotFound))
	ledger.Claim(ctx, dstsafe.ClaimRequest{Job: "billing", Period: "2024-11-03", Owner: "w"})
	r, err := ledger.Get(ctx, "billing", "2024-11-03")
	fmt.Println(r.State, err)
	// Output:
	// true
	// running <nil>
}

// List takes byte-ordered bounds: [from, to) selects one day's hourly
// periods, both 01:30s of the fall-back night included.
func ExampleMemoryLedger_List() {
	ctx := context.Background()
	ledger := dstsafe.NewMemoryLedger(exampleClock())
	for _, p := range []string{"2024-11-04T00:00-06:00", "2024-11-03T01:30-06:00", "2024-11-03T01:30-05:00", "2024-11-02T01:30-05:00"} {
		ledger.Claim(ctx, dstsafe.ClaimRequest{Job: "sync", Period: p, Owner: "w"})
	}
	rs, _ := ledger.List(ctx, "sync", "2024-11-03", "2024-11-04")
	for _, r := range rs {
		fmt.Println(r.Period)
	}
	// Output:
	// 2024-11-03T01:30-05:00
	// 2024-11-03T01:30-06:00
}

// A job that may be retried opts in: a failed period is taken over by the
// next claim, with a new fencing token, up to MaxAttempts attempts in all.
func ExampleRetryPolicy() {
	ctx := context.Background()
	ledger := dstsafe.NewMemoryLedger(exampleClock())
	req := dstsafe.ClaimRequest{Job: "report", Period: "2024-11-03", Owner: "w",
		Retry: dstsafe.RetryPolicy{MaxAttempts: 2, Failed: true}}
	for range 3 {
		r, err := ledger.Claim(ctx, req)
		if err != nil {
			fmt.Println("refused:", errors.Is(err, dstsafe.ErrAlreadyClaimed))
			break
		}
		fmt.Println("attempt", r.Attempt, "token", r.Token)
		ledger.Finish(ctx, r.Job, r.Period, r.Token, dstsafe.StateFailed, "timeout")
	}
	// Output:
	// attempt 1 token 1
	// attempt 2 token 2
	// refused: true
}

func ExampleRetryPolicy_Allows() {
	p := dstsafe.RetryPolicy{MaxAttempts: 3, Abandoned: true}
	fmt.Println(p.Allows(dstsafe.Record{State: dstsafe.StateAbandoned, Attempt: 2}))
	fmt.Println(p.Allows(dstsafe.Record{State: dstsafe.StateAbandoned, Attempt: 3}))
	fmt.Println(p.Allows(dstsafe.Record{State: dstsafe.StateFailed, Attempt: 1}))
	fmt.Println(p.Allows(dstsafe.Record{State: dstsafe.StateSucceeded, Attempt: 1}))
	// Output:
	// true
	// false
	// false
	// false
}

// The zombie: its lease ran out, another worker took over, and its late
// result is refused.
func ExampleErrLeaseLost() {
	ctx := context.Background()
	clock := exampleClock()
	ledger := dstsafe.NewMemoryLedger(clock)
	retry := dstsafe.RetryPolicy{MaxAttempts: 2, Abandoned: true}
	zombie, _ := ledger.Claim(ctx, dstsafe.ClaimRequest{Job: "report", Period: "2024-11-03", Owner: "w1", Lease: 10 * time.Second, Retry: retry})
	clock.Advance(time.Minute)
	ledger.Claim(ctx, dstsafe.ClaimRequest{Job: "report", Period: "2024-11-03", Owner: "w2", Retry: retry})

	_, err := ledger.Finish(ctx, "report", "2024-11-03", zombie.Token, dstsafe.StateSucceeded, "")
	fmt.Println(errors.Is(err, dstsafe.ErrLeaseLost))
	fmt.Println(err)
	// Output:
	// true
	// dstsafe: lease lost: job "report" period "2024-11-03": token 1 does not hold it (token 2, running, owner "w2")
}

func ExampleRecord_StateAt() {
	r := dstsafe.Record{State: dstsafe.StateRunning, LeaseUntil: time.Date(2024, 11, 3, 7, 0, 0, 0, time.UTC)}
	fmt.Println(r.StateAt(r.LeaseUntil), r.StateAt(r.LeaseUntil.Add(time.Microsecond)))
	// Output: running abandoned
}

func ExampleState_String() {
	fmt.Println(dstsafe.StateRunning, dstsafe.StateSucceeded, dstsafe.StateFailed, dstsafe.StateAbandoned, dstsafe.StateSkipped, dstsafe.State(0))
	// Output: running succeeded failed abandoned skipped invalid
}

func ExampleKeyError() {
	_, err := dstsafe.NewMemoryLedger(exampleClock()).Claim(context.Background(),
		dstsafe.ClaimRequest{Job: "billing", Period: "2024-11-03", Owner: ""})
	var ke *dstsafe.KeyError
	fmt.Println(errors.As(err, &ke), ke.Field, ke.Reason)
	// Output: true owner empty
}

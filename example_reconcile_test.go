package dstsafe_test

import (
	"context"
	"fmt"
	"time"

	"github.com/jonboulle/clockwork"

	"github.com/dstsafe/dstsafe"
)

// What the reconciler finds about a week of the Chicago billing job, and
// what it does about each period, on 2024-11-05 at 12:00 UTC: the job
// retries abandoned runs (RetryPolicy{MaxAttempts: 3, Abandoned: true})
// and no failed ones. `dstsafe ledger audit` prints the same statuses.
func ExampleCheckPeriods() {
	ctx := context.Background()
	clock := clockwork.NewFakeClockAt(time.Date(2024, 11, 1, 12, 0, 0, 0, time.UTC))
	ledger := dstsafe.NewMemoryLedger(clock)
	billing, _ := dstsafe.ParseCron("30 1 * * *", dstsafe.WithLocation(chicago()))

	var expected []dstsafe.Occurrence
	for o, ok := billing.NextOccurrence(clock.Now()); ok && o.At.Before(time.Date(2024, 11, 7, 0, 0, 0, 0, time.UTC)); o, ok = billing.NextOccurrence(o.At) {
		expected = append(expected, o)
	}
	record := func(period string, state dstsafe.State) {
		r, _ := ledger.Claim(ctx, dstsafe.ClaimRequest{Job: "billing", Period: period, Owner: "billing-1"})
		if state != dstsafe.StateRunning {
			ledger.Finish(ctx, "billing", period, r.Token, state, "")
		}
	}
	record("2024-11-02T01:30:00", dstsafe.StateSucceeded)
	record("2024-11-03T01:30:00", dstsafe.StateRunning) // billing-1 was SIGKILLed mid-run: abandoned after its lease
	record("2024-11-04T01:30:00", dstsafe.StateFailed)
	clock.Advance(4 * 24 * time.Hour) // 2024-11-05 12:00 UTC; the 11-05 bill was never claimed

	recs, _ := ledger.List(ctx, "billing", "", "")
	policy := dstsafe.CheckPolicy{Retry: dstsafe.RetryPolicy{MaxAttempts: 3, Abandoned: true}}
	for _, c := range dstsafe.CheckPeriods(expected, recs, policy, clock.Now()) {
		fmt.Printf("%s %-9s -> %s\n", c.Period, c.Status, c.Action)
	}
	// Output:
	// 2024-11-02T01:30:00 succeeded -> none
	// 2024-11-03T01:30:00 abandoned -> take over
	// 2024-11-04T01:30:00 failed    -> report missed
	// 2024-11-05T01:30:00 missing   -> run
	// 2024-11-06T01:30:00 not due   -> none
}

package dstsafe_test

import (
	"context"
	"fmt"
	"time"

	"github.com/jonboulle/clockwork"

	"github.com/dstsafe/dstsafe"
)

// A reader of the ledger recovers a job's schedule from its records: the
// fingerprint parses back into the cron that claimed them, which names the
// job's periods, the fall-back night's single 01:30 included.
func ExampleParseFingerprint() {
	clock := clockwork.NewFakeClockAt(time.Date(2024, 11, 3, 5, 0, 0, 0, time.UTC)) // 00:00 CDT
	ledger := dstsafe.NewMemoryLedger(clock)
	s := dstsafe.NewScheduler(dstsafe.WithClock(clock), dstsafe.WithLedger(ledger))
	billing, _ := dstsafe.ParseCron("CRON_TZ=America/Chicago 30 1 * * *")
	_ = s.Add("billing", billing, func(context.Context, dstsafe.Run) error { return nil })
	_, _ = dstsafe.Simulate(context.Background(), s, 3*time.Hour)

	recs, _ := ledger.List(context.Background(), "billing", "", "")
	c, err := dstsafe.ParseFingerprint(recs[0].Schedule)
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(c, "in", c.Location())
	o, _ := c.NextOccurrence(time.Date(2024, 11, 3, 5, 0, 0, 0, time.UTC))
	fmt.Println(o.Period, o.At.Format(time.RFC3339), o.Kind)
	// Output:
	// CRON_TZ=America/Chicago 30 1 * * * in America/Chicago
	// 2024-11-03T01:30:00 2024-11-03T01:30:00-05:00 fold
}

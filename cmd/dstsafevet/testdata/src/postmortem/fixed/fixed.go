// Package fixed is the postmortem's billing worker after the fix: the job
// is scheduled at 07:30 UTC (01:30 or 02:30 in Chicago, never ambiguous),
// each run claims its period in a ledger before charging anyone, and the
// billing date is derived explicitly in America/Chicago.
package fixed

import (
	"context"
	"time"

	"github.com/dstsafe/dstsafe"
)

func bill(ctx context.Context, runDate string) error { return nil }

func Start(ctx context.Context) error {
	chicago, err := time.LoadLocation("America/Chicago")
	if err != nil {
		return err
	}
	spec, err := dstsafe.ParseCron("CRON_TZ=UTC 30 7 * * *")
	if err != nil {
		return err
	}
	clock := dstsafe.RealClock()
	s := dstsafe.NewScheduler(dstsafe.WithClock(clock), dstsafe.WithLedger(dstsafe.NewMemoryLedger(clock)))
	err = s.Add("billing", spec, func(ctx context.Context, run dstsafe.Run) error {
		// The billing day is the Chicago calendar date of the run,
		// whatever the offset: 07:30 UTC is 01:30 CST or 02:30 CDT.
		runDate := run.Due.In(chicago).Format("2006-01-02")
		return bill(ctx, runDate)
	})
	if err != nil {
		return err
	}
	return s.Run(ctx)
}

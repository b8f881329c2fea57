package dstsafe_test

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/jonboulle/clockwork"

	"github.com/dstsafe/dstsafe"
)

// Two services that picked one job name: the second is refused at Run,
// before it runs or records anything, until it takes the name over.
func ExampleWithTakeOver() {
	clock := clockwork.NewFakeClockAt(time.Date(2024, 11, 1, 12, 0, 0, 0, time.UTC))
	ledger := dstsafe.NewMemoryLedger(clock)
	start := func(spec string, opts ...dstsafe.JobOption) error {
		sched, err := dstsafe.ParseCron(spec)
		if err != nil {
			return err
		}
		s := dstsafe.NewScheduler(dstsafe.WithClock(clock), dstsafe.WithLedger(ledger))
		if err := s.Add("billing", sched, func(context.Context, dstsafe.Run) error { return nil }, opts...); err != nil {
			return err
		}
		_, err = dstsafe.Simulate(context.Background(), s, time.Hour)
		return err
	}
	fmt.Println(start("CRON_TZ=America/Chicago 30 1 * * *"))
	err := start("CRON_TZ=Europe/London 0 6 * * *")
	var ce *dstsafe.JobConflictError
	fmt.Println(errors.Is(err, dstsafe.ErrJobConflict), errors.As(err, &ce) && ce.Registered.Spec == "CRON_TZ=America/Chicago 30 1 * * *")
	fmt.Println(start("CRON_TZ=Europe/London 0 6 * * *", dstsafe.WithTakeOver()))
	info, _ := ledger.LookupJob(context.Background(), "billing")
	fmt.Println(info.Spec)
	// Output:
	// <nil>
	// true true
	// <nil>
	// CRON_TZ=Europe/London 0 6 * * *
}

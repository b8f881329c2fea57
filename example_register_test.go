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

// The Scheduler registers a job's WithMaxRuns and WithBounds with the
// job, so that `dstsafe exec` honours them too; a registration that says
// nothing of limits (exec's) keeps them.
func ExampleJobLimits() {
	clock := clockwork.NewFakeClockAt(time.Date(2024, 11, 1, 12, 0, 0, 0, time.UTC))
	ledger := dstsafe.NewMemoryLedger(clock)
	sched, err := dstsafe.ParseCron("CRON_TZ=America/Chicago 30 1 * * *")
	if err != nil {
		panic(err)
	}
	chicago := sched.Location()
	// The promotion runs twice, in the first days of November (Chicago).
	start := time.Date(2024, 11, 2, 0, 0, 0, 0, chicago)
	end := time.Date(2024, 11, 9, 0, 0, 0, 0, chicago)
	s := dstsafe.NewScheduler(dstsafe.WithClock(clock), dstsafe.WithLedger(ledger))
	if err := s.Add("promo", sched, func(context.Context, dstsafe.Run) error { return nil },
		dstsafe.WithMaxRuns(2), dstsafe.WithBounds(start, end)); err != nil {
		panic(err)
	}
	if _, err := dstsafe.Simulate(context.Background(), s, time.Minute); err != nil {
		panic(err)
	}
	_, _ = ledger.RegisterJob(context.Background(), dstsafe.JobRegistration{Job: "promo", Owner: "dstsafe exec@cron-host"})
	info, _ := ledger.LookupJob(context.Background(), "promo")
	fmt.Println(info.Limits.MaxRuns, info.Limits.Start, info.Limits.End)
	// Output:
	// 2 2024-11-02 05:00:00 +0000 UTC 2024-11-09 06:00:00 +0000 UTC
}

package dstsafe_test

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"time"

	"github.com/jonboulle/clockwork"

	"github.com/dstsafe/dstsafe"
)

// The billing job of the postmortem, wired the way a service wires it: a
// Scheduler with a ledger, one job that uses the run's period as its
// idempotency key. Run blocks until its context is cancelled. Here a fake
// clock stands in for the real one; the example moves it only while the
// scheduler sleeps on its timer (Simulate does that handshake for tests).
func ExampleScheduler_Run() {
	clock := clockwork.NewFakeClockAt(time.Date(2024, 11, 3, 6, 0, 0, 0, time.UTC)) // 01:00 CDT
	s := dstsafe.NewScheduler(
		dstsafe.WithClock(clock),                           // omit in a service: the real clock
		dstsafe.WithLedger(dstsafe.NewMemoryLedger(clock)), // sqlledger in a service
		dstsafe.WithLogger(slog.New(slog.DiscardHandler)),
		dstsafe.WithOwner("billing-worker-1"),
		dstsafe.WithWakeInterval(0), // sleep until the next run: one timer to wait for
	)
	billing, _ := dstsafe.ParseCron("30 1 * * *", dstsafe.WithLocation(chicago()))
	ran, release := make(chan dstsafe.Run), make(chan struct{})
	err := s.Add("billing", billing, func(ctx context.Context, run dstsafe.Run) error {
		ran <- run // charge customers, keyed by ("billing", run.Period)
		<-release
		return nil
	}, dstsafe.WithOverlap(dstsafe.OverlapQueue)) // the example does not wait for a run to be recorded

	if err != nil {
		panic(err)
	}

	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error)
	go func() { done <- s.Run(ctx) }()
	_ = clock.BlockUntilContext(ctx, 1) // Run sleeps until 01:30
	for range 2 {
		clock.Advance(billing.Next(clock.Now()).Sub(clock.Now()))
		run := <-ran
		fmt.Println(run.Job, run.Period, run.Due.Format(time.RFC3339), run.RunDate, "attempt", run.Attempt)
		_ = clock.BlockUntilContext(ctx, 2) // the job's heartbeat, and Run asleep again
		release <- struct{}{}
	}
	cancel()
	fmt.Println("Run returned:", <-done)
	// Output:
	// billing 2024-11-03T01:30:00 2024-11-03T01:30:00-05:00 2024-11-03 attempt 1
	// billing 2024-11-04T01:30:00 2024-11-04T01:30:00-06:00 2024-11-04 attempt 1
	// Run returned: <nil>
}

// Add rejects what it cannot run with a *JobError wrapping a sentinel.
func ExampleScheduler_Add() {
	s := dstsafe.NewScheduler(dstsafe.WithLogger(slog.New(slog.DiscardHandler)))
	daily, _ := dstsafe.ParseCron("0 3 * * *")
	job := func(context.Context, dstsafe.Run) error { return nil }

	fmt.Println(s.Add("report", daily, job))
	err := s.Add("report", daily, job)
	fmt.Println(errors.Is(err, dstsafe.ErrInvalidArgument), err)
	err = s.Add("", daily, job)
	fmt.Println(errors.Is(err, dstsafe.ErrInvalidArgument))
	err = s.Add("export", nil, job)
	fmt.Println(errors.Is(err, dstsafe.ErrInvalidArgument))
	// Output:
	// <nil>
	// true dstsafe: job "report": duplicate job name
	// true
	// true
}

// An operator re-runs a period by hand. The ledger lets it run once; the
// second attempt reports the existing record instead of charging twice.
func ExampleScheduler_RunNow() {
	clock := clockwork.NewFakeClockAt(time.Date(2024, 11, 4, 15, 0, 0, 0, time.UTC))
	s := dstsafe.NewScheduler(dstsafe.WithClock(clock), dstsafe.WithOwner("ops"),
		dstsafe.WithLogger(slog.New(slog.DiscardHandler)))
	billing, _ := dstsafe.ParseCron("30 1 * * *", dstsafe.WithLocation(chicago()))
	_ = s.Add("billing", billing, func(ctx context.Context, run dstsafe.Run) error {
		fmt.Println("charging for", run.RunDate)
		return nil
	})

	fmt.Println(s.RunNow(context.Background(), "billing", "2024-11-03T01:30:00"))
	err := s.RunNow(context.Background(), "billing", "2024-11-03T01:30:00")
	var claimed *dstsafe.ClaimedError
	if errors.As(err, &claimed) {
		fmt.Println("already", claimed.Existing.State, "by", claimed.Existing.Owner)
	}
	err = s.RunNow(context.Background(), "billing", "2024-11-03T02:30:00")
	fmt.Println(errors.Is(err, dstsafe.ErrInvalidArgument))
	// Output:
	// charging for 2024-11-03
	// <nil>
	// already succeeded by ops
	// true
}

// After three days down, a job with CatchUpAll runs the periods it missed
// within the window, oldest first, and records older ones as skipped.
func ExampleWithCatchUp() {
	clock := clockwork.NewFakeClockAt(time.Date(2024, 11, 1, 12, 0, 0, 0, time.UTC))
	ledger := dstsafe.NewMemoryLedger(clock)
	billing, _ := dstsafe.ParseCron("30 1 * * *", dstsafe.WithLocation(chicago()))
	job := func(context.Context, dstsafe.Run) error { return nil }
	quiet := dstsafe.WithLogger(slog.New(slog.DiscardHandler))

	before := dstsafe.NewScheduler(dstsafe.WithClock(clock), dstsafe.WithLedger(ledger), quiet)
	_ = before.Add("billing", billing, job)
	_, _ = dstsafe.Simulate(context.Background(), before, 24*time.Hour) // runs 11-02

	clock.Advance(72 * time.Hour) // the service is down until 11-05 12:00Z
	after := dstsafe.NewScheduler(dstsafe.WithClock(clock), dstsafe.WithLedger(ledger), quiet)
	_ = after.Add("billing", billing, job, dstsafe.WithCatchUp(dstsafe.CatchUpAll{Window: 36 * time.Hour}))
	fires, _ := dstsafe.Simulate(context.Background(), after, time.Hour)
	for _, f := range fires {
		fmt.Println("ran", f.Period, "at", f.Started.Format(time.RFC3339))
	}
	recs, _ := ledger.List(context.Background(), "billing", "", "")
	for _, r := range recs {
		fmt.Println(r.Period, r.State)
	}
	// Output:
	// ran 2024-11-04T01:30:00 at 2024-11-05T12:00:00Z
	// ran 2024-11-05T01:30:00 at 2024-11-05T12:00:00Z
	// 2024-11-02T01:30:00 succeeded
	// 2024-11-03T01:30:00 skipped
	// 2024-11-04T01:30:00 succeeded
	// 2024-11-05T01:30:00 succeeded
}

// The business date of a run is derived explicitly in a named zone: the
// same instant is a different day in Chicago and in Sydney.
func ExampleDateOf() {
	due := time.Date(2024, 11, 4, 2, 0, 0, 0, time.UTC) // 20:00 CST on 11-03
	fmt.Println(dstsafe.DateOf(due, chicago()))
	fmt.Println(dstsafe.DateOf(due, pinnedZone("Australia/Sydney")))
	fmt.Println(dstsafe.DateOf(due, chicago()).AddDays(29))
	// Output:
	// 2024-11-03
	// 2024-11-04
	// 2024-12-02
}

// A schedule edited while the scheduler runs (the operator moves the
// report from 23:00 to 05:00 at 08:00): nothing runs retroactively. The
// new schedule's 05:00 of that day is recorded as skipped, and the next
// run is the next day's 05:00.
func ExampleScheduler_Update() {
	clock := clockwork.NewFakeClockAt(time.Date(2024, 5, 1, 22, 0, 0, 0, time.UTC))
	ledger := dstsafe.NewMemoryLedger(clock)
	s := dstsafe.NewScheduler(dstsafe.WithClock(clock), dstsafe.WithLedger(ledger),
		dstsafe.WithLogger(slog.New(slog.DiscardHandler)))
	nightly, _ := dstsafe.ParseCron("0 23 * * *")
	early, _ := dstsafe.ParseCron("0 5 * * *")
	_ = s.Add("report", nightly, func(context.Context, dstsafe.Run) error { return nil })
	deploy, _ := dstsafe.ParseCron("0 8 2 5 *") // 2024-05-02 08:00Z: the edit
	_ = s.Add("deploy", deploy, func(context.Context, dstsafe.Run) error {
		return s.Update("report", early)
	})

	fires, _ := dstsafe.Simulate(context.Background(), s, 48*time.Hour)
	for _, f := range fires {
		fmt.Println("ran", f.Job, f.Period)
	}
	rec, _ := ledger.Get(context.Background(), "report", "2024-05-02T05:00:00")
	fmt.Println(rec.Period, rec.State, "("+rec.Reason+")")
	// Output:
	// ran report 2024-05-01T23:00:00
	// ran deploy 2024-05-02T08:00:00
	// ran report 2024-05-03T05:00:00
	// 2024-05-02T05:00:00 skipped (before the schedule took effect)
}

// Remove takes a job out while the scheduler runs: a run in progress
// finishes, no new one starts.
func ExampleScheduler_Remove() {
	clock := clockwork.NewFakeClockAt(time.Date(2024, 6, 1, 0, 0, 0, 0, time.UTC))
	s := dstsafe.NewScheduler(dstsafe.WithClock(clock), dstsafe.WithLogger(slog.New(slog.DiscardHandler)))
	hourly, _ := dstsafe.ParseCron("30 * * * *")
	_ = s.Add("sync", hourly, func(_ context.Context, r dstsafe.Run) error {
		if r.Wall.Hour == 2 {
			return s.Remove("sync") // from any goroutine, the job's own included
		}
		return nil
	})
	fires, _ := dstsafe.Simulate(context.Background(), s, 6*time.Hour)
	for _, f := range fires {
		fmt.Println("ran", f.Period)
	}
	fmt.Println(errors.Is(s.Remove("sync"), dstsafe.ErrUnknownJob))
	// Output:
	// ran 2024-06-01T00:30:00
	// ran 2024-06-01T01:30:00
	// ran 2024-06-01T02:30:00
	// true
}

// A billing run scheduled in UTC bills the customers' date in Chicago:
// WithRunDateLocation derives Run.RunDate there. A nil location is an
// error, never UTC.
func ExampleWithRunDateLocation() {
	clock := clockwork.NewFakeClockAt(time.Date(2024, 11, 2, 12, 0, 0, 0, time.UTC))
	s := dstsafe.NewScheduler(dstsafe.WithClock(clock), dstsafe.WithLogger(slog.New(slog.DiscardHandler)))
	billing, _ := dstsafe.ParseCron("CRON_TZ=UTC 30 3 * * *", dstsafe.WithPeriodKey(dstsafe.ByDate))
	job := func(_ context.Context, r dstsafe.Run) error {
		fmt.Println("period", r.Period, "bills", r.RunDate, "due", r.Due.In(chicago()).Format("15:04 MST"))
		return nil
	}
	_ = s.Add("billing", billing, job, dstsafe.WithRunDateLocation(chicago()))
	_, _ = dstsafe.Simulate(context.Background(), s, 24*time.Hour)

	err := s.Add("refunds", billing, job, dstsafe.WithRunDateLocation(nil))
	fmt.Println(errors.Is(err, dstsafe.ErrInvalidArgument))
	// Output:
	// period 2024-11-03 bills 2024-11-02 due 22:30 CDT
	// true
}

// Resolve refuses a nil location with an *ArgError naming the argument;
// Lookup, which returns no error, panics with a message naming itself.
func ExampleArgError() {
	_, err := dstsafe.Resolve(dstsafe.Wall{Year: 2024, Month: 3, Day: 10, Hour: 2, Minute: 30}, nil, dstsafe.Compatible)
	var ae *dstsafe.ArgError
	fmt.Println(errors.As(err, &ae), ae.Func, ae.Arg, errors.Is(err, dstsafe.ErrInvalidArgument))
	fmt.Println(err)
	// Output:
	// true Resolve loc true
	// dstsafe: Resolve: loc: nil *time.Location
}

// hourlyUTC is a plain Schedule (Next only), as robfig/cron's are: it
// fires on every hour and returns instants in the location of its
// argument.
type hourlyUTC struct{}

func (hourlyUTC) Next(t time.Time) time.Time {
	return t.Truncate(time.Hour).Add(time.Hour).In(t.Location())
}

// WithScheduleLocation says in which zone a plain Schedule's instants are
// read to key their periods: the two 01:00s of the Chicago fold
// (06:00Z and 07:00Z) read the same, so the second is one period too and
// is refused by the ledger instead of running twice.
func ExampleWithScheduleLocation() {
	clock := clockwork.NewFakeClockAt(time.Date(2024, 11, 3, 5, 30, 0, 0, time.UTC)) // 00:30 CDT
	s := dstsafe.NewScheduler(dstsafe.WithClock(clock), dstsafe.WithLogger(slog.New(slog.DiscardHandler)))
	_ = s.Add("meter", hourlyUTC{}, func(context.Context, dstsafe.Run) error { return nil },
		dstsafe.WithScheduleLocation(chicago()))
	fires, _ := dstsafe.Simulate(context.Background(), s, 2*time.Hour)
	for _, f := range fires {
		fmt.Println(f.Period, f.Kind, f.Due.Format(time.RFC3339))
	}
	// Output:
	// 2024-11-03T01:00:00 fold 2024-11-03T01:00:00-05:00
}

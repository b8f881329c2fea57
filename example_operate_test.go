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

// quietly is the examples' logger option.
var quietly = dstsafe.WithLogger(slog.New(slog.DiscardHandler))

// An operator pauses the half-hourly sync at 00:10 CDT on the night the
// Chicago clocks go back and resumes it at 02:40 CST: the periods due in
// between, both readings of 01:00 and 01:30 included, are recorded as
// skipped ("paused") in the ledger, which every replica shares, and the
// job runs on from 03:00 CST with no burst of catch-up.
func ExampleScheduler_Pause() {
	clock := clockwork.NewFakeClockAt(time.Date(2024, 11, 3, 4, 45, 0, 0, time.UTC)) // 23:45 CDT
	ledger := dstsafe.NewMemoryLedger(clock)                                         // a ControlLedger
	s := dstsafe.NewScheduler(dstsafe.WithClock(clock), dstsafe.WithLedger(ledger), dstsafe.WithOwner("ops"), quietly)
	sync, _ := dstsafe.ParseCron("*/30 * * * *", dstsafe.WithLocation(chicago()))
	_ = s.Add("sync", sync, func(context.Context, dstsafe.Run) error { return nil })

	_, _ = dstsafe.Simulate(context.Background(), s, 25*time.Minute) // to 00:10 CDT
	_ = s.Pause(context.Background(), "sync", "warehouse migration")
	_, _ = dstsafe.Simulate(context.Background(), s, 3*time.Hour+30*time.Minute) // to 02:40 CST
	_ = s.Resume(context.Background(), "sync")
	_, _ = dstsafe.Simulate(context.Background(), s, 30*time.Minute)

	recs, _ := ledger.List(context.Background(), "sync", "", "")
	for _, r := range recs {
		fmt.Println(r.Period, r.State, "("+r.Reason+")")
	}
	// Output:
	// 2024-11-03T00:00:00 succeeded ()
	// 2024-11-03T00:30:00 skipped (paused)
	// 2024-11-03T01:00:00 skipped (paused)
	// 2024-11-03T01:00:00;fold=1 skipped (paused)
	// 2024-11-03T01:30:00 skipped (paused)
	// 2024-11-03T01:30:00;fold=1 skipped (paused)
	// 2024-11-03T02:00:00 skipped (paused)
	// 2024-11-03T02:30:00 skipped (paused)
	// 2024-11-03T03:00:00 succeeded ()
}

// Resume continues from the instant of the Resume under every catch-up
// policy, CatchUpAll included: what came due while the job was paused is
// skipped, not run late.
func ExampleScheduler_Resume() {
	clock := clockwork.NewFakeClockAt(time.Date(2024, 6, 1, 0, 0, 0, 0, time.UTC))
	s := dstsafe.NewScheduler(dstsafe.WithClock(clock), quietly)
	hourly, _ := dstsafe.ParseCron("0 * * * *")
	_ = s.Add("report", hourly, func(context.Context, dstsafe.Run) error { return nil },
		dstsafe.WithCatchUp(dstsafe.CatchUpAll{Window: 24 * time.Hour}))
	_ = s.Pause(context.Background(), "report", "")
	_, _ = dstsafe.Simulate(context.Background(), s, 150*time.Minute) // 00:00, 01:00, 02:00 skipped
	_ = s.Resume(context.Background(), "report")                      // at 02:30
	fires, _ := dstsafe.Simulate(context.Background(), s, 2*time.Hour)
	for _, f := range fires {
		fmt.Println("ran", f.Period, "at", f.Started.Format("15:04"))
	}
	// Output:
	// ran 2024-06-01T03:00:00 at 03:00
	// ran 2024-06-01T04:00:00 at 04:00
}

// Paused reads the pause state from the ledger: who, why and since when.
// A Scheduler on a Ledger that is not a ControlLedger cannot pause.
func ExampleScheduler_Paused() {
	clock := clockwork.NewFakeClockAt(time.Date(2024, 11, 3, 6, 0, 0, 0, time.UTC))
	s := dstsafe.NewScheduler(dstsafe.WithClock(clock), dstsafe.WithOwner("alice"), quietly)
	daily, _ := dstsafe.ParseCron("30 1 * * *", dstsafe.WithLocation(chicago()))
	_ = s.Add("billing", daily, func(context.Context, dstsafe.Run) error { return nil })
	_ = s.Pause(context.Background(), "billing", "card processor outage")
	p, _ := s.Paused(context.Background(), "billing")
	fmt.Println(p.Paused, p.By, p.Reason, p.Since.Format(time.RFC3339))
	fmt.Println(errors.Is(s.Pause(context.Background(), "nightly", ""), dstsafe.ErrUnknownJob))
	// Output:
	// true alice card processor outage 2024-11-03T06:00:00Z
	// true
}

// A job whose three consecutive periods fail pauses itself, in the
// ledger; the periods after that are skipped until someone resumes it.
func ExampleWithPauseOnFailure() {
	clock := clockwork.NewFakeClockAt(time.Date(2024, 6, 1, 0, 0, 0, 0, time.UTC))
	s := dstsafe.NewScheduler(dstsafe.WithClock(clock), quietly)
	hourly, _ := dstsafe.ParseCron("0 * * * *")
	_ = s.Add("export", hourly, func(context.Context, dstsafe.Run) error {
		return errors.New("bucket not found")
	}, dstsafe.WithPauseOnFailure(3))
	fires, _ := dstsafe.Simulate(context.Background(), s, 5*time.Hour)
	fmt.Println(len(fires), "runs")
	p, _ := s.Paused(context.Background(), "export")
	fmt.Println(p.Paused, p.Reason)
	// Output:
	// 3 runs
	// true pause on failure: 3 consecutive failed periods, the last 2024-06-01T02:00:00
}

// A billing job added after the spring-forward night backfills it: the
// 02:30 period of 2024-03-10, which never read 02:30, is due at 03:30 CDT
// as the gap policy says; running the backfill again runs nothing.
func ExampleScheduler_Backfill() {
	clock := clockwork.NewFakeClockAt(time.Date(2024, 3, 12, 12, 0, 0, 0, time.UTC))
	s := dstsafe.NewScheduler(dstsafe.WithClock(clock), quietly)
	billing, _ := dstsafe.ParseCron("30 2 * * *", dstsafe.WithLocation(chicago()))
	_ = s.Add("billing", billing, func(context.Context, dstsafe.Run) error { return nil })

	from, to := time.Date(2024, 3, 9, 0, 0, 0, 0, chicago()), time.Date(2024, 3, 12, 0, 0, 0, 0, chicago())
	res, err := s.Backfill(context.Background(), "billing", from, to, nil)
	fmt.Println(err)
	for _, f := range res.Ran {
		fmt.Println(f.Period, f.Kind, f.Due.Format(time.RFC3339))
	}
	res, _ = s.Backfill(context.Background(), "billing", from, to, nil)
	fmt.Println("again:", len(res.Ran), "ran,", res.Recorded, "already recorded")
	// Output:
	// <nil>
	// 2024-03-09T02:30:00 unique 2024-03-09T02:30:00-06:00
	// 2024-03-10T02:30:00 gap 2024-03-10T03:30:00-05:00
	// 2024-03-11T02:30:00 unique 2024-03-11T02:30:00-05:00
	// again: 0 ran, 3 already recorded
}

// A backfill runs the periods that did not succeed: the one that failed
// is taken over as its second attempt. With OnlyMissing it waits
// for the job's retry policy or an operator's release instead.
func ExampleBackfillOptions_onlyMissing() {
	clock := clockwork.NewFakeClockAt(time.Date(2024, 6, 5, 12, 0, 0, 0, time.UTC))
	s := dstsafe.NewScheduler(dstsafe.WithClock(clock), quietly)
	daily, _ := dstsafe.ParseCron("CRON_TZ=UTC 0 6 * * *")
	down := true // the data source is down on June 2
	_ = s.Add("report", daily, func(_ context.Context, r dstsafe.Run) error {
		if down && r.Period == "2024-06-02T06:00:00" {
			return errors.New("no data")
		}
		return nil
	})
	from, to := time.Date(2024, 6, 1, 0, 0, 0, 0, time.UTC), time.Date(2024, 6, 4, 0, 0, 0, 0, time.UTC)
	res, _ := s.Backfill(context.Background(), "report", from, to, nil)
	fmt.Println("first:", len(res.Ran), "ran,", res.Ran[1].Period, res.Ran[1].Err)

	down = false
	res, _ = s.Backfill(context.Background(), "report", from, to, &dstsafe.BackfillOptions{OnlyMissing: true})
	fmt.Println("only missing:", len(res.Ran), "ran,", res.Recorded, "recorded")
	res, _ = s.Backfill(context.Background(), "report", from, to, nil)
	fmt.Println("default:", res.Ran[0].Period, "attempt", res.Ran[0].Attempt, res.Ran[0].Err)
	// Output:
	// first: 3 ran, 2024-06-02T06:00:00 no data
	// only missing: 0 ran, 3 recorded
	// default: 2024-06-02T06:00:00 attempt 2 <nil>
}

// Limit bounds one call; the rest is counted in Left, and the
// next call goes on where the last stopped.
func ExampleBackfillOptions_limit() {
	clock := clockwork.NewFakeClockAt(time.Date(2024, 6, 30, 12, 0, 0, 0, time.UTC))
	s := dstsafe.NewScheduler(dstsafe.WithClock(clock), quietly)
	daily, _ := dstsafe.ParseCron("0 6 * * *")
	_ = s.Add("report", daily, func(context.Context, dstsafe.Run) error { return nil })
	from, to := time.Date(2024, 6, 1, 0, 0, 0, 0, time.UTC), time.Date(2024, 6, 30, 0, 0, 0, 0, time.UTC)
	for range 5 { // 29 periods take 3 calls; a Backfill that never ends must not hang the example
		res, _ := s.Backfill(context.Background(), "report", from, to, &dstsafe.BackfillOptions{Limit: 10})
		fmt.Println(len(res.Ran), "ran, left", res.Left)
		if res.Left == 0 {
			break
		}
	}
	// Output:
	// 10 ran, left 19
	// 10 ran, left 9
	// 9 ran, left 0
}

// Concurrent runs the periods of a backfill at once
// instead of one after the other.
func ExampleBackfillOptions_concurrent() {
	clock := clockwork.NewFakeClockAt(time.Date(2024, 6, 8, 0, 0, 0, 0, time.UTC))
	s := dstsafe.NewScheduler(dstsafe.WithClock(clock), quietly)
	daily, _ := dstsafe.ParseCron("0 6 * * *")
	all := make(chan struct{})
	var started = make(chan struct{}, 7)
	_ = s.Add("report", daily, func(context.Context, dstsafe.Run) error {
		started <- struct{}{}
		<-all // each run waits for the others: they must run at once
		return nil
	})
	go func() {
		for range 7 {
			<-started
		}
		close(all)
	}()
	res, err := s.Backfill(context.Background(), "report", time.Date(2024, 6, 1, 0, 0, 0, 0, time.UTC), clock.Now(), &dstsafe.BackfillOptions{Concurrent: true})
	fmt.Println(len(res.Ran), err)
	// Output:
	// 7 <nil>
}

// Jitter spreads a fleet's starts without moving any period: on the night
// the Chicago clocks go back, the FoldBoth 01:30 job runs both readings,
// each up to 15 minutes late by a hash of (job, period) that every
// replica computes alike. A jitter that is not shorter than the shortest
// interval is refused: here the fold's two 01:30s are an hour apart.
func ExampleWithJitter() {
	clock := clockwork.NewFakeClockAt(time.Date(2024, 11, 3, 5, 0, 0, 0, time.UTC))
	s := dstsafe.NewScheduler(dstsafe.WithClock(clock), quietly)
	twice, _ := dstsafe.ParseCron("30 1 * * *", dstsafe.WithLocation(chicago()), dstsafe.WithFold(dstsafe.FoldBoth))
	_ = s.Add("meter", twice, func(context.Context, dstsafe.Run) error { return nil }, dstsafe.WithJitter(15*time.Minute))
	fires, _ := dstsafe.Simulate(context.Background(), s, 4*time.Hour)
	for _, f := range fires {
		late := f.Started.Sub(f.Due)
		fmt.Println(f.Period, f.Due.Format(time.RFC3339), late >= 0 && late < 15*time.Minute)
	}
	err := s.Add("meter2", twice, func(context.Context, dstsafe.Run) error { return nil }, dstsafe.WithJitter(time.Hour))
	fmt.Println(errors.Is(err, dstsafe.ErrInvalidArgument))
	// Output:
	// 2024-11-03T01:30:00 2024-11-03T01:30:00-05:00 true
	// 2024-11-03T01:30:00;fold=1 2024-11-03T01:30:00-06:00 true
	// true
}

// WithBounds compares instants: starting the FoldBoth 01:30 job at the
// instant the clocks went back (07:00Z, 01:00 CST) keeps the second 01:30
// only.
func ExampleWithBounds() {
	clock := clockwork.NewFakeClockAt(time.Date(2024, 11, 2, 12, 0, 0, 0, time.UTC))
	s := dstsafe.NewScheduler(dstsafe.WithClock(clock), quietly)
	twice, _ := dstsafe.ParseCron("30 1 * * *", dstsafe.WithLocation(chicago()), dstsafe.WithFold(dstsafe.FoldBoth))
	start, end := time.Date(2024, 11, 3, 7, 0, 0, 0, time.UTC), time.Date(2024, 11, 4, 12, 0, 0, 0, time.UTC)
	_ = s.Add("meter", twice, func(context.Context, dstsafe.Run) error { return nil }, dstsafe.WithBounds(start, end))
	fires, _ := dstsafe.Simulate(context.Background(), s, 72*time.Hour)
	for _, f := range fires {
		fmt.Println(f.Period, f.Due.Format(time.RFC3339))
	}
	// Output:
	// 2024-11-03T01:30:00;fold=1 2024-11-03T01:30:00-06:00
	// 2024-11-04T01:30:00 2024-11-04T01:30:00-06:00
}

// WithMaxRuns counts succeeded periods in the ledger, so a restart does not
// reset it: a trial job runs three times in all, across two processes.
func ExampleWithMaxRuns() {
	clock := clockwork.NewFakeClockAt(time.Date(2024, 6, 1, 0, 0, 0, 0, time.UTC))
	ledger := dstsafe.NewMemoryLedger(clock) // sqlledger in a service
	daily, _ := dstsafe.ParseCron("0 9 * * *")
	job := func(context.Context, dstsafe.Run) error { return nil }
	for process := 1; process <= 2; process++ {
		s := dstsafe.NewScheduler(dstsafe.WithClock(clock), dstsafe.WithLedger(ledger), quietly)
		_ = s.Add("trial-reminder", daily, job, dstsafe.WithMaxRuns(3))
		fires, _ := dstsafe.Simulate(context.Background(), s, 48*time.Hour)
		for _, f := range fires {
			fmt.Println("process", process, "ran", f.Period)
		}
		d, _ := s.Describe(context.Background(), "trial-reminder", 1)
		fmt.Println("runs", d.Runs, "of", d.MaxRuns, "next", len(d.Next))
	}
	// Output:
	// process 1 ran 2024-06-01T09:00:00
	// process 1 ran 2024-06-02T09:00:00
	// runs 2 of 3 next 1
	// process 2 ran 2024-06-03T09:00:00
	// runs 3 of 3 next 0
}

// Describe shows what a job will do next, in the schedule's own terms: on
// the evening before the Chicago clocks go back, the periodic job's next
// runs include both readings of 01:00 (Kind fold, the second keyed
// ";fold=1").
func ExampleScheduler_Describe() {
	clock := clockwork.NewFakeClockAt(time.Date(2024, 11, 3, 5, 30, 0, 0, time.UTC)) // 00:30 CDT
	s := dstsafe.NewScheduler(dstsafe.WithClock(clock), quietly)
	hourly, _ := dstsafe.ParseCron("0 * * * *", dstsafe.WithLocation(chicago()))
	_ = s.Add("meter", hourly, func(context.Context, dstsafe.Run) error { return nil })
	_, _ = dstsafe.Simulate(context.Background(), s, 0)
	_ = s.RunNow(context.Background(), "meter", "2024-11-03T00:00:00")
	d, _ := s.Describe(context.Background(), "meter", 3)
	fmt.Println(d.Job, d.Schedule, "paused:", d.Pause.Paused)
	for _, u := range d.Next {
		fmt.Println(u.Period, u.Kind, u.At.Format(time.RFC3339))
	}
	fmt.Println("last:", d.Last.Period, d.Last.State)
	// Output:
	// meter 0 * * * * paused: false
	// 2024-11-03T01:00:00 fold 2024-11-03T01:00:00-05:00
	// 2024-11-03T01:00:00;fold=1 fold 2024-11-03T01:00:00-06:00
	// 2024-11-03T02:00:00 unique 2024-11-03T02:00:00-06:00
	// last: 2024-11-03T00:00:00 succeeded
}

// printer is an Observer that prints what a Scheduler does.
type printer struct{}

func (printer) Observe(e dstsafe.Event) {
	fmt.Println(e.Type, e.Job, e.Period, e.Kind, "late", e.Late)
}

// An Observer sees each period's events as they happen; package
// dstsafeotel turns them into OpenTelemetry metrics. Across the 2024-03-10
// gap, the 02:30 job's period is due at 03:30 CDT (Kind gap).
func ExampleWithObserver() {
	clock := clockwork.NewFakeClockAt(time.Date(2024, 3, 10, 7, 0, 0, 0, time.UTC))
	s := dstsafe.NewScheduler(dstsafe.WithClock(clock), dstsafe.WithObserver(printer{}), quietly)
	billing, _ := dstsafe.ParseCron("30 2 * * *", dstsafe.WithLocation(chicago()))
	_ = s.Add("billing", billing, func(context.Context, dstsafe.Run) error { return nil })
	_, _ = dstsafe.Simulate(context.Background(), s, 2*time.Hour)
	// Output:
	// due billing 2024-03-10T02:30:00 gap late 0s
	// claimed billing 2024-03-10T02:30:00 gap late 0s
	// started billing 2024-03-10T02:30:00 gap late 0s
	// succeeded billing 2024-03-10T02:30:00 gap late 0s
}

// OverlapCancelRunning: a sync still running when the next period comes
// due is cancelled (context.Cause is ErrOverlapCancelled) and the newer
// period runs; OverlapBufferOne would let one newer period wait instead.
func ExampleOverlap() {
	clock := clockwork.NewFakeClockAt(time.Date(2024, 6, 1, 12, 0, 30, 0, time.UTC))
	ledger := dstsafe.NewMemoryLedger(clock)
	s := dstsafe.NewScheduler(dstsafe.WithClock(clock), dstsafe.WithLedger(ledger), dstsafe.WithWakeInterval(0), quietly)
	minutely, _ := dstsafe.ParseCron("* * * * *")
	started, cause, finish := make(chan string), make(chan error), make(chan struct{})
	_ = s.Add("sync", minutely, func(ctx context.Context, r dstsafe.Run) error {
		started <- r.Period
		select {
		case <-ctx.Done():
			cause <- context.Cause(ctx)
			return ctx.Err()
		case <-finish:
			return nil
		}
	}, dstsafe.WithOverlap(dstsafe.OverlapCancelRunning), dstsafe.WithLease(time.Hour, 0))
	ctx, stop := context.WithCancel(context.Background())
	done := make(chan error)
	go func() { done <- s.Run(ctx) }()
	_ = clock.BlockUntilContext(ctx, 1)
	clock.Advance(30 * time.Second) // 12:01
	fmt.Println("started", <-started)
	_ = clock.BlockUntilContext(ctx, 2) // the heartbeat, and Run asleep
	clock.Advance(time.Minute)          // 12:02: 12:01 still running
	fmt.Println("12:01 cancelled:", errors.Is(<-cause, dstsafe.ErrOverlapCancelled))
	fmt.Println("started", <-started)
	close(finish)
	stop()
	fmt.Println("Run returned:", <-done)
	for _, p := range []string{"2024-06-01T12:01:00", "2024-06-01T12:02:00"} {
		rec, _ := ledger.Get(context.Background(), "sync", p)
		fmt.Println(rec.Period, rec.State)
	}
	// Output:
	// started 2024-06-01T12:01:00
	// 12:01 cancelled: true
	// started 2024-06-01T12:02:00
	// Run returned: <nil>
	// 2024-06-01T12:01:00 failed
	// 2024-06-01T12:02:00 succeeded
}

package dstsafe_test

import (
	"context"
	"fmt"
	"log/slog"
	"time"

	"github.com/jonboulle/clockwork"

	"github.com/dstsafe/dstsafe"
)

// The postmortem's test in a few lines: the 01:30 Chicago billing job,
// polled every 20 s like the original worker, across the night the clocks
// went back. It runs once per run date.
func ExampleSimulate() {
	clock := clockwork.NewFakeClockAt(time.Date(2024, 11, 2, 12, 0, 0, 0, time.UTC))
	s := dstsafe.NewScheduler(dstsafe.WithClock(clock), dstsafe.WithLogger(slog.New(slog.DiscardHandler)))
	billing, _ := dstsafe.ParseCron("30 1 * * *", dstsafe.WithLocation(chicago()))
	_ = s.Add("billing", billing, func(context.Context, dstsafe.Run) error { return nil })

	fires, err := dstsafe.Simulate(context.Background(), s, 48*time.Hour, dstsafe.WithStep(20*time.Second))
	fmt.Println(len(fires), "fires", err)
	for _, f := range fires {
		fmt.Println(f)
	}
	// Output:
	// 2 fires <nil>
	// billing 2024-11-03T01:30:00 due 2024-11-03T01:30:00-05:00 (fold) run_date 2024-11-03
	// billing 2024-11-04T01:30:00 due 2024-11-04T01:30:00-06:00 run_date 2024-11-04
}

// In jump mode (no WithStep) the clock moves straight from timer to timer:
// a 02:30 job across the spring-forward night runs at 03:30 CDT, still as
// the 02:30 period of 2024-03-10.
func ExampleSimulate_jump() {
	clock := clockwork.NewFakeClockAt(time.Date(2024, 3, 9, 12, 0, 0, 0, time.UTC))
	s := dstsafe.NewScheduler(dstsafe.WithClock(clock), dstsafe.WithLogger(slog.New(slog.DiscardHandler)))
	job, _ := dstsafe.ParseCron("30 2 * * *", dstsafe.WithLocation(chicago()))
	_ = s.Add("rollup", job, func(context.Context, dstsafe.Run) error { return nil })

	fires, _ := dstsafe.Simulate(context.Background(), s, 48*time.Hour)
	for _, f := range fires {
		fmt.Println(f.Period, f.Kind, f.Due.Format(time.RFC3339), f.RunDate)
	}
	// Output:
	// 2024-03-10T02:30:00 gap 2024-03-10T03:30:00-05:00 2024-03-10
	// 2024-03-11T02:30:00 unique 2024-03-11T02:30:00-05:00 2024-03-11
}

// SimulateTicks reproduces the incident itself: "every 20 s, is it 01:30
// in Chicago? skip if we started less than 10 minutes ago" charges twice
// on 2024-11-03, an hour apart.
func ExampleSimulateTicks() {
	chi := chicago()
	start := time.Date(2024, 11, 2, 12, 0, 0, 0, time.UTC)
	var last time.Time
	dstsafe.SimulateTicks(start, start.Add(48*time.Hour), 20*time.Second, func(now time.Time) {
		local := now.In(chi)
		if local.Hour() == 1 && local.Minute() == 30 && (last.IsZero() || now.Sub(last) > 10*time.Minute) {
			last = now
			fmt.Println("charge run_date", dstsafe.DateOf(now, chi), "at", local.Format(time.RFC3339))
		}
	})
	// Output:
	// charge run_date 2024-11-03 at 2024-11-03T01:30:00-05:00
	// charge run_date 2024-11-03 at 2024-11-03T01:30:00-06:00
	// charge run_date 2024-11-04 at 2024-11-04T01:30:00-06:00
}

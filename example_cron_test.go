package dstsafe_test

import (
	"fmt"
	"time"

	"github.com/dstsafe/dstsafe"
)

// The postmortem's job: billing at 01:30 in Chicago. On the fall-back night
// it fires once, at the first 01:30 (CDT), not again an hour later.
// In a service, write the zone into the spec: "CRON_TZ=America/Chicago 30 1 * * *";
// the example pins its tzdata with WithLocation instead.
func ExampleParseCron() {
	billing, err := dstsafe.ParseCron("30 1 * * *", dstsafe.WithLocation(chicago()))
	if err != nil {
		panic(err)
	}
	t := time.Date(2024, 11, 2, 12, 0, 0, 0, time.UTC)
	for range 3 {
		t = billing.Next(t)
		fmt.Println(t.Format(time.RFC3339))
	}
	_, err = dstsafe.ParseCron("CRON_TZ=UTC+5 30 1 * * *")
	fmt.Println(err)
	// Output:
	// 2024-11-03T01:30:00-05:00
	// 2024-11-04T01:30:00-06:00
	// 2024-11-05T01:30:00-06:00
	// dstsafe: parse cron spec "CRON_TZ=UTC+5 30 1 * * *": zone: "UTC+5" is a fixed offset, not a zone; name an IANA zone such as America/Chicago (or Etc/GMT-5 for a fixed UTC+5)
}

// An occurrence remembers the reading it was scheduled for: the 02:30 job
// runs at 03:30 CDT on 2024-03-10, and its ledger period is still 02:30.
func ExampleCron_NextOccurrence() {
	job, _ := dstsafe.ParseCron("30 2 * * *", dstsafe.WithLocation(chicago()))
	t := time.Date(2024, 3, 9, 12, 0, 0, 0, time.UTC)
	for range 3 {
		o, _ := job.NextOccurrence(t)
		fmt.Printf("%s  wall %s  %-6s period %s\n", o.At.Format(time.RFC3339), o.Wall, o.Kind, o.Period)
		t = o.At
	}
	// Output:
	// 2024-03-10T03:30:00-05:00  wall 2024-03-10T02:30:00  gap    period 2024-03-10T02:30:00
	// 2024-03-11T02:30:00-05:00  wall 2024-03-11T02:30:00  unique period 2024-03-11T02:30:00
	// 2024-03-12T02:30:00-05:00  wall 2024-03-12T02:30:00  unique period 2024-03-12T02:30:00
}

// A periodic job follows real time: both passes through the repeated hour
// fire, and the second pass gets its own ledger period.
func ExampleCron_NextOccurrence_periodic() {
	job, _ := dstsafe.ParseCron("*/30 * * * *", dstsafe.WithLocation(chicago()))
	t := time.Date(2024, 11, 3, 5, 45, 0, 0, time.UTC)
	for range 5 {
		o, _ := job.NextOccurrence(t)
		fmt.Printf("%s  %-6s %s\n", o.At.Format(time.RFC3339), o.Kind, o.Period)
		t = o.At
	}
	// Output:
	// 2024-11-03T01:00:00-05:00  fold   2024-11-03T01:00:00
	// 2024-11-03T01:30:00-05:00  fold   2024-11-03T01:30:00
	// 2024-11-03T01:00:00-06:00  fold   2024-11-03T01:00:00;fold=1
	// 2024-11-03T01:30:00-06:00  fold   2024-11-03T01:30:00;fold=1
	// 2024-11-03T02:00:00-06:00  unique 2024-11-03T02:00:00
}

// Policies can be set per schedule.
func ExampleWithGap() {
	for _, p := range []dstsafe.GapPolicy{dstsafe.GapShift, dstsafe.GapAtTransition, dstsafe.GapSkip} {
		job, _ := dstsafe.ParseCron("30 2 * * *", dstsafe.WithLocation(chicago()), dstsafe.WithGap(p))
		next := job.Next(time.Date(2024, 3, 9, 12, 0, 0, 0, time.UTC))
		fmt.Printf("%-13s %s\n", p, next.Format(time.RFC3339))
	}
	// Output:
	// shift         2024-03-10T03:30:00-05:00
	// at-transition 2024-03-10T03:00:00-05:00
	// skip          2024-03-11T02:30:00-05:00
}

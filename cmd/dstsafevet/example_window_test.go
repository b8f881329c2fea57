package dstsafevet_test

import (
	"fmt"
	"time"

	"github.com/dstsafe/dstsafe/cmd/dstsafevet"
)

// The postmortem's schedule, 01:30 in Chicago, repeats when the clocks go
// back; 02:30 is skipped when they go forward; 07:30 UTC never moves.
func ExampleWindowRisks() {
	from := time.Date(2024, time.January, 1, 0, 0, 0, 0, time.UTC)
	for _, spec := range []string{
		"CRON_TZ=America/Chicago 30 1 * * *",
		"CRON_TZ=America/Chicago 30 2 * * *",
		"CRON_TZ=UTC 30 7 * * *",
	} {
		c, err := dstsafevet.ParseSpec(spec)
		if err != nil {
			fmt.Println(err)
			continue
		}
		fmt.Printf("%s: %v\n", spec, dstsafevet.WindowRisks(c, from, from.AddDate(1, 0, 0)))
	}
	// Output:
	// CRON_TZ=America/Chicago 30 1 * * *: [01:30 occurs twice on 2024-11-03]
	// CRON_TZ=America/Chicago 30 2 * * *: [02:30 does not exist on 2024-03-10]
	// CRON_TZ=UTC 30 7 * * *: []
}

func ExampleSplitZone() {
	fmt.Println(dstsafevet.SplitZone("CRON_TZ=Europe/London 30 1 * * *"))
	fmt.Println(dstsafevet.SplitZone("0 3 * * *"))
	// Output:
	// Europe/London 30 1 * * *
	//  0 3 * * *
}

// ParseSpec accepts six-field specs with seconds, as robfig/cron's
// WithSeconds and gocron's CronJob(spec, true) write them.
func ExampleParseSpec() {
	c, err := dstsafevet.ParseSpec("CRON_TZ=Europe/London 0 30 1 * * *")
	fmt.Println(c.Location(), c.Fixed(), err)
	// Output:
	// Europe/London true <nil>
}

func ExampleAnalyzers() {
	for _, a := range dstsafevet.Analyzers() {
		fmt.Println(a.Name)
	}
	// Output:
	// wallclock
	// elapsedguard
	// localdate
	// cronspec
}

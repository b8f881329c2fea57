// Command core starts as exec's nothing-due path would with only the core
// module linked: it parses a schedule in a zone and finds the latest
// occurrence (BenchmarkExecOverhead).
package main

import (
	"os"
	"time"
	_ "time/tzdata"

	"github.com/dstsafe/dstsafe"
)

func main() {
	c, err := dstsafe.ParseCron("CRON_TZ=America/Chicago 30 1 * * *")
	if err != nil {
		os.Exit(2)
	}
	if _, ok := c.NextOccurrence(time.Date(2024, 1, 1, 12, 0, 0, 0, time.UTC)); !ok {
		os.Exit(2)
	}
}

// Command compare prints, as a markdown table for the README, what dstsafe,
// robfig/cron v3 and gocron v2 do with the famous daylight-saving cases:
// fire once, fire twice, skip a day, or hang.
//
//	cd bench && go run ./compare [-timeout 2s]
//
// A library that hangs keeps a CPU busy until the command exits.
package main

import (
	"flag"
	"fmt"
	"os"
	"time"

	"github.com/dstsafe/dstsafe/bench/internal/behaviour"
)

func main() {
	timeout := flag.Duration("timeout", 2*time.Second, "give up on a library call after `d` and report it as hanging")
	flag.Parse()
	if *timeout <= 0 {
		fmt.Fprintln(os.Stderr, "compare: -timeout must be positive")
		os.Exit(2)
	}
	fmt.Print(behaviour.Markdown(behaviour.Cases, *timeout))
}

// Package use holds corpus cases whose current time comes from another
// package (clockutil): the analyzers see it through analysis facts.
package use

import (
	"log"
	"time"

	"corpus/crosspkg/clockutil"
)

func run() {}

//corpus:case imported-now-function
// The current Chicago time from a helper package's function.

func DueChicago() bool {
	n := clockutil.Chicago()
	return n.Hour() == 1 && n.Minute() == 30 // want `wallclock:`
}

//corpus:case imported-tick-field
// The At field of a Tick built in the helper package.

func Poll(loc *time.Location) {
	for tk := range clockutil.Ticks(20 * time.Second) {
		if tk.At.In(loc).Hour() == 3 { // want `wallclock:`
			run()
		}
	}
}

//corpus:case imported-method
// A method of the helper package that returns the current local time.

func DueLocal(l clockutil.Local) bool {
	return l.Current().Format("15:04") == "02:30" // want `wallclock:`
}

//corpus:case imported-last-starts
// The helper package's map of last starts as the guard's mark.

func TickJob(name string, hour int) {
	n := clockutil.Chicago()
	if n.Hour() != hour { // want `wallclock:`
		return
	}
	if n.Sub(clockutil.Last[name]) < 10*time.Minute { // want `elapsedguard:`
		return
	}
	clockutil.Mark(name)
	run()
}

//corpus:case imported-now-logged
// The helper's current time, logged.

func LogNow() { log.Printf("now %s", clockutil.Chicago().Format(time.RFC3339)) }

//corpus:case imported-ticks-interval
// The helper's ticks driving an interval check.

func Interval(every time.Duration) {
	var last time.Time
	for tk := range clockutil.Ticks(time.Second) {
		if tk.At.Sub(last) >= every {
			last = tk.At
			run()
		}
	}
}

// Package parsed holds corpus cases of a run time built from a date string
// and a wall time with time.ParseInLocation.
package parsed

import (
	"log"
	"time"
)

func run() {}

const layout = "2006-01-02 15:04"

//corpus:case parse-day-then-timer
// The run time of a day's batch, slept until.

func RunOn(day string, loc *time.Location) error {
	runAt, err := time.ParseInLocation("2006-01-02 15:04", day+" 01:30", loc) // want `localdate: a run time parsed from a date and a wall time`
	if err != nil {
		return err
	}
	timer := time.NewTimer(time.Until(runAt))
	<-timer.C
	run()
	return nil
}

//corpus:case parse-compare-now
// Compared with the current time in a poll loop.

func Due(day string, chicago *time.Location) bool {
	at, err := time.ParseInLocation(layout, day+" 02:30", chicago) // want `localdate: a run time parsed`
	if err != nil {
		return false
	}
	return time.Now().After(at)
}

//corpus:case parse-afterfunc
// AfterFunc with the duration until it.

func Schedule(day string, loc *time.Location) (*time.Timer, error) {
	at, err := time.ParseInLocation("2006-01-02T15:04:05", day+"T01:15:00", loc) // want `localdate: a run time parsed`
	if err != nil {
		return nil, err
	}
	return time.AfterFunc(at.Sub(time.Now()), run), nil
}

//corpus:case parse-returned-by-next
// A next-run function returns it.

func nextRun(day string, loc *time.Location) (time.Time, error) {
	return time.ParseInLocation(layout, day+" 01:00", loc) // want `localdate: a run time parsed`
}

//corpus:case parse-utc
// Parsed in UTC.

func RunUTC(day string) error {
	at, err := time.ParseInLocation(layout, day+" 01:30", time.UTC)
	if err != nil {
		return err
	}
	time.Sleep(time.Until(at))
	run()
	return nil
}

//corpus:case parse-date-only
// A date without a time of day, used as a date.

func Billed(day string, loc *time.Location) (time.Time, error) {
	return time.ParseInLocation("2006-01-02", day, loc)
}

//corpus:case parse-log-timestamp
// A timestamp read from a log line, printed.

func Show(line string, loc *time.Location) {
	t, err := time.ParseInLocation("2006-01-02 15:04:05", line[:19], loc)
	if err != nil {
		return
	}
	log.Printf("event at %s", t.UTC().Format(time.RFC3339))
}

//corpus:case parse-fixed-zone
// A fixed offset has no gap or fold.

func RunFixed(day string) error {
	at, err := time.ParseInLocation(layout, day+" 01:30", time.FixedZone("IST", 19800))
	if err != nil {
		return err
	}
	time.Sleep(time.Until(at))
	return nil
}

package localdate

import (
	"time"

	"github.com/dstsafe/dstsafe"
)

func run() {}

// "Midnight tonight" in the customer's zone, the second postmortem.
func sleepUntilMidnight(loc *time.Location) {
	now := time.Now().In(loc)
	y, m, d := now.Date()
	midnight := time.Date(y, m, d+1, 0, 0, 0, 0, loc) // want `localdate: time.Date picks an unspecified offset`
	time.Sleep(time.Until(midnight))
	run()
}

func due(loc *time.Location) bool {
	now := time.Now()
	return !now.Before(time.Date(2024, 11, 3, 1, 30, 0, 0, loc)) // want `localdate:`
}

type daily struct {
	hour, minute int
	loc          *time.Location
}

// A home-made Schedule.
func (s daily) Next(after time.Time) time.Time {
	a := after.In(s.loc)
	return time.Date(a.Year(), a.Month(), a.Day()+1, s.hour, s.minute, 0, 0, s.loc) // want `localdate:`
}

func waitFor(c dstsafe.Clock, loc *time.Location) time.Duration {
	at := time.Date(2024, 3, 10, 2, 30, 0, 0, loc) // want `localdate:`
	return at.Sub(c.Now())
}

// --- not reported ---

// UTC and fixed zones never skip or repeat a reading.
func utc() time.Duration {
	a := time.Until(time.Date(2024, 11, 3, 7, 30, 0, 0, time.UTC))
	b := time.Until(time.Date(2024, 11, 3, 7, 30, 0, 0, time.FixedZone("EST", -5*3600)))
	return a + b
}

// The fixed way.
func resolved(loc *time.Location) (time.Duration, error) {
	at, err := dstsafe.Resolve(dstsafe.Wall{Year: 2024, Month: time.November, Day: 3, Hour: 1, Minute: 30}, loc, dstsafe.Compatible)
	if err != nil {
		return 0, err
	}
	return time.Until(at), nil
}

// A date for display or a report is not a schedule instant.
func label(loc *time.Location) string {
	return time.Date(2024, 11, 3, 0, 0, 0, 0, loc).Format("Jan 2")
}

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

// The zone's real rules, when the zone is known: the date, what happens,
// and what time.Date gives (found by calling it).

var (
	santiago, _ = time.LoadLocation("America/Santiago")
	chicago, _  = time.LoadLocation("America/Chicago")
	berlinLoc   = mustLoad("Europe/Berlin")
)

func mustLoad(name string) *time.Location {
	loc, err := time.LoadLocation(name)
	if err != nil {
		panic(err)
	}
	return loc
}

func santiagoMidnight(now time.Time) time.Duration {
	y, m, d := now.In(santiago).Date()
	return time.Until(time.Date(y, m, d+1, 0, 0, 0, 0, santiago)) // want `^localdate: time.Date\(\.\.\., 00:00, America/Santiago\): 00:00 does not exist on 2026-09-06 \(00:00-01:00 skipped\), and time.Date then gives 23:00 on 2026-09-05 \(-04\), before the day it was asked for: a "next midnight" loop that computes the next run from today's date gets the same past instant again and fires again and again until 01:00; resolve`
}

func chicagoSettlement(now time.Time) time.Duration {
	y, m, d := now.In(chicago).Date()
	return time.Until(time.Date(y, m, d+1, 1, 30, 0, 0, chicago)) // want `^localdate: time.Date\(\.\.\., 01:30, America/Chicago\): 01:30 occurs twice on 2026-11-01 \(01:00-02:00 repeated\), and time.Date returns one of the two \(here the first, 01:30 CDT\)`
}

func chicagoGap(now time.Time) time.Duration {
	return time.Until(time.Date(2026, 3, 8, 2, 30, 0, 0, chicago)) // want `02:30 does not exist on 2026-03-08 \(02:00-03:00 skipped\), and time.Date then gives 01:30 on 2026-03-08 \(CST\), before the skipped hour: the job runs early`
}

func berlinGap(now time.Time) time.Duration {
	return time.Until(time.Date(2026, 3, 29, 2, 30, 0, 0, berlinLoc)) // want `02:30 does not exist on 2026-03-29 \(02:00-03:00 skipped\), and time.Date then gives 03:30 on 2026-03-29 \(CEST\), after the skipped hour: the job runs late`
}

func berlinFold(now time.Time) time.Duration {
	return time.Until(time.Date(2026, 10, 25, 2, 30, 0, 0, berlinLoc)) // want `02:30 occurs twice on 2026-10-25 \(02:00-03:00 repeated\), and time.Date returns one of the two \(here the second, 02:30 CET\)`
}

// Month-end close on the first at 01:30: 2026-11-01 is a first.
func monthClose(now time.Time) time.Duration {
	l := now.In(chicago)
	return time.Until(time.Date(l.Year(), l.Month()+1, 1, 1, 30, 0, 0, chicago)) // want `01:30 occurs twice on 2026-11-01`
}

func machineZone(hour int) time.Duration {
	now := time.Now()
	return time.Until(time.Date(now.Year(), now.Month(), now.Day()+1, hour, 0, 0, 0, time.Local)) // want `^localdate: time.Date picks an unspecified offset when the wall time is skipped or repeated, and this time.Date in a zone this check cannot name \(time.Local or a location from configuration\) takes its hour at run time`
}

// --- not reported ---

// Berlin's midnight and Chicago's morning are never skipped or repeated;
// a constant date away from the transitions is a plain instant.
func plainTimes(now time.Time) time.Duration {
	y, m, d := now.In(berlinLoc).Date()
	a := time.Until(time.Date(y, m, d+1, 0, 0, 0, 0, berlinLoc))
	b := time.Until(time.Date(y, m, d+1, 9, 0, 0, 0, chicago))
	c := time.Until(time.Date(2026, 3, 9, 2, 30, 0, 0, chicago))
	e := time.Until(time.Date(y, m, d, 12, 0, 0, 0, time.Local))
	// The 15th is never a transition day in Chicago.
	f := time.Until(time.Date(y, m+1, 15, 1, 30, 0, 0, chicago))
	return a + b + c + e + f
}

// UTC by other names.
func utcNames(now time.Time) time.Duration {
	etc, _ := time.LoadLocation("Etc/UTC")
	gmt, _ := time.LoadLocation("Etc/GMT")
	zulu, _ := time.LoadLocation("Zulu")
	var total time.Duration
	for _, loc := range []*time.Location{etc, gmt, zulu} {
		_ = loc
	}
	total += time.Until(time.Date(2026, 11, 1, 1, 30, 0, 0, etc))
	total += time.Until(time.Date(2026, 11, 1, 1, 30, 0, 0, gmt))
	total += time.Until(time.Date(2026, 11, 1, 1, 30, 0, 0, zulu))
	total += time.Until(time.Date(2026, 11, 1, 1, 30, 0, 0, time.FixedZone("UTC", 0)))
	return total
}

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

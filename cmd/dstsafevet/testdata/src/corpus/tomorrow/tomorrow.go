// Package tomorrow holds corpus cases of "the same time tomorrow" computed
// by adding 24 hours to a local time.
package tomorrow

import (
	"time"

	"github.com/jonboulle/clockwork"
)

func run() {}

const day = 24 * time.Hour

//corpus:case next-add-24h-loop
// The nightly loop: sleep until 01:30, run, add a day.

func Nightly(loc *time.Location) {
	now := time.Now().In(loc)
	next := time.Date(now.Year(), now.Month(), now.Day(), 1, 30, 0, 0, loc) // want `localdate: time.Date picks`
	for {
		time.Sleep(time.Until(next))
		run()
		next = next.Add(24 * time.Hour) // want `localdate: adding 24 hours to a local time`
	}
}

//corpus:case now-in-zone-plus-day
// "This time tomorrow" from the current local time.

func SameTimeTomorrow(loc *time.Location) time.Time {
	return time.Now().In(loc).Add(24 * time.Hour) // want `localdate: adding 24 hours`
}

//corpus:case clock-field-plus-day-const
// A job struct with a clock; the step is a named constant.

type Job struct {
	clock clockwork.Clock
	loc   *time.Location
	next  time.Time
}

func (j *Job) Reschedule() {
	j.next = j.clock.Now().In(j.loc).Add(day) // want `localdate: adding 24 hours`
}

//corpus:case parsed-plus-week
// A weekly report parsed in its zone, stepped by seven days of hours:
// the parse is a run time too (returned by a Next function).

func NextWeek(s string, loc *time.Location) (time.Time, error) {
	t, err := time.ParseInLocation("2006-01-02 15:04", s, loc) // want `localdate: a run time parsed`
	if err != nil {
		return time.Time{}, err
	}
	return t.Add(7 * 24 * time.Hour), nil // want `localdate: adding 24 hours`
}

//corpus:case loaded-zone-hour-first
// time.Hour * 24, on a time built in a loaded zone.

func Tomorrow0800() (time.Time, error) {
	paris, err := time.LoadLocation("Europe/Paris")
	if err != nil {
		return time.Time{}, err
	}
	today := time.Date(2026, 3, 28, 8, 0, 0, 0, paris)
	return today.Add(time.Hour * 24), nil // want `localdate: adding 24 hours`
}

//corpus:case utc-plus-day
// UTC days are 24 hours long.

func NextUTC() time.Time { return time.Now().UTC().Add(24 * time.Hour) }

//corpus:case cache-expiry-machine-now
// An expiry 24 hours from now is an interval of real time.

type Token struct{ Expires time.Time }

func Issue() Token { return Token{Expires: time.Now().Add(24 * time.Hour)} }

//corpus:case adddate-local
// AddDate steps the calendar, not 24 hours.

func NextLocal(loc *time.Location) time.Time {
	return time.Now().In(loc).AddDate(0, 0, 1)
}

//corpus:case fixed-zone-plus-day
// A fixed offset has 24-hour days.

func NextFixed() time.Time {
	est := time.FixedZone("EST", -5*60*60)
	return time.Date(2026, 11, 1, 1, 30, 0, 0, est).Add(24 * time.Hour)
}

//corpus:case local-plus-twelve-hours
// Half a day of real time is what is meant.

func HalfDay(loc *time.Location) time.Time { return time.Now().In(loc).Add(12 * time.Hour) }

//corpus:case parameter-plus-day
// A time of unknown zone given by the caller: a duration of real time.

func Deadline(issued time.Time) time.Time { return issued.Add(24 * time.Hour) }

//corpus:case local-expiry-display
// A link valid for 24 hours, its expiry shown in the user's zone: a real
// 24 hours.

func ExpiryNotice(loc *time.Location) string {
	expires := time.Now().In(loc).Add(24 * time.Hour)
	return "this link expires at " + expires.Format("Jan 2 15:04 MST")
}

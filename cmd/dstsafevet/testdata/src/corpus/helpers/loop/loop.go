// Package loop holds corpus cases whose wall-clock reading happens in a
// helper of another package (billclock): the analyzers see it through
// analysis facts.
package loop

import (
	"log"
	"time"

	"github.com/jonboulle/clockwork"

	"corpus/helpers/billclock"
)

func run() {}

var lastRun time.Time

//corpus:case imported-predicate-guard
// The billing loop with its time test moved to a helper package.

func Tick() {
	now := time.Now()
	if billclock.IsBillingTime(now) && time.Since(lastRun) > 10*time.Minute { // want `elapsedguard:`
		lastRun = now
		run()
	}
}

//corpus:case imported-window-guard
// A window helper with a zone, and a guard in a method.

type Runner struct {
	clock clockwork.Clock
	loc   *time.Location
	last  time.Time
}

func (r *Runner) Poll() {
	if !billclock.InWindow(r.clock.Now(), r.loc) {
		return
	}
	if r.clock.Since(r.last) < time.Hour { // want `elapsedguard:`
		return
	}
	r.last = r.clock.Now()
	run()
}

//corpus:case imported-hour-match
// The helper returns the local hour; the match is here.

func Due() bool {
	return billclock.LocalHour(time.Now()) == 1 // want `wallclock:`
}

//corpus:case imported-hour-window-guard
// The helper's hour in a window, with a daily guard.

type Job struct{ lastRun time.Time }

func (j *Job) Step(now time.Time) {
	if billclock.LocalHour(now) >= 1 && now.Sub(j.lastRun) > 20*time.Hour { // want `elapsedguard:`
		j.lastRun = now
		run()
	}
}

//corpus:case imported-utc-hour
// The helper reads the hour in UTC.

func DueUTC() bool { return billclock.UTCHour(time.Now()) == 7 }

//corpus:case imported-predicate-on-due-time
// The predicate on the scheduled time, not the current one.

type Task struct{ Due time.Time }

func Handle(t Task) {
	if billclock.IsBillingTime(t.Due) && time.Since(lastRun) > 10*time.Minute {
		run()
	}
}

//corpus:case imported-predicate-no-guard
// The predicate alone, claims made elsewhere.

func Maybe(claim func() bool) {
	if billclock.IsBillingTime(time.Now()) && claim() {
		run()
	}
}

//corpus:case imported-stamp-in-interval
// An interval loop logging the helper's local stamp.

func Heartbeat(every time.Duration) {
	var last time.Time
	for range time.Tick(time.Second) {
		if time.Since(last) >= every {
			last = time.Now()
			log.Printf("alive %s", billclock.Stamp(last))
		}
	}
}

//corpus:case imported-local-conversion
// The helper converts to Chicago time; the hour is matched here.

func DueLocal() bool {
	l := billclock.Local(time.Now())
	return l.Hour() == 1 && l.Minute() == 30 // want `wallclock:`
}

//corpus:case imported-self-predicate
// A method of the helper package that reads its own clock, with a guard
// here.

type Loop struct {
	b    billclock.Biller
	last time.Time
}

func (l *Loop) Step() {
	if l.b.Due() && time.Since(l.last) > 10*time.Minute { // want `elapsedguard:`
		l.last = time.Now()
		run()
	}
}

//corpus:case imported-ready-interval
// A helper that reads no clock, beside an interval check.

func (l *Loop) Drain() {
	if l.b.Ready() && time.Since(l.last) > time.Minute {
		l.last = time.Now()
		run()
	}
}

//corpus:case imported-local-logged
// The helper's local conversion, only logged.

func LogLocal() { log.Printf("local %s", billclock.Local(time.Now()).Format(time.Kitchen)) }

// Package windows holds corpus cases of ordering comparisons on the local
// hour (a window rather than an exact time) combined with an elapsed-time
// guard.
package windows

import (
	"time"

	"github.com/jonboulle/clockwork"
)

func run()  {}
func page() {}

var lastRun time.Time

//corpus:case hour-from-one-daily-guard
// "After 01:00, once a day": 20 hours after the 01:00 CDT run, 21:00 on
// the 25-hour day runs again.

func TickDaily(loc *time.Location) {
	now := time.Now().In(loc)
	if now.Hour() >= 1 && time.Since(lastRun) > 20*time.Hour { // want `elapsedguard:`
		lastRun = time.Now()
		run()
	}
}

//corpus:case hour-range-variable
// A window 00:00-03:00 with a ten-minute guard.

type Worker struct {
	clock clockwork.Clock
	loc   *time.Location
	last  time.Time
}

func (w *Worker) Tick() {
	h := w.clock.Now().In(w.loc).Hour()
	if h > 0 && h < 3 {
		if w.clock.Since(w.last) < 10*time.Minute { // want `elapsedguard:`
			return
		}
		w.last = w.clock.Now()
		run()
	}
}

//corpus:case minute-of-day-window
// Minutes since midnight from the hour and minute.

type Billing struct {
	loc     *time.Location
	lastRun time.Time
}

func (b *Billing) Poll(now time.Time) {
	local := now.In(b.loc)
	if local.Hour()*60+local.Minute() >= 90 && now.Sub(b.lastRun) > 12*time.Hour { // want `elapsedguard:`
		b.lastRun = now
		run()
	}
}

//corpus:case configured-hour-window
// The hour comes from configuration.

type Config struct{ Hour int }

func Loop(cfg Config, loc *time.Location) {
	var last time.Time
	for range time.Tick(time.Minute) {
		now := time.Now().In(loc)
		if now.Hour() < cfg.Hour || time.Since(last) < 23*time.Hour { // want `elapsedguard:`
			continue
		}
		last = time.Now()
		run()
	}
}

//corpus:case business-hours-alert-throttle
// An alert throttled to one page in ten minutes, during business hours:
// the window's edges are far from any transition.

var lastAlert time.Time

func Alert(loc *time.Location) {
	h := time.Now().In(loc).Hour()
	if h >= 9 && h < 17 && time.Since(lastAlert) > 10*time.Minute {
		lastAlert = time.Now()
		page()
	}
}

//corpus:case utc-window-guard
// The window is in UTC: no hour repeats.

func TickUTC() {
	now := time.Now().UTC()
	if now.Hour() >= 1 && time.Since(lastRun) > 20*time.Hour {
		lastRun = now
		run()
	}
}

//corpus:case window-without-guard
// A night window that only logs.

func Quiet(loc *time.Location) bool {
	h := time.Now().In(loc).Hour()
	return h >= 0 && h < 6
}

//corpus:case interval-loop-no-window
// An interval loop with no wall-clock reading.

func Interval(every time.Duration) {
	var last time.Time
	for range time.Tick(time.Second) {
		if time.Since(last) >= every {
			last = time.Now()
			run()
		}
	}
}

package wallclock

import (
	"fmt"
	"time"

	"github.com/dstsafe/dstsafe"
)

type clockTime struct{ hour, minute int }

var billingAt = clockTime{1, 30}

func run() {}

// The struct variant of the postmortem's check.
func structMatch(loc *time.Location) {
	now := time.Now().In(loc)
	if (clockTime{now.Hour(), now.Minute()}) == billingAt { // want `wallclock:`
		run()
	}
}

// The tuple variant: h, m, s := now.Clock().
func tupleMatch(loc *time.Location) {
	h, m, _ := time.Now().In(loc).Clock()
	if h == 1 && m == 30 { // want `wallclock:`
		run()
	}
}

// Matching a formatted reading is the same bug.
func formatMatch(loc *time.Location) {
	if time.Now().In(loc).Format("15:04") == "01:30" { // want `wallclock:`
		run()
	}
}

// A ticker loop on the machine's local zone.
func tickerLoop() {
	t := time.NewTicker(20 * time.Second)
	for now := range t.C {
		switch now.Hour() { // want `wallclock:`
		case 1:
			run()
		}
	}
}

// An injected clock is still the current time.
func clockMatch(c dstsafe.Clock, loc *time.Location) {
	now := c.Now().In(loc)
	hour := now.Hour()
	if hour != 1 { // want `wallclock:`
		return
	}
	run()
}

// A parameter called now is the current time by convention.
func due(now time.Time) bool {
	return now.Hour() == 1 && now.Minute() == 30 // want `wallclock:`
}

// --- not reported ---

// UTC has no transitions: 07:30 UTC happens once a day.
func utcMatch() {
	now := time.Now().UTC()
	if now.Hour() == 7 && now.Minute() == 30 {
		run()
	}
	if time.Now().In(time.UTC).Hour() == 7 {
		run()
	}
}

// Checking a computed instant (as tests do) is not deciding a job is due.
func checkResult(next time.Time) error {
	if next.Hour() != 3 || next.Minute() != 30 {
		return fmt.Errorf("want 03:30, got %v", next)
	}
	return nil
}

// Business-hours windows compare with ordering, not equality.
func businessHours(loc *time.Location) bool {
	h := time.Now().In(loc).Hour()
	return h >= 9 && h < 17
}

// Comparing two readings of the same time is not matching a constant.
func sameHour(loc *time.Location, other time.Time) bool {
	now := time.Now().In(loc)
	return now.Hour() == other.Hour()
}

// Formatting a date is not matching a time of day.
func today(loc *time.Location) bool {
	return time.Now().In(loc).Format("2006-01-02") == "2024-11-03"
}

// A deliberate replay, silenced.
func replay(loc *time.Location) {
	now := time.Now().In(loc)
	//dstsafevet:ignore replays the incident on purpose
	if now.Hour() == 1 && now.Minute() == 30 {
		run()
	}
}

type config struct {
	At [2]int // hour, minute
}

// Matching a configured time is the same bug as matching a constant.
func (c config) due(loc *time.Location) bool {
	local := time.Now().In(loc)
	return local.Hour() == c.At[0] && local.Minute() == c.At[1] // want `wallclock:`
}

// With the zone known, the message names the transitions that touch the
// hour, from the zone's real rules.
func chicagoSettlement() {
	chicago, _ := time.LoadLocation("America/Chicago")
	now := time.Now().In(chicago)
	if now.Hour() == 1 && now.Minute() == 30 { // want `^wallclock: matching the local hour/minute of the current time fires twice when the clocks go back and never when they skip that reading \(America/Chicago: 01:00-02:00 repeated on 2026-11-01\); schedule`
		run()
	}
}

func santiagoMidnight() {
	santiago, _ := time.LoadLocation("America/Santiago")
	now := time.Now().In(santiago)
	if now.Hour() == 0 && now.Minute() == 0 { // want `\(America/Santiago: 00:00-01:00 skipped on 2026-09-06\)`
		run()
	}
}

// 09:00 in Chicago and 01:30 in Tokyo are never skipped or repeated.
func chicagoMorning() {
	chicago, _ := time.LoadLocation("America/Chicago")
	now := time.Now().In(chicago)
	if now.Hour() == 9 && now.Minute() == 0 {
		run()
	}
	tokyo, _ := time.LoadLocation("Asia/Tokyo")
	if t := time.Now().In(tokyo); t.Hour() == 1 && t.Minute() == 30 {
		run()
	}
}

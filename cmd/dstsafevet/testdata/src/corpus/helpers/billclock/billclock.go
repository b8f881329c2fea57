// Package billclock is a helper package the cross-package corpus cases of
// helpers/loop import: functions that read the local wall clock of a time
// they are given, or of their own clock. It holds no case (its functions
// do not know their argument is the current time; Due is a match of its
// own clock, and the cases reported are in helpers/loop).
package billclock

import (
	"time"

	"github.com/jonboulle/clockwork"
)

var chicago, _ = time.LoadLocation("America/Chicago")

// IsBillingTime reports whether t is 01:30-01:59 in Chicago.
func IsBillingTime(t time.Time) bool {
	l := t.In(chicago)
	return l.Hour() == 1 && l.Minute() >= 30
}

// InWindow reports whether t is between 01:00 and 03:00 in loc.
func InWindow(t time.Time, loc *time.Location) bool {
	h := t.In(loc).Hour()
	return h >= 1 && h < 3
}

// LocalHour returns the hour of t in Chicago.
func LocalHour(t time.Time) int { return t.In(chicago).Hour() }

// UTCHour returns the hour of t in UTC.
func UTCHour(t time.Time) int { return t.UTC().Hour() }

// Stamp formats t for logs.
func Stamp(t time.Time) string { return t.In(chicago).Format(time.RFC3339) }

// Local returns t in Chicago.
func Local(t time.Time) time.Time { return t.In(chicago) }

// Tomorrow returns the same reading a day later, in Chicago.
func Tomorrow(t time.Time) time.Time { return t.In(chicago).AddDate(0, 0, 1) }

// Biller reads its own clock.
type Biller struct {
	Clock clockwork.Clock
	Loc   *time.Location
}

// Due reports whether it is 01:30 where the biller is.
func (b Biller) Due() bool {
	n := b.Clock.Now().In(b.Loc)
	return n.Hour() == 1 && n.Minute() == 30 // want `wallclock:`
}

// Ready reports whether the biller's queue is open: no clock read.
func (b Biller) Ready() bool { return b.Loc != nil }

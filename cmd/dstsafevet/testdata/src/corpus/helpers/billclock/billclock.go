// Package billclock is a helper package the cross-package corpus cases of
// helpers/loop import: functions that read the local wall clock of a time
// they are given. It holds no case (its functions do not know their
// argument is the current time).
package billclock

import "time"

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

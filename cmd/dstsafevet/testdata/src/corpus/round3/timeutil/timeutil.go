// Package timeutil is a helper package of the round-three corpus: small
// time predicates a team keeps next to its jobs. It holds no case.
package timeutil

import "time"

// IsAt reports whether t reads h:m on its own clock.
func IsAt(t time.Time, h, m int) bool {
	return t.Hour() == h && t.Minute() == m
}

// SameDay reports whether a and b fall on the same calendar date.
func SameDay(a, b time.Time) bool {
	ya, ma, da := a.Date()
	yb, mb, db := b.Date()
	return ya == yb && ma == mb && da == db
}

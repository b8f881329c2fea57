// Package schedlink hands package calendar the fast path into package
// dstsafe's own schedules (*dstsafe.Cron, *dstsafe.RRule) that Excluding
// walks: the next match as unix seconds, without building an Occurrence
// and its period key for each of the many occurrences it reads.
//
// calendar imports dstsafe, so dstsafe cannot import calendar: dstsafe
// registers the function here in its init, and calendar fetches it, which
// Go does after dstsafe's init because calendar imports dstsafe.
package schedlink

import "time"

// Next returns, for a schedule of package dstsafe, its first match
// strictly after after: the instant (unix seconds), the wall reading it
// was scheduled for (seconds of a UTC clock reading the same wall time)
// and the schedule's zone. handled is false for any other schedule.
type Next func(s any, after time.Time) (t, w int64, loc *time.Location, ok, handled bool)

var next Next

// Set registers dstsafe's function; dstsafe's init calls it.
func Set(f Next) { next = f }

// Get returns the registered function. It panics if dstsafe's init has
// not run, which Go's initialisation order rules out for any importer of
// dstsafe.
func Get() Next {
	if next == nil {
		panic("schedlink: package dstsafe did not register its schedules")
	}
	return next
}

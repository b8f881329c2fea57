package dstsafe

// Calendar is a set of civil dates: weekends, bank holidays, closures. A
// business day is a date the calendar does not contain. Dates have no zone
// and no DST; [Excluding] reads a calendar in its schedule's zone, and
// calendar.In places one in a zone, where each date is the whole local day.
//
// Package github.com/dstsafe/dstsafe/calendar builds calendars: weekends,
// holiday rules (fixed, nth weekday, Easter, with observance), explicit
// dates, unions and differences. Implementations must be safe for
// concurrent use; every calendar built there is immutable.
type Calendar interface {
	// Contains reports whether d is in the calendar (not a business day).
	Contains(d Date) bool
}

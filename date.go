package dstsafe

import (
	"fmt"
	"time"
)

// Date is a civil date: a day on a calendar, with no time of day and no
// zone. It is the business date a run is for (the postmortem's run_date),
// which must be derived explicitly in a named zone: the same instant is
// 2024-11-03 in Chicago and 2024-11-04 in Tokyo.
//
// The zero Date is "0000-00-00" and is not a valid day.
type Date struct {
	Year  int
	Month time.Month
	Day   int
}

// DateOf returns the civil date of instant t in zone loc.
// It panics if loc is nil: a business date without a zone is the bug this
// type exists to prevent.
func DateOf(t time.Time, loc *time.Location) Date {
	if loc == nil {
		panic("dstsafe: DateOf with nil location")
	}
	y, m, d := t.In(loc).Date()
	return Date{y, m, d}
}

// String returns the date as "2024-11-03" (ISO 8601), the form the ledgers
// use as a ByDate period key. Years outside 0..9999 print with a sign or
// more digits, as fmt prints them.
func (d Date) String() string {
	return fmt.Sprintf("%04d-%02d-%02d", d.Year, int(d.Month), d.Day)
}

// Compare returns -1, 0 or +1 as d is before, equal to or after e.
func (d Date) Compare(e Date) int {
	switch {
	case d.Year != e.Year:
		return cmpInt(d.Year, e.Year)
	case d.Month != e.Month:
		return cmpInt(int(d.Month), int(e.Month))
	}
	return cmpInt(d.Day, e.Day)
}

// AddDays returns the date n days after d (before it for negative n),
// normalising across months and years as time.Date does. Civil days have no
// DST: the arithmetic is done at noon UTC.
func (d Date) AddDays(n int) Date {
	t := time.Date(d.Year, d.Month, d.Day+n, 12, 0, 0, 0, time.UTC)
	return DateOf(t, time.UTC)
}

func cmpInt(a, b int) int {
	switch {
	case a < b:
		return -1
	case a > b:
		return 1
	}
	return 0
}

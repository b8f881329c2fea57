package dstsafe

import (
	"database/sql/driver"
	"fmt"
	"time"

	"github.com/dstsafe/dstsafe/internal/civil"
)

// Date is a civil date: a day on a calendar, with no time of day and no
// zone. It is the business date a run is for (the postmortem's run_date),
// which must be derived explicitly in a named zone: the same instant is
// 2024-11-03 in Chicago and 2024-11-04 in Tokyo. Civil days have no DST:
// the arithmetic on dates is exact, and a date becomes an instant only
// through a zone ([Lookup] of its midnight, which may fall in a gap).
//
// The zero Date is "0000-00-00" and is not a valid day. A Date marshals as
// "2024-11-03" in text and JSON, and is stored as that text by
// database/sql (a PostgreSQL DATE scans into it too).
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
		panic("dstsafe: DateOf: nil *time.Location")
	}
	y, m, d := t.In(loc).Date()
	return Date{y, m, d}
}

// ParseDate parses an ISO 8601 calendar date, "2024-11-03". A day that
// does not exist ("2024-02-30") is an error wrapping ErrInvalidArgument, never
// rolled over into the next month.
func ParseDate(s string) (Date, error) {
	// time.Parse checks the day against the month for this layout.
	t, err := time.Parse(time.DateOnly, s)
	if err != nil {
		return Date{}, errorf("dstsafe: parse date %q: want YYYY-MM-DD, a real calendar date: %w", s, errInvalidWall)
	}
	return DateOf(t, time.UTC), nil
}

// IsValid reports whether d names a day of the proleptic Gregorian
// calendar (February 30 and the zero Date do not).
func (d Date) IsValid() bool {
	return Wall{Year: d.Year, Month: d.Month, Day: d.Day}.IsValid()
}

// String returns the date as "2024-11-03" (ISO 8601), the form the ledgers
// use as a ByDate period key. Years outside 0..9999 print with a sign or
// more digits.
func (d Date) String() string { return string(appendDate(nil, d.Year, d.Month, d.Day)) }

// MarshalText returns d.String().
func (d Date) MarshalText() ([]byte, error) { return appendDate(nil, d.Year, d.Month, d.Day), nil }

// UnmarshalText parses a date as ParseDate does. On error d is unchanged.
func (d *Date) UnmarshalText(text []byte) error {
	p, err := ParseDate(string(text))
	if err != nil {
		return err
	}
	*d = p
	return nil
}

// Value stores d as "2024-11-03": a TEXT column, or a DATE, which
// PostgreSQL and SQLite accept in that form.
func (d Date) Value() (driver.Value, error) { return d.String(), nil }

// Scan reads a "2024-11-03" string or a time.Time (PostgreSQL returns a
// DATE as midnight UTC; its date is taken in its own location).
func (d *Date) Scan(src any) error {
	switch v := src.(type) {
	case time.Time:
		*d = DateOf(v, v.Location())
		return nil
	case string:
		return d.UnmarshalText([]byte(v))
	case []byte:
		return d.UnmarshalText(v)
	}
	return fmt.Errorf("dstsafe: cannot scan %T into a Date", src)
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

// Before reports whether d is before e.
func (d Date) Before(e Date) bool { return d.Compare(e) < 0 }

// After reports whether d is after e.
func (d Date) After(e Date) bool { return d.Compare(e) > 0 }

// Weekday returns the day of the week of d.
func (d Date) Weekday() time.Weekday { return weekdayOf(daysFromCivil(d.Year, d.Month, d.Day)) }

// AddDays returns the date n days after d (before it for negative n).
// A day out of range counts on from the month's start, as time.Date
// normalises it: {2024, 2, 30}.AddDays(0) is 2024-03-01.
func (d Date) AddDays(n int) Date {
	y, m, dd := civilFromDays(daysFromCivil(d.Year, d.Month, 1) + int64(d.Day-1) + int64(n))
	return Date{y, m, dd}
}

// AddMonths returns the same day n months after d (before it for negative
// n), clamped to the last day of that month: a monthly subscription's
// next period. 2024-01-31 plus one month is 2024-02-29, plus two is
// 2024-03-31 (clamping does not carry over from one call to the next, so
// d.AddMonths(1).AddMonths(1) is 2024-03-29).
func (d Date) AddMonths(n int) Date {
	m := int(d.Month) - 1 + n
	y := d.Year + m/12
	if m %= 12; m < 0 {
		m += 12
		y--
	}
	month := time.Month(m + 1)
	return Date{y, month, min(d.Day, daysIn(y, month))}
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

const secondsPerDay = 86400

// Start returns the first instant of date d in loc: the start of the local
// day, which is not always midnight. Where the clocks skip midnight
// (America/Havana 2024-03-10, Asia/Beirut, America/Santiago) it is the end
// of the gap, the day's first real instant (01:00), never the instant
// time.Date would pick; where midnight happens twice it is the first
// 00:00. A day the zone skipped entirely (Pacific/Apia 2011-12-30) starts
// where the next one does: d.Start(loc) == d.AddDays(1).Start(loc), an
// empty day. The day's instants are [d.Start(loc), d.AddDays(1).Start(loc)).
//
// Billing "at local midnight" is Start, resolved once per date, never
// time.Date(y, m, d, 0, 0, 0, 0, loc) or t.Truncate(24*time.Hour). It
// panics if loc is nil, like time.Date.
func (d Date) Start(loc *time.Location) time.Time {
	if loc == nil {
		panic("dstsafe: Date.Start: nil *time.Location")
	}
	r := Lookup(Wall{Year: d.Year, Month: d.Month, Day: d.Day}, loc)
	if r.Kind == Gap {
		return r.Transition.At
	}
	return r.Earlier
}

// The civil day arithmetic lives in internal/civil, shared with package
// calendar; these names keep the call sites short.
func daysFromCivil(y int, m time.Month, d int) int64 { return civil.DaysFromCivil(y, m, d) }
func civilFromDays(z int64) (int, time.Month, int)   { return civil.CivilFromDays(z) }
func weekdayOf(days int64) time.Weekday              { return civil.WeekdayOf(days) }
func isLeap(y int) bool                              { return civil.IsLeap(y) }
func daysIn(y int, m time.Month) int                 { return civil.DaysIn(y, m) }

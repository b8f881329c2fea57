package dstsafe

import (
	"database/sql/driver"
	"fmt"
	"time"
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
// does not exist ("2024-02-30") is an error wrapping ErrInvalidWall, never
// rolled over into the next month.
func ParseDate(s string) (Date, error) {
	// time.Parse checks the day against the month for this layout.
	t, err := time.Parse(time.DateOnly, s)
	if err != nil {
		return Date{}, fmt.Errorf("dstsafe: parse date %q: want YYYY-MM-DD, a real calendar date: %w", s, ErrInvalidWall)
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

// daysFromCivil returns the number of days from 1970-01-01 to y-m-d in the
// proleptic Gregorian calendar (Howard Hinnant's algorithm).
func daysFromCivil(y int, m time.Month, d int) int64 {
	yy := int64(y)
	if m <= 2 {
		yy--
	}
	era := yy / 400
	if yy < 0 && yy%400 != 0 {
		era--
	}
	yoe := yy - era*400
	mm := int64(m)
	if mm > 2 {
		mm -= 3
	} else {
		mm += 9
	}
	doy := (153*mm+2)/5 + int64(d) - 1
	doe := yoe*365 + yoe/4 - yoe/100 + doy
	return era*146097 + doe - 719468
}

// civilFromDays is the inverse of daysFromCivil. In the range of years
// that matter it uses Neri and Schneider's Euclidean affine algorithm
// ("Euclidean affine functions and their application to calendar
// algorithms", 2022), which needs no division by a variable.
func civilFromDays(z int64) (int, time.Month, int) {
	const shift = 82 // 400-year cycles added to keep the arithmetic unsigned
	const k = 719468 + 146097*shift
	if z < -k || z > 1<<29 {
		return civilFromDaysSlow(z)
	}
	n := uint64(z + k)
	n1 := 4*n + 3
	c := n1 / 146097
	nc := n1 % 146097 / 4
	n2 := 4*nc + 3
	p2 := 2939745 * n2
	zz := p2 >> 32
	ny := (p2 & 0xFFFFFFFF) / 2939745 / 4
	y := int64(100*c+zz) - 400*shift
	n3 := 2141*ny + 197913
	m := n3 >> 16
	d := (n3&0xFFFF)/2141 + 1
	if ny >= 306 {
		y++
		m -= 12
	}
	return int(y), time.Month(m), int(d)
}

func civilFromDaysSlow(z int64) (int, time.Month, int) {
	z += 719468
	era := z / 146097
	if z < 0 && z%146097 != 0 {
		era--
	}
	doe := z - era*146097
	yoe := (doe - doe/1460 + doe/36524 - doe/146096) / 365
	y := yoe + era*400
	doy := doe - (365*yoe + yoe/4 - yoe/100)
	mp := (5*doy + 2) / 153
	d := doy - (153*mp+2)/5 + 1
	m := mp + 3
	if m > 12 {
		m -= 12
	}
	if m <= 2 {
		y++
	}
	return int(y), time.Month(m), int(d)
}

// weekdayOf returns the weekday of a day count from daysFromCivil.
func weekdayOf(days int64) time.Weekday {
	w := (days + 4) % 7 // 1970-01-01 was a Thursday
	if w < 0 {
		w += 7
	}
	return time.Weekday(w)
}

func isLeap(y int) bool { return y%4 == 0 && (y%100 != 0 || y%400 == 0) }

func daysIn(y int, m time.Month) int {
	switch m {
	case time.February:
		if isLeap(y) {
			return 29
		}
		return 28
	case time.April, time.June, time.September, time.November:
		return 30
	}
	return 31
}

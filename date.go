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

// Package civil holds the proleptic Gregorian day arithmetic that package
// dstsafe and its calendar package share: day counts from 1970-01-01,
// their inverse, weekdays and month lengths. No zones, no DST.
package civil

import "time"

// DaysFromCivil returns the number of days from 1970-01-01 to y-m-d in the
// proleptic Gregorian calendar (Howard Hinnant's algorithm).
func DaysFromCivil(y int, m time.Month, d int) int64 {
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

// CivilFromDays is the inverse of DaysFromCivil. In the range of years
// that matter it uses Neri and Schneider's Euclidean affine algorithm
// ("Euclidean affine functions and their application to calendar
// algorithms", 2022), which needs no division by a variable.
func CivilFromDays(z int64) (int, time.Month, int) {
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

// WeekdayOf returns the weekday of a day count from DaysFromCivil.
func WeekdayOf(days int64) time.Weekday {
	w := (days + 4) % 7 // 1970-01-01 was a Thursday
	if w < 0 {
		w += 7
	}
	return time.Weekday(w)
}

func IsLeap(y int) bool { return y%4 == 0 && (y%100 != 0 || y%400 == 0) }

func DaysIn(y int, m time.Month) int {
	switch m {
	case time.February:
		if IsLeap(y) {
			return 29
		}
		return 28
	case time.April, time.June, time.September, time.November:
		return 30
	}
	return 31
}

// CivilFromDaysSlow is civilFromDays' plain algorithm, for tests that check
// the fast one against it.
var CivilFromDaysSlow = civilFromDaysSlow

// FloorDiv is a/b rounded towards minus infinity (Go's / rounds towards
// zero).
func FloorDiv(a, b int64) int64 {
	q := a / b
	if a%b != 0 && (a < 0) != (b < 0) {
		q--
	}
	return q
}

package dstsafe

import (
	"fmt"
	"strconv"
	"time"
)

// Wall is a wall-clock reading: what a clock on the wall of zone shows,
// with no offset attached. A Wall is not an instant: in a fold (clocks set
// back) one Wall is read twice, in a gap (clocks set forward) it is never read.
// [Lookup] and [Resolve] turn a Wall into instants explicitly.
//
// Fields are not normalised: a Wall with Month 13, Day 30 in February, Hour 24
// or a negative Nanosecond is invalid, and [Resolve] rejects it with an error
// wrapping [ErrInvalidArgument] instead of rolling it over as time.Date does.
type Wall struct {
	Year       int
	Month      time.Month
	Day        int
	Hour       int
	Minute     int
	Second     int
	Nanosecond int
}

// maxWallYear bounds the years a Wall may name, so that every computation
// on it stays far inside int64 seconds.
const maxWallYear = 1_000_000_000

// Validate returns nil if w names a real calendar reading, else a
// *ArgError (Func "Wall", Arg the field: "month", "day", "hour", "minute",
// "second", "nanosecond" or "year"; wrapping ErrInvalidArgument) naming the
// first bad field. Nothing is
// normalised: February 30 is an error, not March 1 or 2.
func (w Wall) Validate() error {
	bad := func(field, reason string) error {
		return &ArgError{Func: "Wall", Arg: field, Err: invalid(fmt.Sprintf("invalid wall time %s: %s %s", w, field, reason))}
	}
	switch {
	case w.Year < -maxWallYear || w.Year > maxWallYear:
		return bad("year", "out of range")
	case w.Month < time.January || w.Month > time.December:
		return bad("month", "must be 1-12")
	case w.Day < 1 || w.Day > daysIn(w.Year, w.Month):
		return bad("day", fmt.Sprintf("must be 1-%d in %s %d", daysIn(w.Year, w.Month), w.Month, w.Year))
	case w.Hour < 0 || w.Hour > 23:
		return bad("hour", "must be 0-23")
	case w.Minute < 0 || w.Minute > 59:
		return bad("minute", "must be 0-59")
	case w.Second < 0 || w.Second > 59:
		return bad("second", "must be 0-59")
	case w.Nanosecond < 0 || w.Nanosecond > 999_999_999:
		return bad("nanosecond", "must be 0-999999999")
	}
	return nil
}

// IsValid reports whether w.Validate() == nil.
func (w Wall) IsValid() bool {
	return w.Year >= -maxWallYear && w.Year <= maxWallYear &&
		w.Month >= time.January && w.Month <= time.December &&
		w.Day >= 1 && w.Day <= daysIn(w.Year, w.Month) &&
		uint(w.Hour) < 24 && uint(w.Minute) < 60 && uint(w.Second) < 60 &&
		uint(w.Nanosecond) < 1e9
}

// String formats w in ISO 8601 without an offset: "2024-03-10T02:30:00",
// with a fractional second only when Nanosecond is not zero
// ("2024-03-10T02:30:00.5").
func (w Wall) String() string {
	var b []byte
	b = appendDate(b, w.Year, w.Month, w.Day)
	b = append(b, 'T')
	b = append2(b, w.Hour)
	b = append(b, ':')
	b = append2(b, w.Minute)
	b = append(b, ':')
	b = append2(b, w.Second)
	if w.Nanosecond != 0 {
		frac := strconv.Itoa(1_000_000_000 + w.Nanosecond%1_000_000_000)[1:]
		for frac[len(frac)-1] == '0' {
			frac = frac[:len(frac)-1]
		}
		b = append(b, '.')
		b = append(b, frac...)
	}
	return string(b)
}

// DateString formats the civil date of w: "2024-11-03".
func (w Wall) DateString() string { return string(appendDate(nil, w.Year, w.Month, w.Day)) }

// appendDate appends "2024-11-03", with at least four digits of year.
func appendDate(b []byte, y int, m time.Month, d int) []byte {
	if y < 0 {
		b = append(b, '-')
		y = -y
	}
	ys := strconv.Itoa(y)
	for i := len(ys); i < 4; i++ {
		b = append(b, '0')
	}
	b = append(b, ys...)
	b = append(b, '-')
	b = append2(b, int(m))
	b = append(b, '-')
	return append2(b, d)
}

func append2(b []byte, v int) []byte {
	if v < 0 || v > 99 {
		return strconv.AppendInt(b, int64(v), 10)
	}
	return append(b, byte('0'+v/10), byte('0'+v%10))
}

// ParseWall parses an ISO 8601 wall reading without offset:
// "2024-11-03T01:30", "2024-11-03T01:30:00", "2024-11-03T01:30:00.25" or
// "2024-11-03 01:30:00". A bare date "2024-11-03" is midnight. The result is
// validated: "2024-02-30T00:00" is an error wrapping ErrInvalidArgument.
func ParseWall(s string) (Wall, error) {
	layouts := []string{
		"2006-01-02T15:04:05.999999999",
		"2006-01-02T15:04",
		"2006-01-02 15:04:05.999999999",
		"2006-01-02 15:04",
		"2006-01-02",
	}
	for _, l := range layouts {
		// time.Parse normalises nothing for these layouts: it rejects day 30
		// in February and hour 24, which is what we want; parsing in UTC
		// keeps every reading (no gaps in UTC).
		if t, err := time.Parse(l, s); err == nil {
			return wallOf(t), nil
		}
	}
	return Wall{}, errorf("dstsafe: parse wall time %q: want YYYY-MM-DDTHH:MM[:SS[.fff]]: %w", s, errInvalidWall)
}

// Date returns the civil date of w.
func (w Wall) Date() (year int, month time.Month, day int) { return w.Year, w.Month, w.Day }

// Weekday returns the day of the week of w's date (proleptic Gregorian).
func (w Wall) Weekday() time.Weekday {
	return weekdayOf(daysFromCivil(w.Year, w.Month, w.Day))
}

// Compare returns -1, 0 or +1 as w is before, equal to or after v in
// calendar order. Calendar order is not instant order: in a fold the
// readings of 01:45 CDT come before 01:15 CST.
func (w Wall) Compare(v Wall) int {
	a, b := w.naive(), v.naive()
	switch {
	case a < b:
		return -1
	case a > b:
		return 1
	case w.Nanosecond < v.Nanosecond:
		return -1
	case w.Nanosecond > v.Nanosecond:
		return 1
	}
	return 0
}

// Before reports whether w is before v in calendar order.
func (w Wall) Before(v Wall) bool { return w.Compare(v) < 0 }

// After reports whether w is after v in calendar order.
func (w Wall) After(v Wall) bool { return w.Compare(v) > 0 }

// IsZero reports whether w is the zero Wall (not a valid reading).
func (w Wall) IsZero() bool { return w == Wall{} }

// naive returns the whole seconds of w counted as if w were a UTC reading:
// the "local seconds" that a zone's offset maps to instants.
func (w Wall) naive() int64 {
	return daysFromCivil(w.Year, w.Month, w.Day)*secondsPerDay +
		int64(w.Hour)*3600 + int64(w.Minute)*60 + int64(w.Second)
}

// wallOfNaive is the inverse of Wall.naive.
func wallOfNaive(s int64, nsec int) Wall {
	days := s / secondsPerDay
	rem := s % secondsPerDay
	if rem < 0 {
		rem += secondsPerDay
		days--
	}
	y, m, d := civilFromDays(days)
	return Wall{y, m, d, int(rem / 3600), int(rem / 60 % 60), int(rem % 60), nsec}
}

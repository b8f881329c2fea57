package calendar

import (
	"cmp"
	"slices"
	"sync/atomic"
	"time"

	"github.com/dstsafe/dstsafe"
	"github.com/dstsafe/dstsafe/internal/civil"
)

// Holiday is a rule naming one date a year: a fixed date (December 25),
// the nth weekday of a month (the fourth Thursday of November), the last
// weekday of a month (the last Monday of May), or a number of days from
// Western Easter (Good Friday is -2), with an observance rule that moves a
// date falling on a weekend, and the years it is in force. Build one with
// FixedHoliday, NthWeekdayHoliday, LastWeekdayHoliday or EasterHoliday; the
// zero Holiday names no date.
type Holiday struct {
	Name string

	kind     holidayKind
	month    time.Month
	day      int // FixedHoliday
	n        int // NthWeekdayHoliday: 1-5, or -1 for the last
	weekday  time.Weekday
	offset   int // EasterHoliday
	observed Observance
	from, to int // years in force; 0: unbounded
}

type holidayKind uint8

const (
	holidayNone holidayKind = iota
	holidayFixed
	holidayNth
	holidayEaster
)

// Observance says on which date a holiday that falls on a weekend is
// observed.
type Observance uint8

const (
	// ObservedOnDate keeps the date, whatever day it falls on.
	ObservedOnDate Observance = iota
	// ObservedNearestWeekday moves a Saturday to the Friday before and a
	// Sunday to the Monday after, as United States federal holidays are
	// observed (5 U.S.C. 6103(b)).
	ObservedNearestWeekday
	// ObservedMonday moves a Saturday or a Sunday to the Monday after.
	ObservedMonday
	// ObservedSundayToMonday moves a Sunday to the Monday after and
	// keeps a Saturday.
	ObservedSundayToMonday
)

// FixedHoliday is the holiday on day of month m every year (a February 29
// holiday only in leap years).
func FixedHoliday(name string, m time.Month, day int) Holiday {
	return Holiday{Name: name, kind: holidayFixed, month: m, day: day}
}

// NthWeekdayHoliday is the holiday on the nth weekday wd of month m: n is
// 1 to 5 from the start of the month (a fifth that a month lacks is not a
// holiday that year) or -1 to -5 from its end. It panics on n out of
// range.
func NthWeekdayHoliday(name string, n int, wd time.Weekday, m time.Month) Holiday {
	if n == 0 || n > 5 || n < -5 {
		panic("dstsafe: NthWeekdayHoliday: n must be 1 to 5 or -1 to -5")
	}
	return Holiday{Name: name, kind: holidayNth, month: m, n: n, weekday: wd}
}

// LastWeekdayHoliday is the holiday on the last weekday wd of month m
// (Memorial Day: the last Monday of May).
func LastWeekdayHoliday(name string, wd time.Weekday, m time.Month) Holiday {
	return NthWeekdayHoliday(name, -1, wd, m)
}

// EasterHoliday is the holiday days after Western (Gregorian) Easter
// Sunday: -2 is Good Friday, 1 Easter Monday, 39 Ascension Day, 50 Whit
// Monday.
func EasterHoliday(name string, days int) Holiday {
	return Holiday{Name: name, kind: holidayEaster, offset: days}
}

// Observed returns h with observance o.
func (h Holiday) Observed(o Observance) Holiday {
	h.observed = o
	return h
}

// Years returns h in force from year from to year to, inclusive; 0 leaves
// either end open (Juneteenth: Years(2021, 0)).
func (h Holiday) Years(from, to int) Holiday {
	h.from, h.to = from, to
	return h
}

// Date returns the date h is observed on for its instance of year (which
// may fall in the year before: New Year's Day 2022, a Saturday, observed
// on Friday 2021-12-31), or false when h is not in force that year or
// names no date (a fifth Monday the month lacks).
func (h Holiday) Date(year int) (dstsafe.Date, bool) {
	if h.kind == holidayNone || h.from != 0 && year < h.from || h.to != 0 && year > h.to {
		return dstsafe.Date{}, false
	}
	var day int64
	switch h.kind {
	case holidayFixed:
		if h.month < time.January || h.month > time.December || h.day < 1 || h.day > civil.DaysIn(year, h.month) {
			return dstsafe.Date{}, false
		}
		day = civil.DaysFromCivil(year, h.month, h.day)
	case holidayNth:
		n := civil.DaysIn(year, h.month)
		first := civil.DaysFromCivil(year, h.month, 1)
		f := 1 + (int(h.weekday)-int(civil.WeekdayOf(first))+7)%7
		cnt := (n-f)/7 + 1
		k := h.n
		if k < 0 {
			k = cnt + 1 + k
		}
		if k < 1 || k > cnt {
			return dstsafe.Date{}, false
		}
		day = first + int64(f-1+7*(k-1))
	case holidayEaster:
		m, d := easter(year)
		day = civil.DaysFromCivil(year, m, d) + int64(h.offset)
	}
	switch wd := civil.WeekdayOf(day); {
	case wd == time.Saturday && h.observed == ObservedNearestWeekday:
		day--
	case wd == time.Saturday && h.observed == ObservedMonday:
		day += 2
	case wd == time.Sunday && h.observed != ObservedOnDate:
		day++
	}
	y, m, d := civil.CivilFromDays(day)
	return dstsafe.Date{Year: y, Month: m, Day: d}, true
}

// easter returns the date of Western Easter Sunday in year y: the
// anonymous Gregorian algorithm (Meeus, Astronomical Algorithms, ch. 8).
func easter(y int) (time.Month, int) {
	a := floorModInt(y, 19)
	b, c := floorDivInt(y, 100), floorModInt(y, 100)
	d, e := b/4, b%4
	f := (b + 8) / 25
	g := (b - f + 1) / 3
	h := (19*a + b - d - g + 15) % 30
	i, k := c/4, c%4
	l := floorModInt(32+2*e+2*i-h-k, 7)
	m := (a + 11*h + 22*l) / 451
	month := (h + l - 7*m + 114) / 31
	day := (h+l-7*m+114)%31 + 1
	return time.Month(month), day
}

// floorDivInt and floorModInt round towards minus infinity (Go's / and %
// round towards zero), with internal/civil's FloorDiv.
func floorDivInt(a, b int) int { return int(civil.FloorDiv(int64(a), int64(b))) }

func floorModInt(a, b int) int { return a - floorDivInt(a, b)*b }

// Holidays is a Calendar of holiday rules. It is safe for concurrent use.
type Holidays struct {
	hs []Holiday
	// cache[y mod 4] holds year y's dates: a search across New Year
	// keeps both years.
	cache [4]atomic.Pointer[holidayYear]
}

// holidayYear is one year's observed dates, by day number.
type holidayYear struct {
	year  int
	days  []int64
	names []string
}

// NewHolidays returns the calendar of the holidays hs.
func NewHolidays(hs ...Holiday) *Holidays { return &Holidays{hs: slices.Clone(hs)} }

// Contains reports whether d is the observed date of one of the holidays.
// It allocates only the first time it is asked about a year.
func (h *Holidays) Contains(d dstsafe.Date) bool {
	_, ok := h.Name(d)
	return ok
}

// Name returns the name of the holiday observed on d, or false.
func (h *Holidays) Name(d dstsafe.Date) (string, bool) {
	y := h.year(d.Year)
	if i, found := slices.BinarySearch(y.days, civil.DaysFromCivil(d.Year, d.Month, d.Day)); found {
		return y.names[i], true
	}
	return "", false
}

// year returns the observed dates falling in year (from that year's
// instances and from the next year's moved back, such as New Year's Day
// observed on December 31), computing them on first use.
func (h *Holidays) year(year int) *holidayYear {
	slot := &h.cache[floorModInt(year, 4)]
	if c := slot.Load(); c != nil && c.year == year {
		return c
	}
	y := &holidayYear{year: year}
	type named struct {
		day  int64
		name string
	}
	var all []named
	for _, hol := range h.hs {
		for _, yy := range []int{year - 1, year, year + 1} {
			if d, ok := hol.Date(yy); ok && d.Year == year {
				all = append(all, named{civil.DaysFromCivil(d.Year, d.Month, d.Day), hol.Name})
			}
		}
	}
	slices.SortStableFunc(all, func(a, b named) int { return cmp.Compare(a.day, b.day) })
	for _, n := range all {
		if k := len(y.days); k > 0 && y.days[k-1] == n.day {
			continue // two holidays observed on one date
		}
		y.days = append(y.days, n.day)
		y.names = append(y.names, n.name)
	}
	slot.Store(y)
	return y
}

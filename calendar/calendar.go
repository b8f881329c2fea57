package calendar

import (
	"slices"
	"time"

	"github.com/dstsafe/dstsafe"
	"github.com/dstsafe/dstsafe/internal/civil"
)

// Calendar is a set of civil dates: weekends, bank holidays, closures. A
// business day is a date the calendar does not contain. Dates have no zone
// and no DST; [In] places a calendar in a zone, where each date is the
// whole local day, and [Excluding] reads a calendar in its schedule's zone.
//
// Implementations must be safe for concurrent use; every Calendar in this
// package is immutable.
type Calendar interface {
	// Contains reports whether d is in the calendar (not a business day).
	Contains(d dstsafe.Date) bool
}

// WeekdaySet is a Calendar of the days of the week it holds (bit n: the
// weekday n, Sunday = 0). The zero WeekdaySet contains no date.
type WeekdaySet uint8

// Weekdays returns the calendar of the given days of the week.
func Weekdays(days ...time.Weekday) WeekdaySet {
	var s WeekdaySet
	for _, d := range days {
		s |= 1 << (d % 7)
	}
	return s
}

// Weekends returns the calendar of Saturdays and Sundays.
func Weekends() WeekdaySet { return Weekdays(time.Saturday, time.Sunday) }

// Contains reports whether d falls on one of the set's weekdays.
func (s WeekdaySet) Contains(d dstsafe.Date) bool { return s&(1<<d.Weekday()) != 0 }

// DateSet is a Calendar of explicit dates (one-off closures).
type DateSet struct {
	days []int64 // sorted day numbers
}

// Dates returns the calendar of the given dates. It panics on an invalid
// Date (February 30): a date written in code that does not exist is a
// programmer's error; parse dates from input with ParseDate.
func Dates(ds ...dstsafe.Date) *DateSet {
	s := &DateSet{days: make([]int64, 0, len(ds))}
	for _, d := range ds {
		if !d.IsValid() {
			panic("dstsafe: Dates: invalid date " + d.String())
		}
		s.days = append(s.days, civil.DaysFromCivil(d.Year, d.Month, d.Day))
	}
	slices.Sort(s.days)
	s.days = slices.Compact(s.days)
	return s
}

// Contains reports whether d is one of the dates.
func (s *DateSet) Contains(d dstsafe.Date) bool {
	_, found := slices.BinarySearch(s.days, civil.DaysFromCivil(d.Year, d.Month, d.Day))
	return found
}

// Union returns the calendar of the dates any of cals contains: weekends
// and bank holidays, say.
func Union(cals ...Calendar) Calendar { return unionCal(slices.Clone(cals)) }

type unionCal []Calendar

func (u unionCal) Contains(d dstsafe.Date) bool {
	for _, c := range u {
		if c.Contains(d) {
			return true
		}
	}
	return false
}

// Difference returns the calendar of the dates a contains and b does not:
// the weekends less the Saturdays a market opens, say.
func Difference(a, b Calendar) Calendar { return diffCal{a, b} }

type diffCal struct{ a, b Calendar }

func (c diffCal) Contains(d dstsafe.Date) bool { return c.a.Contains(d) && !c.b.Contains(d) }

// ZonedCalendar is a Calendar placed in a zone: each of its dates is the
// whole local day there, from the first instant that reads the date to the
// first that reads the next one, also where the day has no midnight
// (America/Santiago 2019-09-08 and America/Havana 2024-03-10 begin at
// 01:00, the clocks having jumped from 00:00) or begins twice (America/Havana
// 2024-11-03, where 00:00 happens twice).
type ZonedCalendar struct {
	cal Calendar
	loc *time.Location
}

// In places cal in zone loc. It panics if cal or loc is nil.
func In(cal Calendar, loc *time.Location) ZonedCalendar {
	if cal == nil || loc == nil {
		panic("calendar.In: nil calendar or location")
	}
	return ZonedCalendar{cal, loc}
}

// Contains reports whether the calendar contains d.
func (z ZonedCalendar) Contains(d dstsafe.Date) bool { return z.cal.Contains(d) }

// Location returns the calendar's zone.
func (z ZonedCalendar) Location() *time.Location { return z.loc }

// ContainsTime reports whether instant t falls on a date the calendar
// contains, t's date being its civil date in the calendar's zone.
func (z ZonedCalendar) ContainsTime(t time.Time) bool {
	return z.cal.Contains(dstsafe.DateOf(t, z.loc))
}

// Day returns the instants of date d in the calendar's zone: [start, end),
// from the first instant that reads d to the first that reads the day
// after. Where the clocks skip midnight, start is the end of the gap (the
// day's first instant, 01:00), never the instant time.Date would pick; a
// day the zone skipped entirely (Pacific/Apia 2011-12-30) has start ==
// end. Where the clocks go back across midnight, the span also holds the
// repeated end of the day before; ContainsTime is exact for every instant.
func (z ZonedCalendar) Day(d dstsafe.Date) (start, end time.Time) {
	return d.Start(z.loc), d.AddDays(1).Start(z.loc)
}

package calendar_test

import (
	"fmt"
	"testing"
	"time"

	"github.com/dstsafe/dstsafe"
	"github.com/dstsafe/dstsafe/calendar"
	"github.com/dstsafe/dstsafe/dstsafetest"
)

func ExampleWeekdays() {
	fridays := calendar.Weekdays(time.Friday)
	fmt.Println(fridays.Contains(dstsafe.Date{Year: 2024, Month: time.July, Day: 5}))
	// Output: true
}

func ExampleWeekends() {
	fmt.Println(calendar.Weekends().Contains(dstsafe.Date{Year: 2024, Month: time.July, Day: 6}))
	// Output: true
}

func ExampleWeekdaySet_Contains() {
	var none calendar.WeekdaySet
	fmt.Println(none.Contains(dstsafe.Date{Year: 2024, Month: time.July, Day: 6}))
	// Output: false
}

func ExampleDates() {
	closures := calendar.Dates(dstsafe.Date{Year: 2024, Month: time.December, Day: 24}, dstsafe.Date{Year: 2024, Month: time.December, Day: 31})
	fmt.Println(closures.Contains(dstsafe.Date{Year: 2024, Month: time.December, Day: 31}))
	// Output: true
}

func ExampleDateSet_Contains() {
	closures := calendar.Dates(dstsafe.Date{Year: 2024, Month: time.December, Day: 24})
	fmt.Println(closures.Contains(dstsafe.Date{Year: 2024, Month: time.December, Day: 23}))
	// Output: false
}

// Bank holidays and weekends, less a Saturday the market opens.
func ExampleUnion() {
	bank := calendar.Union(calendar.Weekends(), calendar.USFederalHolidays())
	open := calendar.Difference(bank, calendar.Dates(dstsafe.Date{Year: 2024, Month: time.December, Day: 28}))
	for _, d := range []int{25, 26, 28, 29} {
		day := dstsafe.Date{Year: 2024, Month: time.December, Day: d}
		fmt.Println(day, bank.Contains(day), open.Contains(day))
	}
	// Output:
	// 2024-12-25 true true
	// 2024-12-26 false false
	// 2024-12-28 true false
	// 2024-12-29 true true
}

func ExampleDifference() {
	weekdays := calendar.Difference(calendar.Weekdays(0, 1, 2, 3, 4, 5, 6), calendar.Weekends())
	fmt.Println(weekdays.Contains(dstsafe.Date{Year: 2024, Month: time.July, Day: 5}))
	// Output: true
}

// In Havana the clocks jumped from 00:00 to 01:00 on 2024-03-10: a holiday
// that day begins at 01:00 CDT, and every instant of it is in the
// calendar. time.Date would have placed its midnight on the 9th.
func ExampleIn() {
	havana := pinnedZone("America/Havana")
	d := dstsafe.Date{Year: 2024, Month: time.March, Day: 10}
	cal := calendar.In(calendar.Dates(d), havana)
	start, end := cal.Day(d)
	fmt.Println(start.Format(time.RFC3339), end.Format(time.RFC3339), end.Sub(start))
	fmt.Println(cal.ContainsTime(start), cal.ContainsTime(start.Add(-time.Second)))
	fmt.Println(time.Date(2024, 3, 10, 0, 0, 0, 0, havana).Format(time.RFC3339))
	// Output:
	// 2024-03-10T01:00:00-04:00 2024-03-11T00:00:00-04:00 23h0m0s
	// true false
	// 2024-03-09T23:00:00-05:00
}

func ExampleZonedCalendar_Day() {
	cal := calendar.In(calendar.Weekends(), pinnedZone("Pacific/Apia"))
	start, end := cal.Day(dstsafe.Date{Year: 2011, Month: time.December, Day: 30}) // skipped by Samoa
	fmt.Println(start.Format(time.RFC3339), start.Equal(end))
	// Output: 2011-12-31T00:00:00+14:00 true
}

func ExampleZonedCalendar_ContainsTime() {
	cal := calendar.In(calendar.Weekends(), chicago())
	// 2024-11-03 01:30 CST, the second 01:30 of that Sunday.
	fmt.Println(cal.ContainsTime(time.Date(2024, 11, 3, 7, 30, 0, 0, time.UTC)))
	// Output: true
}

func ExampleZonedCalendar_Contains() {
	cal := calendar.In(calendar.Weekends(), chicago())
	fmt.Println(cal.Contains(dstsafe.Date{Year: 2024, Month: time.November, Day: 4}), cal.Location())
	// Output: false America/Chicago
}

func ExampleZonedCalendar_Location() {
	fmt.Println(calendar.In(calendar.Weekends(), time.UTC).Location())
	// Output: UTC
}

// Holiday rules of each kind, and their dates in 2027.
func ExampleHoliday() {
	for _, h := range []calendar.Holiday{
		calendar.FixedHoliday("Christmas Day", time.December, 25).Observed(calendar.ObservedNearestWeekday),
		calendar.FixedHoliday("Boxing Day", time.December, 26).Observed(calendar.ObservedMonday),
		calendar.FixedHoliday("National Day", time.July, 4).Observed(calendar.ObservedSundayToMonday),
		calendar.NthWeekdayHoliday("Thanksgiving Day", 4, time.Thursday, time.November),
		calendar.LastWeekdayHoliday("Memorial Day", time.Monday, time.May),
		calendar.EasterHoliday("Good Friday", -2),
		calendar.FixedHoliday("Founders' Day", time.March, 1).Observed(calendar.ObservedOnDate).Years(2030, 0),
	} {
		if d, ok := h.Date(2027); ok {
			fmt.Printf("%-16s %v %s\n", h.Name, d, d.Weekday())
		} else {
			fmt.Printf("%-16s not in 2027\n", h.Name)
		}
	}
	// Output:
	// Christmas Day    2027-12-24 Friday
	// Boxing Day       2027-12-27 Monday
	// National Day     2027-07-05 Monday
	// Thanksgiving Day 2027-11-25 Thursday
	// Memorial Day     2027-05-31 Monday
	// Good Friday      2027-03-26 Friday
	// Founders' Day    not in 2027
}

func ExampleFixedHoliday() {
	d, ok := calendar.FixedHoliday("Leap Day", time.February, 29).Date(2025)
	fmt.Println(d, ok)
	// Output: 0000-00-00 false
}

func ExampleNthWeekdayHoliday() {
	d, _ := calendar.NthWeekdayHoliday("Labor Day", 1, time.Monday, time.September).Date(2025)
	fmt.Println(d)
	// Output: 2025-09-01
}

func ExampleLastWeekdayHoliday() {
	d, _ := calendar.LastWeekdayHoliday("Summer Bank Holiday", time.Monday, time.August).Date(2025)
	fmt.Println(d)
	// Output: 2025-08-25
}

func ExampleEasterHoliday() {
	d, _ := calendar.EasterHoliday("Easter Monday", 1).Date(2025)
	fmt.Println(d)
	// Output: 2025-04-21
}

// New Year's Day 2022 was a Saturday: observed on Friday, 2021-12-31.
func ExampleHoliday_Observed() {
	d, _ := calendar.FixedHoliday("New Year's Day", time.January, 1).Observed(calendar.ObservedNearestWeekday).Date(2022)
	fmt.Println(d, d.Weekday())
	// Output: 2021-12-31 Friday
}

func ExampleHoliday_Years() {
	juneteenth := calendar.FixedHoliday("Juneteenth", time.June, 19).Years(2021, 0)
	_, before := juneteenth.Date(2020)
	d, _ := juneteenth.Date(2021)
	fmt.Println(before, d)
	// Output: false 2021-06-19
}

func ExampleHoliday_Date() {
	// February 2024 has five Thursdays and four Fridays.
	thu, ok1 := calendar.NthWeekdayHoliday("fifth Thursday", 5, time.Thursday, time.February).Date(2024)
	_, ok2 := calendar.NthWeekdayHoliday("fifth Friday", 5, time.Friday, time.February).Date(2024)
	fmt.Println(thu, ok1, ok2)
	// Output: 2024-02-29 true false
}

func ExampleNewHolidays() {
	h := calendar.NewHolidays(calendar.FixedHoliday("Christmas Day", time.December, 25), calendar.EasterHoliday("Good Friday", -2))
	fmt.Println(h.Contains(dstsafe.Date{Year: 2025, Month: time.April, Day: 18}))
	// Output: true
}

func ExampleHolidays_Contains() {
	us := calendar.USFederalHolidays()
	fmt.Println(us.Contains(dstsafe.Date{Year: 2026, Month: time.July, Day: 3})) // July 4 is a Saturday
	// Output: true
}

func ExampleHolidays_Name() {
	name, ok := calendar.USFederalHolidays().Name(dstsafe.Date{Year: 2021, Month: time.December, Day: 31})
	fmt.Println(name, ok)
	// Output: New Year's Day true
}

// The example holiday set: the US federal holidays of 2025. An example of
// building a calendar, not a maintained holiday database.
func ExampleUSFederalHolidays() {
	us := calendar.USFederalHolidays()
	for d := (dstsafe.Date{Year: 2025, Month: time.January, Day: 1}); d.Year == 2025; d = d.AddDays(1) {
		if name, ok := us.Name(d); ok {
			fmt.Println(d, name)
		}
	}
	// Output:
	// 2025-01-01 New Year's Day
	// 2025-01-20 Birthday of Martin Luther King, Jr.
	// 2025-02-17 Washington's Birthday
	// 2025-05-26 Memorial Day
	// 2025-06-19 Juneteenth National Independence Day
	// 2025-07-04 Independence Day
	// 2025-09-01 Labor Day
	// 2025-10-13 Columbus Day
	// 2025-11-11 Veterans Day
	// 2025-11-27 Thanksgiving Day
	// 2025-12-25 Christmas Day
}

// pinnedZone loads a zone from dstsafetest's pinned tz data, so the
// examples' output does not depend on the machine's tz database.
func pinnedZone(name string) *time.Location { return dstsafetest.Zone(exampleTB{}, name) }

// exampleTB is the testing.TB of an example: a failure panics, which fails
// the example. Only Helper and Fatalf are called.
type exampleTB struct{ testing.TB }

func (exampleTB) Helper() {}

func (exampleTB) Fatalf(format string, args ...any) { panic(fmt.Sprintf(format, args...)) }

func chicago() *time.Location { return pinnedZone("America/Chicago") }

// A custom Calendar: any type with Contains. Here, the first Monday of
// every month, a monthly maintenance day.
type maintenanceDays struct{}

func (maintenanceDays) Contains(d dstsafe.Date) bool { return d.Weekday() == time.Monday && d.Day <= 7 }

func ExampleCalendar() {
	var cal calendar.Calendar = calendar.Union(calendar.Weekends(), maintenanceDays{})
	for d := (dstsafe.Date{Year: 2024, Month: time.July, Day: 1}); d.Day <= 8; d = d.AddDays(1) {
		fmt.Println(d, d.Weekday(), cal.Contains(d))
	}
	// Output:
	// 2024-07-01 Monday true
	// 2024-07-02 Tuesday false
	// 2024-07-03 Wednesday false
	// 2024-07-04 Thursday false
	// 2024-07-05 Friday false
	// 2024-07-06 Saturday true
	// 2024-07-07 Sunday true
	// 2024-07-08 Monday false
}

// Payroll every other Friday, moved to the business day before a holiday:
// Christmas 2026 is a Friday, so that run is paid on Thursday the 24th and
// keeps its period (the 25th), which is what the ledger claims.
func ExampleExcluding() {
	payroll, _ := dstsafe.ParseRRule("DTSTART:20261211T090000\nRRULE:FREQ=WEEKLY;INTERVAL=2;BYDAY=FR", dstsafe.WithLocation(chicago()))
	bank := calendar.Union(calendar.Weekends(), calendar.USFederalHolidays())
	pay := calendar.Excluding(payroll, bank, calendar.PreviousBusinessDay)
	t := time.Date(2026, 12, 1, 0, 0, 0, 0, time.UTC)
	for range 3 {
		o, _ := pay.NextOccurrence(t)
		fmt.Println(o.At.Format("Mon 2006-01-02 15:04"), "period", o.Period)
		t = o.At
	}
	// Output:
	// Fri 2026-12-11 09:00 period 2026-12-11T09:00:00
	// Thu 2026-12-24 09:00 period 2026-12-25T09:00:00
	// Fri 2027-01-08 09:00 period 2027-01-08T09:00:00
}

// A daily job moved off the weekend: Monday's own run keeps its time,
// Saturday's and Sunday's follow it a second apart, each its own period.
func ExampleExcluded_NextOccurrence() {
	daily, _ := dstsafe.ParseRRule("DTSTART:20240719T170000\nRRULE:FREQ=DAILY;COUNT=4", dstsafe.WithLocation(chicago()))
	e := calendar.Excluding(daily, calendar.Weekends(), calendar.NextBusinessDay)
	t := time.Date(2024, 7, 1, 0, 0, 0, 0, time.UTC)
	for o, ok := e.NextOccurrence(t); ok; o, ok = e.NextOccurrence(o.At) {
		fmt.Println(o.At.Format("Mon 15:04:05"), "period", o.Period)
	}
	// Output:
	// Fri 17:00:00 period 2024-07-19T17:00:00
	// Mon 17:00:00 period 2024-07-22T17:00:00
	// Mon 17:00:01 period 2024-07-20T17:00:00
	// Mon 17:00:02 period 2024-07-21T17:00:00
}

func ExampleExcluded_Next() {
	daily, _ := dstsafe.ParseRRule("DTSTART:20240719T170000\nRRULE:FREQ=DAILY", dstsafe.WithLocation(chicago()))
	e := calendar.Excluding(daily, calendar.Weekends(), calendar.SkipHoliday)
	fmt.Println(e.Next(time.Date(2024, 7, 19, 23, 0, 0, 0, time.UTC)).Format("Mon 2006-01-02 15:04"))
	// Output: Mon 2024-07-22 17:00
}

func ExampleHolidayPolicy_String() {
	fmt.Println(calendar.SkipHoliday, calendar.NextBusinessDay, calendar.PreviousBusinessDay)
	// Output: skip next-business-day previous-business-day
}

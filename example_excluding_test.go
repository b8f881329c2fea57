package dstsafe_test

import (
	"fmt"
	"time"

	"github.com/dstsafe/dstsafe"
	"github.com/dstsafe/dstsafe/calendar"
)

// A custom Calendar: any type with Contains. Here, the first Monday of
// every month, a monthly maintenance day.
type maintenanceDays struct{}

func (maintenanceDays) Contains(d dstsafe.Date) bool { return d.Weekday() == time.Monday && d.Day <= 7 }

func ExampleCalendar() {
	var cal dstsafe.Calendar = calendar.Union(calendar.Weekends(), maintenanceDays{})
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
	pay := dstsafe.Excluding(payroll, bank, dstsafe.PreviousBusinessDay)
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
	e := dstsafe.Excluding(daily, calendar.Weekends(), dstsafe.NextBusinessDay)
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
	e := dstsafe.Excluding(daily, calendar.Weekends(), dstsafe.SkipHoliday)
	fmt.Println(e.Next(time.Date(2024, 7, 19, 23, 0, 0, 0, time.UTC)).Format("Mon 2006-01-02 15:04"))
	// Output: Mon 2024-07-22 17:00
}

func ExampleHolidayPolicy_String() {
	fmt.Println(dstsafe.SkipHoliday, dstsafe.NextBusinessDay, dstsafe.PreviousBusinessDay)
	// Output: skip next-business-day previous-business-day
}

package calendar_test

import (
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/dstsafe/dstsafe"
	"github.com/dstsafe/dstsafe/calendar"
)

func date(y int, m time.Month, d int) dstsafe.Date { return dstsafe.Date{Year: y, Month: m, Day: d} }

// TestUSFederalHolidays: the observed dates the Office of Personnel
// Management published for 2021-2027 (opm.gov, "Federal Holidays").
func TestUSFederalHolidays(t *testing.T) {
	want := map[int]string{
		2021: "01-01 01-18 02-15 05-31 06-18 07-05 09-06 10-11 11-11 11-25 12-24 12-31", // Juneteenth's first year; New Year 2022 is a Saturday
		2022: "01-17 02-21 05-30 06-20 07-04 09-05 10-10 11-11 11-24 12-26",
		2023: "01-02 01-16 02-20 05-29 06-19 07-04 09-04 10-09 11-10 11-23 12-25",
		2024: "01-01 01-15 02-19 05-27 06-19 07-04 09-02 10-14 11-11 11-28 12-25",
		2025: "01-01 01-20 02-17 05-26 06-19 07-04 09-01 10-13 11-11 11-27 12-25",
		2026: "01-01 01-19 02-16 05-25 06-19 07-03 09-07 10-12 11-11 11-26 12-25", // July 4 is a Saturday
		2027: "01-01 01-18 02-15 05-31 06-18 07-05 09-06 10-11 11-11 11-25 12-24 12-31",
	}
	us := calendar.USFederalHolidays()
	for y, w := range want {
		var got []string
		for d := date(y, 1, 1); d.Year == y; d = d.AddDays(1) {
			if us.Contains(d) {
				got = append(got, d.String()[5:])
			}
		}
		if strings.Join(got, " ") != w {
			t.Errorf("%d: got  %s\n      want %s", y, strings.Join(got, " "), w)
		}
	}
	if name, ok := us.Name(date(2021, 12, 31)); !ok || name != "New Year's Day" {
		t.Errorf("2021-12-31 is %q, %v; want New Year's Day (2022's, observed)", name, ok)
	}
	if us.Contains(date(2020, 6, 19)) {
		t.Error("Juneteenth before 2021")
	}
}

// gaussEaster is Gauss's Easter algorithm with its two exceptions: an
// independent way to the date the package computes with Meeus's.
func gaussEaster(y int) dstsafe.Date {
	a, b, c := y%19, y%4, y%7
	k := y / 100
	p := (13 + 8*k) / 25
	q := k / 4
	m := (15 - p + k - q) % 30
	n := (4 + k - q) % 7
	d := (19*a + m) % 30
	e := (2*b + 4*c + 6*d + n) % 7
	switch {
	case d == 29 && e == 6:
		return date(y, time.April, 19)
	case d == 28 && e == 6 && (11*m+11)%30 < 19:
		return date(y, time.April, 18)
	case d+e < 10:
		return date(y, time.March, 22+d+e)
	}
	return date(y, time.April, d+e-9)
}

func TestEaster(t *testing.T) {
	known := map[int]dstsafe.Date{
		1818: date(1818, 3, 22), 1943: date(1943, 4, 25), 1961: date(1961, 4, 2), 2000: date(2000, 4, 23),
		2019: date(2019, 4, 21), 2024: date(2024, 3, 31), 2025: date(2025, 4, 20), 2038: date(2038, 4, 25),
		2285: date(2285, 3, 22),
	}
	easter := calendar.EasterHoliday("Easter Sunday", 0)
	goodFriday := calendar.EasterHoliday("Good Friday", -2)
	for y := 1583; y <= 4099; y++ {
		want := gaussEaster(y)
		if k, ok := known[y]; ok && k != want {
			t.Fatalf("the oracle says %v for %d, the almanac %v", want, y, k)
		}
		if got, _ := easter.Date(y); got != want {
			t.Errorf("Easter %d: %v, want %v", y, got, want)
		}
		if got, _ := goodFriday.Date(y); got != want.AddDays(-2) || got.Weekday() != time.Friday {
			t.Errorf("Good Friday %d: %v", y, got)
		}
	}
}

// TestHolidayRules: nth and last weekdays and the observance rules against
// a scan of the month with the time package.
func TestHolidayRules(t *testing.T) {
	for y := 1990; y <= 2100; y++ {
		for m := time.January; m <= time.December; m++ {
			for wd := time.Sunday; wd <= time.Saturday; wd++ {
				var days []int // the days of month m that are weekday wd
				for d := 1; d <= 31; d++ {
					tm := time.Date(y, m, d, 12, 0, 0, 0, time.UTC)
					if tm.Month() == m && tm.Weekday() == wd {
						days = append(days, d)
					}
				}
				for n := 1; n <= 5; n++ {
					got, ok := calendar.NthWeekdayHoliday("", n, wd, m).Date(y)
					if n > len(days) {
						if ok {
							t.Errorf("%d-%02d: %d. %v is %v, but the month has %d", y, m, n, wd, got, len(days))
						}
						continue
					}
					if !ok || got != date(y, m, days[n-1]) {
						t.Errorf("%d-%02d: %d. %v is %v, want day %d", y, m, n, wd, got, days[n-1])
					}
					if last, _ := calendar.NthWeekdayHoliday("", -n, wd, m).Date(y); n <= len(days) && last != date(y, m, days[len(days)-n]) {
						t.Errorf("%d-%02d: %d. last %v is %v", y, m, n, wd, last)
					}
				}
				if last, _ := calendar.LastWeekdayHoliday("", wd, m).Date(y); last != date(y, m, days[len(days)-1]) {
					t.Errorf("%d-%02d: last %v is %v", y, m, wd, last)
				}
			}
			// Observance of a fixed date on the 15th.
			wd := time.Date(y, m, 15, 12, 0, 0, 0, time.UTC).Weekday()
			shift := map[calendar.Observance]map[time.Weekday]int{
				calendar.ObservedOnDate:         {},
				calendar.ObservedNearestWeekday: {time.Saturday: -1, time.Sunday: 1},
				calendar.ObservedMonday:         {time.Saturday: 2, time.Sunday: 1},
				calendar.ObservedSundayToMonday: {time.Sunday: 1},
			}
			for o, sh := range shift {
				got, _ := calendar.FixedHoliday("", m, 15).Observed(o).Date(y)
				if want := date(y, m, 15+sh[wd]); got != want {
					t.Errorf("%d-%02d-15 (%v) observed %v: %v, want %v", y, m, wd, o, got, want)
				}
			}
		}
	}
	if _, ok := calendar.FixedHoliday("leap day", time.February, 29).Date(2025); ok {
		t.Error("February 29, 2025")
	}
	if _, ok := calendar.FixedHoliday("x", time.May, 1).Years(2000, 2010).Date(2011); ok {
		t.Error("a holiday in force to 2010 in 2011")
	}
	if _, ok := (calendar.Holiday{}).Date(2024); ok {
		t.Error("the zero Holiday names a date")
	}
}

// TestCalendarSets: weekday sets, explicit dates, union and difference.
func TestCalendarSets(t *testing.T) {
	weekend := calendar.Weekends()
	closures := calendar.Dates(date(2024, 12, 24), date(2024, 12, 31), date(2024, 12, 24))
	marketSaturday := calendar.Dates(date(2024, 12, 28))
	cal := calendar.Difference(calendar.Union(weekend, closures, calendar.USFederalHolidays()), marketSaturday)
	var got []string
	for d := date(2024, 12, 20); d.Before(date(2025, 1, 3)); d = d.AddDays(1) {
		if cal.Contains(d) {
			got = append(got, d.String()[5:])
		}
	}
	// Dec 21-22 weekend, 24 closure, 25 Christmas, 29 Sunday (the 28th
	// opens), 31 closure, Jan 1 New Year's Day.
	if w := "12-21 12-22 12-24 12-25 12-29 12-31 01-01"; strings.Join(got, " ") != w {
		t.Errorf("got %s, want %s", strings.Join(got, " "), w)
	}
	if calendar.WeekdaySet(0).Contains(date(2024, 12, 21)) || !calendar.Weekdays(time.Friday).Contains(date(2024, 12, 20)) {
		t.Error("WeekdaySet")
	}
	defer func() {
		if recover() == nil {
			t.Error("Dates accepted February 30")
		}
	}()
	calendar.Dates(date(2024, 2, 30))
}

// TestHolidaysConcurrent: the year cache under concurrent use.
func TestHolidaysConcurrent(t *testing.T) {
	us := calendar.USFederalHolidays()
	want := map[int][]dstsafe.Date{}
	for y := 2000; y < 2040; y++ {
		for d := date(y, 1, 1); d.Year == y; d = d.AddDays(1) {
			if us.Contains(d) {
				want[y] = append(want[y], d)
			}
		}
	}
	fresh := calendar.USFederalHolidays()
	errs := make(chan string, 8)
	for g := range 8 {
		go func() {
			var bad string
			for i := range 2000 {
				y := 2000 + (g*7+i)%40
				var got []dstsafe.Date
				for d := date(y, 1, 1); d.Year == y; d = d.AddDays(1) {
					if fresh.Contains(d) {
						got = append(got, d)
					}
				}
				if !slices.Equal(got, want[y]) && bad == "" {
					bad = "year " + got[0].String()
				}
				if i > 40 {
					break
				}
			}
			errs <- bad
		}()
	}
	for range 8 {
		if e := <-errs; e != "" {
			t.Error(e)
		}
	}
}

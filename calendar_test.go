package dstsafe_test

import (
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/dstsafe/dstsafe"
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
	us := dstsafe.USFederalHolidays()
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
	easter := dstsafe.EasterHoliday("Easter Sunday", 0)
	goodFriday := dstsafe.EasterHoliday("Good Friday", -2)
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
					got, ok := dstsafe.NthWeekdayHoliday("", n, wd, m).Date(y)
					if n > len(days) {
						if ok {
							t.Errorf("%d-%02d: %d. %v is %v, but the month has %d", y, m, n, wd, got, len(days))
						}
						continue
					}
					if !ok || got != date(y, m, days[n-1]) {
						t.Errorf("%d-%02d: %d. %v is %v, want day %d", y, m, n, wd, got, days[n-1])
					}
					if last, _ := dstsafe.NthWeekdayHoliday("", -n, wd, m).Date(y); n <= len(days) && last != date(y, m, days[len(days)-n]) {
						t.Errorf("%d-%02d: %d. last %v is %v", y, m, n, wd, last)
					}
				}
				if last, _ := dstsafe.LastWeekdayHoliday("", wd, m).Date(y); last != date(y, m, days[len(days)-1]) {
					t.Errorf("%d-%02d: last %v is %v", y, m, wd, last)
				}
			}
			// Observance of a fixed date on the 15th.
			wd := time.Date(y, m, 15, 12, 0, 0, 0, time.UTC).Weekday()
			shift := map[dstsafe.Observance]map[time.Weekday]int{
				dstsafe.ObservedOnDate:         {},
				dstsafe.ObservedNearestWeekday: {time.Saturday: -1, time.Sunday: 1},
				dstsafe.ObservedMonday:         {time.Saturday: 2, time.Sunday: 1},
				dstsafe.ObservedSundayToMonday: {time.Sunday: 1},
			}
			for o, sh := range shift {
				got, _ := dstsafe.FixedHoliday("", m, 15).Observed(o).Date(y)
				if want := date(y, m, 15+sh[wd]); got != want {
					t.Errorf("%d-%02d-15 (%v) observed %v: %v, want %v", y, m, wd, o, got, want)
				}
			}
		}
	}
	if _, ok := dstsafe.FixedHoliday("leap day", time.February, 29).Date(2025); ok {
		t.Error("February 29, 2025")
	}
	if _, ok := dstsafe.FixedHoliday("x", time.May, 1).Years(2000, 2010).Date(2011); ok {
		t.Error("a holiday in force to 2010 in 2011")
	}
	if _, ok := (dstsafe.Holiday{}).Date(2024); ok {
		t.Error("the zero Holiday names a date")
	}
}

// TestCalendarSets: weekday sets, explicit dates, union and difference.
func TestCalendarSets(t *testing.T) {
	weekend := dstsafe.Weekends()
	closures := dstsafe.Dates(date(2024, 12, 24), date(2024, 12, 31), date(2024, 12, 24))
	marketSaturday := dstsafe.Dates(date(2024, 12, 28))
	cal := dstsafe.Difference(dstsafe.Union(weekend, closures, dstsafe.USFederalHolidays()), marketSaturday)
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
	if dstsafe.WeekdaySet(0).Contains(date(2024, 12, 21)) || !dstsafe.Weekdays(time.Friday).Contains(date(2024, 12, 20)) {
		t.Error("WeekdaySet")
	}
	defer func() {
		if recover() == nil {
			t.Error("Dates accepted February 30")
		}
	}()
	dstsafe.Dates(date(2024, 2, 30))
}

// firstInstantOf finds, with the time package alone, the first unix second
// at which loc's clocks read date d: minute steps from well before, then
// bisection within the step.
func firstInstantOf(loc *time.Location, d dstsafe.Date) int64 {
	reads := func(u int64) int {
		y, m, dd := time.Unix(u, 0).In(loc).Date()
		return date(y, m, dd).Compare(d)
	}
	u := time.Date(d.Year, d.Month, d.Day, 0, 0, 0, 0, time.UTC).Unix() - 30*3600
	for reads(u) < 0 {
		u += 60
	}
	lo, hi := u-60, u // lo reads an earlier date, hi d or later
	for hi-lo > 1 {
		m := lo + (hi-lo)/2
		if reads(m) < 0 {
			lo = m
		} else {
			hi = m
		}
	}
	return hi
}

// TestZonedCalendarDays: in every zone, the days around every offset
// change begin at the first instant that reads them (found by the time
// package alone), also when midnight is in a gap, and every instant of a
// holiday is in the calendar, from its first to its last second.
func TestZonedCalendarDays(t *testing.T) {
	t.Parallel()
	type day struct {
		zone string
		d    dstsafe.Date
		at   string // the first instant, if known from the law
	}
	for _, tc := range []day{
		{"America/Santiago", date(2019, 9, 8), "2019-09-08T01:00:00-03:00"},   // 00:00 -04 -> 01:00 -03
		{"America/Havana", date(2024, 3, 10), "2024-03-10T01:00:00-04:00"},    // 00:00 CST -> 01:00 CDT
		{"America/Havana", date(2024, 11, 3), "2024-11-03T00:00:00-04:00"},    // 01:00 CDT -> 00:00 CST: the first midnight
		{"Asia/Beirut", date(2024, 3, 31), "2024-03-31T01:00:00+03:00"},       // 00:00 EET -> 01:00 EEST
		{"America/Sao_Paulo", date(2018, 11, 4), "2018-11-04T01:00:00-02:00"}, // 00:00 -03 -> 01:00 -02
		{"Pacific/Apia", date(2011, 12, 30), "2011-12-31T00:00:00+14:00"},     // skipped: empty, at the next day's start
	} {
		z := zoneNamed(t, tc.zone)
		cal := dstsafe.CalendarIn(dstsafe.Dates(tc.d), z.Loc)
		start, end := cal.Day(tc.d)
		if start.Format(time.RFC3339) != tc.at {
			t.Errorf("%s %v starts at %v, want %s", tc.zone, tc.d, start.Format(time.RFC3339), tc.at)
		}
		if cal.Location() != z.Loc || !cal.Contains(tc.d) {
			t.Errorf("%s: Location or Contains", tc.zone)
		}
		if !start.Equal(end) && (!cal.ContainsTime(start) || !cal.ContainsTime(end.Add(-time.Second)) || cal.ContainsTime(start.Add(-time.Second)) || cal.ContainsTime(end)) {
			t.Errorf("%s %v: [%v, %v) is not exactly the holiday", tc.zone, tc.d, start, end)
		}
	}
	checked := 0
	for _, z := range distinctZones(t) {
		o := oracleFor(z)
		for i, ch := range o.tested {
			if raceEnabled && i%5 != 0 {
				continue
			}
			y, m, dd := time.Unix(ch.At, 0).In(z.Loc).Date()
			for _, d := range []dstsafe.Date{date(y, m, dd), date(y, m, dd).AddDays(1)} {
				cal := dstsafe.CalendarIn(dstsafe.Dates(d), z.Loc)
				start, _ := cal.Day(d)
				if want := firstInstantOf(z.Loc, d); start.Unix() != want {
					t.Errorf("%s %v starts at %s, want %s", z.Name, d, fmtUnix(z.Loc, start.Unix()), fmtUnix(z.Loc, want))
				}
				checked++
			}
		}
	}
	t.Logf("%d days around offset changes begin where the time package says", checked)
}

// TestHolidaysConcurrent: the year cache under concurrent use.
func TestHolidaysConcurrent(t *testing.T) {
	us := dstsafe.USFederalHolidays()
	want := map[int][]dstsafe.Date{}
	for y := 2000; y < 2040; y++ {
		for d := date(y, 1, 1); d.Year == y; d = d.AddDays(1) {
			if us.Contains(d) {
				want[y] = append(want[y], d)
			}
		}
	}
	fresh := dstsafe.USFederalHolidays()
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

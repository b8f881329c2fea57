package dstsafe_test

import (
	"testing"
	"time"

	"github.com/dstsafe/dstsafe"
	"github.com/dstsafe/dstsafe/calendar"
)

// TestDateStart: in every zone, the days around every offset
// change begin at the first instant that reads them (found by the time
// package alone), also when midnight is in a gap, and every instant of a
// holiday is in the calendar, from its first to its last second.
func TestDateStart(t *testing.T) {
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
		start, end := tc.d.Start(z.Loc), tc.d.AddDays(1).Start(z.Loc)
		cal := calendar.In(calendar.Dates(tc.d), z.Loc)
		if s, e := cal.Day(tc.d); !s.Equal(start) || !e.Equal(end) {
			t.Errorf("%s %v: calendar.In's Day is [%v, %v), Date.Start says [%v, %v)", tc.zone, tc.d, s, e, start, end)
		}
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
				start := d.Start(z.Loc)
				if want := firstInstantOf(z.Loc, d); start.Unix() != want {
					t.Errorf("%s %v starts at %s, want %s", z.Name, d, fmtUnix(z.Loc, start.Unix()), fmtUnix(z.Loc, want))
				}
				checked++
			}
		}
	}
	t.Logf("%d days around offset changes begin where the time package says", checked)
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

package bench

import (
	"testing"
	"time"

	"github.com/dstsafe/dstsafe"
	"github.com/dstsafe/dstsafe/calendar"
	"github.com/teambition/rrule-go"
)

// BenchmarkRRuleNext times one Next of the recurrences billing and payroll
// use, in America/Chicago, from the starts of BenchmarkNext: dstsafe's
// (*RRule).Next (and Excluding for the holiday-aware variant) beside
// teambition/rrule-go v1.8.2's After, which has no RFC 7529 SKIP, so its
// anniversary rule is the equivalent BYMONTHDAY=31,-1;BYSETPOS=1. Target:
// dstsafe under 1 µs and 0 allocs per call.
func BenchmarkRRuleNext(b *testing.B) {
	for _, c := range rruleCases(b) {
		b.Run(c.name, func(b *testing.B) {
			for _, st := range nextStarts {
				b.Run(st.name, func(b *testing.B) {
					b.Run("dstsafe", func(b *testing.B) {
						cpu := startCPU(b)
						for b.Loop() {
							sinkTime = c.dstsafe.Next(st.at)
						}
						cpu.stop(b)
					})
					if c.peer == nil {
						return
					}
					b.Run("rrule-go", func(b *testing.B) {
						cpu := startCPU(b)
						for b.Loop() {
							sinkTime = c.peer.After(st.at, false)
						}
						cpu.stop(b)
					})
				})
			}
		})
	}
}

type rruleCase struct {
	name    string
	dstsafe dstsafe.Schedule
	peer    *rrule.RRule // nil: the peer cannot say it
}

func rruleCases(tb testing.TB) []rruleCase {
	tb.Helper()
	chicago, err := time.LoadLocation("America/Chicago")
	if err != nil {
		tb.Fatal(err)
	}
	parse := func(text string) *dstsafe.RRule {
		r, err := dstsafe.ParseRRule(text)
		if err != nil {
			tb.Fatal(err)
		}
		return r
	}
	peer := func(o rrule.ROption) *rrule.RRule {
		r, err := rrule.NewRRule(o)
		if err != nil {
			tb.Fatal(err)
		}
		return r
	}
	bank := calendar.Union(calendar.Weekends(), calendar.USFederalHolidays())
	return []rruleCase{
		// A subscription renewing at local midnight on the 31st, or the
		// last day of a shorter month.
		{"anniversary-31st", parse("DTSTART;TZID=America/Chicago:20240131T000000\nRRULE:FREQ=MONTHLY;SKIP=BACKWARD"),
			peer(rrule.ROption{Freq: rrule.MONTHLY, Dtstart: time.Date(2024, 1, 31, 0, 0, 0, 0, chicago), Bymonthday: []int{31, -1}, Bysetpos: []int{1}})},
		// Payroll every other Friday at 09:00.
		{"every-other-friday", parse("DTSTART;TZID=America/Chicago:20240105T090000\nRRULE:FREQ=WEEKLY;INTERVAL=2;BYDAY=FR"),
			peer(rrule.ROption{Freq: rrule.WEEKLY, Interval: 2, Dtstart: time.Date(2024, 1, 5, 9, 0, 0, 0, chicago), Byweekday: []rrule.Weekday{rrule.FR}})},
		// Settlement on the last weekday of the month at 17:00.
		{"last-business-day", parse("DTSTART;TZID=America/Chicago:20240131T170000\nRRULE:FREQ=MONTHLY;BYDAY=MO,TU,WE,TH,FR;BYSETPOS=-1"),
			peer(rrule.ROption{Freq: rrule.MONTHLY, Dtstart: time.Date(2024, 1, 31, 17, 0, 0, 0, chicago),
				Byweekday: []rrule.Weekday{rrule.MO, rrule.TU, rrule.WE, rrule.TH, rrule.FR}, Bysetpos: []int{-1}})},
		// The same, skipping US federal holidays too: the last day of the
		// month, moved to the business day before.
		{"last-business-day-holidays", calendar.Excluding(parse("DTSTART;TZID=America/Chicago:20240131T170000\nRRULE:FREQ=MONTHLY;BYMONTHDAY=-1"),
			bank, calendar.PreviousBusinessDay), nil},
	}
}

// TestRRuleFixturesAgree: away from transitions dstsafe and rrule-go give
// the same instants for the benchmarked rules, so both time the same
// search; a few fires on from each start are compared too.
func TestRRuleFixturesAgree(t *testing.T) {
	for _, c := range rruleCases(t) {
		if c.peer == nil {
			continue
		}
		at := nextStarts[0].at
		for range 24 {
			d, p := c.dstsafe.Next(at), c.peer.After(at, false)
			if !d.Equal(p) {
				t.Errorf("%s after %v: dstsafe %v, rrule-go %v", c.name, at, d, p)
				break
			}
			at = d
		}
	}
}

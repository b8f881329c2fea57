package dstsafe_test

import (
	"fmt"
	"time"

	"github.com/dstsafe/dstsafe"
)

// A subscription that renews on its anniversary: from January 31, the 31st,
// or the last day of a shorter month (RFC 7529's SKIP=BACKWARD). Each
// renewal is local midnight in the customer's zone. In a service, name the
// zone in the rule ("DTSTART;TZID=America/Chicago:20240131T000000"); the
// example pins its tzdata with WithLocation instead.
func ExampleParseRRule() {
	renew, err := dstsafe.ParseRRule("DTSTART:20240131T000000\nRRULE:FREQ=MONTHLY;SKIP=BACKWARD;COUNT=4",
		dstsafe.WithLocation(chicago()))
	if err != nil {
		panic(err)
	}
	t := time.Date(2024, 1, 1, 0, 0, 0, 0, time.UTC)
	for t = renew.Next(t); !t.IsZero(); t = renew.Next(t) {
		fmt.Println(t.Format(time.RFC3339))
	}
	_, err = dstsafe.ParseRRule("DTSTART:20240131T000000\nRRULE:FREQ=HOURLY;INTERVAL=5")
	fmt.Println(err)
	// Output:
	// 2024-01-31T00:00:00-06:00
	// 2024-02-29T00:00:00-06:00
	// 2024-03-31T00:00:00-05:00
	// 2024-04-30T00:00:00-05:00
	// dstsafe: parse recurrence rule "DTSTART:20240131T000000\nRRULE:FREQ=HOURLY;INTERVAL=5": INTERVAL: 5 does not divide a day (24 hours): sub-daily rules must name the same times every day
}

// Every other Friday at 09:00 counts civil weeks: it stays 09:00 when the
// clocks change on 2024-11-03.
func ExampleRRule_Next() {
	payroll, _ := dstsafe.ParseRRule("DTSTART:20241025T090000\nRRULE:FREQ=WEEKLY;INTERVAL=2;BYDAY=FR", dstsafe.WithLocation(chicago()))
	t := time.Date(2024, 10, 1, 0, 0, 0, 0, time.UTC)
	for range 3 {
		t = payroll.Next(t)
		fmt.Println(t.Format(time.RFC3339))
	}
	// Output:
	// 2024-10-25T09:00:00-05:00
	// 2024-11-08T09:00:00-06:00
	// 2024-11-22T09:00:00-06:00
}

// A daily 02:30 rule on the night 02:30 does not exist fires at 03:30 CDT
// (RFC 5545 §3.3.5), and that instance counts toward COUNT; the occurrence
// remembers the reading it was computed for, which is also its period key.
func ExampleRRule_NextOccurrence() {
	r, _ := dstsafe.ParseRRule("DTSTART:20240309T023000\nRRULE:FREQ=DAILY;COUNT=3", dstsafe.WithLocation(chicago()))
	t := time.Date(2024, 3, 1, 0, 0, 0, 0, time.UTC)
	for {
		o, ok := r.NextOccurrence(t)
		if !ok {
			break
		}
		fmt.Printf("%s  wall %s  %-6s period %s\n", o.At.Format(time.RFC3339), o.Wall, o.Kind, o.Period)
		t = o.At
	}
	// Output:
	// 2024-03-09T02:30:00-06:00  wall 2024-03-09T02:30:00  unique period 2024-03-09T02:30:00
	// 2024-03-10T03:30:00-05:00  wall 2024-03-10T02:30:00  gap    period 2024-03-10T02:30:00
	// 2024-03-11T02:30:00-05:00  wall 2024-03-11T02:30:00  unique period 2024-03-11T02:30:00
}

// String is a canonical form that reads back as the same rule.
func ExampleRRule_String() {
	r, _ := dstsafe.ParseRRule("dtstart:20240131T000000\r\nrrule:skip=backward;freq=monthly;bymonth=1,3,2",
		dstsafe.WithLocation(chicago()))
	fmt.Println(r)
	back, _ := dstsafe.ParseRRule(r.String())
	fmt.Println(back.String() == r.String())
	// Output:
	// DTSTART;TZID=America/Chicago:20240131T000000
	// RRULE:FREQ=MONTHLY;BYMONTH=1,2,3;RSCALE=GREGORIAN;SKIP=BACKWARD
	// true
}

// A rule's zone is DTSTART's TZID, UTC for a DTSTART in UTC, else the
// zone of WithLocation.
func ExampleRRule_Location() {
	utc, _ := dstsafe.ParseRRule("DTSTART:20240101T090000Z\nRRULE:FREQ=DAILY", dstsafe.WithLocation(chicago()))
	floating, _ := dstsafe.ParseRRule("DTSTART:20240101T090000\nRRULE:FREQ=DAILY", dstsafe.WithLocation(chicago()))
	fmt.Println(utc.Location(), floating.Location())
	// Output: UTC America/Chicago
}

// RFC 5545's policies are the defaults; WithFold and WithGap change them,
// WithPeriodKey keys occurrences by date.
func ExampleRRule_FoldPolicy() {
	r, _ := dstsafe.ParseRRule("DTSTART:20241103T013000\nRRULE:FREQ=DAILY;COUNT=1", dstsafe.WithLocation(chicago()),
		dstsafe.WithFold(dstsafe.FoldBoth), dstsafe.WithPeriodKey(dstsafe.ByDate))
	fmt.Println(r.FoldPolicy(), r.GapPolicy(), r.PeriodKey())
	t := time.Date(2024, 11, 3, 0, 0, 0, 0, time.UTC)
	for o, ok := r.NextOccurrence(t); ok; o, ok = r.NextOccurrence(o.At) {
		fmt.Println(o.At.Format(time.RFC3339), o.Period)
	}
	// Output:
	// both shift date
	// 2024-11-03T01:30:00-05:00 2024-11-03
	// 2024-11-03T01:30:00-06:00 2024-11-03
}

// GapPolicy is GapShift unless WithGap says otherwise.
func ExampleRRule_GapPolicy() {
	r, _ := dstsafe.ParseRRule("DTSTART:20240310T023000\nRRULE:FREQ=DAILY;COUNT=2", dstsafe.WithLocation(chicago()),
		dstsafe.WithGap(dstsafe.GapSkip))
	fmt.Println(r.GapPolicy(), r.Next(time.Date(2024, 3, 1, 0, 0, 0, 0, time.UTC)).Format(time.RFC3339))
	// Output: skip 2024-03-11T02:30:00-05:00
}

// The period key is the computed wall reading unless WithPeriodKey says
// ByDate.
func ExampleRRule_PeriodKey() {
	r, _ := dstsafe.ParseRRule("DTSTART:20240101T090000Z\nRRULE:FREQ=DAILY")
	o, _ := r.NextOccurrence(time.Date(2024, 1, 1, 0, 0, 0, 0, time.UTC))
	fmt.Println(r.PeriodKey(), o.Period)
	// Output: wall 2024-01-01T09:00:00
}

// February 30 never comes: the rule is Never and Next answers at once.
func ExampleRRule_Never() {
	r, _ := dstsafe.ParseRRule("DTSTART:20240101T000000Z\nRRULE:FREQ=YEARLY;BYMONTH=2;BYMONTHDAY=30")
	fmt.Println(r.Never(), r.Next(time.Date(2024, 1, 1, 0, 0, 0, 0, time.UTC)).IsZero())
	// Output: true true
}

package dstsafe_test

import (
	"errors"
	"math/rand/v2"
	"strings"
	"testing"
	"time"

	"github.com/dstsafe/dstsafe"
	"github.com/dstsafe/dstsafe/dstsafetest"
)

// firstN returns the first n fires of r after from, as RFC 3339 strings in
// r's zone ("never" ends the list early).
func firstN(tb testing.TB, r *dstsafe.RRule, from time.Time, n int) []string {
	tb.Helper()
	var out []string
	at := from
	for range n {
		next := r.Next(at)
		if next.IsZero() {
			break
		}
		if !next.After(at) {
			tb.Fatalf("%s: Next(%v) = %v, not strictly after", r, at, next)
		}
		out = append(out, next.Format(time.RFC3339))
		at = next
	}
	return out
}

// rfcCases are RFC 5545 §3.8.5.3's examples, read in the pinned
// America/New_York (floating DTSTART with WithLocation, as TZID would load
// the host's zone). The expected instants are the RFC's lists, with the
// offsets of US Eastern time in 1997-98 (EDT until 1997-10-26, from
// 1998-04-05 on).
var rfcCases = []struct {
	name, text string
	want       []string
}{
	{"daily for 10 occurrences", "DTSTART:19970902T090000\nRRULE:FREQ=DAILY;COUNT=10", []string{
		"1997-09-02T09:00:00-04:00", "1997-09-03T09:00:00-04:00", "1997-09-04T09:00:00-04:00", "1997-09-05T09:00:00-04:00",
		"1997-09-06T09:00:00-04:00", "1997-09-07T09:00:00-04:00", "1997-09-08T09:00:00-04:00", "1997-09-09T09:00:00-04:00",
		"1997-09-10T09:00:00-04:00", "1997-09-11T09:00:00-04:00"}},
	{"every 10 days, 5 occurrences", "DTSTART:19970902T090000\nRRULE:FREQ=DAILY;INTERVAL=10;COUNT=5", []string{
		"1997-09-02T09:00:00-04:00", "1997-09-12T09:00:00-04:00", "1997-09-22T09:00:00-04:00", "1997-10-02T09:00:00-04:00",
		"1997-10-12T09:00:00-04:00"}},
	// 09:00 stays 09:00 when the clocks change: wall-clock units.
	{"monthly on the first Friday, 10 occurrences", "DTSTART:19970905T090000\nRRULE:FREQ=MONTHLY;COUNT=10;BYDAY=1FR", []string{
		"1997-09-05T09:00:00-04:00", "1997-10-03T09:00:00-04:00", "1997-11-07T09:00:00-05:00", "1997-12-05T09:00:00-05:00",
		"1998-01-02T09:00:00-05:00", "1998-02-06T09:00:00-05:00", "1998-03-06T09:00:00-05:00", "1998-04-03T09:00:00-05:00",
		"1998-05-01T09:00:00-04:00", "1998-06-05T09:00:00-04:00"}},
	{"every other week on Tuesday and Thursday, 8 occurrences", "DTSTART:19970902T090000\nRRULE:FREQ=WEEKLY;INTERVAL=2;COUNT=8;WKST=SU;BYDAY=TU,TH", []string{
		"1997-09-02T09:00:00-04:00", "1997-09-04T09:00:00-04:00", "1997-09-16T09:00:00-04:00", "1997-09-18T09:00:00-04:00",
		"1997-09-30T09:00:00-04:00", "1997-10-02T09:00:00-04:00", "1997-10-14T09:00:00-04:00", "1997-10-16T09:00:00-04:00"}},
	{"the last work day of the month", "DTSTART:19970929T090000\nRRULE:FREQ=MONTHLY;BYDAY=MO,TU,WE,TH,FR;BYSETPOS=-1", []string{
		"1997-09-30T09:00:00-04:00", "1997-10-31T09:00:00-05:00", "1997-11-28T09:00:00-05:00", "1997-12-31T09:00:00-05:00",
		"1998-01-30T09:00:00-05:00", "1998-02-27T09:00:00-05:00", "1998-03-31T09:00:00-05:00"}},
	{"Monday of week number 20", "DTSTART:19970512T090000\nRRULE:FREQ=YEARLY;BYWEEKNO=20;BYDAY=MO", []string{
		"1997-05-12T09:00:00-04:00", "1998-05-11T09:00:00-04:00", "1999-05-17T09:00:00-04:00"}},
	{"every Friday the 13th, not DTSTART", "DTSTART:19970902T090000\nRRULE:FREQ=MONTHLY;BYDAY=FR;BYMONTHDAY=13\nEXDATE:19970902T090000", []string{
		"1998-02-13T09:00:00-05:00", "1998-03-13T09:00:00-05:00", "1998-11-13T09:00:00-05:00", "1999-08-13T09:00:00-04:00",
		"2000-10-13T09:00:00-04:00"}},
	{"US presidential election day", "DTSTART:19961105T090000\nRRULE:FREQ=YEARLY;INTERVAL=4;BYMONTH=11;BYDAY=TU;BYMONTHDAY=2,3,4,5,6,7,8", []string{
		"1996-11-05T09:00:00-05:00", "2000-11-07T09:00:00-05:00", "2004-11-02T09:00:00-05:00"}},
	{"every 15 minutes, 6 occurrences", "DTSTART:19970902T090000\nRRULE:FREQ=MINUTELY;INTERVAL=15;COUNT=6", []string{
		"1997-09-02T09:00:00-04:00", "1997-09-02T09:15:00-04:00", "1997-09-02T09:30:00-04:00", "1997-09-02T09:45:00-04:00",
		"1997-09-02T10:00:00-04:00", "1997-09-02T10:15:00-04:00"}},
	{"every hour and a half, 4 occurrences", "DTSTART:19970902T090000\nRRULE:FREQ=MINUTELY;INTERVAL=90;COUNT=4", []string{
		"1997-09-02T09:00:00-04:00", "1997-09-02T10:30:00-04:00", "1997-09-02T12:00:00-04:00", "1997-09-02T13:30:00-04:00"}},
	{"WKST changes the weeks: MO", "DTSTART:19970805T090000\nRRULE:FREQ=WEEKLY;INTERVAL=2;COUNT=4;BYDAY=TU,SU;WKST=MO", []string{
		"1997-08-05T09:00:00-04:00", "1997-08-10T09:00:00-04:00", "1997-08-19T09:00:00-04:00", "1997-08-24T09:00:00-04:00"}},
	{"WKST changes the weeks: SU", "DTSTART:19970805T090000\nRRULE:FREQ=WEEKLY;INTERVAL=2;COUNT=4;BYDAY=TU,SU;WKST=SU", []string{
		"1997-08-05T09:00:00-04:00", "1997-08-17T09:00:00-04:00", "1997-08-19T09:00:00-04:00", "1997-08-31T09:00:00-04:00"}},
	{"an invalid date (February 30) is ignored", "DTSTART:20070115T090000\nRRULE:FREQ=MONTHLY;BYMONTHDAY=15,30;COUNT=5", []string{
		"2007-01-15T09:00:00-05:00", "2007-01-30T09:00:00-05:00", "2007-02-15T09:00:00-05:00", "2007-03-15T09:00:00-04:00",
		"2007-03-30T09:00:00-04:00"}},
}

func TestRRuleRFC5545Examples(t *testing.T) {
	ny := dstsafetest.Zone(t, "America/New_York")
	for _, tc := range rfcCases {
		t.Run(tc.name, func(t *testing.T) {
			r := mustRRule(t, tc.text, dstsafe.WithLocation(ny))
			got := firstN(t, r, time.Date(1990, 1, 1, 0, 0, 0, 0, time.UTC), len(tc.want)+1)
			if len(got) > len(tc.want) && strings.Contains(tc.text, "COUNT") {
				t.Errorf("more than COUNT: %v", got)
			}
			got = got[:min(len(got), len(tc.want))]
			if strings.Join(got, " ") != strings.Join(tc.want, " ") {
				t.Errorf("got  %v\nwant %v", got, tc.want)
			}
		})
	}
}

// TestRRuleSkip: RFC 7529's SKIP for invalid dates, from the 31st of
// January and from February 29 (2024 is a leap year, 2025 is not).
func TestRRuleSkip(t *testing.T) {
	for _, tc := range []struct{ text, want string }{
		// The anniversary rule: the 31st, or the last day of a shorter month.
		{"DTSTART:20240131T000000Z\nRRULE:FREQ=MONTHLY;SKIP=BACKWARD;COUNT=6", "2024-01-31 2024-02-29 2024-03-31 2024-04-30 2024-05-31 2024-06-30"},
		{"DTSTART:20240131T000000Z\nRRULE:FREQ=MONTHLY;RSCALE=GREGORIAN;SKIP=FORWARD;COUNT=6", "2024-01-31 2024-03-01 2024-03-31 2024-05-01 2024-05-31 2024-07-01"},
		{"DTSTART:20240131T000000Z\nRRULE:FREQ=MONTHLY;RSCALE=GREGORIAN;SKIP=OMIT;COUNT=4", "2024-01-31 2024-03-31 2024-05-31 2024-07-31"},
		{"DTSTART:20240131T000000Z\nRRULE:FREQ=MONTHLY;COUNT=4", "2024-01-31 2024-03-31 2024-05-31 2024-07-31"}, // OMIT is RFC 5545's rule
		// Anchor 30: February is the only short month.
		{"DTSTART:20250130T000000Z\nRRULE:FREQ=MONTHLY;SKIP=BACKWARD;COUNT=3", "2025-01-30 2025-02-28 2025-03-30"},
		{"DTSTART:20240229T000000Z\nRRULE:FREQ=YEARLY;SKIP=BACKWARD;COUNT=5", "2024-02-29 2025-02-28 2026-02-28 2027-02-28 2028-02-29"},
		{"DTSTART:20240229T000000Z\nRRULE:FREQ=YEARLY;SKIP=FORWARD;COUNT=3", "2024-02-29 2025-03-01 2026-03-01"},
		{"DTSTART:20240229T000000Z\nRRULE:FREQ=YEARLY;COUNT=2", "2024-02-29 2028-02-29"},
		// A moved day that is already an instance is one instance.
		{"DTSTART:20240128T000000Z\nRRULE:FREQ=MONTHLY;BYMONTHDAY=28,29,30,31;SKIP=BACKWARD;BYMONTH=2;COUNT=5", "2024-02-28 2024-02-29 2025-02-28 2026-02-28 2027-02-28"},
		// Every other month from January 31, moved forward: the March 1
		// of February's period is not reached (February is skipped).
		{"DTSTART:20240131T000000Z\nRRULE:FREQ=MONTHLY;INTERVAL=2;SKIP=FORWARD;COUNT=4", "2024-01-31 2024-03-31 2024-05-31 2024-07-31"},
		{"DTSTART:20231130T000000Z\nRRULE:FREQ=MONTHLY;INTERVAL=3;BYMONTHDAY=31;SKIP=FORWARD;COUNT=4", "2023-12-01 2024-03-01 2024-05-31 2024-08-31"},
		// SKIP where BYMONTHDAY limits (DAILY): the 31st, or the last day.
		{"DTSTART:20250131T000000Z\nRRULE:FREQ=DAILY;BYMONTHDAY=31;SKIP=BACKWARD;COUNT=4", "2025-01-31 2025-02-28 2025-03-31 2025-04-30"},
		{"DTSTART:20250131T000000Z\nRRULE:FREQ=DAILY;BYMONTHDAY=31;SKIP=FORWARD;COUNT=4", "2025-01-31 2025-03-01 2025-03-31 2025-05-01"},
		// BYSETPOS counts the moved day in its own month's period.
		{"DTSTART:20240101T000000Z\nRRULE:FREQ=MONTHLY;BYMONTHDAY=1,31;SKIP=BACKWARD;BYSETPOS=-1;COUNT=3", "2024-01-31 2024-02-29 2024-03-31"},
	} {
		r := mustRRule(t, tc.text)
		var got []string
		for _, s := range firstN(t, r, time.Date(2020, 1, 1, 0, 0, 0, 0, time.UTC), 10) {
			got = append(got, s[:10])
		}
		if strings.Join(got, " ") != tc.want {
			t.Errorf("%s:\n got  %s\n want %s", strings.ReplaceAll(tc.text, "\n", " "), strings.Join(got, " "), tc.want)
		}
	}
}

// TestRRuleDST: what happens to rules at the famous transitions (pinned
// tzdata): walls in a gap move forward by the gap and still count, walls
// in a fold fire once at the first reading, INTERVAL counts civil days.
func TestRRuleDST(t *testing.T) {
	chicago := dstsafetest.Zone(t, "America/Chicago")
	havana := dstsafetest.Zone(t, "America/Havana")
	apia := dstsafetest.Zone(t, "Pacific/Apia")
	type fire struct{ at, wall, kind, period string }
	for _, tc := range []struct {
		name string
		loc  *time.Location
		text string
		opts []dstsafe.CronOption
		want []fire
	}{
		{"02:30 on 2024-03-10 does not exist: 03:30 CDT, and it counts toward COUNT", chicago,
			"DTSTART:20240309T023000\nRRULE:FREQ=DAILY;COUNT=3", nil, []fire{
				{"2024-03-09T02:30:00-06:00", "2024-03-09T02:30:00", "unique", "2024-03-09T02:30:00"},
				{"2024-03-10T03:30:00-05:00", "2024-03-10T02:30:00", "gap", "2024-03-10T02:30:00"},
				{"2024-03-11T02:30:00-05:00", "2024-03-11T02:30:00", "unique", "2024-03-11T02:30:00"}}},
		{"01:30 on 2024-11-03 happens twice: once, at 01:30 CDT (the billing incident)", chicago,
			"DTSTART:20241102T013000\nRRULE:FREQ=DAILY;COUNT=3", nil, []fire{
				{"2024-11-02T01:30:00-05:00", "2024-11-02T01:30:00", "unique", "2024-11-02T01:30:00"},
				{"2024-11-03T01:30:00-05:00", "2024-11-03T01:30:00", "fold", "2024-11-03T01:30:00"},
				{"2024-11-04T01:30:00-06:00", "2024-11-04T01:30:00", "unique", "2024-11-04T01:30:00"}}},
		{"WithFold(FoldBoth): both 01:30s, the second keyed ;fold=1", chicago,
			"DTSTART:20241103T013000\nRRULE:FREQ=DAILY;COUNT=2", []dstsafe.CronOption{dstsafe.WithFold(dstsafe.FoldBoth)}, []fire{
				{"2024-11-03T01:30:00-05:00", "2024-11-03T01:30:00", "fold", "2024-11-03T01:30:00"},
				{"2024-11-03T01:30:00-06:00", "2024-11-03T01:30:00", "fold", "2024-11-03T01:30:00;fold=1"},
				{"2024-11-04T01:30:00-06:00", "2024-11-04T01:30:00", "unique", "2024-11-04T01:30:00"}}},
		{"WithGap(GapSkip) and ByDate: the nonexistent 02:30 does not fire", chicago,
			"DTSTART:20240309T023000\nRRULE:FREQ=DAILY;COUNT=3", []dstsafe.CronOption{dstsafe.WithGap(dstsafe.GapSkip), dstsafe.WithPeriodKey(dstsafe.ByDate)}, []fire{
				{"2024-03-09T02:30:00-06:00", "2024-03-09T02:30:00", "unique", "2024-03-09"},
				{"2024-03-11T02:30:00-05:00", "2024-03-11T02:30:00", "unique", "2024-03-11"}}},
		{"every other day is every other civil date, not 48 hours", chicago,
			"DTSTART:20240308T120000\nRRULE:FREQ=DAILY;INTERVAL=2;COUNT=3", nil, []fire{
				{"2024-03-08T12:00:00-06:00", "2024-03-08T12:00:00", "unique", "2024-03-08T12:00:00"},
				{"2024-03-10T12:00:00-05:00", "2024-03-10T12:00:00", "unique", "2024-03-10T12:00:00"}, // 47 hours later
				{"2024-03-12T12:00:00-05:00", "2024-03-12T12:00:00", "unique", "2024-03-12T12:00:00"}}},
		{"hourly across the fold: each wall reading once (RFC 5545), 01:00 CST not repeated", chicago,
			"DTSTART:20241103T000000\nRRULE:FREQ=HOURLY;COUNT=4", nil, []fire{
				{"2024-11-03T00:00:00-05:00", "2024-11-03T00:00:00", "unique", "2024-11-03T00:00:00"},
				{"2024-11-03T01:00:00-05:00", "2024-11-03T01:00:00", "fold", "2024-11-03T01:00:00"},
				{"2024-11-03T02:00:00-06:00", "2024-11-03T02:00:00", "unique", "2024-11-03T02:00:00"},
				{"2024-11-03T03:00:00-06:00", "2024-11-03T03:00:00", "unique", "2024-11-03T03:00:00"}}},
		{"every 30 minutes across the gap: 02:00 and 02:30 move to 03:00 and 03:30, which also happen: one fire each", chicago,
			"DTSTART:20240310T013000\nRRULE:FREQ=MINUTELY;INTERVAL=30;COUNT=5", nil, []fire{
				{"2024-03-10T01:30:00-06:00", "2024-03-10T01:30:00", "unique", "2024-03-10T01:30:00"},
				{"2024-03-10T03:00:00-05:00", "2024-03-10T03:00:00", "unique", "2024-03-10T03:00:00"},
				{"2024-03-10T03:30:00-05:00", "2024-03-10T03:30:00", "unique", "2024-03-10T03:30:00"}}},
		{"Havana 2024-03-10 has no midnight: 01:00 CDT", havana,
			"DTSTART:20240309T000000\nRRULE:FREQ=DAILY;COUNT=2", nil, []fire{
				{"2024-03-09T00:00:00-05:00", "2024-03-09T00:00:00", "unique", "2024-03-09T00:00:00"},
				{"2024-03-10T01:00:00-04:00", "2024-03-10T00:00:00", "gap", "2024-03-10T00:00:00"}}},
		{"Apia skipped 2011-12-30: its noon, pushed forward a day, is December 31's noon, which fires once", apia,
			"DTSTART:20111229T120000\nRRULE:FREQ=DAILY;COUNT=4", nil, []fire{
				{"2011-12-29T12:00:00-10:00", "2011-12-29T12:00:00", "unique", "2011-12-29T12:00:00"},
				{"2011-12-31T12:00:00+14:00", "2011-12-31T12:00:00", "unique", "2011-12-31T12:00:00"},
				{"2012-01-01T12:00:00+14:00", "2012-01-01T12:00:00", "unique", "2012-01-01T12:00:00"}}},
		{"UNTIL in UTC bounds by instant: 01:30 CDT (06:30Z) is in", chicago,
			"DTSTART:20241102T013000\nRRULE:FREQ=DAILY;UNTIL=20241103T063000Z", nil, []fire{
				{"2024-11-02T01:30:00-05:00", "2024-11-02T01:30:00", "unique", "2024-11-02T01:30:00"},
				{"2024-11-03T01:30:00-05:00", "2024-11-03T01:30:00", "fold", "2024-11-03T01:30:00"}}},
		{"UNTIL a second earlier: out", chicago,
			"DTSTART:20241102T013000\nRRULE:FREQ=DAILY;UNTIL=20241103T062959Z", nil, []fire{
				{"2024-11-02T01:30:00-05:00", "2024-11-02T01:30:00", "unique", "2024-11-02T01:30:00"}}},
		{"UNTIL at 02:30 CDT: the gap reading 02:30 CST fires at 03:30 CDT, after it, so it is out", chicago,
			"DTSTART:20240309T023000\nRRULE:FREQ=DAILY;UNTIL=20240310T073000Z", nil, []fire{
				{"2024-03-09T02:30:00-06:00", "2024-03-09T02:30:00", "unique", "2024-03-09T02:30:00"}}},
		{"RDATE adds, EXDATE removes, each in the rule's zone", chicago,
			"DTSTART:20240101T090000\nRRULE:FREQ=WEEKLY;COUNT=3\nEXDATE:20240108T090000\nRDATE:20240110T150000Z", nil, []fire{
				{"2024-01-01T09:00:00-06:00", "2024-01-01T09:00:00", "unique", "2024-01-01T09:00:00"},
				{"2024-01-10T09:00:00-06:00", "2024-01-10T09:00:00", "unique", "2024-01-10T09:00:00"},
				{"2024-01-15T09:00:00-06:00", "2024-01-15T09:00:00", "unique", "2024-01-15T09:00:00"}}},
		{"no RRULE: DTSTART and the RDATEs", chicago,
			"DTSTART:20240101T090000\nRDATE:20240301T090000,20240201T090000", nil, []fire{
				{"2024-01-01T09:00:00-06:00", "2024-01-01T09:00:00", "unique", "2024-01-01T09:00:00"},
				{"2024-02-01T09:00:00-06:00", "2024-02-01T09:00:00", "unique", "2024-02-01T09:00:00"},
				{"2024-03-01T09:00:00-06:00", "2024-03-01T09:00:00", "unique", "2024-03-01T09:00:00"}}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r := mustRRule(t, tc.text, append([]dstsafe.CronOption{dstsafe.WithLocation(tc.loc)}, tc.opts...)...)
			// Every case is finite (COUNT, UNTIL, or no RRULE).
			var got []fire
			at := time.Date(2000, 1, 1, 0, 0, 0, 0, time.UTC)
			for range 20 {
				o, ok := r.NextOccurrence(at)
				if !ok {
					break
				}
				got = append(got, fire{o.At.Format(time.RFC3339), o.Wall.String(), o.Kind.String(), o.Period})
				at = o.At
			}
			if len(got) != len(tc.want) {
				t.Fatalf("got %d fires %v, want %v", len(got), got, tc.want)
			}
			for i := range got {
				if got[i] != tc.want[i] {
					t.Errorf("fire %d: got %+v, want %+v", i, got[i], tc.want[i])
				}
			}
		})
	}
}

// TestRRuleCount: COUNT ends the rule (Next says never after the last).
func TestRRuleCount(t *testing.T) {
	chicago := dstsafetest.Zone(t, "America/Chicago")
	r := mustRRule(t, "DTSTART:20240309T023000\nRRULE:FREQ=DAILY;COUNT=3", dstsafe.WithLocation(chicago))
	got := firstN(t, r, time.Date(2024, 1, 1, 0, 0, 0, 0, time.UTC), 10)
	if len(got) != 3 {
		t.Errorf("COUNT=3 gave %d fires: %v", len(got), got)
	}
	if last, _ := time.Parse(time.RFC3339, got[len(got)-1]); !r.Next(last).IsZero() {
		t.Errorf("Next after the last of COUNT=3 = %v, want never", r.Next(last))
	}
}

// parseErrorCases: every refusal is a *ParseError naming the part.
var parseErrorCases = []struct{ text, field string }{
	{"", "DTSTART"},
	{"RRULE:FREQ=DAILY", "DTSTART"},
	{"DTSTART:20240101T000000Z\nDTSTART:20240101T000000Z", "DTSTART"},
	{"DTSTART;VALUE=DATE:20240101", "DTSTART"},
	{"DTSTART:20240101", "DTSTART"},
	{"DTSTART:20240230T000000Z", "DTSTART"},
	{"DTSTART:2024-01-01T00:00:00Z", "DTSTART"},
	{"DTSTART;TZID=Nowhere/Atlantis:20240101T000000", "DTSTART"},
	{"DTSTART;TZID=Local:20240101T000000", "DTSTART"},
	{"DTSTART;TZID=UTC+5:20240101T000000", "DTSTART"},
	{"DTSTART;TZID=America/Chicago:20240101T000000Z", "DTSTART"},
	{"DTSTART;FOO=BAR:20240101T000000", "DTSTART"},
	{"DTSTART:20240101T000000Z\nRRULE:FREQ=DAILY\nRRULE:FREQ=WEEKLY", "RRULE"},
	{"DTSTART:20240101T000000Z\nRRULE:", "RRULE"},
	{"DTSTART:20240101T000000Z\nRRULE:INTERVAL=2", "FREQ"},
	{"DTSTART:20240101T000000Z\nRRULE:FREQ=FORTNIGHTLY", "FREQ"},
	{"DTSTART:20240101T000000Z\nRRULE:FREQ=DAILY;FREQ=DAILY", "FREQ"},
	{"DTSTART:20240101T000000Z\nRRULE:FREQ=DAILY;INTERVAL=0", "INTERVAL"},
	{"DTSTART:20240101T000000Z\nRRULE:FREQ=HOURLY;INTERVAL=5", "INTERVAL"},
	{"DTSTART:20240101T000000Z\nRRULE:FREQ=MINUTELY;INTERVAL=7", "INTERVAL"},
	{"DTSTART:20240101T000000Z\nRRULE:FREQ=DAILY;COUNT=0", "COUNT"},
	{"DTSTART:20240101T000000Z\nRRULE:FREQ=DAILY;COUNT=3;UNTIL=20250101T000000Z", "UNTIL"},
	{"DTSTART:20240101T000000Z\nRRULE:FREQ=DAILY;UNTIL=20250101", "UNTIL"},
	{"DTSTART:20240101T000000Z\nRRULE:FREQ=DAILY;UNTIL=20250101T000000", "UNTIL"},
	{"DTSTART:20240101T000000Z\nRRULE:FREQ=DAILY;WKST=XX", "WKST"},
	{"DTSTART:20240101T000000Z\nRRULE:FREQ=DAILY;BYMONTH=13", "BYMONTH"},
	{"DTSTART:20240101T000000Z\nRRULE:FREQ=DAILY;BYMONTH=0", "BYMONTH"},
	{"DTSTART:20240101T000000Z\nRRULE:FREQ=MONTHLY;BYWEEKNO=1", "BYWEEKNO"},
	{"DTSTART:20240101T000000Z\nRRULE:FREQ=YEARLY;BYWEEKNO=54", "BYWEEKNO"},
	{"DTSTART:20240101T000000Z\nRRULE:FREQ=MONTHLY;BYYEARDAY=1", "BYYEARDAY"},
	{"DTSTART:20240101T000000Z\nRRULE:FREQ=YEARLY;BYYEARDAY=0", "BYYEARDAY"},
	{"DTSTART:20240101T000000Z\nRRULE:FREQ=WEEKLY;BYMONTHDAY=1", "BYMONTHDAY"},
	{"DTSTART:20240101T000000Z\nRRULE:FREQ=MONTHLY;BYMONTHDAY=32", "BYMONTHDAY"},
	{"DTSTART:20240101T000000Z\nRRULE:FREQ=MONTHLY;BYMONTHDAY=-32", "BYMONTHDAY"},
	{"DTSTART:20240101T000000Z\nRRULE:FREQ=WEEKLY;BYDAY=1MO", "BYDAY"},
	{"DTSTART:20240101T000000Z\nRRULE:FREQ=MONTHLY;BYDAY=6MO", "BYDAY"},
	{"DTSTART:20240101T000000Z\nRRULE:FREQ=YEARLY;BYDAY=54MO", "BYDAY"},
	{"DTSTART:20240101T000000Z\nRRULE:FREQ=YEARLY;BYWEEKNO=2;BYDAY=1MO", "BYDAY"},
	{"DTSTART:20240101T000000Z\nRRULE:FREQ=MONTHLY;BYDAY=MON", "BYDAY"},
	{"DTSTART:20240101T000000Z\nRRULE:FREQ=DAILY;BYHOUR=24", "BYHOUR"},
	{"DTSTART:20240101T000000Z\nRRULE:FREQ=DAILY;BYMINUTE=60", "BYMINUTE"},
	{"DTSTART:20240101T000000Z\nRRULE:FREQ=DAILY;BYSECOND=60", "BYSECOND"},
	{"DTSTART:20240101T000000Z\nRRULE:FREQ=DAILY;BYSETPOS=1", "BYSETPOS"},
	{"DTSTART:20240101T000000Z\nRRULE:FREQ=MONTHLY;BYDAY=MO;BYSETPOS=0", "BYSETPOS"},
	{"DTSTART:20240101T000000Z\nRRULE:FREQ=MONTHLY;RSCALE=HEBREW", "RSCALE"},
	{"DTSTART:20240101T000000Z\nRRULE:FREQ=MONTHLY;SKIP=SIDEWAYS", "SKIP"},
	{"DTSTART:20240101T000000Z\nRRULE:FREQ=MONTHLY;SKIP=BACKWARD;BYDAY=MO", "SKIP"},
	{"DTSTART:20240101T000000Z\nRRULE:FREQ=YEARLY;BYEASTER=0", "BYEASTER"},
	{"DTSTART:20240101T000000Z\nRRULE:FREQ=DAILY;X-FOO=1", "X-FOO"},
	{"DTSTART:20240101T000000Z\nRRULE:FREQ", "RRULE"},
	{"DTSTART:20240101T000000Z\nEXRULE:FREQ=DAILY", "line"},
	{"DTSTART:20240101T000000Z\nDTEND:20240101T010000Z", "line"},
	{"DTSTART:20240101T000000Z\nnot a content line", "line"},
	{"DTSTART:20240101T000000Z\nEXDATE;VALUE=DATE:20240102", "EXDATE"},
	{"DTSTART:20240101T000000Z\nEXDATE:2024-01-02", "EXDATE"},
	{"DTSTART:20240101T000000Z\nRDATE;VALUE=PERIOD:20240102T000000Z/PT1H", "RDATE"},
	{"DTSTART:20240101T000000Z\nRDATE;TZID=UTC:20240102T000000Z", "RDATE"},
}

func TestParseRRuleErrors(t *testing.T) {
	for _, tc := range parseErrorCases {
		r, err := dstsafe.ParseRRule(tc.text)
		var pe *dstsafe.ParseError
		if !errors.As(err, &pe) || r != nil {
			t.Errorf("ParseRRule(%q) = %v, %v; want a *ParseError", tc.text, r, err)
			continue
		}
		if pe.Field != tc.field {
			t.Errorf("ParseRRule(%q): Field %q, want %q (%v)", tc.text, pe.Field, tc.field, err)
		}
		if !strings.HasPrefix(err.Error(), "dstsafe: parse recurrence rule ") {
			t.Errorf("ParseRRule(%q): message %q", tc.text, err)
		}
	}
	// Options for cron specs only, and policies out of range.
	for _, opt := range []dstsafe.CronOption{dstsafe.WithSeconds(), dstsafe.WithEveryOrigin(time.Unix(1, 0)),
		dstsafe.WithFold(dstsafe.FoldPolicy(9)), dstsafe.WithGap(dstsafe.GapPolicy(9)), dstsafe.WithPeriodKey(dstsafe.PeriodKey(9))} {
		_, err := dstsafe.ParseRRule("DTSTART:20240101T000000Z", opt)
		var pe *dstsafe.ParseError
		if !errors.As(err, &pe) || pe.Field != "option" {
			t.Errorf("option refused with %v, want a *ParseError for option", err)
		}
	}
}

// TestRRuleLines: RFC 5545 content lines: CRLF, folded lines, any case,
// blank lines, quoted TZID, a TZID that differs from DTSTART's.
func TestRRuleLines(t *testing.T) {
	chicago := dstsafetest.Zone(t, "America/Chicago")
	base := mustRRule(t, "DTSTART:20240105T090000\nRRULE:FREQ=WEEKLY;BYDAY=FR;COUNT=3", dstsafe.WithLocation(chicago))
	for _, text := range []string{
		"DTSTART:20240105T090000\r\nRRULE:FREQ=WEEKLY;BYDAY=FR;COUNT=3\r\n",
		"DTSTART:20240105T090000\r\nRRULE:FREQ=WEEKLY;\r\n BYDAY=FR;COUNT=3",
		"\ndtstart:20240105T090000\n\nrrule:freq=weekly;byday=fr;count=3\n",
	} {
		r := mustRRule(t, text, dstsafe.WithLocation(chicago))
		if r.String() != base.String() {
			t.Errorf("%q reads as %q, want %q", text, r.String(), base.String())
		}
	}
	// An EXDATE given in UTC removes the reading of that instant.
	r := mustRRule(t, "DTSTART:20240105T090000\nRRULE:FREQ=WEEKLY;BYDAY=FR;COUNT=3\nEXDATE:20240112T150000Z", dstsafe.WithLocation(chicago))
	if got := firstN(t, r, time.Date(2024, 1, 1, 0, 0, 0, 0, time.UTC), 5); strings.Join(got, " ") != "2024-01-05T09:00:00-06:00 2024-01-19T09:00:00-06:00" {
		t.Errorf("EXDATE in UTC: %v", got)
	}
	if r.Location() != chicago {
		t.Errorf("Location() = %v", r.Location())
	}
	if r.FoldPolicy() != dstsafe.FoldFirst || r.GapPolicy() != dstsafe.GapShift || r.PeriodKey() != dstsafe.ByWall {
		t.Errorf("default policies %v %v %v, want first, shift, wall", r.FoldPolicy(), r.GapPolicy(), r.PeriodKey())
	}
}

// TestRRuleStringRoundTrip: String reads back as the same rule, for the
// table rules and random ones, in UTC and in a zone.
func TestRRuleStringRoundTrip(t *testing.T) {
	chicago := dstsafetest.Zone(t, "America/Chicago")
	var texts []string
	for _, tc := range rfcCases {
		texts = append(texts, tc.text)
	}
	g := ruleGen{rand.New(rand.NewPCG(3, 4))}
	for range 500 {
		start := time.Date(2000+g.pick(40), time.Month(1+g.pick(12)), 1+g.pick(28), g.pick(24), g.pick(60), g.pick(60), 0, time.UTC)
		rule, _ := g.rule(start)
		texts = append(texts, "DTSTART:"+start.Format("20060102T150405")+"\nRRULE:"+rule+"\nEXDATE:"+start.AddDate(0, 0, 3).Format("20060102T150405"))
	}
	texts = append(texts, "DTSTART:20240131T000000\nRRULE:FREQ=MONTHLY;SKIP=BACKWARD;UNTIL=20250101T000000Z",
		"DTSTART:20240131T000000\nRRULE:FREQ=MONTHLY;UNTIL=20250101T000000\nRDATE:20240615T120000Z")
	for i, text := range texts {
		for _, loc := range []*time.Location{time.UTC, chicago} {
			r := mustRRule(t, text, dstsafe.WithLocation(loc))
			back, err := dstsafe.ParseRRule(r.String())
			if err != nil {
				t.Fatalf("case %d: ParseRRule(String() = %q): %v", i, r.String(), err)
			}
			if back.String() != r.String() {
				t.Errorf("case %d: String() %q reads back as %q", i, r.String(), back.String())
			}
			if a, b := firstN(t, r, time.Date(1990, 1, 1, 0, 0, 0, 0, time.UTC), 30), firstN(t, back, time.Date(1990, 1, 1, 0, 0, 0, 0, time.UTC), 30); strings.Join(a, " ") != strings.Join(b, " ") {
				t.Errorf("case %d: %q fires %v, read back %v", i, r.String(), a, b)
			}
		}
	}
}

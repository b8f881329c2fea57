package dstsafe_test

import (
	"errors"
	"testing"
	"time"

	"github.com/dstsafe/dstsafe"
)

// Fuzz targets for ParseRRule and RRule.Next, seeded from the table tests;
// scripts/fuzz runs each for 20,000 executions.

// rruleSeeds are accepted rules of every frequency and part.
var rruleSeeds = []string{
	"DTSTART;TZID=America/Chicago:20240131T000000\nRRULE:FREQ=MONTHLY;SKIP=BACKWARD",
	"DTSTART:20240105T170000Z\nRRULE:FREQ=WEEKLY;INTERVAL=2;BYDAY=FR",
	"DTSTART:20240131T170000Z\nRRULE:FREQ=MONTHLY;BYDAY=MO,TU,WE,TH,FR;BYSETPOS=-1",
	"DTSTART:20240101T000000Z\nRRULE:FREQ=YEARLY;BYMONTHDAY=30;BYMONTH=2",
	"DTSTART;TZID=Pacific/Apia:20111229T120000\nRRULE:FREQ=DAILY;COUNT=5",
	"DTSTART;TZID=America/Havana:20240309T000000\nRRULE:FREQ=DAILY;UNTIL=20240312T050000Z",
	"DTSTART;TZID=Australia/Lord_Howe:20241005T021500\nRRULE:FREQ=HOURLY;INTERVAL=6;BYMINUTE=15,45",
	"DTSTART:20240229T000000Z\nRRULE:FREQ=YEARLY;RSCALE=GREGORIAN;SKIP=FORWARD;COUNT=4",
	"DTSTART:20240101T090000\nRRULE:FREQ=YEARLY;BYWEEKNO=1,-1,53;BYDAY=MO,SU;WKST=SU",
	"DTSTART:20240101T090000\nRRULE:FREQ=YEARLY;BYYEARDAY=-1,366,100;BYHOUR=9,17",
	"DTSTART:20240101T000000\nRRULE:FREQ=SECONDLY;INTERVAL=3600;BYMONTH=3;BYDAY=SU",
	"DTSTART:20240101T000000\nRRULE:FREQ=MINUTELY;INTERVAL=90;BYSETPOS=1\nEXDATE:20240101T000000\nRDATE:20240102T030000Z",
	"DTSTART;TZID=Europe/Dublin:20241026T013000\nRRULE:FREQ=DAILY;BYSETPOS=1,-1;BYHOUR=1,2",
	"DTSTART:20240101T000000\r\nRRULE:FREQ=MONTHLY;\r\n BYDAY=-1FR,2MO",
}

// FuzzParseRRule: ParseRRule never panics; every refusal is a *ParseError;
// an accepted rule reads back from its String as the same rule, and Next
// terminates with strictly increasing instants.
func FuzzParseRRule(f *testing.F) {
	for _, tc := range parseErrorCases {
		f.Add(tc.text, int64(0))
	}
	for _, tc := range rfcCases {
		f.Add(tc.text, int64(870000000))
	}
	for i, s := range rruleSeeds {
		f.Add(s, int64(1_700_000_000-i*86_400*97))
	}
	f.Fuzz(func(t *testing.T, text string, from int64) {
		r, err := dstsafe.ParseRRule(text)
		if err != nil {
			var pe *dstsafe.ParseError
			if !errors.As(err, &pe) || r != nil {
				t.Fatalf("ParseRRule(%q) = %v, %v; want nil and a *ParseError", text, r, err)
			}
			return
		}
		back, err := dstsafe.ParseRRule(r.String())
		if err != nil || back.String() != r.String() {
			t.Fatalf("ParseRRule(%q).String() = %q reads back as %v, %v", text, r.String(), back, err)
		}
		at := time.Unix(clampUnix(from), 0)
		for range 30 {
			next := r.Next(at)
			if !back.Next(at).Equal(next) {
				t.Fatalf("%q and its String disagree after %v", text, at)
			}
			if next.IsZero() {
				return
			}
			if !next.After(at) {
				t.Fatalf("%q: Next(%v) = %v, not strictly after", text, at, next)
			}
			at = next
		}
	})
}

// FuzzRRuleNext: for a seed rule's RRULE in any zone from any instant,
// Next terminates and is strictly after its argument, NextOccurrence
// agrees with it, a repeated wall fires once (FoldFirst), and the fire
// reads as its wall unless the wall fell in a gap, never before the gap.
func FuzzRRuleNext(f *testing.F) {
	zs := allZones(f)
	for i, s := range rruleSeeds {
		f.Add(s, uint16(i*41), int64(1_300_000_000+i*86_400*43))
	}
	for i, tc := range rfcCases {
		f.Add(tc.text, uint16(i*53), int64(870_000_000))
	}
	f.Fuzz(func(t *testing.T, text string, zone uint16, from int64) {
		z := fuzzZone(zs, zone)
		r, err := dstsafe.ParseRRule(text, dstsafe.WithLocation(z.Loc))
		if err != nil {
			return
		}
		loc := r.Location()
		at := time.Unix(clampUnix(from), 0)
		var last dstsafe.Wall
		for range 20 {
			occ, ok := r.NextOccurrence(at)
			next := r.Next(at)
			if ok != !next.IsZero() || ok && !occ.At.Equal(next) {
				t.Fatalf("%q in %s after %v: Next %v, NextOccurrence %v %v", text, loc, at, next, occ.At, ok)
			}
			if !ok {
				return
			}
			if !next.After(at) {
				t.Fatalf("%q in %s: Next(%v) = %v, not strictly after", text, loc, at, next)
			}
			if occ.Wall == last {
				t.Fatalf("%q in %s: wall %v fired twice", text, loc, occ.Wall)
			}
			res := dstsafe.Lookup(occ.Wall, loc)
			switch {
			case res.Kind != occ.Kind:
				t.Fatalf("%q in %s: occurrence %v for wall %v has Kind %v, Lookup says %v", text, loc, occ.At, occ.Wall, occ.Kind, res.Kind)
			case occ.Kind != dstsafe.Gap && !readsAs(occ.At, loc, occ.Wall):
				t.Fatalf("%q in %s: occurrence %v does not read as its wall %v", text, loc, occ.At, occ.Wall)
			case occ.Kind == dstsafe.Gap && occ.At.Before(res.Transition.At):
				t.Fatalf("%q in %s: gap wall %v fires at %v, before the transition %v", text, loc, occ.Wall, occ.At, res.Transition.At)
			case occ.Kind == dstsafe.Fold && !occ.At.Equal(res.Earlier):
				t.Fatalf("%q in %s: repeated wall %v fires at %v, not at its first reading %v", text, loc, occ.Wall, occ.At, res.Earlier)
			}
			last, at = occ.Wall, next
		}
	})
}

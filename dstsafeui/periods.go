package dstsafeui

import (
	"slices"
	"strings"
	"time"

	"github.com/dstsafe/dstsafe"
)

// Period states as the pages show them: a record's state, or one of the
// two a period without a record has.
const (
	stateMissing  = "missing"  // expected, due, and no record: nothing ran it
	stateUpcoming = "upcoming" // expected, not due yet
)

// period is one period of a job as the pages show it: what the schedule
// expected (Occ, when Expected) and what the ledger holds (Rec, when
// HasRec).
type period struct {
	Key      string
	State    string
	Expected bool
	Occ      dstsafe.Occurrence
	HasRec   bool
	Rec      *dstsafe.Record
	// At is where the period sits in time: the occurrence's instant, else
	// the instant its key reads in the job's zone, else its record's start.
	At time.Time
}

// classify merges the periods sched expects in [from, to) with the
// records of the same range and says each one's state: a record's state
// (abandoned reported by the ledger's clock), missing for an expected
// period due at or before now without a record, upcoming for one not due
// yet. Records no expected period matches (an edited schedule, a RunNow of
// another key) are kept where their key reads. sched may be nil (a job
// whose schedule is unknown): then the records alone. The result is
// ordered by At, then key. It is the one place the pages decide what a
// period's state is. It stops when sched has more than limit periods in
// the range, and returns ok false.
func classify(sched *dstsafe.Cron, loc *time.Location, recs []dstsafe.Record, from, to, now time.Time, limit int) (_ []period, ok bool) {
	byKey := make(map[string]int, len(recs))
	for i, r := range recs {
		byKey[r.Period] = i
	}
	used := make([]bool, len(recs))
	out := make([]period, 0, len(recs)+16)
	if sched != nil {
		for after := from.Add(-time.Nanosecond); ; {
			o, ok := sched.NextOccurrence(after)
			if !ok || !o.At.Before(to) {
				break
			}
			if len(out) >= limit {
				return nil, false
			}
			after = o.At
			p := period{Key: o.Period, Expected: true, Occ: o, At: o.At}
			if i, ok := byKey[o.Period]; ok {
				used[i] = true
				p.HasRec, p.Rec, p.State = true, &recs[i], recs[i].State.String()
			} else if o.At.After(now) {
				p.State = stateUpcoming
			} else {
				p.State = stateMissing
			}
			out = append(out, p)
		}
	}
	for i, r := range recs {
		if used[i] {
			continue
		}
		at := keyInstant(r.Period, loc)
		if at.IsZero() {
			at = r.StartedAt
		}
		if at.Before(from) || !at.Before(to) {
			continue
		}
		out = append(out, period{Key: r.Period, State: r.State.String(), HasRec: true, Rec: &recs[i], At: at})
	}
	slices.SortStableFunc(out, func(a, b period) int {
		if c := a.At.Compare(b.At); c != 0 {
			return c
		}
		return strings.Compare(a.Key, b.Key)
	})
	return out, true
}

// keyInstant is the instant a period key reads in loc: a wall reading
// ("2024-11-03T01:30:00", the earlier one in a fold, the later with
// ";fold=1", shifted forward in a gap) or a date's first instant
// ("2024-11-03"). Zero for a key that is neither.
func keyInstant(key string, loc *time.Location) time.Time {
	if loc == nil {
		return time.Time{}
	}
	k, suffix, _ := strings.Cut(key, ";")
	if w, err := dstsafe.ParseWall(k); err == nil {
		r := dstsafe.Lookup(w, loc)
		if suffix == "fold=1" {
			return r.Later
		}
		if r.Kind == dstsafe.Gap {
			return r.Later
		}
		return r.Earlier
	}
	if d, err := dstsafe.ParseDate(k); err == nil {
		return d.Start(loc)
	}
	return time.Time{}
}

// counts tallies periods by state.
type counts map[string]int

func countStates(ps []period) counts {
	c := counts{}
	for _, p := range ps {
		c[p.State]++
	}
	return c
}

// AtRisk is the periods due that did not finish and that a retry can
// still rescue: failed or abandoned.
func (c counts) AtRisk() int { return c["failed"] + c["abandoned"] }

// Missing is the expected periods due without a record.
func (c counts) Missing() int { return c[stateMissing] }

// keyBounds are List bounds that hold every record of the periods in
// [from, to) in loc: the local dates a day either side, since a wall key
// ("2024-11-03T01:30:00") and a date key ("2024-11-03") of a date sort
// after that date's string and before the next date's.
func keyBounds(from, to time.Time, loc *time.Location) (string, string) {
	return dstsafe.DateOf(from, loc).AddDays(-1).String(), dstsafe.DateOf(to, loc).AddDays(2).String()
}

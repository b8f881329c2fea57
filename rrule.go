package dstsafe

import (
	"math"
	"time"
)

// RRule is a parsed RFC 5545 recurrence: a DTSTART, an optional RRULE, and
// RDATE and EXDATE lists, read in one zone. It is immutable and safe for
// concurrent use, and implements [Schedule] and [OccurrenceSchedule] as a
// *Cron does, with the same fold and gap policies and period keys.
//
// The rule is expanded in wall-clock units: "every 2 days" is every second
// civil date, never every 48 hours, and "monthly on the 31st" names 31st
// readings, not multiples of a duration. Each computed wall reading is then
// resolved in the rule's zone as RFC 5545 §3.3.5 and §3.3.10 say: a reading
// that happens twice fires at its first occurrence (FoldFirst), and one
// that does not exist is moved forward by the length of the gap (GapShift);
// such a moved reading still counts toward COUNT. [WithFold] and [WithGap]
// choose other policies, as for a *Cron.
type RRule struct {
	text string // canonical form, String()
	loc  *time.Location

	start    int64 // DTSTART, naive seconds
	hasRule  bool  // an RRULE line was given
	freq     rfreq
	interval int64

	// Bounds on the RRULE's wall readings (not on RDATE): last is the
	// last reading COUNT or a wall-clock UNTIL allows (inclusive). For an
	// UNTIL in UTC in a zone with transitions, readings within a day or
	// so of untilWall are compared by instant (untilAt).
	last       int64
	untilExact bool
	untilAt    int64
	untilWall  int64

	days  dayRules
	times timeSet

	// Period structure for WEEKLY, MONTHLY, YEARLY: startPer is DTSTART's
	// period, weekBase the day number of a WKST weekday. dayStep is the
	// INTERVAL in days for DAILY (1 for the sub-daily frequencies, whose
	// INTERVAL is folded into times).
	startPer int64
	weekBase int64
	dayStep  int64
	startDay int64
	setpos   []int16

	rdates, exdates []int64 // sorted naive seconds

	fold  FoldPolicy
	gap   GapPolicy
	key   PeriodKey
	never bool
}

// rfreq is a rule's FREQ, ordered as dateutil orders them.
type rfreq uint8

const (
	freqSecondly rfreq = iota
	freqMinutely
	freqHourly
	freqDaily
	freqWeekly
	freqMonthly
	freqYearly
)

var freqNames = [...]string{"SECONDLY", "MINUTELY", "HOURLY", "DAILY", "WEEKLY", "MONTHLY", "YEARLY"}

// skipMode is RFC 7529's SKIP.
type skipMode uint8

const (
	skipOmit skipMode = iota
	skipBackward
	skipForward
)

var skipNames = [...]string{"OMIT", "BACKWARD", "FORWARD"}

// The wall readings a rule may name: years 1 to 200000, as for a *Cron.
var (
	minRuleWall = minCronUnix
	maxRuleWall = maxCronUnix
)

// Location returns the zone the rule's wall readings are in: DTSTART's
// TZID, UTC for a DTSTART in UTC ("...Z"), else the zone of [WithLocation]
// (UTC without it).
func (r *RRule) Location() *time.Location { return r.loc }

// String returns the rule in a canonical form that ParseRRule reads back
// as the same rule: DTSTART (with the zone's TZID, or in UTC), the RRULE
// with its parts in a fixed order, then EXDATE and RDATE, one per line,
// separated by "\n".
func (r *RRule) String() string { return r.text }

// FoldPolicy returns the fold policy in effect: FoldFirst unless
// [WithFold] chose another (never auto).
func (r *RRule) FoldPolicy() FoldPolicy { return r.fold }

// GapPolicy returns the gap policy in effect: GapShift unless [WithGap]
// chose another (never auto).
func (r *RRule) GapPolicy() GapPolicy { return r.gap }

// PeriodKey returns how occurrences are keyed.
func (r *RRule) PeriodKey() PeriodKey { return r.key }

// Never reports whether the rule has no instance at all, as
// "FREQ=YEARLY;BYMONTH=2;BYMONTHDAY=30" (February 30) has none: Next then
// returns the zero time at once.
func (r *RRule) Never() bool { return r.never }

// Next returns the first instant strictly after after at which the rule
// fires, in the rule's zone, or the zero time.Time if it never fires again.
// It always terminates; successive calls Next(Next(t)) return strictly
// increasing instants, and two readings that resolve to one instant fire
// once. Next takes no lock and allocates nothing.
func (r *RRule) Next(after time.Time) time.Time {
	m, ok := r.next(after)
	if !ok {
		return time.Time{}
	}
	return time.Unix(m.t, 0).In(r.loc)
}

// NextOccurrence returns the first occurrence strictly after after, with the
// wall reading it was computed for, its Kind and its ledger Period (the
// computed reading, "2024-03-31T00:00:00", or its date with ByDate), or
// false if the rule never fires again.
func (r *RRule) NextOccurrence(after time.Time) (Occurrence, bool) {
	m, ok := r.next(after)
	if !ok {
		return Occurrence{}, false
	}
	o := Occurrence{At: time.Unix(m.t, 0).In(r.loc), Wall: wallOfNaive(m.w, 0), Kind: m.kind}
	o.Period = periodKey(r.key, r.fold, o.Wall, m.second)
	return o, true
}

// next finds the next occurrence in compact form, walking the zone as a
// *Cron does.
func (r *RRule) next(after time.Time) (match, bool) {
	if r.never {
		return match{}, false
	}
	tmin := after.Unix() + 1
	if tmin < minCronUnix {
		tmin = minCronUnix
	}
	if tmin > maxCronUnix {
		return match{}, false
	}
	src := wallSource{rule: r}
	return walkZone(&src, r.loc, r.fold, r.gap, tmin)
}

// firstWall returns the first wall reading of the recurrence set at or
// after from: the RRULE's readings and the RDATEs, less the EXDATEs.
func (r *RRule) firstWall(from int64) (int64, bool) {
	for range len(r.exdates) + 1 {
		best, ok := int64(math.MaxInt64), false
		if r.hasRule {
			best, ok = r.ruleFirst(from)
		} else if r.start >= from {
			best, ok = r.start, true
		}
		if len(r.rdates) > 0 {
			if i := searchInt64(r.rdates, from); i < len(r.rdates) && (!ok || r.rdates[i] < best) {
				best, ok = r.rdates[i], true
			}
		}
		if !ok {
			return 0, false
		}
		if i := searchInt64(r.exdates, best); i < len(r.exdates) && r.exdates[i] == best {
			from = best + 1
			continue
		}
		return best, true
	}
	return 0, false // every EXDATE hit: unreachable, each excludes one reading
}

// searchInt64 returns the index of the first element of the sorted s at
// or after v.
func searchInt64(s []int64, v int64) int {
	lo, hi := 0, len(s)
	for lo < hi {
		m := int(uint(lo+hi) >> 1)
		if s[m] < v {
			lo = m + 1
		} else {
			hi = m
		}
	}
	return lo
}

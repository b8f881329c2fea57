package calendar

import (
	"strconv"
	"time"

	"github.com/dstsafe/dstsafe"
	"github.com/dstsafe/dstsafe/internal/civil"
	"github.com/dstsafe/dstsafe/internal/schedlink"
)

// HolidayPolicy says what Excluding does with an occurrence scheduled on a
// date its calendar contains.
type HolidayPolicy uint8

const (
	// SkipHoliday drops the occurrence.
	SkipHoliday HolidayPolicy = iota
	// NextBusinessDay moves it to the first later date the calendar does
	// not contain (a Saturday run to Monday).
	NextBusinessDay
	// PreviousBusinessDay moves it to the last earlier date the calendar
	// does not contain (a Saturday run to Friday).
	PreviousBusinessDay
)

// String returns "skip", "next-business-day" or "previous-business-day".
func (p HolidayPolicy) String() string {
	switch p {
	case SkipHoliday:
		return "skip"
	case NextBusinessDay:
		return "next-business-day"
	case PreviousBusinessDay:
		return "previous-business-day"
	}
	return "HolidayPolicy(" + strconv.Itoa(int(p)) + ")"
}

// fastNext is package dstsafe's next for its own schedules.
var fastNext = schedlink.Get()

// secondsPerDay is the length of a day of wall readings.
const secondsPerDay = 86400

// maxHolidayRun bounds how far Excluding looks for a business day and for
// the schedule's next occurrence on one: ten years of days. A calendar
// that contains every date for that long is treated as closed for good.
const maxHolidayRun = 3653

// Excluded is a schedule with the dates of a calendar taken out: see
// Excluding. It is immutable and safe for concurrent use if its schedule
// and calendar are.
type Excluded struct {
	s      dstsafe.OccurrenceSchedule
	cal    Calendar
	policy HolidayPolicy
}

// Excluding returns s without the occurrences scheduled on dates cal
// contains, which policy drops or moves to a business day. The date of an
// occurrence is the date of the wall reading it was scheduled for, in the
// schedule's zone (the date ByDate keys it by), also when a gap pushed it
// past midnight.
//
// A moved occurrence keeps its Wall, Kind and Period: a run moved from
// Saturday to Monday is still Saturday's period, so a ledger claims it
// once, and Monday's own run is another period. It fires at the wall time
// of day it was scheduled for, on the business day (resolved as RFC 5545
// says: first reading of a fold, pushed forward out of a gap), or, when
// the schedule itself fires at that instant or an occurrence moved there
// earlier took it, one second later, and again: it never meets that day's
// own run. Runs moved to one day keep their order.
//
// Excluding looks up to ten years ahead for a business day and for an
// occurrence on one; past that it answers "never". It panics if s or cal
// is nil or policy is unknown.
func Excluding(s dstsafe.OccurrenceSchedule, cal Calendar, policy HolidayPolicy) *Excluded {
	if s == nil || cal == nil || policy > PreviousBusinessDay {
		panic("dstsafe: Excluding: nil schedule or calendar, or unknown policy")
	}
	return &Excluded{s: s, cal: cal, policy: policy}
}

// Next returns the first instant strictly after after at which the
// schedule fires, or the zero time.Time if it never fires again.
func (e *Excluded) Next(after time.Time) time.Time {
	at, _, ok := e.next(after)
	if !ok {
		return time.Time{}
	}
	return at
}

// NextOccurrence returns the first occurrence strictly after after: the
// schedule's own occurrence, with At moved to a business day when its date
// is in the calendar. Wall, Kind and Period are the scheduled ones.
func (e *Excluded) NextOccurrence(after time.Time) (dstsafe.Occurrence, bool) {
	at, orig, ok := e.next(after)
	if !ok {
		return dstsafe.Occurrence{}, false
	}
	o, ok := e.s.NextOccurrence(orig.Add(-time.Nanosecond))
	if !ok || !o.At.Equal(orig) {
		return dstsafe.Occurrence{}, false // the schedule changed its mind: not ours
	}
	o.At = at
	return o, true
}

// original is one occurrence of the underlying schedule.
type original struct {
	at   time.Time
	date dstsafe.Date // of the scheduled wall reading
	tod  int64        // its time of day, seconds
}

// first returns the schedule's first occurrence strictly after t, without
// building its Period when the schedule is a *Cron or an *RRule.
func (e *Excluded) first(t time.Time) (original, bool) {
	mt, mw, loc, ok, handled := fastNext(e.s, t)
	if !handled {
		o, found := e.s.NextOccurrence(t)
		if !found {
			return original{}, false
		}
		w := o.Wall
		return original{o.At, dstsafe.Date{Year: w.Year, Month: w.Month, Day: w.Day}, int64(w.Hour*3600 + w.Minute*60 + w.Second)}, true
	}
	if !ok {
		return original{}, false
	}
	days := civil.FloorDiv(mw, secondsPerDay)
	y, mo, d := civil.CivilFromDays(days)
	return original{time.Unix(mt, 0).In(loc), dstsafe.Date{Year: y, Month: mo, Day: d}, mw - days*secondsPerDay}, true
}

// business returns the business day the policy moves date d to (d itself
// when the calendar does not contain it), or false if there is none within
// maxHolidayRun days.
func (e *Excluded) business(d dstsafe.Date) (dstsafe.Date, bool) {
	if !e.cal.Contains(d) {
		return d, true
	}
	step := 1
	if e.policy == PreviousBusinessDay {
		step = -1
	}
	for range maxHolidayRun {
		if d = d.AddDays(step); !e.cal.Contains(d) {
			return d, true
		}
	}
	return dstsafe.Date{}, false
}

// FiresOn returns the business day the occurrences scheduled on date d
// fire on (d itself on a business day), or false when the policy drops
// them or no business day comes within maxHolidayRun days. The outermost
// Excluding decides: it moves by the scheduled date, whatever an inner
// one did.
func (e *Excluded) FiresOn(d dstsafe.Date) (dstsafe.Date, bool) {
	if e.policy == SkipHoliday {
		return d, !e.cal.Contains(d)
	}
	return e.business(d)
}

// taken records the instants given to moved occurrences of one day. The
// first eight live in an array (no allocation for the usual holiday);
// past them, a set, and for each base instant the last one given from it:
// every second between the two is taken or fired, so the next search from
// that base starts after it, and a day receiving n moved runs costs O(n),
// not O(n^2) (a closure of a year moves hundreds of runs to one day).
type taken struct {
	day  dstsafe.Date
	n    int
	at   [8]int64
	more map[int64]struct{}
	last map[int64]int64
}

func (tk *taken) has(u int64) bool {
	for i := range min(tk.n, len(tk.at)) {
		if tk.at[i] == u {
			return true
		}
	}
	_, ok := tk.more[u]
	return ok
}

// from returns the first instant worth trying for a run moved to day at
// base.
func (tk *taken) from(day dstsafe.Date, base int64) int64 {
	if tk.day == day {
		if l, ok := tk.last[base]; ok {
			return l + 1
		}
	}
	return base
}

func (tk *taken) add(day dstsafe.Date, base, u int64) {
	if day != tk.day {
		*tk = taken{day: day}
	}
	if tk.n < len(tk.at) {
		tk.at[tk.n] = u
	} else {
		if tk.more == nil {
			tk.more, tk.last = map[int64]struct{}{}, map[int64]int64{}
		}
		tk.more[u] = struct{}{}
	}
	if tk.last != nil {
		tk.last[base] = u
	}
	tk.n++
}

// next returns the first instant strictly after after at which e fires,
// and the instant of the schedule's occurrence it comes from.
func (e *Excluded) next(after time.Time) (at, orig time.Time, ok bool) {
	loc := e.location(after)
	if loc == nil {
		return time.Time{}, time.Time{}, false
	}
	dA := dstsafe.DateOf(after, loc)
	// Where to start reading the schedule. A moved run fires on its
	// business day, or up to a day later where a gap swallows the wall
	// reading it moves to (Pacific/Fakaofo skipped 2011-12-30): runs moved
	// to two days before after's date may still fire after it. Moved runs
	// share out instants in order, so a holiday run is read from its first
	// date.
	scan := after
	back := dA.AddDays(-2)
	switch e.policy {
	case NextBusinessDay:
		// Holidays before back move to it or later: start after the
		// last business day before it.
		d := back.AddDays(-1)
		for i := 0; e.cal.Contains(d); i++ {
			if i > maxHolidayRun {
				return time.Time{}, time.Time{}, false
			}
			d = d.AddDays(-1)
		}
		scan = d.AddDays(1).Start(loc).Add(-time.Nanosecond)
	case PreviousBusinessDay:
		d := back
		for i := 0; e.cal.Contains(d) && e.cal.Contains(d.AddDays(-1)); i++ {
			if i > maxHolidayRun {
				return time.Time{}, time.Time{}, false
			}
			d = d.AddDays(-1)
		}
		scan = d.Start(loc).Add(-time.Nanosecond)
	}
	limit := dA.AddDays(maxHolidayRun)
	// The dates business walks through on its way to a business day are
	// holidays that move to the same one: remember the last walk, or a
	// closure of n days costs n^2 calendar lookups.
	var memo struct {
		lo, hi, to dstsafe.Date
		ok         bool
	}
	biz := func(d dstsafe.Date) (dstsafe.Date, bool) {
		if memo.ok && !d.Before(memo.lo) && !d.After(memo.hi) {
			return memo.to, true
		}
		if memo.ok && e.policy == PreviousBusinessDay && d == memo.hi.AddDays(1) && e.cal.Contains(d) {
			memo.hi = d // the scan goes forward: the walk back grows by one
			return memo.to, true
		}
		to, ok := e.business(d)
		switch {
		case !ok || to == d:
		case to.After(d):
			memo.lo, memo.hi, memo.to, memo.ok = d, to.AddDays(-1), to, true
		default:
			memo.lo, memo.hi, memo.to, memo.ok = to.AddDays(1), d, to, true
		}
		return to, ok
	}
	var tk taken
	var best, bestOrig time.Time
	found := false
	for t := scan; ; {
		o, ok := e.first(t)
		if !ok || o.date.After(limit) {
			break
		}
		t = o.at
		target, ok := biz(o.date)
		switch {
		case !ok:
			return best, bestOrig, found // closed for ten years: never again
		case found && target.Start(loc).After(best):
			return best, bestOrig, true // later occurrences land later
		case e.policy == NextBusinessDay && found && o.at.After(best):
			return best, bestOrig, true
		case target == o.date:
			if o.at.After(after) && (!found || o.at.Before(best)) {
				best, bestOrig, found = o.at, o.at, true
			}
			continue
		case e.policy == SkipHoliday:
			continue
		}
		// Moved: the scheduled time of day on target, then the first
		// second the schedule and the moves before it leave free.
		w := dstsafe.Wall{Year: target.Year, Month: target.Month, Day: target.Day,
			Hour: int(o.tod / 3600), Minute: int(o.tod / 60 % 60), Second: int(o.tod % 60)}
		at, _ := dstsafe.Resolve(w, loc, dstsafe.Compatible)
		base := at.Unix()
		u := tk.from(target, base)
		for k := 0; k < 86400; k++ {
			if tk.day == target && tk.has(u) || e.fires(u) {
				u++
				continue
			}
			break
		}
		tk.add(target, base, u)
		if m := time.Unix(u, 0).In(loc); m.After(after) && (!found || m.Before(best)) {
			best, bestOrig, found = m, o.at, true
		}
	}
	return best, bestOrig, found
}

// fires reports whether the schedule has an occurrence at unix second u.
func (e *Excluded) fires(u int64) bool {
	o, ok := e.first(time.Unix(u-1, 999_999_999))
	return ok && o.at.Unix() == u && o.at.Nanosecond() == 0
}

// location returns the schedule's zone: that of its occurrences.
func (e *Excluded) location(after time.Time) *time.Location {
	if _, _, loc, _, handled := fastNext(e.s, after); handled {
		return loc
	}
	o, ok := e.s.NextOccurrence(after)
	if !ok {
		return nil
	}
	return o.At.Location()
}

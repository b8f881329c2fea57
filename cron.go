package dstsafe

import "time"

// Cron is a parsed cron specification: the wall readings it names, the zone
// it reads them in, and what it does when a reading happens twice (fold) or
// never (gap). It is immutable and safe for concurrent use.
//
// *Cron implements [Schedule] (robfig/cron's cron.Schedule and river's
// PeriodicSchedule shape) and [OccurrenceSchedule].
type Cron struct {
	spec string
	loc  *time.Location

	second, minute uint64 // bit n: second/minute n matches
	hour           uint32 // bit n: hour n matches
	dom            uint32 // bit n: day n of the month matches (1-31)
	month          uint16 // bit n: month n matches (1-12)
	dow            uint8  // bit n: weekday n matches (0 = Sunday)
	domStar        bool   // day-of-month field is * or ?: only day-of-week restricts
	dowStar        bool   // day-of-week field is * or ?: only day-of-month restricts
	domLast        bool   // L: last day of the month
	domLastWeekday bool   // LW: last weekday (Mon-Fri) of the month
	domNearest     uint32 // nW: weekday nearest day n
	dowLast        uint8  // nL: last weekday n of the month
	dowNth         [7]uint8

	// Precomputed from the fields above, for dayMask.
	allDays  bool      // both day fields are * (and nothing else)
	domExtra bool      // L, LW or nW present
	dowExtra bool      // nL or n#k present
	dowDays  [7]uint32 // days 1-31 whose weekday matches, by weekday of the 1st

	every  int64 // @every: period in seconds; 0 for field specs
	origin int64 // @every: unix second the period counts from

	fixed bool
	fold  FoldPolicy
	gap   GapPolicy
	key   PeriodKey
	never bool
}

// CronOption configures ParseCron. A nil CronOption is ignored.
type CronOption func(*cronConfig)

type cronConfig struct {
	seconds bool
	nilLoc  bool // WithLocation(nil)
	loc     *time.Location
	fold    FoldPolicy
	gap     GapPolicy
	key     PeriodKey
	origin  time.Time
}

// WithSeconds makes the spec start with a seconds field: six fields,
// "0 30 1 * * *" is 01:30:00 daily. Descriptors (@daily ...) fire at second 0.
func WithSeconds() CronOption { return func(c *cronConfig) { c.seconds = true } }

// WithLocation sets the zone of a spec that has no CRON_TZ= or TZ= prefix.
// Without it such a spec is in UTC, never the machine's local zone.
// A prefix in the spec wins. A nil loc is never a default: ParseCron
// returns a *ParseError (Field "option") wrapping ErrInvalidArgument.
func WithLocation(loc *time.Location) CronOption {
	return func(c *cronConfig) {
		if loc == nil {
			c.nilLoc = true
			return
		}
		c.loc = loc
	}
}

// WithFold overrides the fold policy. Defaults to FoldFirst for fixed-time
// specs and FoldBoth for periodic ones (see [Cron.Fixed]).
func WithFold(p FoldPolicy) CronOption { return func(c *cronConfig) { c.fold = p } }

// WithGap overrides the gap policy. Defaults to GapShift for fixed-time
// specs and GapSkip for periodic ones (see [Cron.Fixed]).
func WithGap(p GapPolicy) CronOption { return func(c *cronConfig) { c.gap = p } }

// WithPeriodKey chooses how occurrences are keyed for a ledger.
// Defaults to ByWall.
func WithPeriodKey(k PeriodKey) CronOption { return func(c *cronConfig) { c.key = k } }

// WithEveryOrigin sets the instant an "@every d" spec counts from: it fires
// at origin + k*d for every integer k. Defaults to the Unix epoch, so a
// restart never shifts the schedule and "@every 1h" fires on the hour (UTC).
func WithEveryOrigin(origin time.Time) CronOption {
	return func(c *cronConfig) { c.origin = origin }
}

// foldPolicy resolves the zero (auto) FoldPolicy for this spec: FoldFirst when fixed-time,
// FoldBoth when periodic.
func (c *Cron) foldPolicy(p FoldPolicy) FoldPolicy {
	switch {
	case p != foldAuto:
		return p
	case c.fixed:
		return FoldFirst
	}
	return FoldBoth
}

// gapPolicy resolves the zero (auto) GapPolicy for this spec: GapShift when fixed-time,
// GapSkip when periodic.
func (c *Cron) gapPolicy(p GapPolicy) GapPolicy {
	switch {
	case p != gapAuto:
		return p
	case c.fixed:
		return GapShift
	}
	return GapSkip
}

// Location returns the zone the spec's wall readings are in.
func (c *Cron) Location() *time.Location { return c.loc }

// String returns the spec as given to ParseCron.
func (c *Cron) String() string { return c.spec }

// Fixed reports whether the spec names fixed wall times (no seconds,
// minute or hour field starts with * or ?), which selects the default
// fold and gap policies.
func (c *Cron) Fixed() bool { return c.fixed && c.every == 0 }

// FoldPolicy returns the fold policy in effect (never auto).
func (c *Cron) FoldPolicy() FoldPolicy { return c.fold }

// GapPolicy returns the gap policy in effect (never auto).
func (c *Cron) GapPolicy() GapPolicy { return c.gap }

// PeriodKey returns how occurrences are keyed.
func (c *Cron) PeriodKey() PeriodKey { return c.key }

// Never reports whether the spec can never fire ("0 0 30 2 *").
func (c *Cron) Never() bool { return c.never }

// Next returns the first instant strictly after after at which the schedule
// fires, in the schedule's zone, or the zero time.Time if it never fires
// again. It always terminates, for every spec in every zone (robfig/cron
// and gocron loop forever on a monthly job on the 30th in Pacific/Apia,
// whose 2011-12-30 was skipped). Successive calls
// Next(Next(t)) return strictly increasing instants; two readings that
// resolve to one instant fire once. Next takes no lock and allocates
// nothing.
func (c *Cron) Next(after time.Time) time.Time {
	m, ok := c.next(after)
	if !ok {
		return time.Time{}
	}
	return time.Unix(m.t, 0).In(c.loc)
}

// NextOccurrence returns the first occurrence strictly after after, with
// the wall reading it was scheduled for, its Kind and its ledger Period, or
// false if the schedule never fires again.
//
// Fold and gap handling follows the schedule's policies (see ParseCron).
// A reading pushed out of a gap (GapShift) that lands on an instant the
// schedule fires at anyway fires once, as that existing reading.
func (c *Cron) NextOccurrence(after time.Time) (Occurrence, bool) {
	m, ok := c.next(after)
	if !ok {
		return Occurrence{}, false
	}
	o := Occurrence{At: time.Unix(m.t, 0).In(c.loc), Wall: wallOfNaive(m.w, 0), Kind: m.kind}
	o.Period = c.period(o.Wall, m.second)
	return o, true
}

// period builds an occurrence's ledger key.
func (c *Cron) period(w Wall, secondReading bool) string {
	return periodKey(c.key, c.fold, w, secondReading)
}

// periodKey builds the ledger key of an occurrence scheduled for wall w:
// its date with ByDate, else its reading, with ";fold=1" for the second
// reading of a repeated wall when both readings fire.
func periodKey(key PeriodKey, fold FoldPolicy, w Wall, secondReading bool) string {
	if key == ByDate {
		return w.DateString()
	}
	if secondReading && fold == FoldBoth {
		return w.String() + ";fold=1"
	}
	return w.String()
}

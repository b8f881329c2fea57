package dstsafe

import (
	"fmt"
	"math"
	"math/bits"
	"strconv"
	"strings"
	"time"
)

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

// CronOption configures ParseCron.
type CronOption func(*cronConfig)

type cronConfig struct {
	seconds bool
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
// A prefix in the spec wins. A nil loc is ignored.
func WithLocation(loc *time.Location) CronOption {
	return func(c *cronConfig) {
		if loc != nil {
			c.loc = loc
		}
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

// ParseError reports a spec ParseCron rejects. Field names the part at
// fault: "spec", "zone", "descriptor", "every", "second", "minute", "hour",
// "day-of-month", "month", "day-of-week" or "option".
type ParseError struct {
	Spec   string
	Field  string
	Reason string
	Err    error // underlying error, e.g. from time.LoadLocation; may be nil
}

func (e *ParseError) Error() string {
	return fmt.Sprintf("dstsafe: parse cron spec %q: %s: %s", e.Spec, e.Field, e.Reason)
}

// Unwrap returns the underlying error, if any.
func (e *ParseError) Unwrap() error { return e.Err }

// ParseCron parses a cron specification. It accepts what robfig/cron v3's
// ParseStandard and Kubernetes CronJob accept, and more:
//
//   - five fields, minute hour day-of-month month day-of-week (six with
//     [WithSeconds], seconds first), each a list of *, ?, n, a-b, */s, a-b/s,
//     n/s (n to the end, step s); months JAN-DEC and weekdays SUN-SAT by name
//     (any case); day-of-week 7 is Sunday too;
//   - Vixie cron's rule: when both day fields are restricted, a day matches
//     if either matches ("0 0 1 * MON": the 1st and every Monday);
//   - Quartz extensions: L (last day of the month), LW (last weekday of the
//     month) and nW (weekday nearest day n) in day-of-month; nL (last
//     weekday n of the month, "5L" or "FRIL": last Friday) and n#k (k-th
//     weekday n, "MON#2": second Monday) in day-of-week;
//   - @yearly, @annually, @monthly, @weekly, @daily, @midnight, @hourly;
//   - "@every d": every d (a whole number of seconds, at least 1s) of real
//     time, counted from a fixed origin ([WithEveryOrigin]) so that a
//     restart does not shift it;
//   - a "CRON_TZ=Zone " or "TZ=Zone " prefix naming an IANA zone. Without
//     one the spec is read in UTC (or the zone of [WithLocation]), never in
//     the machine's local zone. "Local" and fixed offsets such as "UTC+5"
//     are rejected: name an IANA zone ("Etc/GMT-5" if you mean it).
//
// A spec whose seconds, minute and hour fields are all fixed (none starts
// with * or ?), like "30 1 * * *", is fixed-time: in a fold it fires once,
// at the first reading, and in a gap once, pushed forward by the length of
// the gap (02:30 -> 03:30 CDT). Any other spec, like "*/15 * * * *", is
// periodic and follows real time: it fires at both readings of a fold and
// not at all for readings a gap skips. [WithFold] and [WithGap] override
// either policy.
//
// Every error is a *ParseError; ParseCron never panics on input.
func ParseCron(spec string, opts ...CronOption) (*Cron, error) {
	cfg := cronConfig{loc: time.UTC}
	for _, o := range opts {
		if o != nil {
			o(&cfg)
		}
	}
	perr := func(field, reason string, err error) error {
		return &ParseError{Spec: spec, Field: field, Reason: reason, Err: err}
	}
	if cfg.fold > FoldBoth {
		return nil, perr("option", fmt.Sprintf("unknown fold policy %d", cfg.fold), nil)
	}
	if cfg.gap > GapSkip {
		return nil, perr("option", fmt.Sprintf("unknown gap policy %d", cfg.gap), nil)
	}
	if cfg.key > ByDate {
		return nil, perr("option", fmt.Sprintf("unknown period key %d", cfg.key), nil)
	}
	c := &Cron{spec: spec, loc: cfg.loc, key: cfg.key}

	rest := strings.TrimSpace(spec)
	if strings.HasPrefix(rest, "CRON_TZ=") || strings.HasPrefix(rest, "TZ=") {
		eq := strings.IndexByte(rest, '=')
		end := strings.IndexAny(rest, " \t\n\r")
		if end < 0 {
			return nil, perr("spec", "nothing after the zone prefix", nil)
		}
		loc, err := loadZone(rest[eq+1 : end])
		if err != nil {
			return nil, perr("zone", err.Error(), err)
		}
		c.loc = loc
		rest = strings.TrimSpace(rest[end:])
	}
	if rest == "" {
		return nil, perr("spec", "empty", nil)
	}

	if rest[0] == '@' {
		if f, ok := strings.CutPrefix(rest, "@every"); ok && (f == "" || f[0] == ' ' || f[0] == '\t') {
			d, err := time.ParseDuration(strings.TrimSpace(f))
			switch {
			case err != nil:
				return nil, perr("every", "want a duration such as 90s or 1h30m", err)
			case d < time.Second:
				return nil, perr("every", "must be at least 1s", nil)
			case d%time.Second != 0:
				return nil, perr("every", "must be a whole number of seconds", nil)
			}
			c.every = int64(d / time.Second)
			if !cfg.origin.IsZero() {
				c.origin = cfg.origin.Unix()
			}
			c.fold, c.gap = FoldBoth, GapSkip
			if cfg.fold != FoldAuto || cfg.gap != GapAuto {
				return nil, perr("option", "@every follows real time; fold and gap policies do not apply", nil)
			}
			return c, nil
		}
		fields, ok := descriptors[strings.ToLower(rest)]
		if !ok {
			return nil, perr("descriptor", "unknown; want @yearly, @annually, @monthly, @weekly, @daily, @midnight, @hourly or @every <duration>", nil)
		}
		rest = fields
		if cfg.seconds {
			rest = "0 " + rest
		}
	}

	fields := strings.Fields(rest)
	want := 5
	if cfg.seconds {
		want = 6
	}
	if len(fields) != want {
		return nil, perr("spec", fmt.Sprintf("want %d fields, got %d", want, len(fields)), nil)
	}
	if !cfg.seconds {
		fields = append([]string{"0"}, fields...)
	}
	names := [...]string{"second", "minute", "hour", "day-of-month", "month", "day-of-week"}
	specs := [...]struct {
		lo, hi int
		names  map[string]int
		kind   fieldKind
	}{{0, 59, nil, 0}, {0, 59, nil, 0}, {0, 23, nil, 0}, {1, 31, nil, domField}, {1, 12, monthNames, 0}, {0, 7, dayNames, dowField}}
	var fb [6]fieldBits
	for i, f := range fields {
		var err error
		if fb[i], err = parseField(f, specs[i].lo, specs[i].hi, specs[i].names, specs[i].kind); err != nil {
			return nil, perr(names[i], err.Error(), nil)
		}
	}
	sec, min, hour, dom, month, dow := fb[0], fb[1], fb[2], fb[3], fb[4], fb[5]
	c.second, c.minute, c.hour = sec.bits, min.bits, uint32(hour.bits)
	c.dom, c.month = uint32(dom.bits), uint16(month.bits)
	c.dow = uint8(dow.bits&0x7f | dow.bits>>7&1) // 7 is Sunday
	c.domStar, c.dowStar = dom.star, dow.star
	c.domLast, c.domLastWeekday, c.domNearest = dom.last, dom.lastWeekday, uint32(dom.nearest)
	c.dowLast = uint8(dow.lastOf&0x7f | dow.lastOf>>7&1)
	for i, k := range dow.nth {
		c.dowNth[i%7] |= k
	}

	c.domExtra = c.domLast || c.domLastWeekday || c.domNearest != 0
	c.dowExtra = c.dowLast != 0 || c.dowNth != [7]uint8{}
	c.allDays = c.domStar && c.dowStar
	for wd1 := range 7 {
		for d := 1; d <= 31; d++ {
			if c.dow&(1<<((wd1+d-1)%7)) != 0 {
				c.dowDays[wd1] |= 1 << d
			}
		}
	}

	c.fixed = !sec.leadingStar && !min.leadingStar && !hour.leadingStar
	c.fold, c.gap = c.foldPolicy(cfg.fold), c.gapPolicy(cfg.gap)
	c.never = !c.matchesSomeDay()
	return c, nil
}

// foldPolicy resolves FoldAuto for this spec: FoldFirst when fixed-time,
// FoldBoth when periodic.
func (c *Cron) foldPolicy(p FoldPolicy) FoldPolicy {
	switch {
	case p != FoldAuto:
		return p
	case c.fixed:
		return FoldFirst
	}
	return FoldBoth
}

// gapPolicy resolves GapAuto for this spec: GapShift when fixed-time,
// GapSkip when periodic.
func (c *Cron) gapPolicy(p GapPolicy) GapPolicy {
	switch {
	case p != GapAuto:
		return p
	case c.fixed:
		return GapShift
	}
	return GapSkip
}

var descriptors = map[string]string{
	"@yearly":   "0 0 1 1 *",
	"@annually": "0 0 1 1 *",
	"@monthly":  "0 0 1 * *",
	"@weekly":   "0 0 * * 0",
	"@daily":    "0 0 * * *",
	"@midnight": "0 0 * * *",
	"@hourly":   "0 * * * *",
}

var (
	monthNames = map[string]int{"jan": 1, "feb": 2, "mar": 3, "apr": 4, "may": 5, "jun": 6,
		"jul": 7, "aug": 8, "sep": 9, "oct": 10, "nov": 11, "dec": 12}
	dayNames = map[string]int{"sun": 0, "mon": 1, "tue": 2, "wed": 3, "thu": 4, "fri": 5, "sat": 6}
)

// loadZone loads an IANA zone for a CRON_TZ= prefix, refusing what would
// silently make the schedule depend on the host or on a fixed offset.
func loadZone(name string) (*time.Location, error) {
	switch {
	case name == "":
		return nil, fmt.Errorf("empty zone name")
	case name == "Local" || strings.EqualFold(name, "local"):
		return nil, fmt.Errorf("%q is the machine's zone; name an IANA zone such as America/Chicago", name)
	}
	loc, err := time.LoadLocation(name)
	switch {
	case err == nil:
		// A real tz database name, links such as GMT+0 included.
		return loc, nil
	case isFixedOffsetName(name):
		return nil, fmt.Errorf("%q is a fixed offset, not a zone; name an IANA zone such as America/Chicago (or Etc/GMT-5 for a fixed UTC+5)", name)
	}
	return nil, fmt.Errorf("unknown zone %q: %v", name, err)
}

// isFixedOffsetName reports names like "UTC+5", "GMT-03:00", "+05:30" or "0".
func isFixedOffsetName(name string) bool {
	s := name
	for _, p := range []string{"UTC", "GMT", "UT", "Z"} {
		if len(s) > len(p) && strings.EqualFold(s[:len(p)], p) && (s[len(p)] == '+' || s[len(p)] == '-') {
			s = s[len(p):]
			break
		}
	}
	if s != "" && (s[0] == '+' || s[0] == '-') {
		s = s[1:]
	}
	if s == "" {
		return false
	}
	for _, r := range s {
		if (r < '0' || r > '9') && r != ':' {
			return false
		}
	}
	return true
}

type fieldKind uint8

const (
	domField fieldKind = 1 + iota
	dowField
)

// fieldBits is one parsed field.
type fieldBits struct {
	bits        uint64
	star        bool // an item is * or ? (or */1): the field does not restrict
	leadingStar bool // the field starts with * or ?: periodic
	// day-of-month extras
	last, lastWeekday bool
	nearest           uint64
	// day-of-week extras (weekday 7 folded into 0 by the caller)
	lastOf uint64
	nth    [8]uint8
}

type fieldError struct {
	reason string
}

func (e *fieldError) Error() string { return e.reason }

func parseField(field string, lo, hi int, names map[string]int, kind fieldKind) (fieldBits, error) {
	var f fieldBits
	bad := func(format string, args ...any) (fieldBits, error) {
		return fieldBits{}, &fieldError{reason: fmt.Sprintf(format, args...)}
	}
	f.leadingStar = field[0] == '*' || field[0] == '?'
	for _, item := range strings.Split(field, ",") {
		if item == "" {
			return bad("empty item in list %q", field)
		}
		up := strings.ToUpper(item)
		switch {
		case kind == domField && up == "L":
			f.last = true
			continue
		case kind == domField && up == "LW":
			f.lastWeekday = true
			continue
		case kind == domField && strings.HasSuffix(up, "W"):
			n, err := strconv.Atoi(up[:len(up)-1])
			if err != nil || n < 1 || n > 31 {
				return bad("%q: nW needs a day 1-31 before W", item)
			}
			f.nearest |= 1 << n
			continue
		case kind == dowField && strings.HasSuffix(up, "L") && len(up) > 1:
			n, ok := fieldValue(up[:len(up)-1], 0, 7, names)
			if !ok {
				return bad("%q: nL needs a weekday 0-7 or SUN-SAT before L", item)
			}
			f.lastOf |= 1 << n
			continue
		case kind == dowField && strings.Contains(up, "#"):
			wd, k, _ := strings.Cut(up, "#")
			n, ok := fieldValue(wd, 0, 7, names)
			kk, err := strconv.Atoi(k)
			if !ok || err != nil || kk < 1 || kk > 5 {
				return bad("%q: n#k needs a weekday 0-7 or SUN-SAT and k 1-5", item)
			}
			f.nth[n] |= 1 << kk
			continue
		case up == "L":
			return bad("L is only allowed in day-of-month (L, LW) and day-of-week (nL)")
		}

		rng, stepText, hasStep := strings.Cut(item, "/")
		step := 1
		if hasStep {
			s, err := strconv.Atoi(stepText)
			if err != nil || s < 1 {
				return bad("%q: step must be a positive number", item)
			}
			// A step past the range's end selects the start alone, as in
			// robfig/cron and Kubernetes ("*/100" is minute 0).
			step = s
		}
		var a, b int
		if rng == "*" || rng == "?" {
			a, b = lo, hi
			if kind == dowField {
				b = 6 // * is Sunday-Saturday; 7 would repeat Sunday
			}
			if step == 1 {
				f.star = true
			}
		} else {
			from, to, isRange := strings.Cut(rng, "-")
			var ok bool
			if a, ok = fieldValue(from, lo, hi, names); !ok {
				return bad("%q: %q is not a value in %d-%d", item, from, lo, hi)
			}
			b = a
			switch {
			case isRange:
				if b, ok = fieldValue(to, lo, hi, names); !ok {
					return bad("%q: %q is not a value in %d-%d", item, to, lo, hi)
				}
				if a > b {
					return bad("%q: range start %d is after its end %d", item, a, b)
				}
			case hasStep:
				b = hi // "n/s" means n to the end, step s
				if kind == dowField {
					b = 6
				}
			}
		}
		for v := a; v <= b; v += step {
			f.bits |= 1 << v
			if step > b-v {
				break // the next value would pass b (or overflow)
			}
		}
	}
	return f, nil
}

func fieldValue(s string, lo, hi int, names map[string]int) (int, bool) {
	if v, ok := names[strings.ToLower(s)]; ok {
		return v, true
	}
	if s == "" || s[0] == '-' {
		return 0, false
	}
	// What strconv.Atoi takes ("+5", "0005"), as robfig/cron does.
	v, err := strconv.Atoi(s)
	if err != nil || v < lo || v > hi {
		return 0, false
	}
	return v, true
}

// Location returns the zone the spec's wall readings are in.
func (c *Cron) Location() *time.Location { return c.loc }

// String returns the spec as given to ParseCron.
func (c *Cron) String() string { return c.spec }

// Fixed reports whether the spec names fixed wall times (no seconds,
// minute or hour field starts with * or ?), which selects the default
// fold and gap policies.
func (c *Cron) Fixed() bool { return c.fixed && c.every == 0 }

// FoldPolicy returns the fold policy in effect (never FoldAuto).
func (c *Cron) FoldPolicy() FoldPolicy { return c.fold }

// GapPolicy returns the gap policy in effect (never GapAuto).
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

// next finds the next occurrence in compact form.
func (c *Cron) next(after time.Time) (match, bool) {
	if c.never {
		return match{}, false
	}
	tmin := after.Unix() + 1 // first whole second strictly after
	if tmin < minCronUnix {
		tmin = minCronUnix
	}
	if tmin > maxCronUnix {
		return match{}, false
	}
	if c.every > 0 {
		return c.nextEvery(tmin), true
	}
	return c.nextFields(tmin)
}

// The instants Next works with: years 1 to 200000, far inside int64 seconds.
var (
	minCronUnix = daysFromCivil(1, time.January, 1) * secondsPerDay
	maxCronUnix = daysFromCivil(200000, time.January, 1) * secondsPerDay
)

func (c *Cron) nextEvery(tmin int64) match {
	k := floorDiv(tmin-1-c.origin, c.every) + 1
	t := c.origin + k*c.every
	_, off := time.Unix(t, 0).In(c.loc).Zone()
	w := t + int64(off)
	m := match{t: t, w: w, kind: Unique}
	if sv := solve(tableFor(c.loc), w); sv.kind == Fold {
		m.kind = Fold
		m.second = t == w-int64(sv.off[sv.last])
	}
	return m
}

func floorDiv(a, b int64) int64 {
	q := a / b
	if (a%b != 0) && ((a < 0) != (b < 0)) {
		q--
	}
	return q
}

// period builds an occurrence's ledger key.
func (c *Cron) period(w Wall, secondReading bool) string {
	if c.key == ByDate {
		return w.DateString()
	}
	if secondReading && c.fold == FoldBoth {
		return w.String() + ";fold=1"
	}
	return w.String()
}

// nextFields finds the first occurrence at or after instant tmin by walking
// the zone's periods of constant offset in order. Within a period the
// readings run in step with real time, so the first matching reading is
// the period's first candidate; a gap at the period's start adds the
// readings it skipped (shifted, or at the transition); fold policies drop
// one of the two readings of a repeated wall time.
func (c *Cron) nextFields(tmin int64) (found match, ok bool) {
	z := tableFor(c.loc)
	at, off, hi := z.at, z.off, z.hi
	var j int
	if tmin >= hi-2*secondsPerDay {
		at, off, hi = scanZone(c.loc, tmin-2*secondsPerDay, tmin+400*secondsPerDay)
		j = periodIndex(at, tmin)
	} else {
		j = z.period(tmin)
	}
	ps := at[j]
	var memo matchMemo
	for tmin <= maxCronUnix {
		o := int64(off[j])
		pe := int64(math.MaxInt64)
		last := j+1 == len(at)
		if !last {
			pe = at[j+1]
		} else if hi != math.MaxInt64 {
			pe = hi // the table ends here; the offset is known up to hi
		}
		best := match{t: math.MaxInt64}

		// Readings skipped by a gap at this period's start: walls in
		// [ps+b, ps+o) never happen. GapShift fires them at g-b, in
		// [ps, ps+o-b); GapAtTransition at ps.
		if j > 0 && at[j] == ps && int64(off[j-1]) < o && c.gap != GapSkip {
			b := int64(off[j-1])
			from := ps + b
			if c.gap == GapShift {
				from = max(from, tmin+b)
			}
			if from < ps+o && (c.gap == GapShift || ps >= tmin) {
				if g, ok := memo.find(c, from); ok && g < ps+o {
					best = match{t: g - b, w: g, kind: Gap}
					if c.gap == GapAtTransition {
						best.t = ps
					}
				}
			}
		}

		// Natural readings of this period.
		from := max(tmin, ps) + o
		for from < satAdd(pe, o) {
			w, ok := memo.find(c, from)
			if !ok || w >= satAdd(pe, o) || w-o > best.t {
				break
			}
			second := j > 0 && at[j] == ps && int64(off[j-1]) > o && w < ps+int64(off[j-1])
			first := !last && int64(off[j+1]) < o && w >= pe+int64(off[j+1])
			if second && c.fold == FoldFirst {
				from = ps + int64(off[j-1]) // skip the repeated readings
				continue
			}
			if first && c.fold == FoldLast {
				break // the rest of this period is read again later
			}
			kind := Unique
			if first || second {
				kind = Fold
			}
			best = match{t: w - o, w: w, kind: kind, second: second}
			break
		}
		if best.kind != 0 {
			return best, true
		}

		// On to the next period.
		if last {
			if hi == math.MaxInt64 {
				return match{}, false
			}
			// Scan on from a little before, so that a transition just
			// before the old table's end still marks its fold or gap.
			start := hi
			at, off, hi = scanZone(c.loc, start-2*secondsPerDay, start+400*secondsPerDay)
			j = periodIndex(at, start)
			ps = at[j]
			tmin = max(tmin, start)
			continue
		}
		j++
		ps = at[j]
		tmin = max(tmin, ps)
	}
	return match{}, false
}

// match is a found occurrence in compact form: instant t (unix seconds)
// and scheduled wall w (naive seconds).
type match struct {
	t, w   int64
	kind   Kind
	second bool
}

func satAdd(a, b int64) int64 {
	if a == math.MaxInt64 {
		return a
	}
	return a + b
}

// matchMemo remembers the last answers of nextMatch: walking period after
// period, Next asks again and again from starting points below a far match.
// Two entries, because a fold sends the search back in wall time and then
// forward again past where it had been.
type matchMemo struct {
	e    [2]memoEntry
	next int
	days monthDays
}

// monthDays caches the last month's day mask: searches from several
// starting points in one Next mostly land in the same month.
type monthDays struct {
	y    int
	m    time.Month
	mask uint32
}

type memoEntry struct {
	from, w int64
	ok, set bool
	// dayOff: no time of from's day matches, so a search from earlier
	// that same day ends at w too (a fold sends Next back a few hours).
	dayOff bool
}

func (m *matchMemo) find(c *Cron, from int64) (int64, bool) {
	for i := range m.e {
		e := &m.e[i]
		if e.set && from >= e.from && (!e.ok || from <= e.w) {
			return e.w, e.ok
		}
		if e.set && e.dayOff && from < e.from && floorDiv(from, secondsPerDay) == floorDiv(e.from, secondsPerDay) {
			return e.w, e.ok
		}
	}
	w, ok, dayOff := c.nextMatch(from, &m.days)
	m.e[m.next] = memoEntry{from: from, w: w, ok: ok, set: true, dayOff: dayOff}
	m.next ^= 1
	return w, ok
}

// nextMatch returns the first wall reading (naive seconds) at or after s
// that the fields match, ignoring zones. It searches at most 400 years, one
// full cycle of the Gregorian calendar.
//
// dayOff reports that s's own day has no matching time at all (the day
// does not match), which lets the memo answer searches from earlier that
// day.
func (c *Cron) nextMatch(s int64, cache *monthDays) (w int64, ok, dayOff bool) {
	days := floorDiv(s, secondsPerDay)
	sod := int(s - days*secondsPerDay)
	y, m, d := civilFromDays(days)
	first := days - int64(d-1) // day number of the 1st of month m
	dayOff = true
	for limit := y + 401; y <= limit; {
		n := daysIn(y, m)
		if c.month&(1<<m) != 0 {
			if cache.m != m || cache.y != y {
				*cache = monthDays{y: y, m: m, mask: c.dayMaskOf(n, int(weekdayOf(first)))}
			}
			for mask := cache.mask &^ (1<<d - 1); mask != 0; mask &= mask - 1 {
				nd := bits.TrailingZeros32(mask)
				if nd != d {
					sod = 0
				} else {
					dayOff = false // s's day matches; only later times fail
				}
				if t, ok := c.timeOfDay(sod); ok {
					return (first+int64(nd-1))*secondsPerDay + int64(t), true, dayOff
				}
				d = -1 // the next matching day starts at midnight
			}
		}
		first += int64(n)
		d, sod = 1, 0
		if m == time.December {
			y, m = y+1, time.January
		} else {
			m++
		}
	}
	return 0, false, dayOff
}

// timeOfDay returns the first matching second of the day at or after sod.
func (c *Cron) timeOfDay(sod int) (int, bool) {
	h, mi, s := sod/3600, sod/60%60, sod%60
	for {
		h2, ok := nextBit32(c.hour, h)
		if !ok {
			return 0, false
		}
		if h2 != h {
			mi, s = 0, 0
		}
		if m2, ok := nextBit64(c.minute, mi); ok {
			if m2 != mi {
				s = 0
			}
			if s2, ok := nextBit64(c.second, s); ok {
				return h2*3600 + m2*60 + s2, true
			}
			if m3, ok := nextBit64(c.minute, m2+1); ok {
				return h2*3600 + m3*60 + bits.TrailingZeros64(c.second), true
			}
		}
		h, mi, s = h2+1, 0, 0
	}
}

func nextBit64(mask uint64, from int) (int, bool) {
	if from > 63 {
		return 0, false
	}
	m := mask >> uint(from) << uint(from)
	if m == 0 {
		return 0, false
	}
	return bits.TrailingZeros64(m), true
}

func nextBit32(mask uint32, from int) (int, bool) {
	if from > 31 {
		return 0, false
	}
	m := mask >> uint(from) << uint(from)
	if m == 0 {
		return 0, false
	}
	return bits.TrailingZeros32(m), true
}

// dayMask returns the days of month m of year y that match (bit d: day d).
func (c *Cron) dayMask(y int, m time.Month) uint32 {
	return c.dayMaskOf(daysIn(y, m), int(weekdayOf(daysFromCivil(y, m, 1))))
}

// dayMaskOf returns the matching days of a month of n days whose first day
// is weekday wd1.
func (c *Cron) dayMaskOf(n, wd1 int) uint32 {
	valid := uint32(1)<<(n+1) - 2
	if c.allDays {
		return valid
	}
	var dom, dow uint32
	if !c.domStar {
		dom = c.dom & valid
		if c.domExtra {
			dom |= c.domExtras(n, wd1)
		}
	}
	if !c.dowStar {
		dow = c.dowDays[wd1] & valid
		if c.dowExtra {
			dow |= c.dowExtras(n, wd1)
		}
	}
	switch {
	case c.domStar:
		return dow
	case c.dowStar:
		return dom
	}
	return dom | dow
}

// domExtras returns the days named by L, LW and nW in a month of n days
// whose first day is weekday wd1.
func (c *Cron) domExtras(n, wd1 int) uint32 {
	weekday := func(d int) int { return (wd1 + d - 1) % 7 }
	var dom uint32
	if c.domLast {
		dom |= 1 << n
	}
	if c.domLastWeekday {
		d := n
		switch weekday(d) {
		case 6:
			d--
		case 0:
			d -= 2
		}
		dom |= 1 << d
	}
	for near := c.domNearest; near != 0; near &= near - 1 {
		k := bits.TrailingZeros32(near)
		if k > n {
			continue
		}
		d := k
		switch weekday(k) {
		case 6: // Saturday: Friday before, unless that leaves the month
			if d--; d < 1 {
				d = k + 2
			}
		case 0: // Sunday: Monday after, unless that leaves the month
			if d++; d > n {
				d = k - 2
			}
		}
		dom |= 1 << d
	}
	return dom
}

// dowExtras returns the days named by nL and n#k.
func (c *Cron) dowExtras(n, wd1 int) uint32 {
	var dow uint32
	for wd := 0; wd < 7; wd++ {
		first := 1 + (wd-wd1+7)%7
		if c.dowLast&(1<<wd) != 0 {
			dow |= 1 << (first + 7*((n-first)/7))
		}
		for k := c.dowNth[wd]; k != 0; k &= k - 1 {
			if d := first + 7*(bits.TrailingZeros8(k)-1); d <= n {
				dow |= 1 << d
			}
		}
	}
	return dow
}

// matchesSomeDay reports whether any day of a full 400-year Gregorian cycle
// matches the month and day fields: if none does, the spec never fires.
func (c *Cron) matchesSomeDay() bool {
	if c.hour == 0 || c.minute == 0 || c.second == 0 || c.month == 0 {
		return false
	}
	for y := 2000; y < 2400; y++ {
		for m := time.January; m <= time.December; m++ {
			if c.month&(1<<m) != 0 && c.dayMask(y, m) != 0 {
				return true
			}
		}
	}
	return false
}

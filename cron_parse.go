package dstsafe

import (
	"fmt"
	"slices"
	"strconv"
	"strings"
	"time"
	"unicode"
)

// ParseError reports a spec ParseCron rejects, or a rule ParseRRule
// rejects. Field names the part at fault: for a cron spec "spec", "zone",
// "descriptor", "every", "second", "minute", "hour", "day-of-month",
// "month", "day-of-week" or "option"; for a rule the content line or rule
// part ("DTSTART", "BYDAY", ...; see ParseRRule).
type ParseError struct {
	Spec   string
	Field  string
	Reason string
	Err    error // underlying error, e.g. from time.LoadLocation; may be nil

	what string // what was parsed, for the message; empty: "cron spec"
}

func (e *ParseError) Error() string {
	what := e.what
	if what == "" {
		what = "cron spec"
	}
	return onePrefix(fmt.Sprintf("dstsafe: parse %s %q: %s: %s", what, e.Spec, e.Field, e.Reason))
}

// Unwrap returns the underlying error, if any.
func (e *ParseError) Unwrap() error { return e.Err }

// ParseCron parses a cron specification. It accepts what robfig/cron v3's
// ParseStandard and Kubernetes CronJob accept, and more:
//
//   - five fields, minute hour day-of-month month day-of-week (six with
//     [WithSeconds], seconds first), each a list of *, ?, n, a-b, */s, a-b/s,
//     n/s (n to the end, step s); months JAN-DEC and weekdays SUN-SAT by name
//     (any case); day-of-week 7 is Sunday too; a number is what
//     strconv.Atoi reads, as in robfig/cron v3: "+5" and "05" are 5, while
//     a minus sign is refused ("-1", "*/-5");
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
//     are rejected: name an IANA zone ("Etc/GMT-5" if you mean it). The
//     prefix is upper case, the zone name follows "=" directly
//     ("CRON_TZ= America/Chicago" is an empty zone name, rejected), and
//     the prefix is separated from the fields as the fields are from each
//     other: by any run of white space (spaces, tabs, line breaks; what
//     [unicode.IsSpace] reports). White space around the whole spec is
//     ignored.
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
	if cfg.nilLoc {
		return nil, perr("option", "WithLocation: "+errNilLocation.Error(), errNilLocation)
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
		end := strings.IndexFunc(rest, unicode.IsSpace) // as strings.Fields splits the fields
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
			if cfg.fold != foldAuto || cfg.gap != gapAuto {
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
	switch {
	case len(fields) == 6 && !cfg.seconds:
		// Quartz and robfig's cron.WithSeconds specs lead with seconds.
		return nil, perr("spec", "6 fields: use WithSeconds() or drop the seconds field", nil)
	case len(fields) == 5 && cfg.seconds:
		return nil, perr("spec", "5 fields with WithSeconds(): add a seconds field first (\"0 30 1 * * *\") or drop WithSeconds()", nil)
	case len(fields) != want:
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
	if advice := abbrevAdvice(name); advice != "" {
		return nil, fmt.Errorf("%q is not a place: %s", name, advice)
	}
	loc, err := loadZoneOnce(name)
	switch {
	case err == nil && !slices.Contains(tzNames, name) && len(suggestZones(name)) == 1 && strings.EqualFold(suggestZones(name)[0], name):
		// "europe/london" loads on a case-insensitive file system (macOS)
		// and nowhere else: refuse it everywhere, naming the right case.
		return nil, unknownZone(name, nil)
	case err == nil:
		// A real tz database name, links such as GMT+0 included.
		return loc, nil
	case isFixedOffsetName(name):
		return nil, fmt.Errorf("%q is a fixed offset, not a zone; name an IANA zone such as America/Chicago (or Etc/GMT-5 for a fixed UTC+5)", name)
	}
	return nil, unknownZone(name, err)
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

package dstsafe

import (
	"fmt"
	"math"
	"math/bits"
	"slices"
	"strconv"
	"strings"
	"time"
)

// ParseRRule parses an RFC 5545 recurrence: content lines, one per line
// (LF or CRLF; a line starting with a space or tab continues the one
// before, as RFC 5545 §3.1 folds them):
//
//	DTSTART;TZID=America/Chicago:20240131T000000
//	RRULE:FREQ=MONTHLY;RSCALE=GREGORIAN;SKIP=BACKWARD
//	EXDATE;TZID=America/Chicago:20240430T000000
//	RDATE:20240615T050000Z
//
// DTSTART is required: with TZID=Zone (an IANA name; "Local" and fixed
// offsets are refused, as in ParseCron), in UTC ("...Z"), or floating (no
// TZID, no Z), which is read in the zone of [WithLocation], else UTC.
// RRULE may be absent (the recurrence is DTSTART and the RDATEs) and may
// appear once. EXDATE and RDATE take DATE-TIME values, each with TZID, in
// UTC or floating; one in another zone than the rule's is converted to the
// rule's wall reading of the same instant. An EXDATE that names an instant
// (in UTC or another zone) also excludes a reading a gap skipped whose
// RFC 5545 instant it is (§3.3.5: read with the offset before the gap):
// EXDATE:20240310T083000Z excludes 02:30 of 2024-03-10 in
// America/Chicago (02:30 CST = 08:30Z, run at 03:30 CDT by GapShift), as
// python-dateutil does; String then lists both readings.
//
// The RRULE parts of RFC 5545 §3.3.10 are supported: FREQ (SECONDLY to
// YEARLY), INTERVAL, COUNT or UNTIL, WKST, BYMONTH, BYWEEKNO, BYYEARDAY,
// BYMONTHDAY (negative too), BYDAY (with ordinals, "-1FR", "2MO", in
// MONTHLY and YEARLY), BYHOUR, BYMINUTE, BYSECOND and BYSETPOS, with the
// RFC's table of which part limits and which expands each frequency; a part
// the table marks N/A for the frequency is an error. So are RFC 7529's
// RSCALE=GREGORIAN (the only calendar) and SKIP=OMIT|BACKWARD|FORWARD,
// which says what happens to an invalid date such as February 30: omitted
// (the default, as RFC 5545 says), moved to the last day of the month, or
// to the 1st of the next. "FREQ=MONTHLY;SKIP=BACKWARD" from the 31st is the
// anniversary rule: the 31st, or the last day of a shorter month. SKIP is
// accepted without RSCALE (GREGORIAN is implied) and, but for OMIT, not
// together with BYDAY, BYYEARDAY or BYWEEKNO. A BYMONTHDAY past the start
// of the month (-31 in February) is always omitted.
//
// Choices where RFC 5545 leaves room, each as python-dateutil's rrule does:
//
//   - DTSTART is an instance only if the rule names it: "DTSTART is always
//     the first instance" holds for a DTSTART in step with its rule, and
//     the RFC calls other recurrence sets undefined. COUNT counts the
//     instances the rule names.
//   - BYWEEKNO numbers each day's week in the week-numbering year the day
//     belongs to (ISO 8601 when WKST=MO, the default): week 1 is the first
//     with four days of the year.
//   - An UNTIL in UTC ("...Z") bounds instances by their instant (first
//     reading of a fold, or pushed out of a gap, as §3.3.5 says); a
//     floating UNTIL, which RFC 5545 forbids with TZID but many producers
//     write, bounds the wall reading. A DATE UNTIL with a DATE-TIME DTSTART
//     is an error, as the RFC says.
//   - Sub-daily frequencies are supported where the rule pins the times of
//     day: INTERVAL must divide a day (FREQ=HOURLY;INTERVAL=6, not 5), so
//     that every day has the same wall readings and a fold or a gap is
//     handled as for any fixed time.
//
// DST follows RFC 5545 §3.3.5 and §3.3.10: wall readings are computed in
// wall-clock units, and a reading that happens twice fires at its first
// occurrence, one that does not exist is moved forward by the length of
// the gap and still counts toward COUNT (the RFC's later paragraph; its
// "MUST be ignored" for nonexistent local times is not followed). Invalid
// dates (February 30) are dropped unless SKIP says otherwise. [WithFold],
// [WithGap] and [WithPeriodKey] work as for ParseCron; [WithSeconds] and
// [WithEveryOrigin] are cron options and an error here.
//
// Every error is a *ParseError whose Field names the line ("DTSTART",
// "RRULE", "EXDATE", "RDATE", "line" for any other) or the rule part
// ("FREQ", "BYDAY", ...), or "option"; ParseRRule never panics on input.
// Parsing a rule with COUNT takes time in proportion to COUNT (at most
// 1,000,000).
func ParseRRule(text string, opts ...CronOption) (*RRule, error) {
	cfg := cronConfig{loc: time.UTC}
	for _, o := range opts {
		if o != nil {
			o(&cfg)
		}
	}
	p := &ruleParser{text: text}
	switch {
	case cfg.fold > FoldBoth:
		return nil, p.fail("option", fmt.Sprintf("unknown fold policy %d", cfg.fold))
	case cfg.gap > GapSkip:
		return nil, p.fail("option", fmt.Sprintf("unknown gap policy %d", cfg.gap))
	case cfg.key > ByDate:
		return nil, p.fail("option", fmt.Sprintf("unknown period key %d", cfg.key))
	case cfg.seconds:
		return nil, p.fail("option", "WithSeconds applies to cron specs; a rule says its seconds with BYSECOND")
	case !cfg.origin.IsZero():
		return nil, p.fail("option", "WithEveryOrigin applies to @every cron specs")
	}
	r := &RRule{loc: cfg.loc, key: cfg.key, fold: cfg.fold, gap: cfg.gap}
	if r.fold == foldAuto {
		r.fold = FoldFirst
	}
	if r.gap == gapAuto {
		r.gap = GapShift
	}
	if err := p.parse(r); err != nil {
		return nil, err
	}
	return r, nil
}

// ruleParser holds what ParseRRule has read so far.
type ruleParser struct {
	text string

	dtstart, rrule   string // values
	dtParams         map[string]string
	exdates, rdates  []valueLine
	startWall        Wall
	startUTC, hasTZ  bool
	parts            ruleParts
	canonicalDTSTART string
}

type valueLine struct {
	params map[string]string
	value  string
}

func (p *ruleParser) fail(field, reason string) error {
	return &ParseError{Spec: p.text, Field: field, Reason: reason, what: "recurrence rule"}
}

func (p *ruleParser) failErr(field string, err error) error {
	return &ParseError{Spec: p.text, Field: field, Reason: err.Error(), Err: err, what: "recurrence rule"}
}

// contentLines unfolds and splits the text into content lines.
func contentLines(text string) []string {
	var lines []string
	for _, l := range strings.Split(text, "\n") {
		l = strings.TrimSuffix(l, "\r")
		if (strings.HasPrefix(l, " ") || strings.HasPrefix(l, "\t")) && len(lines) > 0 {
			lines[len(lines)-1] += l[1:]
			continue
		}
		lines = append(lines, l)
	}
	return lines
}

// splitLine splits "NAME;P=V;P2=V2:VALUE", honouring quoted parameter
// values.
func splitLine(l string) (name string, params map[string]string, value string, ok bool) {
	inQuote := false
	colon := -1
	for i := 0; i < len(l); i++ {
		switch l[i] {
		case '"':
			inQuote = !inQuote
		case ':':
			if !inQuote {
				colon = i
			}
		}
		if colon >= 0 {
			break
		}
	}
	if colon < 0 {
		return "", nil, "", false
	}
	head, value := l[:colon], l[colon+1:]
	fields := strings.Split(head, ";")
	name = strings.ToUpper(strings.TrimSpace(fields[0]))
	for _, f := range fields[1:] {
		k, v, found := strings.Cut(f, "=")
		if !found {
			return "", nil, "", false
		}
		if params == nil {
			params = map[string]string{}
		}
		k = strings.ToUpper(strings.TrimSpace(k))
		if _, dup := params[k]; dup {
			return "", nil, "", false
		}
		params[k] = strings.Trim(strings.TrimSpace(v), `"`)
	}
	return name, params, value, true
}

func (p *ruleParser) parse(r *RRule) error {
	var sawStart, sawRule bool
	for _, l := range contentLines(p.text) {
		if strings.TrimSpace(l) == "" {
			continue
		}
		name, params, value, ok := splitLine(l)
		if !ok {
			return p.fail("line", fmt.Sprintf("%q is not a content line NAME[;PARAM=VALUE]:VALUE", l))
		}
		switch name {
		case "DTSTART":
			if sawStart {
				return p.fail("DTSTART", "given twice")
			}
			sawStart = true
			p.dtParams, p.dtstart = params, value
		case "RRULE":
			if sawRule {
				return p.fail("RRULE", "given twice; RFC 5545 recurrences have one RRULE")
			}
			if len(params) > 0 {
				return p.fail("RRULE", "takes no parameters")
			}
			sawRule = true
			p.rrule = value
		case "EXDATE":
			p.exdates = append(p.exdates, valueLine{params, value})
		case "RDATE":
			p.rdates = append(p.rdates, valueLine{params, value})
		default:
			return p.fail("line", fmt.Sprintf("%s is not supported; want DTSTART, RRULE, EXDATE or RDATE", name))
		}
	}
	if !sawStart {
		return p.fail("DTSTART", "missing; a recurrence needs DTSTART")
	}
	if err := p.parseStart(r); err != nil {
		return err
	}
	r.hasRule = sawRule
	if sawRule {
		if err := p.parseRule(); err != nil {
			return err
		}
	}
	var err error
	if r.exdates, err = p.parseDates(r, "EXDATE", p.exdates); err != nil {
		return err
	}
	if r.rdates, err = p.parseDates(r, "RDATE", p.rdates); err != nil {
		return err
	}
	if sawRule {
		if err := p.build(r); err != nil {
			return err
		}
	} else {
		r.last = math.MaxInt64
	}
	r.text = p.canonical(r)
	_, found := r.firstWall(minRuleWall)
	r.never = !found
	return nil
}

// parseDateTime reads "20240131T000000" or "20240131T000000Z".
func parseDateTime(s string) (w Wall, utc bool, err error) {
	if strings.HasSuffix(s, "Z") || strings.HasSuffix(s, "z") {
		utc, s = true, s[:len(s)-1]
	}
	if len(s) != 15 || (s[8] != 'T' && s[8] != 't') {
		if len(s) == 8 {
			return Wall{}, false, fmt.Errorf("%q is a DATE; a schedule needs a DATE-TIME such as %sT000000", s, s)
		}
		return Wall{}, false, fmt.Errorf("%q is not a DATE-TIME; want YYYYMMDDTHHMMSS, optionally followed by Z", s)
	}
	num := func(a, b int) (int, bool) {
		v := 0
		for i := a; i < b; i++ {
			if s[i] < '0' || s[i] > '9' {
				return 0, false
			}
			v = v*10 + int(s[i]-'0')
		}
		return v, true
	}
	var f [6]int
	spans := [6][2]int{{0, 4}, {4, 6}, {6, 8}, {9, 11}, {11, 13}, {13, 15}}
	for i, sp := range spans {
		v, ok := num(sp[0], sp[1])
		if !ok {
			return Wall{}, false, fmt.Errorf("%q is not a DATE-TIME; want YYYYMMDDTHHMMSS, optionally followed by Z", s)
		}
		f[i] = v
	}
	w = Wall{Year: f[0], Month: time.Month(f[1]), Day: f[2], Hour: f[3], Minute: f[4], Second: f[5]}
	if w.Year < 1 {
		return Wall{}, false, fmt.Errorf("%q: year 0000 is not supported", s)
	}
	if err := w.Validate(); err != nil {
		return Wall{}, false, err
	}
	return w, utc, nil
}

func formatDateTime(w Wall) string {
	return fmt.Sprintf("%04d%02d%02dT%02d%02d%02d", w.Year, int(w.Month), w.Day, w.Hour, w.Minute, w.Second)
}

func (p *ruleParser) parseStart(r *RRule) error {
	for k, v := range p.dtParams {
		switch k {
		case "TZID":
			loc, err := loadZone(v)
			if err != nil {
				return p.failErr("DTSTART", err)
			}
			r.loc, p.hasTZ = loc, true
		case "VALUE":
			if !strings.EqualFold(v, "DATE-TIME") {
				return p.fail("DTSTART", fmt.Sprintf("VALUE=%s is not supported; a schedule fires at a DATE-TIME", v))
			}
		default:
			return p.fail("DTSTART", fmt.Sprintf("parameter %s is not supported; want TZID", k))
		}
	}
	w, utc, err := parseDateTime(p.dtstart)
	if err != nil {
		return p.failErr("DTSTART", err)
	}
	if utc && p.hasTZ {
		return p.fail("DTSTART", "has both TZID and a UTC time (Z)")
	}
	if utc {
		r.loc = time.UTC
	}
	p.startWall, p.startUTC = w, utc
	r.start = w.naive()
	return nil
}

// parseDates reads EXDATE or RDATE lines into sorted, unique wall readings
// of the rule's zone.
func (p *ruleParser) parseDates(r *RRule, field string, lines []valueLine) ([]int64, error) {
	var out []int64
	for _, l := range lines {
		loc := r.loc
		for k, v := range l.params {
			switch k {
			case "TZID":
				z, err := loadZone(v)
				if err != nil {
					return nil, p.failErr(field, err)
				}
				loc = z
			case "VALUE":
				if !strings.EqualFold(v, "DATE-TIME") {
					return nil, p.fail(field, fmt.Sprintf("VALUE=%s is not supported; want DATE-TIME values", v))
				}
			default:
				return nil, p.fail(field, fmt.Sprintf("parameter %s is not supported; want TZID", k))
			}
		}
		for _, v := range strings.Split(l.value, ",") {
			w, utc, err := parseDateTime(strings.TrimSpace(v))
			if err != nil {
				return nil, p.failErr(field, err)
			}
			if utc && l.params["TZID"] != "" {
				return nil, p.fail(field, fmt.Sprintf("%s has both TZID and a UTC time (Z)", v))
			}
			s := w.naive()
			var at time.Time // the instant named, when it is not a reading of r.loc
			switch {
			case utc:
				at = time.Unix(s, 0)
			case loc != r.loc && loc.String() != r.loc.String():
				at, _ = Resolve(w, loc, Compatible)
			}
			if !at.IsZero() {
				s = naiveIn(at, r.loc)
				if g, ok := gapReadingAt(at, r.loc); ok && field == "EXDATE" {
					out = append(out, g)
				}
			}
			out = append(out, s)
		}
	}
	slices.Sort(out)
	return slices.Compact(out), nil
}

// gapReadingAt returns the wall reading of loc (naive seconds) that a
// clock-forward gap skipped and whose RFC 5545 instant is at: RFC 5545
// §3.3.5 reads a time in a gap with the offset before the gap, so 02:30 on
// 2024-03-10 in America/Chicago is 02:30 CST, 08:30Z, the instant a UTC
// EXDATE of 20240310T083000Z names (and the instant GapShift runs it at,
// 03:30 CDT). An EXDATE naming that instant excludes that reading too, as
// python-dateutil does. False when no gap reading has that instant.
func gapReadingAt(at time.Time, loc *time.Location) (int64, bool) {
	// A gap shifts a reading by the gap's size, at most a day (Apia's
	// skipped 2011-12-30): look at the changes of the day before at.
	for _, tr := range Transitions(loc, at.Add(-25*time.Hour), at.Add(time.Second)) {
		if tr.Kind != Gap {
			continue
		}
		g := at.Unix() + int64(tr.OffsetBefore)
		w := wallOfNaive(g, 0)
		if res := Lookup(w, loc); res.Kind == Gap && res.Later.Equal(at) {
			return g, true
		}
	}
	return 0, false
}

// naiveIn returns the naive seconds of t's wall reading in loc.
func naiveIn(t time.Time, loc *time.Location) int64 {
	_, off := t.In(loc).Zone()
	return t.Unix() + int64(off)
}

// ruleParts is an RRULE as given.
type ruleParts struct {
	freq                 rfreq
	interval, count      int
	until                Wall
	untilSet, untilUTC   bool
	wkst                 time.Weekday
	wkstSet              bool
	bymonth, byweekno    []int
	byyearday, bymonthd  []int
	byday                []weekdayNum
	byhour, byminute     []int
	bysecond, bysetpos   []int
	rscale               bool
	skip                 skipMode
	skipSet              bool
	seen                 map[string]bool
	hasMonth, hasWeekno  bool
	hasYearday, hasMday  bool
	hasDay, hasSetpos    bool
	hasHour, hasMinute   bool
	hasSecond, hasFreq   bool
	hasCount, hasUntil   bool
	hasInterval, hasWkst bool
}

type weekdayNum struct {
	wd time.Weekday
	n  int
}

var weekdayCodes = [...]string{"SU", "MO", "TU", "WE", "TH", "FR", "SA"}

func parseWeekday(s string) (time.Weekday, bool) {
	for i, c := range weekdayCodes {
		if strings.EqualFold(s, c) {
			return time.Weekday(i), true
		}
	}
	return 0, false
}

// maxCount bounds COUNT: parsing expands that many instances.
const maxCount = 1_000_000

func (p *ruleParser) parseRule() error {
	rp := &p.parts
	rp.seen = map[string]bool{}
	rp.interval = 1
	rp.wkst = time.Monday
	if strings.TrimSpace(p.rrule) == "" {
		return p.fail("RRULE", "empty")
	}
	for _, part := range strings.Split(p.rrule, ";") {
		k, v, found := strings.Cut(part, "=")
		k = strings.ToUpper(strings.TrimSpace(k))
		if !found || k == "" {
			return p.fail("RRULE", fmt.Sprintf("%q is not a rule part NAME=VALUE", part))
		}
		if rp.seen[k] {
			return p.fail(k, "given twice")
		}
		rp.seen[k] = true
		v = strings.TrimSpace(v)
		ints := func(lo, hi int, signed bool) ([]int, error) {
			var out []int
			for _, s := range strings.Split(v, ",") {
				n, err := strconv.Atoi(strings.TrimSpace(s))
				bad := err != nil || n > hi || (!signed && n < lo) || (signed && (n == 0 || n < -hi))
				if bad {
					if signed {
						return nil, fmt.Errorf("%q: want integers from %d to %d or -%d to -1", s, lo, hi, hi)
					}
					return nil, fmt.Errorf("%q: want integers from %d to %d", s, lo, hi)
				}
				out = append(out, n)
			}
			slices.Sort(out)
			return slices.Compact(out), nil
		}
		var err error
		switch k {
		case "FREQ":
			i := slices.Index(freqNames[:], strings.ToUpper(v))
			if i < 0 {
				return p.fail(k, fmt.Sprintf("%q: want SECONDLY, MINUTELY, HOURLY, DAILY, WEEKLY, MONTHLY or YEARLY", v))
			}
			rp.freq, rp.hasFreq = rfreq(i), true
		case "INTERVAL":
			n, e := strconv.Atoi(v)
			if e != nil || n < 1 || n > 1_000_000 {
				return p.fail(k, fmt.Sprintf("%q: want an integer from 1 to 1000000", v))
			}
			rp.interval, rp.hasInterval = n, true
		case "COUNT":
			n, e := strconv.Atoi(v)
			if e != nil || n < 1 || n > maxCount {
				return p.fail(k, fmt.Sprintf("%q: want an integer from 1 to %d", v, maxCount))
			}
			rp.count, rp.hasCount = n, true
		case "UNTIL":
			w, utc, e := parseDateTime(v)
			if e != nil {
				return p.failErr(k, e)
			}
			rp.until, rp.untilUTC, rp.hasUntil = w, utc, true
		case "WKST":
			wd, ok := parseWeekday(v)
			if !ok {
				return p.fail(k, fmt.Sprintf("%q: want MO, TU, WE, TH, FR, SA or SU", v))
			}
			rp.wkst, rp.hasWkst = wd, true
		case "BYMONTH":
			rp.bymonth, err = ints(1, 12, false)
			rp.hasMonth = true
		case "BYWEEKNO":
			rp.byweekno, err = ints(1, 53, true)
			rp.hasWeekno = true
		case "BYYEARDAY":
			rp.byyearday, err = ints(1, 366, true)
			rp.hasYearday = true
		case "BYMONTHDAY":
			rp.bymonthd, err = ints(1, 31, true)
			rp.hasMday = true
		case "BYHOUR":
			rp.byhour, err = ints(0, 23, false)
			rp.hasHour = true
		case "BYMINUTE":
			rp.byminute, err = ints(0, 59, false)
			rp.hasMinute = true
		case "BYSECOND":
			if rp.bysecond, err = ints(0, 60, false); err == nil && slices.Contains(rp.bysecond, 60) {
				err = fmt.Errorf("60: leap seconds are not supported (Go's time has none)")
			}
			rp.hasSecond = true
		case "BYSETPOS":
			rp.bysetpos, err = ints(1, 366, true)
			rp.hasSetpos = true
		case "BYDAY":
			rp.hasDay = true
			for _, s := range strings.Split(v, ",") {
				s = strings.TrimSpace(s)
				if len(s) < 2 {
					return p.fail(k, fmt.Sprintf("%q: want a weekday MO-SU, optionally after an ordinal (2MO, -1FR)", s))
				}
				wd, ok := parseWeekday(s[len(s)-2:])
				n := 0
				if num := s[:len(s)-2]; num != "" {
					var e error
					n, e = strconv.Atoi(num)
					if e != nil || n == 0 || n < -53 || n > 53 {
						ok = false
					}
				}
				if !ok {
					return p.fail(k, fmt.Sprintf("%q: want a weekday MO-SU, optionally after an ordinal from 1 to 53 or -53 to -1 (2MO, -1FR)", s))
				}
				rp.byday = append(rp.byday, weekdayNum{wd, n})
			}
		case "RSCALE":
			if !strings.EqualFold(v, "GREGORIAN") {
				return p.fail(k, fmt.Sprintf("%q: only GREGORIAN is supported", v))
			}
			rp.rscale = true
		case "SKIP":
			i := slices.Index(skipNames[:], strings.ToUpper(v))
			if i < 0 {
				return p.fail(k, fmt.Sprintf("%q: want OMIT, BACKWARD or FORWARD", v))
			}
			rp.skip, rp.skipSet = skipMode(i), true
		default:
			return p.fail(k, "not a supported rule part (RFC 5545 §3.3.10, RFC 7529)")
		}
		if err != nil {
			return p.failErr(k, err)
		}
	}
	return p.checkRule()
}

// checkRule applies RFC 5545's table of which parts each frequency allows.
func (p *ruleParser) checkRule() error {
	rp := &p.parts
	f := rp.freq
	switch {
	case !rp.hasFreq:
		return p.fail("FREQ", "missing; every RRULE needs FREQ")
	case rp.hasCount && rp.hasUntil:
		return p.fail("UNTIL", "COUNT and UNTIL must not both be given (RFC 5545 §3.3.10)")
	case rp.hasWeekno && f != freqYearly:
		return p.fail("BYWEEKNO", "only allowed with FREQ=YEARLY")
	case rp.hasYearday && (f == freqDaily || f == freqWeekly || f == freqMonthly):
		return p.fail("BYYEARDAY", "not allowed with FREQ=DAILY, WEEKLY or MONTHLY")
	case rp.hasMday && f == freqWeekly:
		return p.fail("BYMONTHDAY", "not allowed with FREQ=WEEKLY")
	case rp.hasSetpos && !(rp.hasMonth || rp.hasWeekno || rp.hasYearday || rp.hasMday || rp.hasDay || rp.hasHour || rp.hasMinute || rp.hasSecond):
		return p.fail("BYSETPOS", "must come with another BYxxx part")
	case rp.skip != skipOmit && (rp.hasDay || rp.hasYearday || rp.hasWeekno):
		return p.fail("SKIP", "BACKWARD and FORWARD are not supported together with BYDAY, BYYEARDAY or BYWEEKNO")
	}
	for _, d := range rp.byday {
		switch {
		case d.n != 0 && f != freqMonthly && f != freqYearly:
			return p.fail("BYDAY", "ordinals (2MO, -1FR) are only allowed with FREQ=MONTHLY or YEARLY")
		case d.n != 0 && f == freqYearly && rp.hasWeekno:
			return p.fail("BYDAY", "ordinals (2MO, -1FR) are not allowed with BYWEEKNO")
		case d.n != 0 && f == freqMonthly && (d.n > 5 || d.n < -5):
			return p.fail("BYDAY", fmt.Sprintf("%d%s: a month has at most five of a weekday", d.n, weekdayCodes[d.wd]))
		}
	}
	units := map[rfreq]int{freqHourly: 24, freqMinutely: 1440, freqSecondly: 86400}
	if u, sub := units[f]; sub && u%rp.interval != 0 {
		return p.fail("INTERVAL", fmt.Sprintf("%d does not divide a day (%d %s): sub-daily rules must name the same times every day",
			rp.interval, u, strings.ToLower(strings.TrimSuffix(freqNames[f], "LY"))+"s"))
	}
	return nil
}

// build turns the parts into the expansion tables, after DTSTART and the
// zone are known.
func (p *ruleParser) build(r *RRule) error {
	rp := &p.parts
	s := p.startWall
	r.freq, r.interval = rp.freq, int64(rp.interval)
	r.startDay = floorDiv(r.start, secondsPerDay)
	d := &r.days
	d.wkst, d.skip = rp.wkst, rp.skip
	d.months = 0x1FFE
	if rp.hasMonth {
		d.months = 0
		for _, m := range rp.bymonth {
			d.months |= 1 << m
		}
	}
	// Parts RFC 5545 derives from DTSTART when the rule does not say.
	monthdays := rp.bymonthd
	var weekdays []weekdayNum = rp.byday
	if !rp.hasWeekno && !rp.hasYearday && !rp.hasMday && !rp.hasDay {
		switch rp.freq {
		case freqYearly:
			if !rp.hasMonth {
				d.months = 1 << s.Month
			}
			monthdays = []int{s.Day}
		case freqMonthly:
			monthdays = []int{s.Day}
		case freqWeekly:
			weekdays = []weekdayNum{{s.Weekday(), 0}}
		}
	}
	if monthdays != nil {
		d.hasMonthdays = true
		for _, v := range monthdays {
			if v > 0 {
				d.mdPos |= 1 << v
			} else {
				d.mdNeg |= 1 << -v
			}
		}
		for i := range d.mdNegByLen {
			n := 28 + i
			for k := d.mdNeg; k != 0; k &= k - 1 {
				if b := bits.TrailingZeros32(k); b <= n {
					d.mdNegByLen[i] |= 1 << (n + 1 - b)
				}
			}
		}
	}
	if weekdays != nil {
		d.hasByday = true
		for _, w := range weekdays {
			switch {
			case w.n > 0:
				d.hasNth = true
				d.nthPos[w.wd] |= 1 << w.n
			case w.n < 0:
				d.hasNth = true
				d.nthNeg[w.wd] |= 1 << -w.n
			default:
				d.wdPlain |= 1 << w.wd
			}
		}
		d.nthYear = rp.freq == freqYearly && !rp.hasMonth
		for wd1 := range 7 {
			for day := 1; day <= 31; day++ {
				if d.wdPlain&(1<<((wd1+day-1)%7)) != 0 {
					d.dowDays[wd1] |= 1 << day
				}
			}
		}
	}
	if rp.hasYearday {
		d.yeardays = make([]int16, len(rp.byyearday))
		for i, v := range rp.byyearday {
			d.yeardays[i] = int16(v)
		}
	}
	if rp.hasWeekno {
		d.hasWeeknos = true
		for _, v := range rp.byweekno {
			if v > 0 {
				d.wnPos |= 1 << v
			} else {
				d.wnNeg |= 1 << -v
			}
		}
	}
	if rp.hasSetpos {
		r.setpos = make([]int16, len(rp.bysetpos))
		for i, v := range rp.bysetpos {
			r.setpos[i] = int16(v)
		}
	}

	// Periods.
	startDay := r.startDay
	r.weekBase = floorMod(int64(d.wkst)-4, 7) // 1970-01-01 was a Thursday
	r.dayStep = 1
	if rp.freq == freqDaily {
		r.dayStep = r.interval
	}
	switch rp.freq {
	case freqWeekly, freqMonthly, freqYearly:
		r.startPer = r.periodOf(startDay)
	}

	r.times = p.timesOf()

	// Bounds.
	r.last = math.MaxInt64
	if rp.hasUntil {
		u := rp.until.naive()
		switch {
		case !rp.untilUTC || r.loc == time.UTC:
			r.last = u
		default:
			r.untilAt = u
			r.untilWall = naiveIn(time.Unix(u, 0), r.loc)
			r.untilExact = true
			r.last = r.untilWall + 2*secondsPerDay
		}
		if p.startUTC && !rp.untilUTC {
			return p.fail("UNTIL", "must be in UTC (...Z) when DTSTART is")
		}
	}
	if rp.hasCount {
		// The COUNT-th reading becomes the last one allowed.
		w, ok := r.ruleFirst(r.start)
		if !ok {
			r.last = math.MinInt64
			return nil
		}
		for range rp.count - 1 {
			w2, ok := r.ruleFirst(w + 1)
			if !ok {
				break
			}
			w = w2
		}
		r.last = w
	}
	return nil
}

// timesOf builds the set of times of day, with BYSETPOS applied when the
// rule's periods are a day or shorter.
func (p *ruleParser) timesOf() timeSet {
	rp := &p.parts
	s := p.startWall
	or := func(vals []int, def int) []int {
		if vals != nil {
			return vals
		}
		return []int{def}
	}
	all := func(n int) []int {
		out := make([]int, n)
		for i := range out {
			out[i] = i
		}
		return out
	}
	hours, minutes, seconds := or(rp.byhour, s.Hour), or(rp.byminute, s.Minute), or(rp.bysecond, s.Second)
	k := rp.interval
	startSod := s.Hour*3600 + s.Minute*60 + s.Second
	aligned := func(sod int) bool { return true }
	switch rp.freq {
	case freqHourly:
		hours = rp.byhour
		if hours == nil {
			hours = all(24)
		}
		aligned = func(sod int) bool { return (sod/3600-s.Hour)%k == 0 }
	case freqMinutely:
		hours, minutes = rp.byhour, rp.byminute
		if hours == nil {
			hours = all(24)
		}
		if minutes == nil {
			minutes = all(60)
		}
		aligned = func(sod int) bool { return (sod/60-startSod/60)%k == 0 }
	case freqSecondly:
		hours, minutes, seconds = rp.byhour, rp.byminute, rp.bysecond
		if hours == nil {
			hours = all(24)
		}
		if minutes == nil {
			minutes = all(60)
		}
		if seconds == nil {
			seconds = all(60)
		}
		aligned = func(sod int) bool { return (sod-startSod)%k == 0 }
	}
	var set [secondsPerDay / 64]uint64
	n := 0
	for _, h := range hours {
		for _, m := range minutes {
			for _, sec := range seconds {
				sod := h*3600 + m*60 + sec
				if aligned(sod) {
					set[sod>>6] |= 1 << (sod & 63)
					n++
				}
			}
		}
	}
	// BYSETPOS over periods of a day or less: the same every day.
	if rp.hasSetpos && rp.freq <= freqDaily {
		bucket := map[rfreq]int{freqSecondly: 1, freqMinutely: 60, freqHourly: 3600, freqDaily: secondsPerDay}[rp.freq]
		var kept [secondsPerDay / 64]uint64
		n = 0
		var in []int
		for b := 0; b < secondsPerDay; b += bucket {
			in = in[:0]
			for sod := b; sod < b+bucket; sod++ {
				if set[sod>>6]&(1<<(sod&63)) != 0 {
					in = append(in, sod)
				}
			}
			for _, sp := range rp.bysetpos {
				i := sp - 1
				if sp < 0 {
					i = len(in) + sp
				}
				if i >= 0 && i < len(in) && kept[in[i]>>6]&(1<<(in[i]&63)) == 0 {
					kept[in[i]>>6] |= 1 << (in[i] & 63)
					n++
				}
			}
		}
		set = kept
	}
	ts := timeSet{n: n}
	if n <= 64 {
		for w, x := range set {
			for ; x != 0; x &= x - 1 {
				ts.list = append(ts.list, int32(w<<6+bits.TrailingZeros64(x)))
			}
		}
		return ts
	}
	ts.bits = append([]uint64(nil), set[:]...)
	return ts
}

// canonical renders the rule as String returns it.
func (p *ruleParser) canonical(r *RRule) string {
	var b strings.Builder
	start := p.startWall
	if r.loc == time.UTC {
		fmt.Fprintf(&b, "DTSTART:%sZ", formatDateTime(start))
	} else {
		fmt.Fprintf(&b, "DTSTART;TZID=%s:%s", r.loc.String(), formatDateTime(start))
	}
	if r.hasRule {
		rp := &p.parts
		b.WriteString("\nRRULE:FREQ=" + freqNames[rp.freq])
		list := func(name string, vals []int) {
			if vals == nil {
				return
			}
			b.WriteString(";" + name + "=")
			for i, v := range vals {
				if i > 0 {
					b.WriteByte(',')
				}
				b.WriteString(strconv.Itoa(v))
			}
		}
		if rp.interval != 1 {
			fmt.Fprintf(&b, ";INTERVAL=%d", rp.interval)
		}
		if rp.hasCount {
			fmt.Fprintf(&b, ";COUNT=%d", rp.count)
		}
		if rp.hasUntil {
			z := ""
			if rp.untilUTC || r.loc == time.UTC {
				z = "Z"
			}
			fmt.Fprintf(&b, ";UNTIL=%s%s", formatDateTime(rp.until), z)
		}
		list("BYSECOND", rp.bysecond)
		list("BYMINUTE", rp.byminute)
		list("BYHOUR", rp.byhour)
		if rp.byday != nil {
			days := slices.Clone(rp.byday)
			slices.SortFunc(days, func(a, b weekdayNum) int {
				if a.n != b.n {
					return a.n - b.n
				}
				return (int(a.wd)+6)%7 - (int(b.wd)+6)%7
			})
			days = slices.Compact(days)
			b.WriteString(";BYDAY=")
			for i, d := range days {
				if i > 0 {
					b.WriteByte(',')
				}
				if d.n != 0 {
					b.WriteString(strconv.Itoa(d.n))
				}
				b.WriteString(weekdayCodes[d.wd])
			}
		}
		list("BYMONTHDAY", rp.bymonthd)
		list("BYYEARDAY", rp.byyearday)
		list("BYWEEKNO", rp.byweekno)
		list("BYMONTH", rp.bymonth)
		list("BYSETPOS", rp.bysetpos)
		if rp.wkst != time.Monday {
			b.WriteString(";WKST=" + weekdayCodes[rp.wkst])
		}
		if rp.rscale || rp.skip != skipOmit {
			b.WriteString(";RSCALE=GREGORIAN")
		}
		if rp.skip != skipOmit {
			b.WriteString(";SKIP=" + skipNames[rp.skip])
		}
	}
	dates := func(name string, ws []int64) {
		if len(ws) == 0 {
			return
		}
		if r.loc == time.UTC {
			b.WriteString("\n" + name + ":")
		} else {
			b.WriteString("\n" + name + ";TZID=" + r.loc.String() + ":")
		}
		for i, s := range ws {
			if i > 0 {
				b.WriteByte(',')
			}
			b.WriteString(formatDateTime(wallOfNaive(s, 0)))
			if r.loc == time.UTC {
				b.WriteByte('Z')
			}
		}
	}
	dates("EXDATE", r.exdates)
	dates("RDATE", r.rdates)
	return b.String()
}

package dstsafe_test

import (
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/dstsafe/dstsafe"
)

// The reference oracle of the cron property tests: what a schedule must do,
// derived without asking the package under test. refCron reads the spec's
// text on its own (which walls it names, and whether it is fixed-time or
// periodic); expectFires resolves each wall by brute force over the offsets
// the time package reports near it, and applies the fold and gap policy
// that DESIGN.md gives the spec's shape.

// policy is what a schedule is expected to do with a repeated and with a
// skipped wall reading, and how it keys its periods. Its fold and gap are
// always explicit (never FoldAuto or GapAuto): the oracle states the
// policy it expects, it never asks the schedule under test.
type policy struct {
	fold dstsafe.FoldPolicy
	gap  dstsafe.GapPolicy
	key  dstsafe.PeriodKey
}

// Policies the tests name often.
var (
	fixedPolicy    = policy{dstsafe.FoldFirst, dstsafe.GapShift, dstsafe.ByWall}
	periodicPolicy = policy{dstsafe.FoldBoth, dstsafe.GapSkip, dstsafe.ByWall}
)

// defaultPolicy is DESIGN.md's rule for a spec's shape: a fixed-time spec
// (no seconds, minute or hour field starts with * or ?, "30 1 * * *")
// fires once in a fold, at the first reading, and once in a gap, pushed
// forward by the gap; a periodic one ("*/15 * * * *", "0 * * * *", and
// "@every") follows real time: both readings of a fold, nothing for the
// readings a gap skips. Periods are keyed by wall reading.
func defaultPolicy(fixed bool) policy {
	if fixed {
		return fixedPolicy
	}
	return periodicPolicy
}

// with returns p with the policies a schedule was given explicitly;
// FoldAuto and GapAuto keep p's.
func (p policy) with(fold dstsafe.FoldPolicy, gap dstsafe.GapPolicy) policy {
	if fold != dstsafe.FoldPolicy(0) {
		p.fold = fold
	}
	if gap != dstsafe.GapPolicy(0) {
		p.gap = gap
	}
	return p
}

func (p policy) String() string { return fmt.Sprintf("fold %v, gap %v, key %v", p.fold, p.gap, p.key) }

// fire is one expected firing.
type fire struct {
	At     int64 // unix second
	Wall   int64 // naive seconds of the scheduled wall reading
	Kind   dstsafe.Kind
	Second bool // the second reading of a repeated wall
	Gap    offChange
	Period string // the ledger key the occurrence must carry
}

// periodKey is the ledger key ParseCron's doc promises, written out with
// the time package: the wall reading "2024-11-03T01:30:00", with ";fold=1"
// for the second reading of a fold when both readings fire, or with
// ByDate the wall's date alone.
func periodKey(p policy, wall int64, second bool) string {
	u := time.Unix(wall, 0).UTC()
	switch {
	case p.key == dstsafe.ByDate:
		return u.Format(time.DateOnly)
	case second && p.fold == dstsafe.FoldBoth:
		return u.Format("2006-01-02T15:04:05") + ";fold=1"
	}
	return u.Format("2006-01-02T15:04:05")
}

// expectFires returns what a schedule naming the sorted naive walls does in
// (from, to] under policy p. Two candidates at one instant fire once: as
// the reading that really happens there if there is one, else as the first
// skipped reading.
func expectFires(o *zoneOracle, walls []int64, p policy, from, to int64) []fire {
	fold, gap := p.fold, p.gap
	if fold == dstsafe.FoldPolicy(0) || gap == dstsafe.GapPolicy(0) {
		panic("expectFires: the oracle states its policy; FoldAuto and GapAuto are the schedule's business")
	}
	// Readings of walls outside [from-maxOff, to+maxOff] cannot fall in
	// (from, to]; the offsets are known a further maxOff out.
	changes, offsets := o.near(from-maxOff, to+maxOff)
	buf := make([]int64, 0, 4)
	cands := make([]fire, 0, len(walls)+2)
	for _, w := range walls {
		if w < from-maxOff || w > to+maxOff {
			continue
		}
		ts := readings(buf, w, offsets, o.offsetAt)
		buf = ts
		switch len(ts) {
		case 1:
			cands = append(cands, fire{At: ts[0], Wall: w, Kind: dstsafe.Unique})
		case 2:
			if fold != dstsafe.FoldLast {
				cands = append(cands, fire{At: ts[0], Wall: w, Kind: dstsafe.Fold})
			}
			if fold != dstsafe.FoldFirst {
				cands = append(cands, fire{At: ts[1], Wall: w, Kind: dstsafe.Fold, Second: true})
			}
		case 0:
			var c offChange
			for _, x := range changes {
				if x.isGap() && x.At+int64(x.Before) <= w && w < x.At+int64(x.After) {
					c = x
				}
			}
			if c.At == 0 {
				panic(fmt.Sprintf("%s: wall %v is read by no instant, yet no gap covers it", o.zone.Name, wallOfNaive(w, 0)))
			}
			switch gap {
			case dstsafe.GapShift:
				cands = append(cands, fire{At: w - int64(c.Before), Wall: w, Kind: dstsafe.Gap, Gap: c})
			case dstsafe.GapAtTransition:
				cands = append(cands, fire{At: c.At, Wall: w, Kind: dstsafe.Gap, Gap: c})
			}
		default:
			panic(fmt.Sprintf("%s: wall %v read %d times", o.zone.Name, wallOfNaive(w, 0), len(ts)))
		}
	}
	slices.SortStableFunc(cands, func(a, b fire) int {
		switch {
		case a.At != b.At:
			return cmpInt(a.At, b.At)
		case (a.Kind == dstsafe.Gap) != (b.Kind == dstsafe.Gap):
			if a.Kind == dstsafe.Gap {
				return 1
			}
			return -1
		}
		return cmpInt(a.Wall, b.Wall)
	})
	var out []fire
	for _, f := range cands {
		if f.At <= from || f.At > to || (len(out) > 0 && out[len(out)-1].At == f.At) {
			continue
		}
		f.Period = periodKey(p, f.Wall, f.Second)
		out = append(out, f)
	}
	return out
}

func cmpInt(a, b int64) int {
	switch {
	case a < b:
		return -1
	case a > b:
		return 1
	}
	return 0
}

// dailyWalls returns the naive walls at second-of-day tod for the days
// around (from, to].
func dailyWalls(tod, from, to int64) []int64 {
	var ws []int64
	for d := floorDiv(from-maxOff, 86400) - 1; d <= floorDiv(to+maxOff, 86400)+1; d++ {
		ws = append(ws, d*86400+tod)
	}
	return ws
}

// periodicWalls returns the naive walls around (from, to] whose minute is
// a multiple of every (at second 0).
func periodicWalls(every int64, from, to int64) []int64 {
	lo := floorDiv(from-maxOff, 3600) * 3600
	ws := make([]int64, 0, (to+maxOff-lo)/(every*60)+1)
	for w := lo; w <= to+maxOff; w += every * 60 {
		ws = append(ws, w)
	}
	return ws
}

func floorDiv(a, b int64) int64 {
	q := a / b
	if a%b != 0 && (a < 0) != (b < 0) {
		q--
	}
	return q
}

// yearlyWalls returns the naive walls at month/day tod in every year
// around (from, to].
func yearlyWalls(m time.Month, d int, tod, from, to int64) []int64 {
	y0, _, _, _, _, _ := wallFields(from - maxOff)
	y1, _, _, _, _, _ := wallFields(to + maxOff)
	var ws []int64
	for y := y0; y <= y1; y++ {
		if d <= daysInMonth(y, m) {
			ws = append(ws, naiveOf(y, m, d, 0, 0, 0)+tod)
		}
	}
	return ws
}

func daysInMonth(y int, m time.Month) int {
	return time.Date(y, m+1, 0, 0, 0, 0, 0, time.UTC).Day()
}

// refCron is an independent reading of the cron syntax DESIGN.md and
// ParseCron's doc describe (five fields, names, ranges, steps, lists, Vixie's
// day rule, Quartz L, LW, nW, nL, n#k, weekday 7 = Sunday), used to list the
// wall readings a spec names, minute by minute. Only what the tests
// generate is supported; it panics on anything else.
type refCron struct {
	second, minute   [60]bool
	hour, month      [60]bool
	dom              [32]bool
	domL, domLW      bool
	domNear          [32]bool
	dow              [7]bool
	dowLast          [7]bool
	dowNth           [7][6]bool
	domStar, dowStar bool
	fixed            bool
}

var refNames = map[string]int{
	"jan": 1, "feb": 2, "mar": 3, "apr": 4, "may": 5, "jun": 6, "jul": 7, "aug": 8, "sep": 9, "oct": 10, "nov": 11, "dec": 12,
	"sun": 0, "mon": 1, "tue": 2, "wed": 3, "thu": 4, "fri": 5, "sat": 6,
}

func refValue(s string) int {
	if v, ok := refNames[strings.ToLower(s)]; ok {
		return v
	}
	var v int
	if _, err := fmt.Sscan(s, &v); err != nil {
		panic("refCron: bad value " + s)
	}
	return v
}

// refField sets set[v] for every v the plain items of field name, over
// [lo, hi]; it reports whether an item is an unstepped * or ?.
func refField(field string, lo, hi int, set []bool, extra func(item string) bool) (star bool) {
	for _, item := range strings.Split(field, ",") {
		if extra != nil && extra(item) {
			continue
		}
		rng, step, stepped := item, 1, false
		if i := strings.IndexByte(item, '/'); i >= 0 {
			rng, step, stepped = item[:i], refValue(item[i+1:]), true
		}
		a, b := lo, hi
		switch {
		case rng == "*" || rng == "?":
			star = star || step == 1
		case strings.Contains(rng, "-"):
			i := strings.IndexByte(rng, '-')
			a, b = refValue(rng[:i]), refValue(rng[i+1:])
		default:
			a = refValue(rng)
			if !stepped { // "n/s" runs from n to the end of the field
				b = a
			}
		}
		for v := a; v <= b; v += step {
			set[v%len(set)] = true // weekday 7 is Sunday
		}
	}
	return star
}

func parseRef(spec string) *refCron {
	f := strings.Fields(spec)
	r := &refCron{}
	switch len(f) {
	case 5:
		r.second[0] = true
	case 6: // WithSeconds
		refField(f[0], 0, 59, r.second[:], nil)
		f = f[1:]
	default:
		panic("refCron: want five or six fields: " + spec)
	}
	refField(f[0], 0, 59, r.minute[:], nil)
	refField(f[1], 0, 23, r.hour[:24], nil)
	refField(f[3], 1, 12, r.month[:13], nil)
	r.domStar = refField(f[2], 1, 31, r.dom[:], func(item string) bool {
		up := strings.ToUpper(item)
		switch {
		case up == "L":
			r.domL = true
		case up == "LW":
			r.domLW = true
		case strings.HasSuffix(up, "W"):
			r.domNear[refValue(up[:len(up)-1])] = true
		default:
			return false
		}
		return true
	})
	r.dowStar = refField(f[4], 0, 6, r.dow[:], func(item string) bool {
		up := strings.ToUpper(item)
		switch {
		case strings.Contains(up, "#"):
			i := strings.IndexByte(up, '#')
			r.dowNth[refValue(up[:i])%7][refValue(up[i+1:])] = true
		case len(up) > 1 && strings.HasSuffix(up, "L"):
			r.dowLast[refValue(up[:len(up)-1])%7] = true
		default:
			return false
		}
		return true
	})
	lead := func(s string) bool { return s[0] == '*' || s[0] == '?' }
	r.fixed = !lead(f[0]) && !lead(f[1]) && (len(strings.Fields(spec)) == 5 || !lead(strings.Fields(spec)[0]))
	return r
}

// matchesDay applies the day rules to a civil date.
func (r *refCron) matchesDay(y int, m time.Month, d int) bool {
	if !r.month[m] {
		return false
	}
	last := daysInMonth(y, m)
	wd := func(d int) time.Weekday { return time.Date(y, m, d, 12, 0, 0, 0, time.UTC).Weekday() }
	weekdayNear := func(n int) int { // Quartz nW: the Monday-Friday day nearest n, in the month
		switch wd(n) {
		case time.Saturday:
			if n == 1 {
				return 3
			}
			return n - 1
		case time.Sunday:
			if n == last {
				return n - 2
			}
			return n + 1
		}
		return n
	}
	domMatch := r.dom[d] || (r.domL && d == last)
	if r.domLW { // LW: the last Monday-Friday of the month
		lw := last
		for wd(lw) == time.Saturday || wd(lw) == time.Sunday {
			lw--
		}
		domMatch = domMatch || d == lw
	}
	for n := 1; n <= 31; n++ {
		if r.domNear[n] && n <= last && weekdayNear(n) == d {
			domMatch = true
		}
	}
	w := wd(d)
	dowMatch := r.dow[w] || (r.dowLast[w] && d+7 > last) || r.dowNth[w][(d-1)/7+1]
	switch {
	case r.domStar && r.dowStar:
		return true
	case r.domStar:
		return dowMatch
	case r.dowStar:
		return domMatch
	}
	return domMatch || dowMatch
}

// walls lists the naive minutes in [lo, hi] the spec names.
func (r *refCron) walls(lo, hi int64) []int64 {
	var ws []int64
	for day := floorDiv(lo, 86400); day*86400 <= hi; day++ {
		y, m, d, _, _, _ := wallFields(day * 86400)
		if !r.matchesDay(y, m, d) {
			continue
		}
		for h := range 24 {
			if !r.hour[h] {
				continue
			}
			for mi := range 60 {
				if !r.minute[mi] {
					continue
				}
				for sec := range 60 {
					if w := day*86400 + int64(h*3600+mi*60+sec); r.second[sec] && w >= lo && w <= hi {
						ws = append(ws, w)
					}
				}
			}
		}
	}
	return ws
}

// TestCronRandomSpecsAroundTransitions: random specs, with the Quartz
// extensions, in random zones around random offset changes, against the

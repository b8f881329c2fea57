package dstsafe

import (
	"math"
	"math/bits"
	"time"
)

// This file expands a rule's wall readings. Every rule, after parsing, is
// a set of days (which the frequency's periods, INTERVAL and the BYxxx day
// parts choose) times a set of times of day that is the same every day:
// sub-daily rules are accepted only where INTERVAL divides a day, so their
// times repeat daily. BYSETPOS picks within each period: for DAILY and the
// sub-daily frequencies it is folded into the time set when parsing; for
// WEEKLY, MONTHLY and YEARLY it is applied per period here.

// dayRules are the day parts of a rule, as masks.
type dayRules struct {
	months       uint16 // bit m: month m passes (all twelve when BYMONTH is absent)
	hasMonthdays bool
	mdPos, mdNeg uint32    // bit d: BYMONTHDAY d / -d
	mdNegByLen   [4]uint32 // mdNeg as days of a month of 28+i days
	hasByday     bool
	wdPlain      uint8     // bit wd: BYDAY without ordinal
	dowDays      [7]uint32 // days 1-31 whose weekday is in wdPlain, by weekday of the 1st
	hasNth       bool
	nthYear      bool // ordinals count in the year (YEARLY without BYMONTH), else in the month
	nthPos       [7]uint64
	nthNeg       [7]uint64
	yeardays     []int16 // BYYEARDAY, as given
	hasWeeknos   bool
	wnPos, wnNeg uint64 // bit k: BYWEEKNO k / -k
	wkst         time.Weekday
	skip         skipMode
}

// timeSet is the sorted set of seconds of day a rule fires at, as a list
// when it is short and as a bitset of 86,400 bits when it is long.
type timeSet struct {
	list []int32
	bits []uint64 // nil when list holds the set
	n    int
}

func (ts *timeSet) first() int32 {
	if ts.bits == nil {
		return ts.list[0]
	}
	t, _ := ts.atOrAfter(0)
	return t
}

// atOrAfter returns the first time of day at or after sod.
func (ts *timeSet) atOrAfter(sod int64) (int32, bool) {
	if ts.bits == nil {
		for _, t := range ts.list {
			if int64(t) >= sod {
				return t, true
			}
		}
		return 0, false
	}
	if sod >= secondsPerDay {
		return 0, false
	}
	i := int(sod)
	w := i >> 6
	m := ts.bits[w] >> uint(i&63) << uint(i&63)
	for {
		if m != 0 {
			return int32(w<<6 + bits.TrailingZeros64(m)), true
		}
		if w++; w >= len(ts.bits) {
			return 0, false
		}
		m = ts.bits[w]
	}
}

// at returns the i-th time of day, 0 <= i < n.
func (ts *timeSet) at(i int) int32 {
	if ts.bits == nil {
		return ts.list[i]
	}
	for w, x := range ts.bits {
		c := bits.OnesCount64(x)
		if i < c {
			for ; i > 0; i-- {
				x &= x - 1
			}
			return int32(w<<6 + bits.TrailingZeros64(x))
		}
		i -= c
	}
	panic("dstsafe: timeSet index out of range")
}

// monthPasses reports whether BYMONTH lets month m through.
func (d *dayRules) monthPasses(m time.Month) bool { return d.months&(1<<m) != 0 }

// overflows reports whether BYMONTHDAY names a day past the end of a month
// of n days (February 30): an invalid date, omitted or moved by SKIP.
func (d *dayRules) overflows(n int) bool {
	return d.hasMonthdays && d.mdPos>>uint(n+1) != 0
}

// dayMask returns the days of month m of year y that the day parts match
// (bit d: day d), and whether an invalid day of this month moves forward
// to the 1st of the next (SKIP=FORWARD). A day SKIP=BACKWARD moves is in
// the mask, on the month's last day.
func (d *dayRules) dayMask(y int, m time.Month) (mask uint32, fwd bool) {
	if !d.monthPasses(m) {
		return 0, false
	}
	n := daysIn(y, m)
	valid := uint32(1)<<(n+1) - 2
	mask = valid
	if d.hasMonthdays {
		md := d.mdPos&valid | d.mdNegByLen[n-28]
		if d.overflows(n) {
			switch d.skip {
			case skipBackward:
				md |= 1 << n
			case skipForward:
				fwd = true
			}
		}
		mask &= md
	}
	if mask == 0 {
		return 0, fwd
	}
	if d.hasByday || d.hasNth || d.yeardays != nil || d.hasWeeknos {
		first := daysFromCivil(y, m, 1)
		if d.hasByday {
			wd1 := int(weekdayOf(first))
			bd := d.dowDays[wd1] & valid
			if d.hasNth {
				bd |= d.nthMask(y, m, n, wd1, first)
			}
			mask &= bd
		}
		if d.yeardays != nil && mask != 0 {
			mask &= d.yeardayMask(y, n, first)
		}
		if d.hasWeeknos && mask != 0 {
			mask &= d.weeknoMask(y, n, first)
		}
	}
	return mask, fwd
}

// limitMask is dayMask for frequencies whose periods are days (DAILY and
// shorter): a day SKIP=FORWARD moves into month m is in it.
func (d *dayRules) limitMask(y int, m time.Month) uint32 {
	mask, _ := d.dayMask(y, m)
	if d.skip == skipForward {
		py, pm := y, m-1
		if pm == 0 {
			py, pm = y-1, time.December
		}
		if d.monthPasses(pm) && d.overflows(daysIn(py, pm)) {
			mask |= 1 << 1
		}
	}
	return mask
}

// nthMask returns the days of the month named by BYDAY ordinals ("2MO",
// "-1FR"), counted in the month or, for YEARLY without BYMONTH, the year.
func (d *dayRules) nthMask(y int, m time.Month, n, wd1 int, first int64) uint32 {
	var mask uint32
	if !d.nthYear {
		for wd := range 7 {
			pos, neg := d.nthPos[wd], d.nthNeg[wd]
			if pos|neg == 0 {
				continue
			}
			f := 1 + (wd-wd1+7)%7 // first such weekday of the month
			cnt := (n-f)/7 + 1
			for ; pos != 0; pos &= pos - 1 {
				if k := bits.TrailingZeros64(pos); k <= cnt {
					mask |= 1 << (f + 7*(k-1))
				}
			}
			for ; neg != 0; neg &= neg - 1 {
				if k := bits.TrailingZeros64(neg); k <= cnt {
					mask |= 1 << (f + 7*(cnt-k))
				}
			}
		}
		return mask
	}
	jan1 := daysFromCivil(y, time.January, 1)
	ylen := 365
	if isLeap(y) {
		ylen = 366
	}
	off := int(first - jan1) // day of year of the 1st, minus 1
	wdJan1 := int(weekdayOf(jan1))
	for wd := range 7 {
		pos, neg := d.nthPos[wd], d.nthNeg[wd]
		if pos|neg == 0 {
			continue
		}
		f := 1 + (wd-wdJan1+7)%7
		cnt := (ylen-f)/7 + 1
		set := func(k int, fromEnd bool) {
			if k > cnt {
				return
			}
			doy := f + 7*(k-1)
			if fromEnd {
				doy = f + 7*(cnt-k)
			}
			if day := doy - off; day >= 1 && day <= n {
				mask |= 1 << day
			}
		}
		for ; pos != 0; pos &= pos - 1 {
			set(bits.TrailingZeros64(pos), false)
		}
		for ; neg != 0; neg &= neg - 1 {
			set(bits.TrailingZeros64(neg), true)
		}
	}
	return mask
}

// yeardayMask returns the days of the month whose day of the year BYYEARDAY
// names (366 and -366 only in leap years).
func (d *dayRules) yeardayMask(y, n int, first int64) uint32 {
	ylen := 365
	if isLeap(y) {
		ylen = 366
	}
	off := int(first - daysFromCivil(y, time.January, 1))
	var mask uint32
	for _, v := range d.yeardays {
		doy := int(v)
		if doy < 0 {
			doy += ylen + 1
		}
		if doy > ylen || doy < 1 {
			continue
		}
		if day := doy - off; day >= 1 && day <= n {
			mask |= 1 << day
		}
	}
	return mask
}

// week1Start returns the day number of the first day of week 1 of year y:
// the WKST day on or before 4 January, so that week 1 is the first week
// with at least four days of y (ISO 8601 when WKST is Monday).
func (d *dayRules) week1Start(y int) int64 {
	j4 := daysFromCivil(y, time.January, 4)
	return j4 - int64((int(weekdayOf(j4))-int(d.wkst)+7)%7)
}

// weeknoMask returns the days of the month whose week, numbered in the
// week-numbering year the day belongs to, BYWEEKNO names.
func (d *dayRules) weeknoMask(y, n int, first int64) uint32 {
	starts := [4]int64{d.week1Start(y - 1), d.week1Start(y), d.week1Start(y + 1), d.week1Start(y + 2)}
	var mask uint32
	for day := 1; day <= n; day++ {
		dn := first + int64(day-1)
		i := 1
		switch {
		case dn < starts[1]:
			i = 0
		case dn >= starts[2]:
			i = 2
		}
		wk := int((dn-starts[i])/7) + 1
		weeks := int((starts[i+1] - starts[i]) / 7)
		if d.wnPos&(1<<wk) != 0 || d.wnNeg&(1<<(weeks+1-wk)) != 0 {
			mask |= 1 << day
		}
	}
	return mask
}

// ruleFirst returns the first wall reading the RRULE names at or after
// from, within its COUNT or UNTIL.
func (r *RRule) ruleFirst(from int64) (int64, bool) {
	if r.times.n == 0 {
		return 0, false
	}
	from = max(from, r.start, minRuleWall)
	for {
		if from > r.last || from > maxRuleWall {
			return 0, false
		}
		w, ok := r.expand(from)
		if !ok || w > r.last || w > maxRuleWall {
			return 0, false
		}
		// UNTIL in UTC: near it, compare the instance's RFC 5545 instant
		// (first reading, or pushed out of a gap), not its wall reading.
		if r.untilExact && w > r.untilWall-2*secondsPerDay {
			if w > r.untilWall+2*secondsPerDay {
				return 0, false
			}
			if t, _ := Resolve(wallOfNaive(w, 0), r.loc, Compatible); t.Unix() > r.untilAt {
				from = w + 1
				continue
			}
		}
		return w, true
	}
}

// expand returns the first reading at or after from (>= DTSTART) of the
// rule's periods, ignoring COUNT and UNTIL. It searches one full cycle of
// the Gregorian calendar past from, after which the pattern repeats.
func (r *RRule) expand(from int64) (int64, bool) {
	switch r.freq {
	case freqYearly, freqMonthly, freqWeekly:
		return r.expandPeriods(from)
	}
	return r.expandDays(from)
}

// expandDays serves DAILY and the sub-daily frequencies: the first matching
// day at or after from's day with a time at or after from's time on that
// day.
func (r *RRule) expandDays(from int64) (int64, bool) {
	day := floorDiv(from, secondsPerDay)
	sod := from - day*secondsPerDay
	t, ok := r.times.atOrAfter(sod)
	d, found := r.nextDay(day)
	if !found {
		return 0, false
	}
	if d != day || !ok {
		if d == day {
			if d, found = r.nextDay(day + 1); !found {
				return 0, false
			}
		}
		t = r.times.first()
	}
	return d*secondsPerDay + int64(t), true
}

// nextDay returns the first day number at or after day that the day parts
// match and, for DAILY, that INTERVAL reaches from DTSTART's day.
func (r *RRule) nextDay(day int64) (int64, bool) {
	k := r.dayStep
	if k > 31 {
		// At most one day a month: step from aligned day to aligned day.
		// The Gregorian calendar repeats every 146,097 days.
		d := day + floorMod(r.startDay-day, k)
		for range 146097 + 1 {
			if d*secondsPerDay > maxRuleWall {
				return 0, false
			}
			y, m, dd := civilFromDays(d)
			if r.days.limitMask(y, m)&(1<<dd) != 0 {
				return d, true
			}
			d += k
		}
		return 0, false
	}
	y, m, dd := civilFromDays(day)
	first := day - int64(dd-1)
	for range 4800*k + 13 {
		if first*secondsPerDay > maxRuleWall {
			return 0, false
		}
		n := daysIn(y, m)
		mask := r.days.limitMask(y, m) &^ (1<<dd - 1)
		if k > 1 && mask != 0 {
			var aligned uint32
			for dn := 1 + floorMod(r.startDay-first, k); dn <= int64(n); dn += k {
				aligned |= 1 << dn
			}
			mask &= aligned
		}
		if mask != 0 {
			return first + int64(bits.TrailingZeros32(mask)) - 1, true
		}
		first += int64(n)
		dd = 1
		if m == time.December {
			y, m = y+1, time.January
		} else {
			m++
		}
	}
	return 0, false
}

// periodOf returns the WEEKLY, MONTHLY or YEARLY period containing day.
func (r *RRule) periodOf(day int64) int64 {
	switch r.freq {
	case freqWeekly:
		return floorDiv(day-r.weekBase, 7)
	case freqMonthly:
		y, m, _ := civilFromDays(day)
		return int64(y)*12 + int64(m) - 1
	}
	y, _, _ := civilFromDays(day)
	return int64(y)
}

// cyclePeriods is how many aligned periods one Gregorian cycle holds at
// most: past them the periods' days repeat.
func (r *RRule) cyclePeriods() int {
	switch r.freq {
	case freqWeekly:
		return 20871
	case freqMonthly:
		return 4800
	}
	return 400
}

// expandPeriods serves WEEKLY, MONTHLY and YEARLY.
func (r *RRule) expandPeriods(from int64) (int64, bool) {
	p := r.periodOf(floorDiv(from, secondsPerDay))
	k := r.interval
	if p < r.startPer {
		p = r.startPer
	}
	p += floorMod(r.startPer-p, k)
	best, found := int64(math.MaxInt64), false
	if r.days.skip == skipForward && r.freq == freqMonthly && p-k >= r.startPer {
		// The aligned month before may have moved an invalid day to the
		// 1st of from's month.
		if w, ok := r.inPeriod(p-k, from); ok {
			best, found = w, true
		}
	}
	for range r.cyclePeriods() + 1 {
		if found && r.periodStart(p) > best {
			return best, true
		}
		if w, ok := r.inPeriod(p, from); ok {
			return min(w, best), true
		}
		if r.periodStart(p) > maxRuleWall {
			break
		}
		p += k
	}
	return best, found
}

// periodStart returns the naive second period p starts at.
func (r *RRule) periodStart(p int64) int64 {
	switch r.freq {
	case freqWeekly:
		return (r.weekBase + 7*p) * secondsPerDay
	case freqMonthly:
		return daysFromCivil(int(floorDiv(p, 12)), time.Month(floorMod(p, 12)+1), 1) * secondsPerDay
	}
	if p > math.MaxInt32 {
		return math.MaxInt64
	}
	return daysFromCivil(int(p), time.January, 1) * secondsPerDay
}

// periodDays lists the candidate days of period p, in order, as up to 13
// runs: (first day number, mask of days relative to it). A month's run is
// its day mask; a day SKIP=FORWARD moves to the next month is a run of its
// own.
type periodDays struct {
	n     int
	first [14]int64
	mask  [14]uint32 // bit d: day first+d-1
}

func (pd *periodDays) add(first int64, mask uint32) {
	if mask != 0 {
		pd.first[pd.n], pd.mask[pd.n] = first, mask
		pd.n++
	}
}

func (pd *periodDays) count() int {
	c := 0
	for i := range pd.n {
		c += bits.OnesCount32(pd.mask[i])
	}
	return c
}

// day returns the i-th candidate day, 0 <= i < count().
func (pd *periodDays) day(i int) int64 {
	for j := range pd.n {
		m := pd.mask[j]
		c := bits.OnesCount32(m)
		if i < c {
			for ; i > 0; i-- {
				m &= m - 1
			}
			return pd.first[j] + int64(bits.TrailingZeros32(m)) - 1
		}
		i -= c
	}
	panic("dstsafe: periodDays index out of range")
}

// daysOf fills pd with the candidate days of period p.
func (r *RRule) daysOf(p int64, pd *periodDays) {
	d := &r.days
	switch r.freq {
	case freqWeekly:
		start := r.weekBase + 7*p
		y, m, dd := civilFromDays(start)
		first := start - int64(dd-1)
		n := daysIn(y, m)
		var mask, next uint32
		for i := range 7 {
			day := dd + i
			wd := (int(d.wkst) + i) % 7
			if d.wdPlain&(1<<wd) == 0 {
				continue
			}
			if day <= n {
				if d.monthPasses(m) {
					mask |= 1 << day
				}
			} else if nm := m%12 + 1; d.monthPasses(nm) {
				next |= 1 << (day - n)
			}
		}
		pd.add(first, mask)
		pd.add(first+int64(n), next)
	case freqMonthly:
		y, m := int(floorDiv(p, 12)), time.Month(floorMod(p, 12)+1)
		first := daysFromCivil(y, m, 1)
		mask, fwd := d.dayMask(y, m)
		pd.add(first, mask)
		if fwd {
			pd.add(first+int64(daysIn(y, m)), 1<<1)
		}
	default:
		y := int(p)
		first := daysFromCivil(y, time.January, 1)
		carry := false // the 1st of this month came from an invalid day of the last
		for m := time.January; m <= time.December; m++ {
			mask, fwd := d.dayMask(y, m)
			if carry {
				mask |= 1 << 1
			}
			pd.add(first, mask)
			carry = fwd
			first += int64(daysIn(y, m))
		}
	}
}

// inPeriod returns the first reading of period p at or after from.
func (r *RRule) inPeriod(p int64, from int64) (int64, bool) {
	var pd periodDays
	r.daysOf(p, &pd)
	if pd.n == 0 {
		return 0, false
	}
	fromDay := floorDiv(from, secondsPerDay)
	sod := from - fromDay*secondsPerDay
	if r.setpos == nil {
		for j := range pd.n {
			m := pd.mask[j]
			if rel := fromDay - pd.first[j] + 1; rel > 31 {
				continue
			} else if rel > 0 {
				m &^= 1<<uint(rel) - 1 // days before from's day
			}
			for ; m != 0; m &= m - 1 {
				day := pd.first[j] + int64(bits.TrailingZeros32(m)) - 1
				if day == fromDay {
					if t, ok := r.times.atOrAfter(sod); ok {
						return day*secondsPerDay + int64(t), true
					}
					continue
				}
				return day*secondsPerDay + int64(r.times.first()), true
			}
		}
		return 0, false
	}
	n := pd.count() * r.times.n
	best, ok := int64(math.MaxInt64), false
	for _, sp := range r.setpos {
		i := int(sp) - 1
		if sp < 0 {
			i = n + int(sp)
		}
		if i < 0 || i >= n {
			continue
		}
		w := pd.day(i/r.times.n)*secondsPerDay + int64(r.times.at(i%r.times.n))
		if w >= from && w < best {
			best, ok = w, true
		}
	}
	return best, ok
}

func floorMod(a, b int64) int64 {
	m := a % b
	if m < 0 {
		m += b
	}
	return m
}

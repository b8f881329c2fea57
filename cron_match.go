package dstsafe

import (
	"math/bits"
	"time"
)

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

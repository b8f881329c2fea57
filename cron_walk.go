package dstsafe

import (
	"math"
	"time"

	"github.com/dstsafe/dstsafe/internal/civil"
)

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

// floorDiv is a/b rounded towards minus infinity (internal/civil).
func floorDiv(a, b int64) int64 { return civil.FloorDiv(a, b) }

// nextFields finds the first occurrence at or after instant tmin.
func (c *Cron) nextFields(tmin int64) (found match, ok bool) {
	src := wallSource{cron: c}
	return walkZone(&src, c.loc, c.fold, c.gap, tmin)
}

// wallSource lists a schedule's wall readings (naive seconds) in order for
// walkZone: a *Cron's (with its memo) or an *RRule's. A concrete type, not
// an interface or a type parameter, so that the calls are direct and the
// source stays on the caller's stack.
type wallSource struct {
	cron *Cron
	memo matchMemo
	rule *RRule
	// none, when set, is a reading at or after which there is none: a
	// rule past its COUNT or UNTIL, or a spec that never fires.
	none    int64
	noneSet bool
}

// find returns the first wall reading at or after from.
func (s *wallSource) find(from int64) (w int64, ok bool) {
	if s.noneSet && from >= s.none {
		return 0, false
	}
	if s.cron != nil {
		w, ok = s.memo.find(s.cron, from)
	} else {
		w, ok = s.rule.firstWall(from)
	}
	if !ok && (!s.noneSet || from < s.none) {
		s.none, s.noneSet = from, true
	}
	return w, ok
}

// walkZone finds the first occurrence at or after instant tmin of the wall
// readings src lists, in zone loc, under the fold and gap policies, by
// walking the zone's periods of constant offset in order. Within a period
// the readings run in step with real time, so the first matching reading is
// the period's first candidate; a gap at the period's start adds the
// readings it skipped (shifted, or at the transition); fold policies drop
// one of the two readings of a repeated wall time.
func walkZone(src *wallSource, loc *time.Location, fold FoldPolicy, gap GapPolicy, tmin int64) (found match, ok bool) {
	z := tableFor(loc)
	at, off, hi := z.at, z.off, z.hi
	var j int
	if tmin >= hi-2*secondsPerDay {
		at, off, hi = scanZone(loc, tmin-2*secondsPerDay, tmin+400*secondsPerDay)
		j = periodIndex(at, tmin)
	} else {
		j = z.period(tmin)
	}
	ps := at[j]
	for tmin <= maxCronUnix {
		o := int64(off[j])
		if src.noneSet {
			// The lowest reading this period can ask for (a gap's
			// skipped readings start at ps+off[j-1]): past the last
			// reading there is, stop.
			low := min(o, int64(off[max(j-1, 0)]))
			if min(ps, tmin)+low >= src.none {
				return match{}, false
			}
		}
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
		if j > 0 && at[j] == ps && int64(off[j-1]) < o && gap != GapSkip {
			b := int64(off[j-1])
			from := ps + b
			if gap == GapShift {
				from = max(from, tmin+b)
			}
			if from < ps+o && (gap == GapShift || ps >= tmin) {
				if g, ok := src.find(from); ok && g < ps+o {
					best = match{t: g - b, w: g, kind: Gap}
					if gap == GapAtTransition {
						best.t = ps
					}
				}
			}
		}

		// Natural readings of this period.
		from := max(tmin, ps) + o
		for from < satAdd(pe, o) {
			w, ok := src.find(from)
			if !ok || w >= satAdd(pe, o) || w-o > best.t {
				break
			}
			second := j > 0 && at[j] == ps && int64(off[j-1]) > o && w < ps+int64(off[j-1])
			first := !last && int64(off[j+1]) < o && w >= pe+int64(off[j+1])
			if second && fold == FoldFirst {
				from = ps + int64(off[j-1]) // skip the repeated readings
				continue
			}
			if first && fold == FoldLast {
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
			at, off, hi = scanZone(loc, start-2*secondsPerDay, start+400*secondsPerDay)
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

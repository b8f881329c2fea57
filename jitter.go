package dstsafe

import (
	"fmt"
	"hash/fnv"
	"math/bits"
	"time"
)

// WithJitter delays the start of each period by a duration in [0, max),
// so that many replicas or jobs due at one instant do not all hit a
// database at once. The delay is a hash of the job name and the period key
// (FNV-1a), so every replica computes the same one and a restart does not
// re-roll it; it is a whole number of milliseconds when max is at least a
// millisecond. The period is unchanged: its key, Run.Due and Run.Wall are
// those of the schedule, only the start moves, and the misfire threshold
// and catch-up window count from the delayed start. RunNow and Backfill
// start at once, without it.
//
// In a fold and a gap the delay applies to the instant the schedule's
// policy gave: a fixed-time 01:30 job starts between the first 01:30 and
// 01:30+max CDT on 2024-11-03, and a 02:30 job shifted to 03:30 CDT on
// 2024-03-10 starts between 03:30 and 03:30+max.
//
// Add and Update refuse (an *ArgError wrapping ErrInvalidArgument) a max
// that is not less than the schedule's shortest interval between two
// consecutive occurrences, measured in real time from the Add on (within
// WithBounds), where the transitions shorten it: 23 h for a daily
// America/Chicago job (the spring-forward day), 1 h for that job with
// FoldBoth (both 01:30s of the fall-back night), 15 min for "*/15 * * *
// *". The interval is computed from the schedule's own occurrences, the
// same way for a *Cron and for any other Schedule: every pair among the
// first 20,000, and every pair within an hour of each offset change of
// the zone they are in over the next 100 years (within a budget of a
// million occurrences), where a fold or a gap can bring two occurrences
// closer than anywhere else (Australia/Lord_Howe's 30-minute gap makes
// "0,20,45 * * * *" with GapShift run 5 minutes apart). A schedule with fewer
// than two occurrences takes any jitter. A negative max is an *ArgError
// wrapping ErrInvalidArgument; zero means no jitter (the default).
func WithJitter(max time.Duration) JobOption {
	return func(c *jobConfig) {
		if max < 0 {
			c.fail(&ArgError{Func: "WithJitter", Arg: "max", Err: fmt.Errorf("%w: negative jitter %v", errInvalidRange, max)})
			return
		}
		c.jitter = max
	}
}

// jitterOf is the start delay of period of job: 0 without jitter.
func (sp *jobSpec) jitterOf(job, period string) time.Duration {
	return jitterDelay(sp.cfg.jitter, job, period)
}

// jitterDelay hashes (job, period) onto [0, max).
func jitterDelay(max time.Duration, job, period string) time.Duration {
	if max <= 0 {
		return 0
	}
	h := fnv.New64a()
	h.Write([]byte(job))
	h.Write([]byte{0})
	h.Write([]byte(period))
	x := mix64(h.Sum64())
	unit := time.Duration(1)
	if max >= time.Millisecond {
		unit = time.Millisecond
	}
	n := uint64(max / unit)
	if max%unit != 0 {
		n++
	}
	// x*n/2^64 is in [0, n), and (n-1)*unit < max.
	hi, _ := bits.Mul64(x, n)
	return time.Duration(hi) * unit
}

// mix64 is splitmix64's finaliser: FNV's low bits alone are poorly spread
// for keys that differ in their last bytes, as period keys do.
func mix64(x uint64) uint64 {
	x ^= x >> 30
	x *= 0xbf58476d1ce4e5b9
	x ^= x >> 27
	x *= 0x94d049bb133111eb
	x ^= x >> 31
	return x
}

// Limits of shortestInterval.
const (
	intervalHead   = 20000     // occurrences walked from the start
	intervalYears  = 100       // offset changes looked at
	intervalBudget = 1_000_000 // occurrences walked around them in all
	intervalWindow = time.Hour // looked at on each side of a change, at least
)

// gapPair is the shortest interval found so far and where.
type gapPair struct {
	d    time.Duration
	a, b time.Time
	ok   bool
}

func (g *gapPair) see(a, b time.Time) {
	if d := b.Sub(a); !g.ok || d < g.d {
		*g = gapPair{d: d, a: a, b: b, ok: true}
	}
}

// shortestInterval returns the shortest real time between two consecutive
// occurrences of sp from from on (see WithJitter for what is looked at).
func (sp *jobSpec) shortestInterval(from time.Time) gapPair {
	var best gapPair
	horizon := from.AddDate(intervalYears, 0, 0) // nextAfter stops at the bounds' end
	prev, ok := sp.nextAfter(from.Add(-time.Nanosecond))
	if !ok {
		return best
	}
	loc := prev.At.Location()
	for range intervalHead {
		o, ok := sp.nextAfter(prev.At)
		if !ok {
			return best // every occurrence seen
		}
		best.see(prev.At, o.At)
		prev = o
		if o.At.After(horizon) {
			break
		}
	}
	// Offsets change the real length of the intervals near a change (a
	// spring-forward day is 23 h, both readings of a fold can fire an
	// hour apart): walk the occurrences around each later change.
	budget := intervalBudget
	for _, tr := range Transitions(loc, prev.At, horizon) {
		delta := time.Duration(tr.OffsetAfter-tr.OffsetBefore) * time.Second
		if delta < 0 {
			delta = -delta
		}
		lo, hi := tr.At.Add(-delta-intervalWindow), tr.At.Add(2*delta+intervalWindow)
		p, ok := sp.lastAtOrBefore(lo)
		if !ok {
			if p, ok = sp.nextAfter(lo); !ok {
				break
			}
		}
		for budget > 0 {
			o, ok := sp.nextAfter(p.At)
			if !ok {
				return best
			}
			budget--
			best.see(p.At, o.At)
			p = o
			if o.At.After(hi) {
				break
			}
		}
		if budget <= 0 {
			break
		}
	}
	return best
}

// checkJitter refuses a jitter that is not shorter than the shortest
// interval of sp from now on.
func (sp *jobSpec) checkJitter(now time.Time) error {
	if sp.cfg.jitter <= 0 {
		return nil
	}
	g := sp.shortestInterval(now)
	if !g.ok || sp.cfg.jitter < g.d {
		return nil
	}
	where := ""
	if !g.a.IsZero() {
		where = fmt.Sprintf(", between %s and %s", g.a.Format(time.RFC3339), g.b.Format(time.RFC3339))
	}
	return &ArgError{Func: "WithJitter", Arg: "max", Err: fmt.Errorf("%w: %v is not less than %v%s",
		errJitterTooLong, sp.cfg.jitter, g.d, where)}
}

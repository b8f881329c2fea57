package dstsafe_test

import (
	"fmt"
	"math/rand/v2"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/dstsafe/dstsafe"
)

// Property tests of RRule.Next and NextOccurrence around every offset
// change of every zone, against the same brute-force oracle as the cron
// tests (property_cron_test.go): the wall readings a rule names are listed
// independently (a daily rule's are plain arithmetic; a random rule's are
// its readings in UTC, where the differential test against dateutil has
// checked them), each is resolved by trying every offset in force near it,
// and RFC 5545's policies are applied by arithmetic: the first reading of
// a fold, a gap's readings pushed forward by the gap.

// occSchedule is what the checks need of a schedule.
type occSchedule interface {
	dstsafe.OccurrenceSchedule
	Location() *time.Location
	String() string
}

// runOcc iterates NextOccurrence from from while the fires are at or before
// to, checking that each is strictly after its argument, agrees with Next
// and is in the schedule's zone; more than limit fires fail.
func runOcc(f *failBudget, s occSchedule, from, to int64, limit int) []dstsafe.Occurrence {
	f.tb.Helper()
	var out []dstsafe.Occurrence
	t := time.Unix(from, 0).In(s.Location())
	for range limit + 1 {
		occ, ok := s.NextOccurrence(t)
		next := s.Next(t)
		switch {
		case ok != !next.IsZero() || ok && !next.Equal(occ.At):
			f.errorf("%s: after %v Next = %v but NextOccurrence = %v, %v", s, t, next, occ.At, ok)
			return out
		case !ok || occ.At.Unix() > to:
			return out
		case !occ.At.After(t):
			f.errorf("%s: NextOccurrence(%v) = %v, not strictly after", s, t, occ.At)
			return out
		case occ.At.Location() != s.Location():
			f.errorf("%s: fire %v is not in the rule's zone", s, occ.At)
		}
		out = append(out, occ)
		t = occ.At
	}
	f.errorf("%s: more than %d fires in %s .. %s", s, limit, fmtUnix(s.Location(), from), fmtUnix(s.Location(), to))
	return out
}

// sameFires checks the fires against the oracle's: instant, wall, kind and
// period key, and that no gap reading fires before its gap.
func sameFires(f *failBudget, s occSchedule, got []dstsafe.Occurrence, want []fire) {
	f.tb.Helper()
	loc := s.Location()
	n := max(len(got), len(want))
	for i := range n {
		if i >= len(got) || i >= len(want) || got[i].At.Unix() != want[i].At || got[i].Wall != wallOfNaive(want[i].Wall, 0) || got[i].Kind != want[i].Kind {
			var b strings.Builder
			for k := max(0, i-2); k < min(n, i+3); k++ {
				b.WriteString("\n\t")
				if k < len(got) {
					fmt.Fprintf(&b, "got  %s wall %v %v   ", fmtUnix(loc, got[k].At.Unix()), got[k].Wall, got[k].Kind)
				}
				if k < len(want) {
					fmt.Fprintf(&b, "want %s wall %v %v", fmtUnix(loc, want[k].At), wallOfNaive(want[k].Wall, 0), want[k].Kind)
				}
			}
			f.errorf("%s: %d fires, want %d; fire %d differs:%s", strings.ReplaceAll(s.String(), "\n", " "), len(got), len(want), i, b.String())
			return
		}
		g, w := got[i], want[i]
		if g.Period != w.Period {
			f.errorf("%s: fire at %v has Period %q, want %q", s, g.At, g.Period, w.Period)
		}
		if g.Kind == dstsafe.Gap && g.At.Unix() < w.Gap.At {
			f.errorf("%s: gap reading %v fires at %v, before the gap", s, g.Wall, g.At)
		}
	}
}

func mustRRule(tb testing.TB, text string, opts ...dstsafe.CronOption) *dstsafe.RRule {
	tb.Helper()
	r, err := dstsafe.ParseRRule(text, opts...)
	if err != nil {
		tb.Fatalf("ParseRRule(%q): %v", text, err)
	}
	return r
}

// floating renders naive seconds as a floating DTSTART value.
func floating(s int64) string {
	return time.Unix(s, 0).UTC().Format("20060102T150405")
}

// stepWalls returns the walls start, start+step, ... up to hi.
func stepWalls(start, step, hi int64) []int64 {
	var ws []int64
	for w := start; w <= hi; w += step {
		ws = append(ws, w)
	}
	return ws
}

// monthlyWalls returns the anniversary walls from start: day d of each
// month at start's time of day, clamped to the month's last day.
func monthlyWalls(start, hi int64) []int64 {
	y, m, d, hh, mm, ss := wallFields(start)
	var ws []int64
	for k := 0; ; k++ {
		yy, mo := y+(int(m)-1+k)/12, time.Month((int(m)-1+k)%12+1)
		w := naiveOf(yy, mo, min(d, daysInMonth(yy, mo)), hh, mm, ss)
		if w > hi {
			return ws
		}
		ws = append(ws, w)
	}
}

// TestRRuleAroundEveryTransition: in every distinct zone, around every
// offset change 1970-2037 and 2090-2100, daily rules at walls inside and
// next to the change (every day and every other day, from three days
// before), the anniversary rule on the change's day, and an hourly rule,
// fire exactly where the oracle says under RFC 5545's policies, a daily
// rule once per civil date, never before a gap. DSTSAFE_LONG=1 adds every
// fold and gap policy in every zone.
func TestRRuleAroundEveryTransition(t *testing.T) {
	t.Parallel()
	var changes, rules atomic.Int64
	zones := distinctZones(t)
	t.Cleanup(func() {
		t.Logf("%d zones, %d offset changes, %d rules checked against the oracle", len(zones), changes.Load(), rules.Load())
	})
	for _, z := range zones {
		t.Run(z.Name, func(t *testing.T) {
			t.Parallel()
			o := oracleFor(z)
			f := &failBudget{tb: t}
			n := 0
			defer func() { changes.Add(int64(len(o.tested))); rules.Add(int64(n)) }()
			for k, ch := range o.tested {
				from, to := ch.At-2*86400, ch.At+2*86400
				exist, missing := existingDates(o, from, to)
				for i, tod := range specTimes(ch) {
					if !longRun && raceEnabled && i%2 == 1 {
						continue
					}
					start := (floorDiv(from, 86400)-1)*86400 + tod
					for _, every := range []int64{1, 2} {
						text := "DTSTART:" + floating(start) + "\nRRULE:FREQ=DAILY"
						if every == 2 {
							text += ";INTERVAL=2"
						}
						r := mustRRule(t, text, dstsafe.WithLocation(z.Loc))
						want := expectFires(o, stepWalls(start, every*86400, to+maxOff), fixedPolicy, from, to)
						got := runOcc(f, r, from, to, len(want)+3)
						sameFires(f, r, got, want)
						if every == 1 {
							checkDailyOnce(f, r, got, exist, missing)
						}
						n++
					}
					if longRun {
						for _, p := range []policy{{dstsafe.FoldLast, dstsafe.GapSkip, dstsafe.ByDate}, {dstsafe.FoldBoth, dstsafe.GapAtTransition, dstsafe.ByWall}} {
							r := mustRRule(t, "DTSTART:"+floating(start)+"\nRRULE:FREQ=DAILY", dstsafe.WithLocation(z.Loc),
								dstsafe.WithFold(p.fold), dstsafe.WithGap(p.gap), dstsafe.WithPeriodKey(p.key))
							want := expectFires(o, stepWalls(start, 86400, to+maxOff), p, from, to)
							sameFires(f, r, runOcc(f, r, from, to, len(want)+3), want)
							n++
						}
					}
				}
				// The anniversary rule on the change's day, from two
				// months before, at a wall inside the change.
				tods := specTimes(ch)
				start := anniversaryStart(floorDiv(ch.At+int64(ch.Before), 86400)) + tods[0]
				r := mustRRule(t, "DTSTART:"+floating(start)+"\nRRULE:FREQ=MONTHLY;SKIP=BACKWARD", dstsafe.WithLocation(z.Loc))
				mf, mt := start-86400, ch.At+40*86400
				want := expectFires(o, monthlyWalls(start, mt+maxOff), fixedPolicy, mf, mt)
				sameFires(f, r, runOcc(f, r, mf, mt, len(want)+3), want)
				n++
				// Hourly at the change's minute, a day either side (RFC
				// semantics: one fire per wall reading, pushed out of gaps).
				if k%2 == 0 || longRun {
					hf, ht := ch.At-86400, ch.At+86400
					hstart := floorDiv(hf-86400, 3600)*3600 + tods[0]%3600
					r := mustRRule(t, "DTSTART:"+floating(hstart)+"\nRRULE:FREQ=HOURLY", dstsafe.WithLocation(z.Loc))
					want := expectFires(o, stepWalls(hstart, 3600, ht+maxOff), fixedPolicy, hf, ht)
					sameFires(f, r, runOcc(f, r, hf, ht, len(want)+3), want)
					n++
				}
			}
		})
	}
}

// anniversaryStart returns midnight of the same day of the month as civil
// day number day, in the latest month at least two months earlier that
// has that day: the anchor of an anniversary rule that reaches day.
func anniversaryStart(day int64) int64 {
	y, m, d, _, _, _ := wallFields(day * 86400)
	for k := 2; ; k++ {
		mm := int(m) - 1 - k
		yy := y + floorDivInt(mm, 12)
		mo := time.Month(mm - 12*floorDivInt(mm, 12) + 1)
		if d <= daysInMonth(yy, mo) {
			return naiveOf(yy, mo, d, 0, 0, 0)
		}
	}
}

func floorDivInt(a, b int) int { return int(floorDiv(int64(a), int64(b))) }

// TestRRuleRandomAroundTransitions: random rules (the differential test's
// generator) in random zones, started near random offset changes, fire
// where their UTC readings, resolved in the zone by the oracle under RFC
// 5545's policies, say: strictly increasing, one fire per repeated wall,
// none before a gap, and Next from any instant between two fires returns
// the second.
func TestRRuleRandomAroundTransitions(t *testing.T) {
	t.Parallel()
	zs := testZones(t)
	rng := rand.New(rand.NewPCG(29, 7529))
	g := ruleGen{rng}
	f := &failBudget{tb: t}
	n := 1500 / randomScale
	if longRun {
		n *= 5
	}
	checked, fires := 0, 0
	for checked < n {
		z := zs[rng.IntN(len(zs))]
		o := oracleFor(z)
		if len(o.tested) == 0 {
			continue
		}
		ch := o.tested[rng.IntN(len(o.tested))]
		start := ch.At + int64(ch.Before) - int64(rng.IntN(3*86400)) // a wall up to three days before
		st := time.Unix(start, 0).UTC()
		rule, _ := g.rule(st)
		if strings.Contains(rule, "UNTIL") {
			continue
		}
		text := "DTSTART:" + floating(start) + "\nRRULE:" + rule
		if rng.IntN(3) == 0 {
			text += fmt.Sprintf(";COUNT=%d", 1+rng.IntN(40))
		}
		r, err := dstsafe.ParseRRule(text, dstsafe.WithLocation(z.Loc))
		if err != nil {
			t.Fatalf("ParseRRule(%q): %v", text, err)
		}
		utc := mustRRule(t, text)
		from, to := start-maxOff, ch.At+3*86400
		var walls []int64
		for at := time.Unix(from-2*maxOff, 0); len(walls) < 400; {
			next := utc.Next(at)
			if next.IsZero() || next.Unix() > to+maxOff {
				break
			}
			walls = append(walls, next.Unix())
			at = next
		}
		if len(walls) == 400 {
			continue // too dense for this window
		}
		want := expectFires(o, walls, fixedPolicy, from, to)
		got := runOcc(f, r, from, to, len(want)+3)
		sameFires(f, r, got, want)
		// Between two fires Next answers the second.
		for i := 1; i < len(got) && i < 6; i++ {
			gap := got[i].At.Sub(got[i-1].At)
			mid := got[i-1].At.Add(time.Duration(rng.Int64N(int64(gap))))
			if next := r.Next(mid); !next.Equal(got[i].At) {
				f.errorf("%s in %s: Next(%v) = %v, want %v", text, z.Name, mid, next, got[i].At)
			}
		}
		checked++
		fires += len(got)
	}
	t.Logf("%d random rules around transitions, %d fires checked", checked, fires)
}

// TestRRuleNeverAnywhere: a rule that names only February 30 is Never in
// every zone, and Next answers "never" from any instant.
func TestRRuleNeverAnywhere(t *testing.T) {
	t.Parallel()
	for _, z := range testZones(t) {
		for _, rule := range []string{
			"FREQ=YEARLY;BYMONTHDAY=30;BYMONTH=2",
			"FREQ=MONTHLY;BYMONTHDAY=31;BYMONTH=4,6,9,11",
			"FREQ=DAILY;BYMONTH=2;BYMONTHDAY=30,31",
			"FREQ=HOURLY;INTERVAL=6;BYHOUR=1,2,3", // from 00:00: hours 0, 6, 12, 18 only
		} {
			r := mustRRule(t, "DTSTART:20240101T000000\nRRULE:"+rule, dstsafe.WithLocation(z.Loc))
			if !r.Never() {
				t.Errorf("%s in %s: Never() = false", rule, z.Name)
			}
			for _, at := range []time.Time{time.Unix(0, 0), time.Date(2011, 12, 29, 0, 0, 0, 0, time.UTC), time.Date(2399, 1, 1, 0, 0, 0, 0, time.UTC)} {
				if got := r.Next(at); !got.IsZero() {
					t.Errorf("%s in %s: Next(%v) = %v, want never", rule, z.Name, at, got)
				}
			}
		}
	}
}

package dstsafe_test

import (
	"errors"
	"fmt"
	"hash/fnv"
	"math/rand/v2"
	"slices"
	"testing"
	"time"

	"github.com/dstsafe/dstsafe"
)

// Property tests of Lookup, Resolve and Transitions over every zone of the
// machine's tz database. Every expectation comes from the time package
// (offsets of instants, stepping and bisection) and brute force over the
// candidate offsets, never from the package under test.

// failBudget stops a subtest after a few failures so one broken zone does
// not print thousands of lines.
type failBudget struct {
	tb testing.TB
	n  int
}

func (f *failBudget) errorf(format string, args ...any) {
	f.tb.Helper()
	f.n++
	f.tb.Errorf(format, args...)
	if f.n >= 8 {
		f.tb.Fatalf("stopping after %d failures", f.n)
	}
}

func wallOfNaive(s int64, ns int) dstsafe.Wall {
	y, m, d, hh, mm, ss := wallFields(s)
	return dstsafe.Wall{Year: y, Month: m, Day: d, Hour: hh, Minute: mm, Second: ss, Nanosecond: ns}
}

// readsAs reports whether instant t reads exactly as w in loc.
func readsAs(t time.Time, loc *time.Location, w dstsafe.Wall) bool {
	u := t.In(loc)
	y, m, d := u.Date()
	hh, mm, ss := u.Clock()
	return dstsafe.Wall{Year: y, Month: m, Day: d, Hour: hh, Minute: mm, Second: ss, Nanosecond: u.Nanosecond()} == w
}

// lazyWhere names a zone and wall in failure messages without formatting
// them for every passing check.
type lazyWhere struct {
	zone string
	w    dstsafe.Wall
}

func (l lazyWhere) String() string { return l.zone + " " + l.w.String() }

// checkWall compares Lookup and Resolve for the wall at naive second s plus
// ns nanoseconds with brute force over the offsets in force near s.
func checkWall(f *failBudget, o *zoneOracle, s int64, ns int) {
	f.tb.Helper()
	loc := o.zone.Loc
	changes, offsets := o.near(s, s)
	offAt := func(t int64) int { return offsetOf(loc, t) }
	ts := readings(make([]int64, 0, 4), s, offsets, offAt)
	w := wallOfNaive(s, ns)
	r := dstsafe.Lookup(w, loc)
	at := func(sec int64) time.Time { return time.Unix(sec, int64(ns)) }
	where := lazyWhere{o.zone.Name, w}

	var want dstsafe.Kind
	switch len(ts) {
	case 1:
		want = dstsafe.Unique
	case 2:
		want = dstsafe.Fold
	case 0:
		want = dstsafe.Gap
	default:
		f.errorf("%s: the time package reads it %d times (%v); no Kind fits", where, len(ts), ts)
		return
	}
	if r.Kind != want {
		f.errorf("%s: Lookup Kind = %v, brute force finds %d readings (%v)", where, r.Kind, len(ts), want)
		return
	}
	for _, x := range []time.Time{r.Earlier, r.Later} {
		if x.Location() != loc {
			f.errorf("%s: Lookup returns an instant in %v, want the zone looked up", where, x.Location())
			return
		}
	}

	var wantTr offChange // the transition the wall is affected by (Fold, Gap)
	switch want {
	case dstsafe.Unique:
		if !r.Earlier.Equal(at(ts[0])) || !r.Later.Equal(r.Earlier) {
			f.errorf("%s: Unique: Earlier %v Later %v, want both %v", where, r.Earlier, r.Later, at(ts[0]))
		}
		if !readsAs(r.Earlier, loc, w) {
			f.errorf("%s: Unique instant %v does not read back as the wall", where, r.Earlier)
		}
		off := offsetOf(loc, ts[0])
		if _, got := r.Earlier.Zone(); got != off || r.Transition != (dstsafe.Transition{}) {
			f.errorf("%s: Unique: offset %d transition %+v, want offset %d and the zero transition",
				where, got, r.Transition, off)
		}
	case dstsafe.Fold:
		if !r.Earlier.Equal(at(ts[0])) || !r.Later.Equal(at(ts[1])) {
			f.errorf("%s: Fold: Earlier %v Later %v, want %v and %v", where, r.Earlier, r.Later, at(ts[0]), at(ts[1]))
		}
		if !readsAs(r.Earlier, loc, w) || !readsAs(r.Later, loc, w) || !r.Earlier.Before(r.Later) {
			f.errorf("%s: Fold: Earlier %v and Later %v must both read back, in order", where, r.Earlier, r.Later)
		}
		// The change between the two readings.
		var in []offChange
		for _, c := range changes {
			if c.At > ts[0] && c.At <= ts[1] {
				in = append(in, c)
			}
		}
		if len(in) != 1 || in[0].isGap() {
			f.errorf("%s: Fold: want one backward change between the readings, the oracle has %+v", where, in)
			return
		}
		wantTr = in[0]
	case dstsafe.Gap:
		var in []offChange
		for _, c := range changes {
			if c.isGap() && c.At+int64(c.Before) <= s && s < c.At+int64(c.After) {
				in = append(in, c)
			}
		}
		if len(in) != 1 {
			f.errorf("%s: Gap: want one forward change skipping the wall, the oracle has %+v", where, in)
			return
		}
		wantTr = in[0]
		earlier, later := at(s-int64(wantTr.After)), at(s-int64(wantTr.Before))
		if !r.Earlier.Equal(earlier) || !r.Later.Equal(later) {
			f.errorf("%s: Gap: Earlier %v Later %v, want wall-offsetAfter %v and wall-offsetBefore %v",
				where, r.Earlier, r.Later, earlier, later)
		}
		tr := time.Unix(wantTr.At, 0)
		if !r.Earlier.Before(tr) || r.Later.Before(tr) {
			f.errorf("%s: Gap: want Earlier %v < transition %v <= Later %v", where, r.Earlier, tr, r.Later)
		}
		for _, x := range []time.Time{r.Earlier, r.Later} {
			if readsAs(x, loc, w) {
				f.errorf("%s: Gap: %v reads as the wall", where, x)
			}
		}
	}
	if want != dstsafe.Unique {
		c := wantTr
		lo, hi := c.At+int64(c.Before), c.At+int64(c.After)
		if want == dstsafe.Fold {
			lo, hi = hi, lo
		}
		tr := r.Transition
		if !tr.At.Equal(time.Unix(c.At, 0)) || tr.OffsetBefore != c.Before || tr.OffsetAfter != c.After || tr.Kind != want {
			f.errorf("%s: %v: transition %v %d -> %d (%v), want %s %d -> %d", where, want,
				tr.At.UTC(), tr.OffsetBefore, tr.OffsetAfter, tr.Kind, fmtUnix(loc, c.At), c.Before, c.After)
		}
		if tr.Start != wallOfNaive(lo, 0) || tr.End != wallOfNaive(hi, 0) {
			f.errorf("%s: %v: range [%v, %v), want [%v, %v)", where, want, tr.Start, tr.End, wallOfNaive(lo, 0), wallOfNaive(hi, 0))
		}
	}
	checkResolve(f, o.zone, w, r, want, where)
}

// checkResolve checks each Disambiguation against DESIGN.md, given a
// Resolution already checked against the oracle.
func checkResolve(f *failBudget, z tzZone, w dstsafe.Wall, r dstsafe.Resolution, kind dstsafe.Kind, where fmt.Stringer) {
	f.tb.Helper()
	compatible := r.Earlier
	if kind == dstsafe.Gap {
		compatible = r.Later
	}
	for _, tc := range []struct {
		d    dstsafe.Disambiguation
		want time.Time
	}{
		{dstsafe.Compatible, compatible},
		{dstsafe.Earlier, r.Earlier},
		{dstsafe.Later, r.Later},
	} {
		got, err := dstsafe.Resolve(w, z.Loc, tc.d)
		if err != nil || !got.Equal(tc.want) || got.Location() != z.Loc {
			f.errorf("%s: Resolve(%v) = %v, %v; want %v in the zone", where, tc.d, got, err, tc.want)
		}
	}
	got, err := dstsafe.Resolve(w, z.Loc, dstsafe.Reject)
	if kind == dstsafe.Unique {
		if err != nil || !got.Equal(r.Earlier) {
			f.errorf("%s: Resolve(reject) of a unique wall = %v, %v; want %v", where, got, err, r.Earlier)
		}
		return
	}
	want, other := dstsafe.ErrAmbiguous, dstsafe.ErrNonexistent
	if kind == dstsafe.Gap {
		want, other = other, want
	}
	var re *dstsafe.ResolveError
	switch {
	case !got.IsZero():
		f.errorf("%s: Resolve(reject) of a %v wall returns instant %v, want the zero time", where, kind, got)
	case !errors.Is(err, want) || errors.Is(err, other):
		f.errorf("%s: Resolve(reject) error %v, want one wrapping %v only", where, err, want)
	case !errors.As(err, &re):
		f.errorf("%s: Resolve(reject) error %T is not a *ResolveError", where, err)
	case re.Zone != z.Name || re.Wall != w || re.Resolution.Kind != kind ||
		!re.Resolution.Earlier.Equal(r.Earlier) || !re.Resolution.Later.Equal(r.Later):
		f.errorf("%s: ResolveError %+v does not name the zone, the wall and both candidates", where, re)
	}
}

// TestLookupAroundEveryTransition checks every wall reading near every
// offset change 1970-2037 and 2090-2100 of every zone: every 15 minutes from
// 3h before the earlier reading of the change to 3h after the later one,
// plus both range edges and the seconds (and nanoseconds) around them.
func TestLookupAroundEveryTransition(t *testing.T) {
	t.Parallel()
	for _, z := range testZones(t) {
		t.Run(z.Name, func(t *testing.T) {
			t.Parallel()
			o := oracleFor(z)
			f := &failBudget{tb: t}
			for _, c := range o.tested {
				b, a := c.At+int64(c.Before), c.At+int64(c.After)
				lo, hi := min(a, b)-3*3600, max(a, b)+3*3600
				for s := lo - lo%900; s <= hi; s += 900 {
					checkWall(f, o, s, 0)
				}
				for _, e := range []int64{b, a} {
					checkWall(f, o, e-1, 0)
					checkWall(f, o, e-1, 999_999_999)
					checkWall(f, o, e, 0)
					checkWall(f, o, e, 1)
					checkWall(f, o, e+1, 0)
				}
			}
		})
	}
}

// TestTransitionsMatchOracle cross-checks dstsafe.Transitions against the
// day-step scan, separately from the Lookup property: every change the scan
// finds must be listed with its offsets, kind and wall range, and every
// listed change must be a real change (the offset differs across it).
func TestTransitionsMatchOracle(t *testing.T) {
	t.Parallel()
	for _, z := range testZones(t) {
		t.Run(z.Name, func(t *testing.T) {
			t.Parallel()
			o := oracleFor(z)
			f := &failBudget{tb: t}
			var got []dstsafe.Transition
			for _, w := range testedWindows {
				got = append(got, dstsafe.Transitions(z.Loc, time.Unix(w[0], 0), time.Unix(w[1], 0))...)
			}
			listed := map[int64]dstsafe.Transition{}
			for i, tr := range got {
				s := tr.At.Unix()
				listed[s] = tr
				if i > 0 && !got[i-1].At.Before(tr.At) {
					f.errorf("Transitions not strictly ordered: %v then %v", got[i-1].At, tr.At)
				}
				if tr.At.Location() != z.Loc || tr.At.Nanosecond() != 0 {
					f.errorf("transition %v: want a whole second in the zone", tr.At)
				}
				if b, a := offsetOf(z.Loc, s-1), offsetOf(z.Loc, s); b != tr.OffsetBefore || a != tr.OffsetAfter || a == b {
					f.errorf("listed transition at %s %d -> %d, but the time package has %d -> %d there",
						fmtUnix(z.Loc, s), tr.OffsetBefore, tr.OffsetAfter, b, a)
				}
			}
			for _, c := range o.tested {
				tr, ok := listed[c.At]
				if !ok {
					f.errorf("Transitions misses the change at %s %d -> %d", fmtUnix(z.Loc, c.At), c.Before, c.After)
					continue
				}
				kind, lo, hi := dstsafe.Gap, c.At+int64(c.Before), c.At+int64(c.After)
				if !c.isGap() {
					kind, lo, hi = dstsafe.Fold, hi, lo
				}
				if tr.Kind != kind || tr.Start != wallOfNaive(lo, 0) || tr.End != wallOfNaive(hi, 0) {
					f.errorf("transition at %s: %v [%v, %v), want %v [%v, %v)", fmtUnix(z.Loc, c.At),
						tr.Kind, tr.Start, tr.End, kind, wallOfNaive(lo, 0), wallOfNaive(hi, 0))
				}
				wantBefore, _ := time.Unix(c.At-1, 0).In(z.Loc).Zone()
				wantAfter, _ := time.Unix(c.At, 0).In(z.Loc).Zone()
				if tr.NameBefore != wantBefore || tr.NameAfter != wantAfter {
					f.errorf("transition at %s: names %s -> %s, want %s -> %s", fmtUnix(z.Loc, c.At),
						tr.NameBefore, tr.NameAfter, wantBefore, wantAfter)
				}
			}
			if len(got) != len(o.tested) {
				// Legitimate only if the day-step scan missed a change that is
				// undone within a day; the loop above verified each listed one.
				t.Logf("Transitions lists %d changes, the day-step scan found %d", len(got), len(o.tested))
			}
		})
	}
}

func zoneSeed(name string) uint64 {
	h := fnv.New64a()
	h.Write([]byte(name))
	return h.Sum64()
}

// TestLookupRandomWalls compares Lookup and Resolve with brute force for
// random walls (seeded per zone) in every zone, years 1800-2400: Local Mean
// Times, wartime rules and the POSIX-rule years past the zone's last listed
// transition.
func TestLookupRandomWalls(t *testing.T) {
	t.Parallel()
	n := 150 / randomScale
	for _, z := range allZones(t) {
		if raceEnabled && !slices.Contains(famousZones, z.Name) && zoneSeed(z.Name)%3 != 0 {
			continue
		}
		t.Run(z.Name, func(t *testing.T) {
			t.Parallel()
			o := &zoneOracle{zone: z} // no scanned spans: every wall scans its own neighbourhood
			f := &failBudget{tb: t}
			rng := rand.New(rand.NewPCG(20261130, zoneSeed(z.Name)))
			lo, hi := naiveOf(1800, 1, 1, 0, 0, 0), naiveOf(2401, 1, 1, 0, 0, 0)
			for range n {
				s := lo + rng.Int64N(hi-lo)
				ns := 0
				if rng.IntN(4) == 0 {
					ns = rng.IntN(1e9)
				}
				checkWall(f, o, s, ns)
			}
		})
	}
}

// invalidWallCases are walls that are not calendar readings. They also
// seed FuzzResolve.
var invalidWallCases = func() []struct {
	name string
	w    dstsafe.Wall
} {
	ok := dstsafe.Wall{Year: 2024, Month: time.March, Day: 10, Hour: 2, Minute: 30}
	with := func(edit func(*dstsafe.Wall)) dstsafe.Wall { w := ok; edit(&w); return w }
	return []struct {
		name string
		w    dstsafe.Wall
	}{
		{"month 13", with(func(w *dstsafe.Wall) { w.Month = 13 })},
		{"month 0", with(func(w *dstsafe.Wall) { w.Month = 0 })},
		{"day 0", with(func(w *dstsafe.Wall) { w.Day = 0 })},
		{"April 31", with(func(w *dstsafe.Wall) { w.Month, w.Day = time.April, 31 })},
		{"February 30", with(func(w *dstsafe.Wall) { w.Month, w.Day = time.February, 30 })},
		{"February 29 2100 (not a leap year)", with(func(w *dstsafe.Wall) { w.Year, w.Month, w.Day = 2100, time.February, 29 })},
		{"February 29 2023", with(func(w *dstsafe.Wall) { w.Year, w.Month, w.Day = 2023, time.February, 29 })},
		{"hour 24 (Cairo's 24:00 is the next day's 00:00)", with(func(w *dstsafe.Wall) { w.Hour = 24 })},
		{"hour -1", with(func(w *dstsafe.Wall) { w.Hour = -1 })},
		{"minute 60", with(func(w *dstsafe.Wall) { w.Minute = 60 })},
		{"second 60 (no leap seconds in the time package)", with(func(w *dstsafe.Wall) { w.Second = 60 })},
		{"negative nanoseconds", with(func(w *dstsafe.Wall) { w.Nanosecond = -1 })},
		{"nanosecond 1e9", with(func(w *dstsafe.Wall) { w.Nanosecond = 1e9 })},
		{"zero Wall (month 0, day 0)", dstsafe.Wall{}},
	}
}()

// TestLookupInvalidWalls: invalid walls are errors wrapping ErrInvalidArgument,
// never normalised, and Lookup reports Kind 0 for them.
func TestLookupInvalidWalls(t *testing.T) {
	chicago := zoneNamed(t, "America/Chicago").Loc
	for _, tc := range invalidWallCases {
		t.Run(tc.name, func(t *testing.T) {
			if r := dstsafe.Lookup(tc.w, chicago); r.Kind != 0 {
				t.Errorf("Lookup(%+v) Kind = %v, want 0", tc.w, r.Kind)
			}
			for _, d := range []dstsafe.Disambiguation{dstsafe.Compatible, dstsafe.Earlier, dstsafe.Later, dstsafe.Reject} {
				got, err := dstsafe.Resolve(tc.w, chicago, d)
				if !errors.Is(err, dstsafe.ErrInvalidArgument) || !got.IsZero() {
					t.Errorf("Resolve(%+v, %v) = %v, %v; want zero and an error wrapping ErrInvalidArgument", tc.w, d, got, err)
				}
			}
			if err := tc.w.Validate(); !errors.Is(err, dstsafe.ErrInvalidArgument) {
				t.Errorf("Validate(%+v) = %v, want ErrInvalidArgument", tc.w, err)
			}
		})
	}
	// The valid neighbours of those walls are accepted.
	for _, w := range []dstsafe.Wall{
		{Year: 2024, Month: time.February, Day: 29, Hour: 23, Minute: 59, Second: 59, Nanosecond: 999_999_999},
		{Year: 2000, Month: time.February, Day: 29}, // 2000 is a leap year
		{Year: 2100, Month: time.February, Day: 28},
	} {
		if _, err := dstsafe.Resolve(w, chicago, dstsafe.Reject); err != nil {
			t.Errorf("Resolve(%v) = %v, want no error", w, err)
		}
	}
}

// TestNilLocationPanics: a nil location is a programmer error, as in
// time.Date.
func TestNilLocationPanics(t *testing.T) {
	w := dstsafe.Wall{Year: 2024, Month: time.March, Day: 10, Hour: 2, Minute: 30}
	for name, call := range map[string]func(){
		"Lookup":      func() { dstsafe.Lookup(w, nil) },
		"Transitions": func() { dstsafe.Transitions(nil, time.Unix(0, 0), time.Unix(1e9, 0)) },
	} {
		t.Run(name, func(t *testing.T) {
			defer func() {
				if recover() == nil {
					t.Errorf("%s with a nil location did not panic", name)
				}
			}()
			call()
		})
	}
}

// TestLookupFarFuture checks walls around every offset change in farYears
// (2399-2401, 3999-4000: past the package's cached tables, POSIX rules
// only) and Transitions over spans that cross the year 2400, for the
// policy zones.
func TestLookupFarFuture(t *testing.T) {
	t.Parallel()
	for _, name := range append(policyZones, "Australia/Sydney", "America/Santiago", "Pacific/Auckland", "America/New_York") {
		z := zoneNamed(t, name)
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			f := &failBudget{tb: t}
			for _, yy := range append(farYears, [2]int{2390, 2410}) {
				lo, hi := unixOf(yy[0], 1, 1), unixOf(yy[1], 1, 1)
				o := spanOracle(z, lo-5*86400, hi+5*86400)
				want := scanChanges(z.Loc, lo, hi, 86400)
				got := dstsafe.Transitions(z.Loc, time.Unix(lo, 0), time.Unix(hi, 0))
				if len(got) != len(want) {
					f.errorf("Transitions %d-%d: %d changes, the day-step scan finds %d", yy[0], yy[1], len(got), len(want))
				}
				for i := range min(len(got), len(want)) {
					g, w := got[i], want[i]
					if g.At.Unix() != w.At || g.OffsetBefore != w.Before || g.OffsetAfter != w.After {
						f.errorf("Transitions %d-%d: change %d at %s %d -> %d, want %s %d -> %d", yy[0], yy[1], i,
							fmtUnix(z.Loc, g.At.Unix()), g.OffsetBefore, g.OffsetAfter, fmtUnix(z.Loc, w.At), w.Before, w.After)
					}
				}
				if yy[1]-yy[0] > 10 {
					continue // the span across 2400 only checks Transitions
				}
				for _, c := range want {
					b, a := c.At+int64(c.Before), c.At+int64(c.After)
					for s := min(a, b) - 2*3600; s <= max(a, b)+2*3600; s += 600 {
						checkWall(f, o, s, 0)
					}
					for _, e := range []int64{b, a} {
						checkWall(f, o, e-1, 999_999_999)
						checkWall(f, o, e, 0)
					}
				}
			}
		})
	}
}

// TestLookupSlimTZData runs the transition property on the slim database
// Go embeds (time/tzdata): there every year after the zone's last rule
// change comes from the POSIX string, and Time.ZoneBounds reports ends at
// or before its argument late in leap years (golang/go#81583), which the
// package must not trust. Walls around every change 1970-2037 and
// 2090-2100, Transitions cross-checked, and Lookup on 31 December of the
// leap years where ZoneBounds goes wrong.
func TestLookupSlimTZData(t *testing.T) {
	t.Parallel()
	zs := goTZDataZones(t)
	for i, z := range zs {
		if raceEnabled && i%raceZoneStride != 0 && !slices.Contains(famousZones, z.Name) {
			continue
		}
		t.Run(z.Name, func(t *testing.T) {
			t.Parallel()
			o := oracleFor(z)
			f := &failBudget{tb: t}
			for _, c := range o.tested {
				b, a := c.At+int64(c.Before), c.At+int64(c.After)
				for s := min(a, b) - 2*3600; s <= max(a, b)+2*3600; s += 1800 {
					checkWall(f, o, s, 0)
				}
				for _, e := range []int64{b, a} {
					checkWall(f, o, e-1, 999_999_999)
					checkWall(f, o, e, 0)
				}
			}
			var got []dstsafe.Transition
			for _, w := range testedWindows {
				got = append(got, dstsafe.Transitions(z.Loc, time.Unix(w[0], 0), time.Unix(w[1], 0))...)
			}
			if len(got) != len(o.tested) {
				f.errorf("Transitions lists %d changes, the day-step scan finds %d", len(got), len(o.tested))
			}
			for i := range min(len(got), len(o.tested)) {
				if g, w := got[i], o.tested[i]; g.At.Unix() != w.At || g.OffsetBefore != w.Before || g.OffsetAfter != w.After {
					f.errorf("change %d: Transitions %s %d -> %d, scan %s %d -> %d", i,
						fmtUnix(z.Loc, g.At.Unix()), g.OffsetBefore, g.OffsetAfter, fmtUnix(z.Loc, w.At), w.Before, w.After)
					break
				}
			}
			for _, y := range []int{2024, 2028, 2036, 2040, 2096} {
				for h := 0; h < 48; h += 3 {
					s := naiveOf(y, 12, 30, 0, 0, 0) + int64(h)*3600
					if _, _, ok := o.span(s-2*maxOff, s+2*maxOff); ok {
						checkWall(f, o, s, 0)
					} else {
						checkWall(f, &zoneOracle{zone: z}, s, 0)
					}
				}
			}
		})
	}
}

// TestLookupExtremeYears: walls anywhere in the range Wall accepts (years
// -1e9 to 1e9) resolve exactly: in UTC to time.Date's instant, elsewhere as
// the brute force says (LMT before the zone's history, POSIX rules after).
func TestLookupExtremeYears(t *testing.T) {
	t.Parallel()
	rng := rand.New(rand.NewPCG(1e9, 42))
	f := &failBudget{tb: t}
	for i := range 3000 / randomScale {
		y := int(rng.Int64N(2e9+1) - 1e9)
		switch i % 4 {
		case 0:
			y = 1e9 - rng.IntN(3)
		case 1:
			y = -1e9 + rng.IntN(3)
		}
		m := time.Month(1 + rng.IntN(12))
		w := dstsafe.Wall{Year: y, Month: m, Day: 1 + rng.IntN(daysInMonth(y, m)), Hour: rng.IntN(24),
			Minute: rng.IntN(60), Second: rng.IntN(60), Nanosecond: rng.IntN(1e9)}
		want := time.Date(w.Year, w.Month, w.Day, w.Hour, w.Minute, w.Second, w.Nanosecond, time.UTC)
		r := dstsafe.Lookup(w, time.UTC)
		if r.Kind != dstsafe.Unique || !r.Earlier.Equal(want) || dstsafe.WallOf(r.Earlier) != w {
			f.errorf("UTC %v: Lookup %v %v, want unique %v", w, r.Kind, r.Earlier, want)
		}
		for _, name := range []string{"America/Chicago", "Australia/Lord_Howe", "Asia/Manila"} {
			z := zoneNamed(t, name)
			s := want.Unix() // the wall's naive seconds
			checkWall(f, &zoneOracle{zone: z}, s, w.Nanosecond)
		}
	}
}

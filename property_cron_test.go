package dstsafe_test

import (
	"fmt"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/dstsafe/dstsafe"
)

// Property tests of Cron.Next and NextOccurrence around every offset change
// of every zone. The expected fires come from brute force: every wall
// reading the spec names is resolved by trying every offset in force near
// it (the time package's offsets), then the fold and gap policies of
// DESIGN.md are applied by plain arithmetic.

// fire is one expected firing.
type fire struct {
	At     int64 // unix second
	Wall   int64 // naive seconds of the scheduled wall reading
	Kind   dstsafe.Kind
	Second bool // the second reading of a repeated wall
	Gap    offChange
}

// expectFires returns what a schedule naming the sorted naive walls does in
// (from, to] under the given policies. Two candidates at one instant fire
// once: as the reading that really happens there if there is one, else as
// the first skipped reading.
func expectFires(o *zoneOracle, walls []int64, fold dstsafe.FoldPolicy, gap dstsafe.GapPolicy, from, to int64) []fire {
	changes, offsets := o.near(from, to)
	buf := make([]int64, 0, 4)
	cands := make([]fire, 0, len(walls)+2)
	for _, w := range walls {
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

// runCron iterates NextOccurrence from from while the fires are at or
// before to, checking that each is strictly after its argument, agrees with
// Next, and is in the schedule's zone. The loop is bounded: a schedule that
// fires more than limit times fails.
func runCron(f *failBudget, c *dstsafe.Cron, from, to int64, limit int) []dstsafe.Occurrence {
	f.tb.Helper()
	var out []dstsafe.Occurrence
	t := time.Unix(from, 0).In(c.Location())
	for range limit + 1 {
		occ, ok := c.NextOccurrence(t)
		next := c.Next(t)
		if ok != !next.IsZero() || (ok && !next.Equal(occ.At)) {
			f.errorf("%s: after %v Next = %v but NextOccurrence = %v, %v", c, t, next, occ.At, ok)
			return out
		}
		if !ok || occ.At.Unix() > to {
			return out
		}
		if !occ.At.After(t) {
			f.errorf("%s: NextOccurrence(%v) = %v, not strictly after", c, t, occ.At)
			return out
		}
		if occ.At.Location() != c.Location() {
			f.errorf("%s: fire %v is not in the schedule's zone", c, occ.At)
		}
		out = append(out, occ)
		t = occ.At
	}
	f.errorf("%s: more than %d fires in %s .. %s", c, limit, fmtUnix(c.Location(), from), fmtUnix(c.Location(), to))
	return out
}

// compareFires checks the fires against the oracle's.
func compareFires(f *failBudget, c *dstsafe.Cron, got []dstsafe.Occurrence, want []fire) {
	f.tb.Helper()
	loc := c.Location()
	show := func() string {
		var b strings.Builder
		for i := range max(len(got), len(want)) {
			b.WriteString("\n\t")
			if i < len(got) {
				fmt.Fprintf(&b, "got  %s wall %v %v   ", fmtUnix(loc, got[i].At.Unix()), got[i].Wall, got[i].Kind)
			}
			if i < len(want) {
				fmt.Fprintf(&b, "want %s wall %v %v", fmtUnix(loc, want[i].At), wallOfNaive(want[i].Wall, 0), want[i].Kind)
			}
		}
		return b.String()
	}
	if len(got) != len(want) {
		f.errorf("%s (fold %v, gap %v): %d fires, want %d:%s", c, c.FoldPolicy(), c.GapPolicy(), len(got), len(want), show())
		return
	}
	for i, g := range got {
		w := want[i]
		if g.At.Unix() != w.At || g.At.Nanosecond() != 0 || g.Wall != wallOfNaive(w.Wall, 0) || g.Kind != w.Kind {
			f.errorf("%s (fold %v, gap %v): fire %d differs:%s", c, c.FoldPolicy(), c.GapPolicy(), i, show())
			return
		}
		wantKey := g.Wall.String()
		if w.Second && c.FoldPolicy() == dstsafe.FoldBoth {
			wantKey += ";fold=1"
		}
		if c.PeriodKey() == dstsafe.ByWall && g.Period != wantKey {
			f.errorf("%s: fire at %v has Period %q, want %q", c, g.At, g.Period, wantKey)
		}
		if g.Kind == dstsafe.Gap && g.At.Unix() < w.Gap.At {
			f.errorf("%s: gap reading %v fires at %v, before the gap", c, g.Wall, g.At)
		}
	}
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

// specTimes returns the seconds of day of whole-minute walls inside the
// skipped or repeated range of change c and just outside it.
func specTimes(c offChange) []int64 {
	lo := c.At + int64(min(c.Before, c.After))
	hi := c.At + int64(max(c.Before, c.After)) // range [lo, hi)
	ceil := func(s int64) int64 { return floorDiv(s+59, 60) * 60 }
	floor := func(s int64) int64 { return floorDiv(s, 60) * 60 }
	cands := []int64{
		ceil(lo),              // first whole minute inside
		floor(lo + (hi-lo)/2), // middle
		floor(hi - 1),         // last whole minute inside
		floor(lo - 1),         // the minute before the range
		ceil(hi),              // first whole minute after
	}
	var tods []int64
	for _, s := range cands {
		tod := s - floorDiv(s, 86400)*86400
		if !slices.Contains(tods, tod) {
			tods = append(tods, tod)
		}
	}
	return tods
}

func dailySpec(tod int64) string { return fmt.Sprintf("%d %d * * *", tod/60%60, tod/3600) }

func mustParse(tb testing.TB, spec string, opts ...dstsafe.CronOption) *dstsafe.Cron {
	tb.Helper()
	c, err := dstsafe.ParseCron(spec, opts...)
	if err != nil {
		tb.Fatalf("ParseCron(%q): %v", spec, err)
	}
	return c
}

// existingDates returns the civil dates (days since the epoch) strictly
// inside (from, to)'s readings that some instant reads, and those that no
// instant reads (Pacific/Apia's 2011-12-30).
func existingDates(o *zoneOracle, from, to int64) (exist, missing []int64) {
	_, offsets := o.near(from, to)
	buf := make([]int64, 0, 4)
	d0 := floorDiv(from+int64(o.offsetAt(from)), 86400) + 1
	d1 := floorDiv(to+int64(o.offsetAt(to)), 86400) - 1
	for d := d0; d <= d1; d++ {
		found := false
		for k := int64(0); k < 96 && !found; k++ {
			found = len(readings(buf, d*86400+k*900, offsets, o.offsetAt)) > 0
		}
		if found {
			exist = append(exist, d)
		} else {
			missing = append(missing, d)
		}
	}
	return exist, missing
}

func dayOfWall(w dstsafe.Wall) int64 {
	return floorDiv(naiveOf(w.Year, w.Month, w.Day, 0, 0, 0), 86400)
}

// checkDailyOnce: a default daily fixed-time job fires exactly once per
// existing civil date, by the date of the wall it was scheduled for.
func checkDailyOnce(f *failBudget, c *dstsafe.Cron, got []dstsafe.Occurrence, exist, missing []int64) {
	f.tb.Helper()
	count := map[int64]int{}
	for _, g := range got {
		count[dayOfWall(g.Wall)]++
	}
	for _, d := range exist {
		if count[d] != 1 {
			f.errorf("%s: %d fires for civil date %v, want exactly 1", c, count[d], wallOfNaive(d*86400, 0).DateString())
		}
	}
	for _, d := range missing {
		if count[d] != 0 {
			f.errorf("%s: %d fires scheduled for %v, a date that never happens", c, count[d], wallOfNaive(d*86400, 0).DateString())
		}
	}
}

// periodicHalfWindow is how far around each change the periodic specs are
// compared minute by minute; the daily specs use two days either side.
const periodicHalfWindow = 12 * 3600

// TestCronAroundEveryTransition: daily fixed-time specs at walls inside
// and just outside every gap and fold 1970-2037 and 2090-2100 of every
// zone, iterated from two days before to two days after the change, fire
// exactly where the brute-force oracle says (default policies: first
// reading of a fold, gap walls pushed forward by the gap), once per civil
// date, never before a gap. The periodic specs */15 and "0 * * * *" fire
// at every instant whose reading matches (both copies of a fold, nothing
// for skipped readings).
func TestCronAroundEveryTransition(t *testing.T) {
	t.Parallel()
	for _, z := range testZones(t) {
		t.Run(z.Name, func(t *testing.T) {
			t.Parallel()
			o := oracleFor(z)
			f := &failBudget{tb: t}
			quarter := mustParse(t, "*/15 * * * *", dstsafe.WithLocation(z.Loc))
			hourly := mustParse(t, "0 * * * *", dstsafe.WithLocation(z.Loc))
			for _, ch := range o.tested {
				from, to := ch.At-2*86400, ch.At+2*86400
				exist, missing := existingDates(o, from, to)
				for _, tod := range specTimes(ch) {
					c := mustParse(t, dailySpec(tod), dstsafe.WithLocation(z.Loc))
					want := expectFires(o, dailyWalls(tod, from, to), dstsafe.FoldFirst, dstsafe.GapShift, from, to)
					got := runCron(f, c, from, to, len(want)+3)
					compareFires(f, c, got, want)
					checkDailyOnce(f, c, got, exist, missing)
				}
				pf, pt := ch.At-periodicHalfWindow, ch.At+periodicHalfWindow
				for _, p := range []struct {
					c     *dstsafe.Cron
					every int64
				}{{quarter, 15}, {hourly, 60}} {
					want := expectFires(o, periodicWalls(p.every, pf, pt), dstsafe.FoldBoth, dstsafe.GapSkip, pf, pt)
					got := runCron(f, p.c, pf, pt, len(want)+3)
					compareFires(f, p.c, got, want)
				}
			}
		})
	}
}

// policyZones get every fold and gap policy, not just the defaults.
var policyZones = []string{
	"America/Chicago", "Europe/London", "Australia/Lord_Howe", "Europe/Dublin", "Pacific/Apia",
	"America/Havana", "Asia/Beirut", "Africa/Cairo", "Europe/Volgograd", "Pacific/Kwajalein",
	"Africa/Monrovia", "Antarctica/Troll", "Africa/Casablanca", "America/St_Johns", "America/Caracas",
}

// TestCronPoliciesAroundTransitions runs the explicit fold and gap policies
// (FoldLast, FoldBoth, GapAtTransition, GapSkip for daily specs; FoldFirst,
// FoldLast, GapShift, GapAtTransition for periodic ones) in a sample of
// zones, against the same oracle.
func TestCronPoliciesAroundTransitions(t *testing.T) {
	t.Parallel()
	type policy struct {
		fold dstsafe.FoldPolicy
		gap  dstsafe.GapPolicy
	}
	daily := []policy{
		{dstsafe.FoldLast, dstsafe.GapShift}, {dstsafe.FoldBoth, dstsafe.GapShift},
		{dstsafe.FoldFirst, dstsafe.GapAtTransition}, {dstsafe.FoldFirst, dstsafe.GapSkip},
		{dstsafe.FoldLast, dstsafe.GapAtTransition},
	}
	periodic := []policy{
		{dstsafe.FoldFirst, dstsafe.GapSkip}, {dstsafe.FoldLast, dstsafe.GapSkip},
		{dstsafe.FoldBoth, dstsafe.GapShift}, {dstsafe.FoldBoth, dstsafe.GapAtTransition},
		{dstsafe.FoldLast, dstsafe.GapAtTransition},
	}
	for _, name := range policyZones {
		z := zoneNamed(t, name)
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			o := oracleFor(z)
			f := &failBudget{tb: t}
			for i, ch := range o.tested {
				if raceEnabled && i%4 != 0 {
					continue
				}
				from, to := ch.At-2*86400, ch.At+2*86400
				for _, tod := range specTimes(ch) {
					for _, p := range daily {
						c := mustParse(t, dailySpec(tod), dstsafe.WithLocation(z.Loc), dstsafe.WithFold(p.fold), dstsafe.WithGap(p.gap))
						want := expectFires(o, dailyWalls(tod, from, to), p.fold, p.gap, from, to)
						compareFires(f, c, runCron(f, c, from, to, len(want)+3), want)
					}
				}
				pf, pt := ch.At-6*3600, ch.At+6*3600
				for _, p := range periodic {
					c := mustParse(t, "*/15 * * * *", dstsafe.WithLocation(z.Loc), dstsafe.WithFold(p.fold), dstsafe.WithGap(p.gap))
					want := expectFires(o, periodicWalls(15, pf, pt), p.fold, p.gap, pf, pt)
					compareFires(f, c, runCron(f, c, pf, pt, len(want)+3), want)
				}
			}
		})
	}
}

// TestCronZonePrefix: a CRON_TZ= prefix names the same zone as WithLocation
// and gives the same fires, for every zone of the database. (GMT+0 and
// GMT-0, backward links to Etc/GMT, are refused by design as fixed-offset
// spellings; Etc/GMT-5 style names are accepted.)
func TestCronZonePrefix(t *testing.T) {
	t.Parallel()
	for _, z := range testZones(t) {
		o := oracleFor(z)
		spec := "30 2 * * *"
		from := unixOf(2024, 1, 1)
		if len(o.tested) > 0 {
			tods := specTimes(o.tested[len(o.tested)/2])
			spec = dailySpec(tods[0])
			from = o.tested[len(o.tested)/2].At - 2*86400
		}
		c, err := dstsafe.ParseCron("CRON_TZ=" + z.Name + " " + spec)
		if err != nil {
			if z.Name == "GMT+0" || z.Name == "GMT-0" {
				continue
			}
			t.Errorf("ParseCron(CRON_TZ=%s %s): %v", z.Name, spec, err)
			continue
		}
		if c.Location().String() != z.Name {
			t.Errorf("CRON_TZ=%s: schedule zone %v", z.Name, c.Location())
		}
		ref := mustParse(t, spec, dstsafe.WithLocation(z.Loc))
		a, b := time.Unix(from, 0), time.Unix(from, 0)
		for range 6 {
			a, b = c.Next(a), ref.Next(b)
			if !a.Equal(b) {
				t.Errorf("CRON_TZ=%s %s fires at %v, WithLocation at %v", z.Name, spec, a, b)
				break
			}
		}
	}
}

// civilDay is the day number (days since 1970-01-01) of a civil date.
func civilDay(y int, m time.Month, d int) int64 { return floorDiv(naiveOf(y, m, d, 0, 0, 0), 86400) }

// famousCronCases are the transitions that broke real schedulers. They
// also seed FuzzParseCron and FuzzNext.
var famousCronCases = []struct {
	zone     string
	spec     string
	from, to time.Time // UTC
	comment  string
	// check asserts what the real world says, on the fires in order.
	check func(t *testing.T, got []dstsafe.Occurrence)
}{
	{
		"Australia/Lord_Howe", "15 2 * * *",
		time.Date(2024, 10, 4, 0, 0, 0, 0, time.UTC), time.Date(2024, 10, 9, 0, 0, 0, 0, time.UTC),
		"2024-10-06 02:00 +10:30 -> 02:30 +11: 30-minute gap; 02:15 fires at 02:45",
		func(t *testing.T, got []dstsafe.Occurrence) {
			for _, g := range got {
				if dayOfWall(g.Wall) == civilDay(2024, 10, 6) && (g.Kind != dstsafe.Gap || g.At.Hour() != 2 || g.At.Minute() != 45) {
					t.Errorf("Lord_Howe 2024-10-06 02:15: got %v (%v), want 02:45 +11 (gap)", g.At, g.Kind)
				}
			}
		},
	},
	{
		"Australia/Lord_Howe", "45 1 * * *",
		time.Date(2024, 4, 5, 0, 0, 0, 0, time.UTC), time.Date(2024, 4, 9, 0, 0, 0, 0, time.UTC),
		"2024-04-07 02:00 +11 -> 01:30 +10:30: 01:30-02:00 twice; 01:45 fires once, at +11",
		func(t *testing.T, got []dstsafe.Occurrence) {
			for _, g := range got {
				if _, off := g.At.Zone(); dayOfWall(g.Wall) == civilDay(2024, 4, 7) && (g.Kind != dstsafe.Fold || off != 11*3600) {
					t.Errorf("Lord_Howe 2024-04-07 01:45: got %v (%v), want the +11 reading", g.At, g.Kind)
				}
			}
		},
	},
	{
		"Europe/Dublin", "30 1 * * *",
		time.Date(2024, 10, 25, 0, 0, 0, 0, time.UTC), time.Date(2024, 10, 30, 0, 0, 0, 0, time.UTC),
		"negative DST: 2024-10-27 02:00 IST -> 01:00 GMT (GMT is the 'summer' time in tzdata); 01:30 fires once, at IST",
		func(t *testing.T, got []dstsafe.Occurrence) {
			for _, g := range got {
				if _, off := g.At.Zone(); dayOfWall(g.Wall) == civilDay(2024, 10, 27) && off != 3600 {
					t.Errorf("Dublin 2024-10-27 01:30: got %v, want the +01:00 reading", g.At)
				}
			}
		},
	},
	{
		"Pacific/Apia", "0 12 * * *",
		time.Date(2011, 12, 27, 0, 0, 0, 0, time.UTC), time.Date(2012, 1, 3, 0, 0, 0, 0, time.UTC),
		"2011-12-29 24:00 -10 -> 2011-12-31 00:00 +14: December 30 never happened; robfig/cron loops here",
		func(t *testing.T, got []dstsafe.Occurrence) {
			for i, g := range got {
				if g.At.Day() == 30 && g.At.Month() == 12 {
					t.Errorf("Apia: fire %v reads 2011-12-30", g.At)
				}
				if i > 0 && dayOfWall(got[i-1].Wall) == civilDay(2011, 12, 29) && dayOfWall(g.Wall) != civilDay(2011, 12, 31) {
					t.Errorf("Apia: after 12-29 the next fire is for %v, want 2011-12-31", g.Wall)
				}
			}
		},
	},
	{
		"Pacific/Apia", "*/30 * * * *",
		time.Date(2011, 12, 30, 6, 0, 0, 0, time.UTC), time.Date(2011, 12, 30, 14, 0, 0, 0, time.UTC),
		"periodic across the skipped day: real time runs on, no reading of 12-30",
		nil,
	},
	{
		"America/Havana", "0 0 * * *",
		time.Date(2024, 3, 8, 0, 0, 0, 0, time.UTC), time.Date(2024, 3, 12, 0, 0, 0, 0, time.UTC),
		"2024-03-10 00:00 CST -> 01:00 CDT: midnight never happens; the job runs at 01:00 CDT",
		func(t *testing.T, got []dstsafe.Occurrence) {
			for _, g := range got {
				if dayOfWall(g.Wall) == civilDay(2024, 3, 10) && (g.Kind != dstsafe.Gap || g.At.Hour() != 1) {
					t.Errorf("Havana 2024-03-10 00:00: got %v (%v), want 01:00 CDT (gap)", g.At, g.Kind)
				}
			}
		},
	},
	{
		"Asia/Beirut", "0 0 * * *",
		time.Date(2024, 3, 29, 0, 0, 0, 0, time.UTC), time.Date(2024, 4, 2, 0, 0, 0, 0, time.UTC),
		"2024-03-31 00:00 EET -> 01:00 EEST: no midnight",
		func(t *testing.T, got []dstsafe.Occurrence) {
			for _, g := range got {
				if dayOfWall(g.Wall) == civilDay(2024, 3, 31) && (g.Kind != dstsafe.Gap || g.At.Hour() != 1) {
					t.Errorf("Beirut 2024-03-31 00:00: got %v (%v), want 01:00 EEST", g.At, g.Kind)
				}
			}
		},
	},
	{
		"Africa/Cairo", "30 0 * * *",
		time.Date(2024, 4, 24, 0, 0, 0, 0, time.UTC), time.Date(2024, 4, 28, 0, 0, 0, 0, time.UTC),
		"2024-04-26 00:00 EET -> 01:00 EEST (the rule says 'last Thursday 24:00'): 00:30 fires at 01:30",
		func(t *testing.T, got []dstsafe.Occurrence) {
			for _, g := range got {
				if dayOfWall(g.Wall) == civilDay(2024, 4, 26) && (g.Kind != dstsafe.Gap || g.At.Hour() != 1 || g.At.Minute() != 30) {
					t.Errorf("Cairo 2024-04-26 00:30: got %v (%v), want 01:30 EEST", g.At, g.Kind)
				}
			}
		},
	},
	{
		"Africa/Cairo", "30 23 * * *",
		time.Date(2024, 10, 29, 0, 0, 0, 0, time.UTC), time.Date(2024, 11, 3, 0, 0, 0, 0, time.UTC),
		"2024-10-31 24:00 EEST -> 23:00 EET: 23:00-24:00 on Oct 31 twice",
		nil,
	},
	{
		"Europe/Volgograd", "30 1 * * *",
		time.Date(2020, 12, 25, 0, 0, 0, 0, time.UTC), time.Date(2020, 12, 29, 0, 0, 0, 0, time.UTC),
		"2020-12-27 02:00 +04 -> 01:00 +03: a permanent move back, not DST; 01:30 twice, fires once",
		nil,
	},
	{
		"Europe/Volgograd", "30 2 * * *",
		time.Date(2018, 10, 26, 0, 0, 0, 0, time.UTC), time.Date(2018, 10, 30, 0, 0, 0, 0, time.UTC),
		"2018-10-28 02:00 +03 -> 03:00 +04: a permanent move, not DST",
		nil,
	},
	{
		"America/Chicago", "30 2 * * *",
		time.Date(2100, 3, 12, 0, 0, 0, 0, time.UTC), time.Date(2100, 3, 16, 0, 0, 0, 0, time.UTC),
		"2100-03-14 (second Sunday of March, by the POSIX rule; 2100 is not a leap year): 02:30 fires at 03:30 CDT",
		func(t *testing.T, got []dstsafe.Occurrence) {
			for _, g := range got {
				if dayOfWall(g.Wall) == civilDay(2100, 3, 14) && (g.Kind != dstsafe.Gap || g.At.Hour() != 3 || g.At.Minute() != 30) {
					t.Errorf("Chicago 2100-03-14 02:30: got %v (%v), want 03:30 CDT", g.At, g.Kind)
				}
			}
		},
	},
	{
		"America/Chicago", "30 1 * * *",
		time.Date(2100, 11, 5, 0, 0, 0, 0, time.UTC), time.Date(2100, 11, 9, 0, 0, 0, 0, time.UTC),
		"2100-11-07 (first Sunday of November): 01:30 fires once, at CDT",
		func(t *testing.T, got []dstsafe.Occurrence) {
			for _, g := range got {
				if name, _ := g.At.Zone(); dayOfWall(g.Wall) == civilDay(2100, 11, 7) && (g.Kind != dstsafe.Fold || name != "CDT") {
					t.Errorf("Chicago 2100-11-07 01:30: got %v (%v), want the CDT reading", g.At, g.Kind)
				}
			}
		},
	},
	{
		"America/Chicago", "*/15 * * * *",
		time.Date(2024, 11, 3, 5, 0, 0, 0, time.UTC), time.Date(2024, 11, 3, 9, 0, 0, 0, time.UTC),
		"the billing incident: 01:00-02:00 happens twice on 2024-11-03; a periodic job runs in both",
		nil,
	},
}

// TestCronFamousTransitions walks the cases that broke real schedulers,
// each against the oracle and against what happened on the wall.
func TestCronFamousTransitions(t *testing.T) {
	for _, tc := range famousCronCases {
		t.Run(tc.zone+" "+tc.spec+" "+tc.from.Format("2006-01-02"), func(t *testing.T) {
			z := zoneNamed(t, tc.zone)
			o := &zoneOracle{zone: z}
			f := &failBudget{tb: t}
			c := mustParse(t, "CRON_TZ="+tc.zone+" "+tc.spec)
			from, to := tc.from.Unix(), tc.to.Unix()
			var walls []int64
			if strings.HasPrefix(tc.spec, "*/") {
				var every int64
				fmt.Sscanf(tc.spec, "*/%d", &every)
				walls = periodicWalls(every, from, to)
			} else {
				var mm, hh int64
				fmt.Sscanf(tc.spec, "%d %d", &mm, &hh)
				walls = dailyWalls(hh*3600+mm*60, from, to)
			}
			want := expectFires(o, walls, c.FoldPolicy(), c.GapPolicy(), from, to)
			got := runCron(f, c, from, to, len(want)+3)
			compareFires(f, c, got, want)
			if c.Fixed() {
				exist, missing := existingDates(o, from, to)
				checkDailyOnce(f, c, got, exist, missing)
			}
			if tc.check != nil {
				tc.check(t, got)
			}
		})
	}
}

// TestNextTerminatesRandom: for random specs in random zones at random
// instants, Next terminates and is strictly after its argument, 200 times
// in a row.
func TestNextTerminatesRandom(t *testing.T) {
	t.Parallel()
	zs := allZones(t)
	rng := rand.New(rand.NewPCG(7, 11))
	n := 400 / randomScale
	for i := range n {
		z := zs[rng.IntN(len(zs))]
		spec := randomSpec(rng, true)
		c, err := dstsafe.ParseCron(spec, dstsafe.WithLocation(z.Loc))
		if err != nil {
			t.Fatalf("ParseCron(%q): %v", spec, err)
		}
		at := time.Unix(unixOf(1900, 1, 1)+rng.Int64N(unixOf(2300, 1, 1)-unixOf(1900, 1, 1)), 0)
		for k := 0; k < 200; k++ {
			next := c.Next(at)
			if next.IsZero() {
				if !c.Never() && at.Year() < 100000 {
					t.Errorf("case %d: %s in %s: Next(%v) = never", i, spec, z.Name, at)
				}
				break
			}
			if !next.After(at) {
				t.Errorf("case %d: %s in %s: Next(%v) = %v, not strictly after", i, spec, z.Name, at, next)
				break
			}
			at = next
		}
	}
}

// TestNextNever: specs that name no existing date return "never" at once.
func TestNextNever(t *testing.T) {
	for _, spec := range []string{
		"0 0 30 2 *", // February 30
		"0 0 31 4 *", // April 31
		"0 0 31 2,4,6,9,11 *",
		"CRON_TZ=Pacific/Apia 0 0 30 2 *",
	} {
		c := mustParse(t, spec)
		for _, at := range []time.Time{time.Unix(0, 0), time.Date(2011, 12, 29, 0, 0, 0, 0, time.UTC), time.Date(2399, 1, 1, 0, 0, 0, 0, time.UTC)} {
			if got := c.Next(at); !got.IsZero() {
				t.Errorf("%q.Next(%v) = %v, want never", spec, at, got)
			}
			if _, ok := c.NextOccurrence(at); ok {
				t.Errorf("%q.NextOccurrence(%v) found one, want none", spec, at)
			}
		}
	}
}

package dstsafe_test

import (
	"errors"
	"fmt"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/dstsafe/dstsafe"
	"github.com/dstsafe/dstsafe/internal/specgen"
)

// Property tests of Cron.Next and NextOccurrence around every offset change
// of every zone. The expected fires come from brute force: every wall
// reading the spec names is resolved by trying every offset in force near
// it (the time package's offsets), then the fold and gap policies of
// DESIGN.md are applied by plain arithmetic.

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
		// From a few fires before the first difference to a few after.
		first := 0
		for first < min(len(got), len(want)) && got[first].At.Unix() == want[first].At && got[first].Wall == wallOfNaive(want[first].Wall, 0) {
			first++
		}
		var b strings.Builder
		for i := max(0, first-2); i < min(max(len(got), len(want)), first+4); i++ {
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
		f.errorf("%s (the schedule says fold %v, gap %v): %d fires, want %d:%s", c, c.FoldPolicy(), c.GapPolicy(), len(got), len(want), show())
		return
	}
	for i, g := range got {
		w := want[i]
		if g.At.Unix() != w.At || g.At.Nanosecond() != 0 || g.Wall != wallOfNaive(w.Wall, 0) || g.Kind != w.Kind {
			f.errorf("%s (the schedule says fold %v, gap %v): fire %d differs:%s", c, c.FoldPolicy(), c.GapPolicy(), i, show())
			return
		}
		if g.Period != w.Period {
			f.errorf("%s: fire at %v has Period %q, want %q", c, g.At, g.Period, w.Period)
		}
		if g.Kind == dstsafe.Gap && g.At.Unix() < w.Gap.At {
			f.errorf("%s: gap reading %v fires at %v, before the gap", c, g.Wall, g.At)
		}
	}
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
func checkDailyOnce(f *failBudget, c fmt.Stringer, got []dstsafe.Occurrence, exist, missing []int64) {
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
// compared minute by minute: 12 hours, or with DSTSAFE_LONG=1 the two days
// either side the daily specs use (about 20 s of CPU more).
var periodicHalfWindow = map[bool]int64{false: 12 * 3600, true: 2 * 86400}[longRun]

// TestCronAroundEveryTransition: daily fixed-time specs at walls inside
// and just outside every gap and fold 1970-2037 and 2090-2100 of every
// zone, iterated from two days before to two days after the change, fire
// exactly where the brute-force oracle says (default policies: first
// reading of a fold, gap walls pushed forward by the gap), once per civil
// date, never before a gap (each distinct zone file once: links to a zone
// with identical bytes are skipped). The periodic specs */15 and "0 * * * *" fire
// at every instant whose reading matches (both copies of a fold, nothing
// for skipped readings).
func TestCronAroundEveryTransition(t *testing.T) {
	t.Parallel()
	for _, z := range distinctZones(t) {
		t.Run(z.Name, func(t *testing.T) {
			t.Parallel()
			o := oracleFor(z)
			f := &failBudget{tb: t}
			quarter := mustCron(t, "*/15 * * * *", dstsafe.WithLocation(z.Loc))
			hourly := mustCron(t, "0 * * * *", dstsafe.WithLocation(z.Loc))
			for _, ch := range o.tested {
				from, to := ch.At-2*86400, ch.At+2*86400
				exist, missing := existingDates(o, from, to)
				for _, tod := range specTimes(ch) {
					c := mustCron(t, dailySpec(tod), dstsafe.WithLocation(z.Loc))
					want := expectFires(o, dailyWalls(tod, from, to), fixedPolicy, from, to)
					got := runCron(f, c, from, to, len(want)+3)
					compareFires(f, c, got, want)
					checkDailyOnce(f, c, got, exist, missing)
				}
				pf, pt := ch.At-periodicHalfWindow, ch.At+periodicHalfWindow
				for _, p := range []struct {
					c     *dstsafe.Cron
					every int64
				}{{quarter, 15}, {hourly, 60}} {
					want := expectFires(o, periodicWalls(p.every, pf, pt), periodicPolicy, pf, pt)
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
	daily := []policy{
		{dstsafe.FoldLast, dstsafe.GapShift, dstsafe.ByWall}, {dstsafe.FoldBoth, dstsafe.GapShift, dstsafe.ByWall},
		{dstsafe.FoldFirst, dstsafe.GapAtTransition, dstsafe.ByWall}, {dstsafe.FoldFirst, dstsafe.GapSkip, dstsafe.ByWall},
		{dstsafe.FoldLast, dstsafe.GapAtTransition, dstsafe.ByWall},
	}
	periodic := []policy{
		{dstsafe.FoldFirst, dstsafe.GapSkip, dstsafe.ByWall}, {dstsafe.FoldLast, dstsafe.GapSkip, dstsafe.ByWall},
		{dstsafe.FoldBoth, dstsafe.GapShift, dstsafe.ByWall}, {dstsafe.FoldBoth, dstsafe.GapAtTransition, dstsafe.ByWall},
		{dstsafe.FoldLast, dstsafe.GapAtTransition, dstsafe.ByWall},
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
					for k, p := range daily {
						if k%2 == 0 {
							p.key = dstsafe.ByDate
						}
						c := mustCron(t, dailySpec(tod), dstsafe.WithLocation(z.Loc), dstsafe.WithFold(p.fold), dstsafe.WithGap(p.gap), dstsafe.WithPeriodKey(p.key))
						want := expectFires(o, dailyWalls(tod, from, to), p, from, to)
						compareFires(f, c, runCron(f, c, from, to, len(want)+3), want)
					}
				}
				pf, pt := ch.At-6*3600, ch.At+6*3600
				for _, p := range periodic {
					c := mustCron(t, "*/15 * * * *", dstsafe.WithLocation(z.Loc), dstsafe.WithFold(p.fold), dstsafe.WithGap(p.gap))
					want := expectFires(o, periodicWalls(15, pf, pt), p, pf, pt)
					compareFires(f, c, runCron(f, c, pf, pt, len(want)+3), want)
				}
			}
		})
	}
}

// TestCronZonePrefix: a CRON_TZ= prefix names the same zone as WithLocation
// and gives the same fires, for every zone of the database, links such as
// GMT+0 and GMT-0 included.
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
		if dstsafe.RefusedZoneName(z.Name) {
			// EST, PST8PDT...: refused as not a place, with the IANA name
			// to use (cron_errors_test.go); WithLocation still takes them.
			var pe *dstsafe.ParseError
			if !errors.As(err, &pe) || pe.Field != "zone" {
				t.Errorf("ParseCron(CRON_TZ=%s %s) = %v; want a zone *ParseError", z.Name, spec, err)
			}
			continue
		}
		if err != nil {
			t.Errorf("ParseCron(CRON_TZ=%s %s): %v", z.Name, spec, err)
			continue
		}
		if c.Location().String() != z.Name {
			t.Errorf("CRON_TZ=%s: schedule zone %v", z.Name, c.Location())
		}
		ref := mustCron(t, spec, dstsafe.WithLocation(z.Loc))
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
// also seed FuzzParseCron, FuzzNext and FuzzDaily.
var famousCronCases = []struct {
	zone     string
	spec     string
	from, to time.Time // UTC
	comment  string
	// on is what happened on the wall, written out by hand: on date the
	// job fires exactly once, with kind, at the local reading at (clock
	// and offset). Empty for the periodic cases.
	on onDate
	// check asserts anything else the real world says, on the fires in order.
	check func(t *testing.T, got []dstsafe.Occurrence)
}{
	{
		zone: "Australia/Lord_Howe", spec: "15 2 * * *",
		from: time.Date(2024, 10, 4, 0, 0, 0, 0, time.UTC), to: time.Date(2024, 10, 9, 0, 0, 0, 0, time.UTC),
		comment: "2024-10-06 02:00 +10:30 -> 02:30 +11: 30-minute gap; 02:15 fires at 02:45",
		on:      onDate{"2024-10-06", dstsafe.Gap, "02:45 +11:00"},
	},
	{
		zone: "Australia/Lord_Howe", spec: "45 1 * * *",
		from: time.Date(2024, 4, 5, 0, 0, 0, 0, time.UTC), to: time.Date(2024, 4, 9, 0, 0, 0, 0, time.UTC),
		comment: "2024-04-07 02:00 +11 -> 01:30 +10:30: 01:30-02:00 twice; 01:45 fires once, at +11",
		on:      onDate{"2024-04-07", dstsafe.Fold, "01:45 +11:00"},
	},
	{
		zone: "Europe/Dublin", spec: "30 1 * * *",
		from: time.Date(2024, 10, 25, 0, 0, 0, 0, time.UTC), to: time.Date(2024, 10, 30, 0, 0, 0, 0, time.UTC),
		comment: "negative DST: 2024-10-27 02:00 IST -> 01:00 GMT (GMT is the 'summer' time in tzdata); 01:30 fires once, at IST",
		on:      onDate{"2024-10-27", dstsafe.Fold, "01:30 +01:00"},
	},
	{
		zone: "Pacific/Apia", spec: "0 12 * * *",
		from: time.Date(2011, 12, 27, 0, 0, 0, 0, time.UTC), to: time.Date(2012, 1, 3, 0, 0, 0, 0, time.UTC),
		comment: "2011-12-29 24:00 -10 -> 2011-12-31 00:00 +14: December 30 never happened; robfig/cron loops here",
		on:      onDate{"2011-12-31", dstsafe.Unique, "12:00 +14:00"},
		check: func(t *testing.T, got []dstsafe.Occurrence) {
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
		zone: "Pacific/Apia", spec: "*/30 * * * *",
		from: time.Date(2011, 12, 30, 6, 0, 0, 0, time.UTC), to: time.Date(2011, 12, 30, 14, 0, 0, 0, time.UTC),
		comment: "periodic across the skipped day: real time runs on, no reading of 12-30",
	},
	{
		zone: "America/Havana", spec: "0 0 * * *",
		from: time.Date(2024, 3, 8, 0, 0, 0, 0, time.UTC), to: time.Date(2024, 3, 12, 0, 0, 0, 0, time.UTC),
		comment: "2024-03-10 00:00 CST -> 01:00 CDT: midnight never happens; the job runs at 01:00 CDT",
		on:      onDate{"2024-03-10", dstsafe.Gap, "01:00 -04:00"},
	},
	{
		zone: "Asia/Beirut", spec: "0 0 * * *",
		from: time.Date(2024, 3, 29, 0, 0, 0, 0, time.UTC), to: time.Date(2024, 4, 2, 0, 0, 0, 0, time.UTC),
		comment: "2024-03-31 00:00 EET -> 01:00 EEST: no midnight",
		on:      onDate{"2024-03-31", dstsafe.Gap, "01:00 +03:00"},
	},
	{
		zone: "Africa/Cairo", spec: "30 0 * * *",
		from: time.Date(2024, 4, 24, 0, 0, 0, 0, time.UTC), to: time.Date(2024, 4, 28, 0, 0, 0, 0, time.UTC),
		comment: "2024-04-26 00:00 EET -> 01:00 EEST (the rule says 'last Thursday 24:00'): 00:30 fires at 01:30",
		on:      onDate{"2024-04-26", dstsafe.Gap, "01:30 +03:00"},
	},
	{
		zone: "Africa/Cairo", spec: "30 23 * * *",
		from: time.Date(2024, 10, 29, 0, 0, 0, 0, time.UTC), to: time.Date(2024, 11, 3, 0, 0, 0, 0, time.UTC),
		comment: "2024-10-31 24:00 EEST -> 23:00 EET: 23:00-24:00 on Oct 31 twice; 23:30 fires once, at EEST",
		on:      onDate{"2024-10-31", dstsafe.Fold, "23:30 +03:00"},
	},
	{
		zone: "Europe/Volgograd", spec: "30 1 * * *",
		from: time.Date(2020, 12, 25, 0, 0, 0, 0, time.UTC), to: time.Date(2020, 12, 29, 0, 0, 0, 0, time.UTC),
		comment: "2020-12-27 02:00 +04 -> 01:00 +03: a permanent move back, not DST; 01:30 twice, fires once",
		on:      onDate{"2020-12-27", dstsafe.Fold, "01:30 +04:00"},
	},
	{
		zone: "Europe/Volgograd", spec: "30 2 * * *",
		from: time.Date(2018, 10, 26, 0, 0, 0, 0, time.UTC), to: time.Date(2018, 10, 30, 0, 0, 0, 0, time.UTC),
		comment: "2018-10-28 02:00 +03 -> 03:00 +04: a permanent move, not DST; 02:30 fires at 03:30",
		on:      onDate{"2018-10-28", dstsafe.Gap, "03:30 +04:00"},
	},
	{
		zone: "America/Chicago", spec: "30 2 * * *",
		from: time.Date(2100, 3, 12, 0, 0, 0, 0, time.UTC), to: time.Date(2100, 3, 16, 0, 0, 0, 0, time.UTC),
		comment: "2100-03-14 (second Sunday of March, by the POSIX rule; 2100 is not a leap year): 02:30 fires at 03:30 CDT",
		on:      onDate{"2100-03-14", dstsafe.Gap, "03:30 -05:00"},
	},
	{
		zone: "America/Chicago", spec: "30 1 * * *",
		from: time.Date(2100, 11, 5, 0, 0, 0, 0, time.UTC), to: time.Date(2100, 11, 9, 0, 0, 0, 0, time.UTC),
		comment: "2100-11-07 (first Sunday of November): 01:30 fires once, at CDT",
		on:      onDate{"2100-11-07", dstsafe.Fold, "01:30 -05:00"},
	},
	{
		zone: "America/Chicago", spec: "*/15 * * * *",
		from: time.Date(2024, 11, 3, 5, 0, 0, 0, time.UTC), to: time.Date(2024, 11, 3, 9, 0, 0, 0, time.UTC),
		comment: "the billing incident: 01:00-02:00 happens twice on 2024-11-03; a periodic job runs in both",
	},
}

// onDate is famousCronCases' "on" field.
type onDate struct {
	date string
	kind dstsafe.Kind
	at   string // "15:04 -07:00"
}

// checkOnDate: exactly one of the fires is scheduled for the date (by its
// wall), with the kind, at the local clock and offset want names.
func checkOnDate(t *testing.T, got []dstsafe.Occurrence, want onDate) {
	t.Helper()
	var on []dstsafe.Occurrence
	for _, g := range got {
		if fmt.Sprintf("%04d-%02d-%02d", g.Wall.Year, g.Wall.Month, g.Wall.Day) == want.date {
			on = append(on, g)
		}
	}
	if len(on) != 1 {
		t.Errorf("%d fires scheduled for %s, want 1: %v", len(on), want.date, on)
		return
	}
	if at := on[0].At.Format("15:04 -07:00"); on[0].Kind != want.kind || at != want.at {
		t.Errorf("%s: fires at %s (%v), want %s (%v)", want.date, at, on[0].Kind, want.at, want.kind)
	}
}

// TestCronFamousTransitions walks the cases that broke real schedulers,
// each against the oracle and against what happened on the wall.
func TestCronFamousTransitions(t *testing.T) {
	for _, tc := range famousCronCases {
		t.Run(tc.zone+" "+tc.spec+" "+tc.from.Format("2006-01-02"), func(t *testing.T) {
			z := zoneNamed(t, tc.zone)
			o := &zoneOracle{zone: z}
			f := &failBudget{tb: t}
			c := mustCron(t, "CRON_TZ="+tc.zone+" "+tc.spec)
			from, to := tc.from.Unix(), tc.to.Unix()
			ref := parseRef(tc.spec) // the spec's walls and shape, read without ParseCron
			want := expectFires(o, ref.walls(from-maxOff, to+maxOff), defaultPolicy(ref.fixed), from, to)
			got := runCron(f, c, from, to, len(want)+3)
			compareFires(f, c, got, want)
			if ref.fixed {
				exist, missing := existingDates(o, from, to)
				checkDailyOnce(f, c, got, exist, missing)
			}
			if tc.on.date != "" {
				checkOnDate(t, got, tc.on)
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
		spec := specgen.Spec(rng, true)
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
			// Nothing fires in (at, next): from any instant in between,
			// and from a nanosecond before, the answer is next again.
			mid := at.Add(time.Duration(rng.Int64N(int64(next.Sub(at)))))
			for _, u := range []time.Time{mid, next.Add(-time.Nanosecond)} {
				if got := c.Next(u); !got.Equal(next) {
					t.Errorf("case %d: %s in %s: Next(%v) = %v, but Next(%v) = %v", i, spec, z.Name, at, next, u, got)
				}
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
		c := mustCron(t, spec)
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

// checkSparse runs a once-a-year spec "M H D Mo *" naming a wall inside or
// next to change ch from far before the change (two years and more, so that
// Next walks many offset periods, and any window the implementation scans
// in, before it finds the fire), under every fold and gap policy.
func checkSparse(f *failBudget, o *zoneOracle, ch offChange, lead int64) {
	f.tb.Helper()
	from, to := ch.At-lead, ch.At+2*86400
	for _, s := range specTimes(ch) {
		_, m, d, _, _, _ := wallFields(s)
		tod := s - floorDiv(s, 86400)*86400
		spec := fmt.Sprintf("%d %d %d %d *", tod/60%60, tod/3600, d, m)
		for _, p := range []policy{
			{dstsafe.FoldFirst, dstsafe.GapShift, dstsafe.ByWall}, {dstsafe.FoldLast, dstsafe.GapAtTransition, dstsafe.ByDate},
			{dstsafe.FoldBoth, dstsafe.GapSkip, dstsafe.ByWall},
		} {
			c, err := dstsafe.ParseCron(spec, dstsafe.WithLocation(o.zone.Loc), dstsafe.WithFold(p.fold), dstsafe.WithGap(p.gap), dstsafe.WithPeriodKey(p.key))
			if err != nil {
				f.errorf("ParseCron(%q): %v", spec, err)
				return
			}
			want := expectFires(o, yearlyWalls(m, d, tod, from, to), p, from, to)
			compareFires(f, c, runCron(f, c, from, to, len(want)+3), want)
		}
	}
}

// TestCronSparseSpecs: once-a-year specs naming a wall in (or next to)
// each gap and fold, iterated from 800 days before the change.
func TestCronSparseSpecs(t *testing.T) {
	t.Parallel()
	for _, z := range distinctZones(t) {
		t.Run(z.Name, func(t *testing.T) {
			t.Parallel()
			o := oracleFor(z)
			f := &failBudget{tb: t}
			for i, ch := range o.tested {
				if i%3 != 0 {
					continue
				}
				lead := int64(800 * 86400)
				if _, _, ok := o.span(ch.At-lead-2*maxOff, ch.At); !ok {
					// Before the scanned span: scan this stretch too.
					checkSparse(f, spanOracle(z, ch.At-lead-5*86400, ch.At+5*86400), ch, lead)
					continue
				}
				checkSparse(f, o, ch, lead)
			}
		})
	}
}

// farYears are windows past the years most tables cover: the turn of 2400
// (a leap year ruled by POSIX strings only) and the year 4000.
var farYears = [][2]int{{2399, 2402}, {3999, 4001}}

// TestCronFarFuture runs the daily, periodic and sparse checks around every
// offset change in farYears of the policy zones, with the oracle scanning
// the time package's POSIX-rule offsets itself.
func TestCronFarFuture(t *testing.T) {
	t.Parallel()
	for _, name := range append(policyZones, "Australia/Sydney", "America/Santiago", "Pacific/Auckland", "America/New_York") {
		z := zoneNamed(t, name)
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			f := &failBudget{tb: t}
			for _, yy := range farYears {
				// 500 days back for the sparse specs, two days on.
				o := spanOracle(z, unixOf(yy[0], 1, 1)-510*86400, unixOf(yy[1], 1, 1)+5*86400)
				changes := scanChanges(z.Loc, unixOf(yy[0], 1, 1), unixOf(yy[1], 1, 1), 86400)
				if name == "America/Chicago" && len(changes) != 2*(yy[1]-yy[0]) {
					t.Errorf("the oracle finds %d Chicago changes in %d-%d, want two a year", len(changes), yy[0], yy[1]-1)
				}
				for _, ch := range changes {
					from, to := ch.At-2*86400, ch.At+2*86400
					for _, tod := range specTimes(ch) {
						c := mustCron(t, dailySpec(tod), dstsafe.WithLocation(z.Loc))
						want := expectFires(o, dailyWalls(tod, from, to), fixedPolicy, from, to)
						compareFires(f, c, runCron(f, c, from, to, len(want)+3), want)
					}
					pf, pt := ch.At-6*3600, ch.At+6*3600
					c := mustCron(t, "*/15 * * * *", dstsafe.WithLocation(z.Loc))
					want := expectFires(o, periodicWalls(15, pf, pt), periodicPolicy, pf, pt)
					compareFires(f, c, runCron(f, c, pf, pt, len(want)+3), want)
					checkSparse(f, o, ch, 500*86400)
				}
			}
		})
	}
}

// reference matcher and the brute-force resolution of every wall it names,
// under the policies ParseCron picks by default.
func TestCronRandomSpecsAroundTransitions(t *testing.T) {
	t.Parallel()
	zs := testZones(t)
	rng := rand.New(rand.NewPCG(99, 1))
	n := 1500 / randomScale
	f := &failBudget{tb: t}
	for range n {
		z := zs[rng.IntN(len(zs))]
		o := oracleFor(z)
		if len(o.tested) == 0 {
			continue
		}
		ch := o.tested[rng.IntN(len(o.tested))]
		spec := specgen.Spec(rng, true)
		if spec[0] == '@' {
			continue
		}
		ref := parseRef(spec)
		c, err := dstsafe.ParseCron(spec, dstsafe.WithLocation(z.Loc))
		if err != nil {
			f.errorf("ParseCron(%q): %v", spec, err)
			continue
		}
		if c.Fixed() != ref.fixed {
			f.errorf("%q: Fixed() = %v, want %v (no minute or hour field starts with * or ?)", spec, c.Fixed(), ref.fixed)
		}
		from, to := ch.At-36*3600, ch.At+36*3600
		walls := ref.walls(from-maxOff, to+maxOff)
		want := expectFires(o, walls, defaultPolicy(ref.fixed), from, to)
		got := runCron(f, c, from, to, len(want)+3)
		if len(got) != len(want) {
			t.Logf("zone %s, change at %s", z.Name, fmtUnix(z.Loc, ch.At))
		}
		compareFires(f, c, got, want)
	}
}

// TestCronEveryAcrossTransitions: "@every d" fires at origin + k*d in real
// time whatever the offsets do; in a fold its occurrences say Fold and the
// second reading gets its own period key.
func TestCronEveryAcrossTransitions(t *testing.T) {
	t.Parallel()
	for _, name := range policyZones {
		z := zoneNamed(t, name)
		o := oracleFor(z)
		f := &failBudget{tb: t}
		origin := time.Date(2001, 2, 3, 4, 5, 6, 0, time.UTC)
		for _, d := range []int64{900, 5400, 86400 + 7} {
			c := mustCron(t, fmt.Sprintf("@every %ds", d), dstsafe.WithLocation(z.Loc), dstsafe.WithEveryOrigin(origin))
			for i, ch := range o.tested {
				if i%5 != 0 {
					continue
				}
				from, to := ch.At-86400, ch.At+86400
				_, offsets := o.near(from, to)
				var want []fire
				k := floorDiv(from-origin.Unix(), d) + 1
				for at := origin.Unix() + k*d; at <= to; at += d {
					w := at + int64(o.offsetAt(at))
					ts := readings(nil, w, offsets, o.offsetAt)
					kind := dstsafe.Unique
					if len(ts) == 2 {
						kind = dstsafe.Fold
					}
					second := len(ts) == 2 && ts[1] == at
					want = append(want, fire{At: at, Wall: w, Kind: kind, Second: second, Period: periodKey(periodicPolicy, w, second)})
				}
				compareFires(f, c, runCron(f, c, from, to, len(want)+3), want)
			}
		}
	}
}

// TestCronRandomSpecsInTransitionHours: random specs whose hour field is
// forced to the hours a gap or fold touches, under random fold and gap
// policies, in the policy zones (30-minute and 2-hour gaps, 24-hour skips,
// non-whole-minute offsets), against the reference matcher.
func TestCronRandomSpecsInTransitionHours(t *testing.T) {
	t.Parallel()
	rng := rand.New(rand.NewPCG(5, 8))
	n := 2000 / randomScale
	f := &failBudget{tb: t}
	folds := []dstsafe.FoldPolicy{dstsafe.FoldPolicy(0), dstsafe.FoldFirst, dstsafe.FoldLast, dstsafe.FoldBoth}
	gaps := []dstsafe.GapPolicy{dstsafe.GapPolicy(0), dstsafe.GapShift, dstsafe.GapAtTransition, dstsafe.GapSkip}
	for range n {
		z := zoneNamed(t, policyZones[rng.IntN(len(policyZones))])
		o := oracleFor(z)
		ch := o.tested[rng.IntN(len(o.tested))]
		lo := ch.At + int64(min(ch.Before, ch.After)) - 3600
		hi := ch.At + int64(max(ch.Before, ch.After)) + 3600
		var hours []string
		for s := lo; s <= hi; s += 3600 {
			_, _, _, hh, _, _ := wallFields(s)
			hours = append(hours, fmt.Sprint(hh))
		}
		fields := strings.Fields(specgen.Spec(rng, false))
		fields[1] = strings.Join(hours[:1+rng.IntN(len(hours))], ",")
		if rng.IntN(4) == 0 {
			fields[2], fields[3], fields[4] = "*", "*", "*"
		}
		opts := []dstsafe.CronOption{dstsafe.WithLocation(z.Loc)}
		if rng.IntN(3) == 0 { // a sparse seconds field
			secs := []string{"0", "30", "59", "0,30", "*/20", "10-12", "?/30", "5/25"}[rng.IntN(8)]
			fields = append([]string{secs}, fields...)
			opts = append(opts, dstsafe.WithSeconds())
		}
		spec := strings.Join(fields, " ")
		ref := parseRef(spec)
		fold, gap := folds[rng.IntN(len(folds))], gaps[rng.IntN(len(gaps))]
		c, err := dstsafe.ParseCron(spec, append(opts, dstsafe.WithFold(fold), dstsafe.WithGap(gap))...)
		if err != nil {
			f.errorf("ParseCron(%q): %v", spec, err)
			continue
		}
		if c.Fixed() != ref.fixed {
			f.errorf("%q: Fixed() = %v, want %v", spec, c.Fixed(), ref.fixed)
		}
		from, to := ch.At-30*3600, ch.At+30*3600
		want := expectFires(o, ref.walls(from-maxOff, to+maxOff), defaultPolicy(ref.fixed).with(fold, gap), from, to)
		got := runCron(f, c, from, to, len(want)+3)
		if len(got) != len(want) {
			t.Logf("zone %s, change at %s", z.Name, fmtUnix(z.Loc, ch.At))
		}
		compareFires(f, c, got, want)
	}
}

// TestCronSlimTZData: the daily fixed-time property on the slim database Go
// embeds (time/tzdata), for the changes from 2020 on, where the POSIX
// strings rule and Time.ZoneBounds misreports (golang/go#81583); plus
// midnight and hourly specs across 31 December of leap years, where it
// does.
func TestCronSlimTZData(t *testing.T) {
	t.Parallel()
	for i, z := range goTZDataZones(t) {
		if i%(3*raceZoneStride) != 0 && !slices.Contains(famousZones, z.Name) {
			continue
		}
		t.Run(z.Name, func(t *testing.T) {
			t.Parallel()
			o := oracleFor(z)
			f := &failBudget{tb: t}
			for _, ch := range o.tested {
				if ch.At < unixOf(2020, 1, 1) {
					continue
				}
				from, to := ch.At-2*86400, ch.At+2*86400
				for _, tod := range specTimes(ch) {
					c := mustCron(t, dailySpec(tod), dstsafe.WithLocation(z.Loc))
					want := expectFires(o, dailyWalls(tod, from, to), fixedPolicy, from, to)
					compareFires(f, c, runCron(f, c, from, to, len(want)+3), want)
				}
			}
			for _, y := range []int{2024, 2036, 2096} {
				from, to := unixOf(y, 12, 28), unixOf(y+1, 1, 3)
				for _, p := range []struct {
					spec  string
					walls []int64
					want  policy
				}{
					{"0 0 * * *", dailyWalls(0, from, to), fixedPolicy},
					{"0 * * * *", periodicWalls(60, from, to), periodicPolicy},
				} {
					c := mustCron(t, p.spec, dstsafe.WithLocation(z.Loc))
					want := expectFires(o, p.walls, p.want, from, to)
					compareFires(f, c, runCron(f, c, from, to, len(want)+3), want)
				}
			}
		})
	}
}

// TestCronDefaultZoneIsUTC: without a prefix or WithLocation a spec is read
// in UTC, never in the machine's zone, whatever the caller's instant's
// location; a prefix wins over WithLocation.
func TestCronDefaultZoneIsUTC(t *testing.T) {
	chicago := zoneNamed(t, "America/Chicago").Loc
	c := mustCron(t, "30 1 * * *")
	if c.Location() != time.UTC {
		t.Fatalf("zone of a spec without prefix = %v, want UTC", c.Location())
	}
	from := time.Date(2024, 11, 2, 12, 0, 0, 0, chicago)
	if got, want := c.Next(from), time.Date(2024, 11, 3, 1, 30, 0, 0, time.UTC); !got.Equal(want) || got.Location() != time.UTC {
		t.Errorf("Next(%v) = %v, want %v in UTC", from, got, want)
	}
	p := mustCron(t, "CRON_TZ=Asia/Tokyo 30 1 * * *", dstsafe.WithLocation(chicago))
	if p.Location().String() != "Asia/Tokyo" {
		t.Errorf("CRON_TZ=Asia/Tokyo with WithLocation(Chicago): zone %v, want the prefix's", p.Location())
	}
}

// TestConcurrentUse: Lookup, Resolve and a shared *Cron give the same
// answers from many goroutines at once as sequentially, while more zones
// than the package caches are in play (system and Go-embedded databases),
// so tables are built, evicted and rebuilt under contention. Run it with
// -race.
func TestConcurrentUse(t *testing.T) {
	t.Parallel()
	zs := append(append([]tzZone(nil), allZones(t)...), goTZDataZones(t)...)
	if raceEnabled {
		zs = zs[:len(zs)/2+1] // still more than 512 Locations
	}
	type answer struct {
		r    dstsafe.Resolution
		next time.Time
	}
	w := dstsafe.Wall{Year: 2024, Month: time.November, Day: 3, Hour: 1, Minute: 30}
	from := time.Date(2024, 11, 2, 0, 0, 0, 0, time.UTC)
	crons := make([]*dstsafe.Cron, len(zs))
	want := make([]answer, len(zs))
	for i, z := range zs {
		crons[i] = mustCron(t, "30 1 * * *", dstsafe.WithLocation(z.Loc))
		want[i] = answer{dstsafe.Lookup(w, z.Loc), crons[i].Next(from)}
	}
	const workers = 6
	errs := make(chan string, workers)
	for g := range workers {
		go func() {
			var bad string
			for k := range zs {
				i := (k*7 + g*101) % len(zs) // each worker in its own order
				r := dstsafe.Lookup(w, zs[i].Loc)
				got, _ := dstsafe.Resolve(w, zs[i].Loc, dstsafe.Compatible)
				next := crons[i].Next(from)
				if r.Kind != want[i].r.Kind || !r.Earlier.Equal(want[i].r.Earlier) || !r.Later.Equal(want[i].r.Later) ||
					!got.Equal(want[i].r.Earlier) && !got.Equal(want[i].r.Later) || !next.Equal(want[i].next) {
					bad = fmt.Sprintf("%s: concurrent Lookup %v %v / Next %v, sequential %v %v / %v",
						zs[i].Name, r.Kind, r.Earlier, next, want[i].r.Kind, want[i].r.Earlier, want[i].next)
					break
				}
			}
			errs <- bad
		}()
	}
	for range workers {
		if e := <-errs; e != "" {
			t.Error(e)
		}
	}
}

package dstsafe_test

import (
	"errors"
	"fmt"
	"math"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/dstsafe/dstsafe"
)

// Fuzz targets, seeded from the table cases. scripts/fuzz runs each for
// 20,000 executions; `go test` runs the seeds.

// malformedSpecs are specs ParseCron must refuse with a *ParseError, never a
// panic (robfig panics on TZ=0).
var malformedSpecs = []string{
	"", " ", "TZ=0 * * * * *", "TZ=0", "CRON_TZ=", "CRON_TZ= * * * * *", "CRON_TZ=UTC+5 0 0 * * *",
	"CRON_TZ=Local 0 0 * * *", "CRON_TZ=Nowhere/Atlantis 0 0 * * *", "CRON_TZ=../../etc/passwd 0 0 * * *",
	"* * * *", "* * * * * *", "60 * * * *", "* 24 * * *", "* * 0 * *", "* * 32 * *", "* * * 13 *", "* * * * 8",
	"*/0 * * * *", "5-1 * * * *", "1-2-3 * * * *", "1/2/3 * * * *", ",1 * * * *", "1,, * * * *", "-1 * * * *",
	"+-1 * * * *", "++1 * * * *", "*/-5 * * * *", "1--5 * * * *", "0x1 * * * *", "@every", "@every 0s", "@every -1h", "@every 1.5s", "@every 500ms", "@reboot",
	"@yearly extra", "L * * * *", "* * 0W * *", "* * * * 8L", "* * * * MON#6", "* * * * #", "* * * * L#1",
	"\x00 * * * *", "* * * JANUARY *",
}

// everySpecs are accepted specs of every kind.
var everySpecs = []string{
	"*/15 * * * *", "0 * * * *", "30 1 * * *", "30 2 * * *", "0 0 * * *", "0 0 1 * MON", "0 0 L * *",
	"0 0 LW * *", "0 9 15W * *", "0 12 * * 5L", "0 12 * * FRIL", "0 8 * * MON#2", "0 0 29 2 *",
	"0 0 30 2 *", "0 0 31 4 *", "*/7 */5 1-10/3 JAN-MAR,OCT sun-wed", "? ? ? ? ?", "0 0 * * 7",
	"@yearly", "@monthly", "@weekly", "@daily", "@midnight", "@hourly", "@every 90m", "@every 1s",
	"TZ=Europe/Dublin 30 1 * * *", "CRON_TZ=Pacific/Apia 0 12 * * *", "CRON_TZ=Etc/GMT-5 0 0 * * *",
}

func fuzzZone(zs []tzZone, i uint16) tzZone { return zs[int(i)%len(zs)] }

// zoneIndex is the fuzz input that picks zone name out of zs.
func zoneIndex(tb testing.TB, zs []tzZone, name string) uint16 {
	tb.Helper()
	for i, z := range zs {
		if z.Name == name {
			return uint16(i)
		}
	}
	tb.Fatalf("zone %s is not in the tz database", name)
	return 0
}

// TestMalformedSpecs: every spec of the list the fuzz targets are seeded
// with is refused with a *ParseError, so the list cannot hold a spec
// ParseCron accepts (it held "+1 * * * *", which is minute 1: numbers are
// what strconv.Atoi reads, as in robfig/cron v3).
func TestMalformedSpecs(t *testing.T) {
	for _, spec := range malformedSpecs {
		c, err := dstsafe.ParseCron(spec)
		var pe *dstsafe.ParseError
		if !errors.As(err, &pe) || c != nil {
			t.Errorf("ParseCron(%q) = %v, %v; want nil and a *ParseError", spec, c, err)
		}
	}
}

// dailyTimeOfDay reads a fixed-time daily spec from its text alone: "M H *
// * *" (or "S M H * * *" with seconds) with plain decimal numbers, after
// an optional CRON_TZ= or TZ= prefix. It returns the second of the day the
// spec names, or false for any other spec.
func dailyTimeOfDay(spec string, seconds bool) (int64, bool) {
	f := strings.Fields(spec)
	if len(f) > 0 && (strings.HasPrefix(f[0], "CRON_TZ=") || strings.HasPrefix(f[0], "TZ=")) {
		f = f[1:]
	}
	if !seconds {
		f = append([]string{"0"}, f...)
	}
	if len(f) != 6 || f[3] != "*" || f[4] != "*" || f[5] != "*" {
		return 0, false
	}
	var v [3]int64
	for i, lim := range [3]int64{60, 60, 24} {
		n, err := strconv.ParseInt(f[i], 10, 64)
		if err != nil || n < 0 || n >= lim || f[i][0] == '+' {
			return 0, false
		}
		v[i] = n
	}
	return v[2]*3600 + v[1]*60 + v[0], true
}

// checkDaily holds a fixed-time daily job's fires, from the instant from
// on, to the brute-force answer for the same days: the oracle scans the
// zone's offsets with the time package (every 10 minutes, bisecting each
// change), resolves the wall on every civil date under p, and the fires
// must equal it, fire for fire (instant, wall, kind, period key), never
// before a gap they were shifted across; when p fires each wall once
// (not FoldBoth, not GapSkip) there is exactly one fire for every civil
// date that exists, and with GapShift none for a date that does not (Apia
// 2011-12-30; GapAtTransition fires its wall at the transition).
func checkDaily(t *testing.T, c *dstsafe.Cron, tod int64, p policy, from time.Time, got []dstsafe.Occurrence) {
	t.Helper()
	if len(got) == 0 {
		t.Fatalf("%s: a daily spec never fires after %v", c, from)
	}
	lo, hi := from.Unix(), got[len(got)-1].At.Unix()
	z := tzZone{Name: c.Location().String(), Loc: c.Location()}
	o := &zoneOracle{zone: z, spans: []oracleSpan{{
		lo: lo - 3*maxOff, hi: hi + 3*maxOff, first: offsetOf(z.Loc, lo-3*maxOff),
		ch: scanChanges(z.Loc, lo-3*maxOff, hi+3*maxOff, 600),
	}}}
	f := &failBudget{tb: t}
	compareFires(f, c, got, expectFires(o, dailyWalls(tod, lo, hi), p, lo, hi))
	if p.fold != dstsafe.FoldBoth && p.gap != dstsafe.GapSkip {
		exist, missing := existingDates(o, lo, hi)
		if p.gap == dstsafe.GapAtTransition {
			missing = nil // a skipped date's wall fires at the transition, as that date
		}
		checkDailyOnce(f, c, got, exist, missing)
	}
}

// FuzzParseCron: ParseCron never panics; every refusal is a *ParseError;
// every accepted spec fires at strictly increasing instants and Next
// terminates.
func FuzzParseCron(f *testing.F) {
	for _, s := range malformedSpecs {
		f.Add(s, false, int64(0), uint8(0), uint8(0), uint8(0))
	}
	for i, s := range everySpecs {
		f.Add(s, false, int64(1_700_000_000), uint8(i%4), uint8(0), uint8(0))
		f.Add("0 "+s, true, int64(1_325_000_000), uint8(0), uint8(i%4), uint8(i%2))
	}
	for _, tc := range famousCronCases {
		f.Add("CRON_TZ="+tc.zone+" "+tc.spec, false, tc.from.Unix(), uint8(0), uint8(0), uint8(1))
	}
	// Policies and keys out of range are refused, not defaulted.
	f.Add("30 1 * * *", false, int64(0), uint8(4), uint8(0), uint8(0))
	f.Add("30 1 * * *", false, int64(0), uint8(0), uint8(4), uint8(0))
	f.Add("30 1 * * *", false, int64(0), uint8(0), uint8(0), uint8(2))
	f.Add("@every 1h", false, int64(0), uint8(1), uint8(0), uint8(0))
	f.Fuzz(func(t *testing.T, spec string, seconds bool, from int64, fold, gap, key uint8) {
		opts := []dstsafe.CronOption{
			dstsafe.WithFold(dstsafe.FoldPolicy(fold % 6)),
			dstsafe.WithGap(dstsafe.GapPolicy(gap % 6)),
			dstsafe.WithPeriodKey(dstsafe.PeriodKey(key % 4)),
		}
		if seconds {
			opts = append(opts, dstsafe.WithSeconds())
		}
		c, err := dstsafe.ParseCron(spec, opts...)
		if err != nil {
			var pe *dstsafe.ParseError
			if !errors.As(err, &pe) || c != nil {
				t.Fatalf("ParseCron(%q) = %v, %v; want nil and a *ParseError", spec, c, err)
			}
			return
		}
		if fold%6 > uint8(dstsafe.FoldBoth) || gap%6 > uint8(dstsafe.GapSkip) || key%4 > uint8(dstsafe.ByDate) {
			t.Fatalf("ParseCron(%q) accepted fold %d, gap %d, key %d", spec, fold%6, gap%6, key%4)
		}
		start := time.Unix(clampUnix(from), 0)
		at := start
		var got []dstsafe.Occurrence
		for range 50 {
			next := c.Next(at)
			if next.IsZero() {
				break
			}
			if !next.After(at) {
				t.Fatalf("%q: Next(%v) = %v, not strictly after", spec, at, next)
			}
			occ, _ := c.NextOccurrence(at)
			got = append(got, occ)
			at = next
		}
		if tod, ok := dailyTimeOfDay(spec, seconds); ok {
			p := defaultPolicy(true).with(dstsafe.FoldPolicy(fold%6), dstsafe.GapPolicy(gap%6))
			p.key = dstsafe.PeriodKey(key % 4)
			checkDaily(t, c, tod, p, start, got)
		}
	})
}

// clampUnix keeps a fuzzed instant within years 1-9999, where the time
// package formats and the schedules are meant to be used.
func clampUnix(s int64) int64 {
	lo, hi := unixOf(1, 1, 1), unixOf(9999, 1, 1)
	if s < lo || s > hi {
		s = lo + int64(uint64(s)%uint64(hi-lo))
	}
	return s
}

// FuzzNext: for a spec in any zone from any instant, Next terminates and is
// strictly after its argument, NextOccurrence agrees with it, and the
// occurrence reads as its wall unless the wall fell in a gap.
func FuzzNext(f *testing.F) {
	zs := allZones(f)
	index := func(name string) uint16 { return zoneIndex(f, zs, name) }
	for _, tc := range famousCronCases {
		f.Add(tc.spec, index(tc.zone), tc.from.Unix(), int64(0))
	}
	for i, s := range everySpecs {
		f.Add(s, uint16(i*37), int64(1_300_000_000+i*86_400*41), int64(i*1e8))
	}
	f.Fuzz(func(t *testing.T, spec string, zone uint16, from, nsec int64) {
		z := fuzzZone(zs, zone)
		c, err := dstsafe.ParseCron(spec, dstsafe.WithLocation(z.Loc))
		if err != nil {
			return
		}
		loc := c.Location() // a CRON_TZ= prefix wins over WithLocation
		start := time.Unix(clampUnix(from), int64(uint64(nsec)%1e9))
		at := start
		var got []dstsafe.Occurrence
		defer func() {
			if tod, ok := dailyTimeOfDay(spec, false); ok && !t.Failed() {
				checkDaily(t, c, tod, fixedPolicy, start, got)
			}
		}()
		for range 20 {
			occ, ok := c.NextOccurrence(at)
			next := c.Next(at)
			if ok != !next.IsZero() || (ok && !occ.At.Equal(next)) {
				t.Fatalf("%q in %s after %v: Next %v, NextOccurrence %v %v", spec, loc, at, next, occ.At, ok)
			}
			if !ok {
				return
			}
			if !next.After(at) {
				t.Fatalf("%q in %s: Next(%v) = %v, not strictly after", spec, loc, at, next)
			}
			r := dstsafe.Lookup(occ.Wall, loc)
			if r.Kind != occ.Kind {
				t.Fatalf("%q in %s: occurrence %v for wall %v has Kind %v, Lookup says %v", spec, loc, occ.At, occ.Wall, occ.Kind, r.Kind)
			}
			if occ.Kind != dstsafe.Gap && !readsAs(occ.At, loc, occ.Wall) {
				t.Fatalf("%q in %s: occurrence %v does not read as its wall %v", spec, loc, occ.At, occ.Wall)
			}
			if occ.Kind == dstsafe.Gap && occ.At.Before(r.Transition.At) {
				t.Fatalf("%q in %s: gap wall %v fires at %v, before the transition %v", spec, loc, occ.Wall, occ.At, r.Transition.At)
			}
			got = append(got, occ)
			at = next
		}
	})
}

// FuzzDaily: a fixed-time daily spec ("S M H * * *") in any zone, from any
// instant, under any fold and gap policy, fires where brute force over the
// time package's offsets says, once for every civil date that exists when
// the policy fires each wall once (checkDaily). Unlike FuzzNext, every input
// is such a spec.
func FuzzDaily(f *testing.F) {
	zs := allZones(f)
	index := func(name string) uint16 { return zoneIndex(f, zs, name) }
	for _, tc := range famousCronCases {
		if tod, ok := dailyTimeOfDay(tc.spec, false); ok {
			for p := range uint8(4) {
				f.Add(index(tc.zone), tc.from.Unix(), uint32(tod), p, p)
			}
		}
	}
	f.Add(index("Australia/Lord_Howe"), time.Date(2024, 10, 1, 0, 0, 0, 0, time.UTC).Unix(), uint32(2*3600+15*60), uint8(0), uint8(0)) // 30-minute gap
	f.Add(index("Pacific/Apia"), time.Date(2011, 12, 20, 0, 0, 0, 0, time.UTC).Unix(), uint32(0), uint8(0), uint8(0))                  // the skipped day, midnight
	f.Add(index("America/Nuuk"), time.Date(2024, 3, 25, 0, 0, 0, 0, time.UTC).Unix(), uint32(23*3600+30*60), uint8(0), uint8(0))       // gap 23:00-24:00
	f.Fuzz(func(t *testing.T, zone uint16, from int64, tod uint32, fold, gap uint8) {
		z := fuzzZone(zs, zone)
		sec := int64(tod % 86400)
		spec := fmt.Sprintf("%d %d %d * * *", sec%60, sec/60%60, sec/3600)
		fp, gp := dstsafe.FoldPolicy(fold%4), dstsafe.GapPolicy(gap%4)
		c, err := dstsafe.ParseCron(spec, dstsafe.WithSeconds(), dstsafe.WithLocation(z.Loc), dstsafe.WithFold(fp), dstsafe.WithGap(gp))
		if err != nil {
			t.Fatalf("ParseCron(%q): %v", spec, err)
		}
		start := time.Unix(clampUnix(from), 0)
		got, at := []dstsafe.Occurrence(nil), start
		for range 30 {
			occ, ok := c.NextOccurrence(at)
			if !ok || !occ.At.After(at) {
				t.Fatalf("%s in %s: NextOccurrence(%v) = %v, %v", spec, z.Name, at, occ.At, ok)
			}
			got = append(got, occ)
			at = occ.At
		}
		checkDaily(t, c, sec, defaultPolicy(true).with(fp, gp), start, got)
	})
}

// FuzzResolve: Lookup and Resolve never panic, agree with each other, and
// every instant they call a reading of the wall reads back as it.
func FuzzResolve(f *testing.F) {
	zs := allZones(f)
	index := func(name string) uint16 { return zoneIndex(f, zs, name) }
	add := func(w dstsafe.Wall, zone string) {
		for d := range uint8(5) {
			f.Add(w.Year, int(w.Month), w.Day, w.Hour, w.Minute, w.Second, w.Nanosecond, index(zone), d)
		}
	}
	for _, tc := range invalidWallCases {
		add(tc.w, "America/Chicago")
	}
	for _, tc := range famousCronCases {
		// The walls the famous schedules name, on each day of the case.
		var mm, hh int
		if n, _ := fmt.Sscanf(tc.spec, "%d %d", &mm, &hh); n == 2 {
			for d := tc.from; d.Before(tc.to); d = d.Add(24 * time.Hour) {
				add(dstsafe.Wall{Year: d.Year(), Month: d.Month(), Day: d.Day(), Hour: hh, Minute: mm}, tc.zone)
			}
		}
	}
	add(dstsafe.Wall{Year: 2024, Month: 3, Day: 10, Hour: 2, Minute: 30}, "America/Chicago")  // gap
	add(dstsafe.Wall{Year: 2024, Month: 11, Day: 3, Hour: 1, Minute: 30}, "America/Chicago")  // fold
	add(dstsafe.Wall{Year: 2011, Month: 12, Day: 30, Hour: 12}, "Pacific/Apia")               // skipped day
	add(dstsafe.Wall{Year: 1_000_000_000, Month: 12, Day: 31, Hour: 23}, "Europe/London")     // the last year
	add(dstsafe.Wall{Year: -1_000_000_000, Month: 1, Day: 1}, "Asia/Manila")                  // the first
	add(dstsafe.Wall{Year: math.MaxInt, Month: 1, Day: 1}, "UTC")                             // out of range
	add(dstsafe.Wall{Year: 1941, Month: 5, Day: 4, Hour: 2, Minute: 30}, "Europe/London")     // double summer time
	add(dstsafe.Wall{Year: 1867, Month: 10, Day: 18, Hour: 12}, "America/Sitka")              // Alaska's day repeated
	add(dstsafe.Wall{Year: 1972, Month: 1, Day: 6, Hour: 23, Minute: 30}, "Africa/Monrovia")  // -00:44:30 -> 00:00
	add(dstsafe.Wall{Year: 2100, Month: 11, Day: 7, Hour: 1, Minute: 30}, "America/Chicago")  // POSIX-rule year
	add(dstsafe.Wall{Year: 2400, Month: 3, Day: 12, Hour: 2, Minute: 30}, "America/New_York") // past the cached table
	f.Fuzz(func(t *testing.T, year, month, day, hour, minute, second, nsec int, zone uint16, d uint8) {
		z := fuzzZone(zs, zone)
		w := dstsafe.Wall{Year: year, Month: time.Month(month), Day: day, Hour: hour, Minute: minute, Second: second, Nanosecond: nsec}
		dis := dstsafe.Disambiguation(d % 5) // 4 is not a Disambiguation
		r := dstsafe.Lookup(w, z.Loc)
		got, err := dstsafe.Resolve(w, z.Loc, dis)
		if w.Validate() != nil {
			if r.Kind != 0 || !errors.Is(err, dstsafe.ErrInvalidArgument) || !got.IsZero() {
				t.Fatalf("invalid wall %+v in %s: Lookup Kind %v, Resolve %v, %v", w, z.Name, r.Kind, got, err)
			}
			return
		}
		if dis > dstsafe.Reject {
			if err == nil {
				t.Fatalf("Resolve(%v, %s, %v) accepted an unknown Disambiguation", w, z.Name, dis)
			}
			return
		}
		var want time.Time
		switch {
		case dis == dstsafe.Earlier, dis == dstsafe.Compatible && r.Kind != dstsafe.Gap:
			want = r.Earlier
		case dis == dstsafe.Later, dis == dstsafe.Compatible:
			want = r.Later
		case r.Kind == dstsafe.Unique:
			want = r.Earlier
		}
		if !got.Equal(want) || (err != nil) != (dis == dstsafe.Reject && r.Kind != dstsafe.Unique) {
			t.Fatalf("Resolve(%v, %s, %v) = %v, %v; Lookup %+v", w, z.Name, dis, got, err, r)
		}
		switch r.Kind {
		case dstsafe.Unique:
			if !r.Earlier.Equal(r.Later) || !readsAs(r.Earlier, z.Loc, w) {
				t.Fatalf("%s %v: Unique %v / %v does not read back", z.Name, w, r.Earlier, r.Later)
			}
		case dstsafe.Fold:
			if !r.Earlier.Before(r.Later) || !readsAs(r.Earlier, z.Loc, w) || !readsAs(r.Later, z.Loc, w) ||
				!r.Earlier.Before(r.Transition.At) || r.Later.Before(r.Transition.At) {
				t.Fatalf("%s %v: Fold %+v", z.Name, w, r)
			}
		case dstsafe.Gap:
			if readsAs(r.Earlier, z.Loc, w) || readsAs(r.Later, z.Loc, w) ||
				!r.Earlier.Before(r.Transition.At) || r.Later.Before(r.Transition.At) ||
				r.Later.Sub(r.Earlier) != time.Duration(r.Transition.OffsetAfter-r.Transition.OffsetBefore)*time.Second {
				t.Fatalf("%s %v: Gap %+v", z.Name, w, r)
			}
		default:
			t.Fatalf("%s %v: valid wall, Lookup Kind %v", z.Name, w, r.Kind)
		}
	})
}

package dstsafe_test

import (
	"archive/zip"
	"bytes"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"sort"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/dstsafe/dstsafe"
	"github.com/dstsafe/dstsafe/dstsafetest"
)

// This file holds what the property tests need to know about the machine's
// tz database, derived from the time package alone: the zones, and for each
// zone its offset changes, found by stepping and bisection. Nothing here
// asks the package under test.

// tzZone is one zone of the machine's tz database, loaded from its own file.
type tzZone struct {
	Name string
	Loc  *time.Location
	// SameAs names the first zone (by name) whose file has the same bytes,
	// for links such as US/Central -> America/Chicago; empty if none.
	SameAs string
	data   string
}

// famousZones are always tested, also when -race subsamples: each has a
// transition that has broken schedulers.
var famousZones = []string{
	"America/Chicago",     // the billing incident, 2024 both ways, 2100 by POSIX rule
	"Europe/London",       // double summer time 1941-45
	"Australia/Lord_Howe", // 30-minute DST shift
	"Europe/Dublin",       // negative DST: IST in summer is "standard"
	"Pacific/Apia",        // 2011-12-30 never happened
	"America/Havana",      // DST starts at midnight: no 00:00
	"Asia/Beirut",         // DST starts at midnight
	"Africa/Cairo",        // transitions at 24:00
	"Europe/Volgograd",    // offset changes that are not DST (2018, 2020)
	"Pacific/Kwajalein",   // 1993 skipped day
	"Africa/Monrovia",     // 1972: -00:44:30 -> 00:00, not whole minutes
	"Antarctica/Troll",    // +00 -> +02 DST
	"America/Santiago",    // DST at midnight, southern hemisphere
	"Asia/Tehran",         // half-hour offsets
	"Pacific/Chatham",     // +12:45 / +13:45
	"Africa/Casablanca",   // Ramadan DST reversals
	"America/St_Johns",    // -03:30, double DST 1988
	"America/Caracas",     // -04:00 -> -04:30 -> -04:00
}

// zoneinfoRoot is the directory the time package reads zones from.
func zoneinfoRoot(tb testing.TB) string {
	tb.Helper()
	dirs := []string{"/usr/share/zoneinfo", "/usr/share/lib/zoneinfo", "/usr/lib/locale/TZ"}
	if z := os.Getenv("ZONEINFO"); z != "" {
		dirs = append([]string{z}, dirs...)
	}
	for _, d := range dirs {
		if fi, err := os.Stat(d); err == nil && fi.IsDir() {
			return d
		}
	}
	tb.Fatalf("no tz database directory found (tried %v); install tzdata or set ZONEINFO to a zoneinfo directory", dirs)
	return ""
}

var (
	zonesOnce sync.Once
	zonesAll  []tzZone
	zonesErr  error
)

// allZones returns every zone of the machine's tz database, sorted by name:
// every file under the zoneinfo root that starts with the TZif magic,
// except the posix/ and right/ trees (copies; right/ counts leap seconds),
// localtime, posixrules, Factory and Etc/Unknown. Each is loaded from its
// own bytes, so the tests and the file agree exactly.
func allZones(tb testing.TB) []tzZone {
	tb.Helper()
	root := zoneinfoRoot(tb)
	zonesOnce.Do(func() {
		skip := map[string]bool{"localtime": true, "posixrules": true, "Factory": true, "Etc/Unknown": true}
		zonesErr = filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
			if err != nil {
				return err
			}
			name, _ := filepath.Rel(root, path)
			name = filepath.ToSlash(name)
			if d.IsDir() {
				if name == "posix" || name == "right" {
					return filepath.SkipDir
				}
				return nil
			}
			if skip[name] {
				return nil
			}
			data, err := os.ReadFile(path) // follows symlinks
			if err != nil || !bytes.HasPrefix(data, []byte("TZif")) {
				return nil
			}
			loc, err := time.LoadLocationFromTZData(name, data)
			if err != nil {
				return err
			}
			zonesAll = append(zonesAll, tzZone{Name: name, Loc: loc, data: string(data)})
			return nil
		})
		sort.Slice(zonesAll, func(i, j int) bool { return zonesAll[i].Name < zonesAll[j].Name })
		first := map[string]string{}
		for i, z := range zonesAll {
			if n, ok := first[z.data]; ok {
				zonesAll[i].SameAs = n
			} else {
				first[z.data] = z.Name
			}
			zonesAll[i].data = ""
		}
	})
	if zonesErr != nil {
		tb.Fatalf("reading tz database at %s: %v", root, zonesErr)
	}
	if len(zonesAll) < 300 {
		tb.Fatalf("tz database at %s has only %d zones; want a full tzdata install", root, len(zonesAll))
	}
	return zonesAll
}

// testZones returns the zones a heavy property test walks: all of them, or
// under -race every raceZoneStride-th zone plus the famous ones.
func testZones(tb testing.TB) []tzZone {
	tb.Helper()
	all := allZones(tb)
	if raceZoneStride <= 1 {
		return all
	}
	var out []tzZone
	for i, z := range all {
		if i%raceZoneStride == 0 || slices.Contains(famousZones, z.Name) {
			out = append(out, z)
		}
	}
	return out
}

var (
	goZipOnce  sync.Once
	goZipZones []tzZone
	goZipErr   error
)

// goTZDataZones returns the zones of the tz database the Go toolchain
// embeds with time/tzdata ($GOROOT/lib/time/zoneinfo.zip). Unlike most
// system databases it is "slim": no transitions are listed past the last
// rule change, every later year comes from the POSIX TZ string, and
// Time.ZoneBounds misreports ends there (golang/go#81583, from 2024-12-31).
func goTZDataZones(tb testing.TB) []tzZone {
	tb.Helper()
	goZipOnce.Do(func() {
		zr, err := zip.OpenReader(filepath.Join(runtime.GOROOT(), "lib", "time", "zoneinfo.zip"))
		if err != nil {
			goZipErr = err
			return
		}
		defer zr.Close()
		for _, f := range zr.File {
			r, err := f.Open()
			if err != nil {
				goZipErr = err
				return
			}
			data, err := io.ReadAll(r)
			r.Close()
			if err != nil || !bytes.HasPrefix(data, []byte("TZif")) {
				continue
			}
			loc, err := time.LoadLocationFromTZData(f.Name, data)
			if err != nil {
				goZipErr = err
				return
			}
			goZipZones = append(goZipZones, tzZone{Name: f.Name, Loc: loc})
		}
		sort.Slice(goZipZones, func(i, j int) bool { return goZipZones[i].Name < goZipZones[j].Name })
	})
	if goZipErr != nil || len(goZipZones) < 300 {
		tb.Fatalf("reading the Go toolchain's zoneinfo.zip: %v (%d zones)", goZipErr, len(goZipZones))
	}
	return goZipZones
}

// longRun (DSTSAFE_LONG=1) widens the costliest property tests.
var longRun = os.Getenv("DSTSAFE_LONG") != ""

// distinctZones is testZones without the zones whose file is a copy of an
// earlier one: identical TZif bytes make identical Locations, so the
// costliest tests walk each distinct zone once (all of them with
// DSTSAFE_LONG=1).
func distinctZones(tb testing.TB) []tzZone {
	tb.Helper()
	if longRun {
		return testZones(tb)
	}
	var out []tzZone
	for _, z := range testZones(tb) {
		if z.SameAs == "" || slices.Contains(famousZones, z.Name) {
			out = append(out, z)
		}
	}
	return out
}

// zoneNamed returns the zone from the machine's database.
func zoneNamed(tb testing.TB, name string) tzZone {
	tb.Helper()
	for _, z := range allZones(tb) {
		if z.Name == name {
			return z
		}
	}
	tb.Fatalf("zone %s is not in the tz database", name)
	return tzZone{}
}

// offsetOf is the UTC offset, in seconds east, in force at unix second sec,
// as the time package reports it.
func offsetOf(loc *time.Location, sec int64) int {
	_, off := time.Unix(sec, 0).In(loc).Zone()
	return off
}

// offChange is one change of UTC offset: from At on the offset is After,
// the second before it Before.
type offChange struct {
	At            int64
	Before, After int
}

func (c offChange) isGap() bool { return c.After > c.Before }

// scanChanges lists the offset changes in (from, to]: it steps step seconds
// at a time and bisects every step across which the offset differs. A
// change that is undone within one step is missed; the cross-check against
// dstsafe.Transitions verifies any extra change independently.
func scanChanges(loc *time.Location, from, to, step int64) []offChange {
	var out []offChange
	cur, o := from, offsetOf(loc, from)
	for cur < to {
		next := min(cur+step, to)
		if offsetOf(loc, next) == o {
			cur = next
			continue
		}
		lo, hi := cur, next // offset o at lo, not at hi
		for hi-lo > 1 {
			m := lo + (hi-lo)/2
			if offsetOf(loc, m) == o {
				lo = m
			} else {
				hi = m
			}
		}
		a := offsetOf(loc, hi)
		out = append(out, offChange{At: hi, Before: o, After: a})
		cur, o = hi, a
	}
	return out
}

func unixOf(y int, m time.Month, d int) int64 { return time.Date(y, m, d, 0, 0, 0, 0, time.UTC).Unix() }

// The windows whose offset changes the property tests visit: 1970-2037 and
// 2090-2100. The scanned spans reach a month further on both sides so that
// walls near the window edges see every nearby change.
var (
	testedWindows = [][2]int64{
		{unixOf(1970, 1, 1), unixOf(2038, 1, 1)},
		{unixOf(2090, 1, 1), unixOf(2101, 1, 1)},
	}
	scanMargin = int64(40 * 86400)
)

// zoneOracle is what the time package says about one zone's offsets in
// some spans of instants, scanned a day at a time.
type zoneOracle struct {
	zone  tzZone
	spans []oracleSpan
	// tested are the changes inside the tested windows (oracleFor only).
	tested []offChange
	once   sync.Once
}

// oracleSpan lists the offset changes in [lo, hi] and the offset at lo.
type oracleSpan struct {
	lo, hi int64
	first  int
	ch     []offChange
}

func scanSpan(loc *time.Location, lo, hi int64) oracleSpan {
	return oracleSpan{lo: lo, hi: hi, first: offsetOf(loc, lo), ch: scanChanges(loc, lo, hi, 86400)}
}

// spanOracle scans z over [lo, hi] a day at a time.
func spanOracle(z tzZone, lo, hi int64) *zoneOracle {
	return &zoneOracle{zone: z, spans: []oracleSpan{scanSpan(z.Loc, lo, hi)}}
}

var (
	oracleMu sync.Mutex
	oracles  = map[*time.Location]*zoneOracle{}
)

// oracleFor scans z once per test binary over the tested windows (widened
// by scanMargin), a day at a time.
func oracleFor(z tzZone) *zoneOracle {
	oracleMu.Lock()
	o, ok := oracles[z.Loc]
	if !ok {
		o = &zoneOracle{zone: z}
		oracles[z.Loc] = o
	}
	oracleMu.Unlock()
	o.once.Do(func() {
		for _, w := range testedWindows {
			sp := scanSpan(z.Loc, w[0]-scanMargin, w[1]+scanMargin)
			o.spans = append(o.spans, sp)
			for _, c := range sp.ch {
				if c.At >= w[0] && c.At < w[1] {
					o.tested = append(o.tested, c)
				}
			}
		}
	})
	return o
}

// span returns the scanned changes covering instants [lo, hi], or false.
func (o *zoneOracle) span(lo, hi int64) ([]offChange, int, bool) {
	for _, sp := range o.spans {
		if lo >= sp.lo && hi <= sp.hi {
			return sp.ch, sp.first, true
		}
	}
	return nil, 0, false
}

// maxOff bounds |UTC offset| in the tz database (LMTs reach about 15h56m).
const maxOff = 30 * 3600

// near returns the offset changes and the offsets in force for instants in
// [lo-maxOff, hi+maxOff]: from the day-step scan when the interval lies in
// the scanned spans, else from a fresh hour-step scan.
func (o *zoneOracle) near(lo, hi int64) (changes []offChange, offsets []int) {
	lo, hi = lo-maxOff, hi+maxOff
	ch, first, ok := o.span(lo, hi)
	if !ok {
		first = offsetOf(o.zone.Loc, lo)
		ch = scanChanges(o.zone.Loc, lo, hi, 3600)
	} else {
		i := sort.Search(len(ch), func(i int) bool { return ch[i].At > lo })
		if i > 0 {
			first = ch[i-1].After
		}
		j := sort.Search(len(ch), func(i int) bool { return ch[i].At > hi })
		ch = ch[i:j]
	}
	offsets = []int{first}
	for _, c := range ch {
		if !slices.Contains(offsets, c.After) {
			offsets = append(offsets, c.After)
		}
	}
	return ch, offsets
}

// offsetAt is the offset at sec by the oracle's changes when sec lies in a
// scanned span (a binary search), else by the time package.
func (o *zoneOracle) offsetAt(sec int64) int {
	ch, first, ok := o.span(sec, sec)
	if !ok {
		return offsetOf(o.zone.Loc, sec)
	}
	i := sort.Search(len(ch), func(i int) bool { return ch[i].At > sec })
	if i == 0 {
		return first
	}
	return ch[i-1].After
}

// readings returns, in order, every unix second t with t + offset(t) = s:
// the instants at which the zone's clocks read the naive second s. It tries
// every offset in force near s: brute force, no reasoning about gaps.
// The instants are appended to buf[:0].
func readings(buf []int64, s int64, offsets []int, offAt func(int64) int) []int64 {
	ts := buf[:0]
	for _, off := range offsets {
		t := s - int64(off)
		if offAt(t) == off && !slices.Contains(ts, t) {
			ts = append(ts, t)
		}
	}
	slices.Sort(ts)
	return ts
}

// naiveOf returns the naive seconds of a wall reading: the wall counted as
// if it were UTC.
func naiveOf(y int, m time.Month, d, hh, mm, ss int) int64 {
	return time.Date(y, m, d, hh, mm, ss, 0, time.UTC).Unix()
}

// wallFields splits naive seconds into a calendar reading.
func wallFields(s int64) (y int, m time.Month, d, hh, mm, ss int) {
	u := time.Unix(s, 0).UTC()
	y, m, d = u.Date()
	hh, mm, ss = u.Clock()
	return
}

// zoneLabel names a zone in failure messages.
func zoneLabel(z tzZone) string { return strings.TrimSpace(z.Name) }

// fmtUnix renders a unix second in UTC and in loc for failure messages.
func fmtUnix(loc *time.Location, s int64) string {
	if s == 0 {
		return "zero"
	}
	return time.Unix(s, 0).In(loc).Format("2006-01-02T15:04:05-07:00:00") + " (" + time.Unix(s, 0).UTC().Format("2006-01-02T15:04:05Z") + ")"
}

// TestAllZonesHelper checks the enumeration itself: the famous zones are
// found, the excluded trees are not, and each zone is a working Location.
func TestAllZonesHelper(t *testing.T) {
	zs := allZones(t)
	names := map[string]bool{}
	for _, z := range zs {
		names[z.Name] = true
		if strings.HasPrefix(z.Name, "posix/") || strings.HasPrefix(z.Name, "right/") || z.Name == "localtime" || z.Name == "posixrules" {
			t.Errorf("allZones lists %s, which must be excluded", z.Name)
		}
	}
	for _, n := range append(famousZones, "UTC", "Asia/Tokyo", "Etc/GMT-5") {
		if !names[n] {
			t.Errorf("allZones misses %s", n)
		}
	}
	// The scan finds the 2024 Chicago changes at the instants the law sets.
	o := oracleFor(zoneNamed(t, "America/Chicago"))
	want := []offChange{
		{At: time.Date(2024, 3, 10, 8, 0, 0, 0, time.UTC).Unix(), Before: -6 * 3600, After: -5 * 3600},
		{At: time.Date(2024, 11, 3, 7, 0, 0, 0, time.UTC).Unix(), Before: -5 * 3600, After: -6 * 3600},
	}
	for _, w := range want {
		if !slices.Contains(o.tested, w) {
			t.Errorf("oracle for America/Chicago misses %+v", w)
		}
	}
}

// tzdataIndex reads the tz database's own index, tzdata.zi, in the zoneinfo
// root: its version and the names it defines (zones and links, Factory
// left out as allZones leaves it out). ok is false if there is no index.
func tzdataIndex(root string) (version string, names []string, ok bool) {
	data, err := os.ReadFile(filepath.Join(root, "tzdata.zi"))
	if err != nil {
		return "", nil, false
	}
	for _, l := range strings.Split(string(data), "\n") {
		f := strings.Fields(l)
		switch {
		case len(f) == 3 && f[0] == "#" && f[1] == "version":
			version = f[2]
		case len(f) >= 2 && f[0] == "Z" && f[1] != "Factory":
			names = append(names, f[1])
		case len(f) == 3 && f[0] == "L":
			names = append(names, f[2])
		}
	}
	return version, names, true
}

// readmeTZData is the tz database the README's coverage figures are for,
// and the figures: zone files, and offset changes 1970-2037 and 2090-2100.
const (
	readmeTZData      = "2025b"
	readmeZoneFiles   = 597
	readmeZoneChanges = 34715
)

// TestTZDatabaseCoverage: the property tests' "every zone" is every name
// the tz database's own index (tzdata.zi) defines, no more and no fewer,
// and on the tzdata release the README quotes, the sweep covers the zone
// files and offset changes the README says (scripts/bench reprints the
// counts). Without -race only: the change count scans every zone.
func TestTZDatabaseCoverage(t *testing.T) {
	zs := allZones(t)
	root := zoneinfoRoot(t)
	version, names, ok := tzdataIndex(root)
	if !ok {
		t.Fatalf("%s has no tzdata.zi: cannot check that allZones found every zone", root)
	}
	found := map[string]bool{}
	for _, z := range zs {
		found[z.Name] = true
	}
	for _, n := range names {
		if !found[n] {
			t.Errorf("tzdata.zi defines %s, allZones did not find it", n)
		}
	}
	if len(zs) != len(names) {
		t.Errorf("allZones found %d zone files, tzdata.zi %s defines %d names", len(zs), version, len(names))
	}
	if raceEnabled {
		return
	}
	changes := 0
	for _, z := range zs {
		changes += len(oracleFor(z).tested)
	}
	t.Logf("tzdata %s: %d zone files, %d offset changes 1970-2037 and 2090-2100", version, len(zs), changes)
	if version == readmeTZData && (len(zs) != readmeZoneFiles || changes != readmeZoneChanges) {
		t.Errorf("tzdata %s: %d zone files, %d offset changes; the README says %d and %d: update both",
			version, len(zs), changes, readmeZoneFiles, readmeZoneChanges)
	}
}

// firstReading returns the first instant at which loc's clocks read w,
// found by brute force over the offsets loc has within a day and a quarter
// either side of it (the time package's, sampled every ten minutes), never
// by time.Date, which picks an unspecified offset in a fold. It fails the
// test when no instant reads w (w is in a gap).
func firstReading(tb testing.TB, loc *time.Location, w dstsafe.Wall) time.Time {
	tb.Helper()
	s := naiveOf(w.Year, w.Month, w.Day, w.Hour, w.Minute, w.Second)
	var offsets []int
	for t := s - maxOff; t <= s+maxOff; t += 600 {
		if off := offsetOf(loc, t); !slices.Contains(offsets, off) {
			offsets = append(offsets, off)
		}
	}
	ts := readings(nil, s, offsets, func(t int64) int { return offsetOf(loc, t) })
	if len(ts) == 0 {
		tb.Fatalf("no instant reads %v in %s: it is in a gap", w, loc)
		return time.Time{}
	}
	return time.Unix(ts[0], int64(w.Nanosecond)).In(loc)
}

// fatalRecorder is a testing.TB whose Fatalf records instead of stopping.
type fatalRecorder struct {
	testing.TB
	fatal string
}

func (r *fatalRecorder) Fatalf(format string, args ...any) { r.fatal = fmt.Sprintf(format, args...) }

// TestFirstReading checks the helper on the pinned zones: the first of two
// readings in a fold (an offset written out by hand), the one reading of
// an ordinary wall, and a failure for a wall in a gap.
func TestFirstReading(t *testing.T) {
	for _, tc := range []struct {
		zone string
		w    dstsafe.Wall
		want string
	}{
		{"America/Chicago", wall(2024, 11, 3, 1, 30, 0), "2024-11-03T01:30:00-05:00"},    // CDT, not the CST repeat
		{"Europe/Dublin", wall(2024, 10, 27, 1, 30, 0), "2024-10-27T01:30:00+01:00"},     // IST, not the GMT repeat
		{"Australia/Lord_Howe", wall(2024, 4, 7, 1, 45, 0), "2024-04-07T01:45:00+11:00"}, // 30-minute fold
		{"America/Chicago", wall(2024, 7, 4, 12, 0, 0), "2024-07-04T12:00:00-05:00"},     // an ordinary day
	} {
		got := firstReading(t, dstsafetest.Zone(t, tc.zone), tc.w)
		if want := mustTime(t, tc.want); !got.Equal(want) {
			t.Errorf("firstReading(%s, %v) = %v, want %v", tc.zone, tc.w, got, want)
		}
	}
	r := &fatalRecorder{TB: t}
	firstReading(r, dstsafetest.Zone(t, "America/Chicago"), wall(2024, 3, 10, 2, 30, 0))
	if r.fatal == "" {
		t.Error("firstReading of 02:30 on 2024-03-10 in Chicago (a gap) did not fail")
	}
}

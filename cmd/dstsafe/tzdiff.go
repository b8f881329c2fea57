package main

import (
	"archive/zip"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"runtime"
	"sort"
	"strconv"
	"time"

	"github.com/dstsafe/dstsafe"
	"github.com/dstsafe/dstsafe/cmd/dstsafevet"
)

var tzdiffCmd = &command{
	name:    "tzdiff",
	summary: "fires that move, appear or vanish between two tz databases",
	usage: `Usage: dstsafe tzdiff --from SRC --to SRC SPEC... [--year Y] [--years N] [--json]

Compares every occurrence of each SPEC (which names its zone with CRON_TZ=
or TZ=) under the zone rules of two tz databases, and lists the fires that
move to another instant, appear or vanish. Countries change their rules at
short notice (Mexico 2022, Kazakhstan 2024), and the Go binary, the OS and
the database each carry their own copy: this shows what a change does to
your schedules before it ships. Exit status 1 when some fire changes, as
diff does.

A fire is a wall reading the schedule names (both copies of a repeated
reading for a periodic spec). Fires at the same reading and instant in
both are unchanged; the rest pair up by reading (moved), or are only in
--from (vanished) or only in --to (appeared).

SRC is one of:
  DIR       a zoneinfo tree (TZif files, /usr/share/zoneinfo's layout)
  FILE.zip  a zoneinfo zip, as Go's $GOROOT/lib/time/zoneinfo.zip
  system    the system's tz database: $ZONEINFO, else /usr/share/zoneinfo,
            /usr/share/lib/zoneinfo, /usr/lib/locale/TZ, /etc/zoneinfo
  go        the tz database Go ships, $GOROOT/lib/time/zoneinfo.zip, which
            time/tzdata (embedded in this binary and in most Go services)
            is generated from; needs the Go installation ($GOROOT or the
            one this binary was built with)

Flags:
  --from SRC     the tz database before
  --to SRC       the tz database after
  --year Y       first year compared, UTC (default: this year)
  --years N      number of years compared, 1 to 50 (default 3)
  --json         JSON output

Examples:
  dstsafe tzdiff --from go --to system 'CRON_TZ=America/Mexico_City 30 1 * * *'
  dstsafe tzdiff --from /usr/share/zoneinfo --to ./tzdata-2025c 'CRON_TZ=Asia/Almaty 0 9 * * 1-5' --years 2
`,
	run: runTzdiff,
}

// maxFires bounds the fires enumerated per spec and database.
const maxFires = 2_000_000

type tzChange struct {
	Change string `json:"change"` // moved, appeared, vanished
	Wall   string `json:"wall"`
	From   string `json:"from,omitempty"`
	To     string `json:"to,omitempty"`
	Shift  string `json:"shift,omitempty"`
	from   time.Time
	to     time.Time
}

type tzSpecDiff struct {
	Spec      string     `json:"spec"`
	Zone      string     `json:"zone"`
	FiresFrom int        `json:"fires_from"`
	FiresTo   int        `json:"fires_to"`
	Changes   []tzChange `json:"changes"`
}

func runTzdiff(c *cmdContext, args []string) error {
	fromFlag := c.fs.String("from", "", "")
	toFlag := c.fs.String("to", "", "")
	yearFlag := c.fs.String("year", "", "")
	yearsFlag := c.fs.String("years", "3", "")
	pos, err := c.parse(args, 1, -1)
	if err != nil {
		return err
	}
	if *fromFlag == "" || *toFlag == "" {
		return usagef("missing --from or --to: name the two tz databases to compare")
	}
	year := c.now().UTC().Year()
	if *yearFlag != "" {
		if year, err = strconv.Atoi(*yearFlag); err != nil || year < 1 || year > 9999 {
			return usagef("bad --year %q: want a year from 1 to 9999", *yearFlag)
		}
	}
	years, err := strconv.Atoi(*yearsFlag)
	if err != nil || years < 1 || years > 50 {
		return usagef("bad --years %q: want 1 to 50", *yearsFlag)
	}
	from, err := openTZSource("--from", *fromFlag)
	if err != nil {
		return err
	}
	to, err := openTZSource("--to", *toFlag)
	if err != nil {
		return err
	}
	start := time.Date(year, time.January, 1, 0, 0, 0, 0, time.UTC)
	end := start.AddDate(years, 0, 0)
	var diffs []tzSpecDiff
	changed := false
	for _, spec := range pos {
		d, err := diffSpec(spec, from, to, start, end)
		if err != nil {
			return err
		}
		changed = changed || len(d.Changes) > 0
		diffs = append(diffs, d)
	}
	if c.json {
		out := struct {
			From  string       `json:"from"`
			To    string       `json:"to"`
			Start string       `json:"start"`
			End   string       `json:"end"`
			Specs []tzSpecDiff `json:"specs"`
		}{*fromFlag, *toFlag, utc(start), utc(end), diffs}
		if err := writeJSON(c.stdout, out); err != nil {
			return err
		}
	} else {
		for i, d := range diffs {
			if i > 0 {
				fmt.Fprintln(c.stdout)
			}
			moved, appeared, vanished := 0, 0, 0
			for _, ch := range d.Changes {
				switch ch.Change {
				case "moved":
					moved++
				case "appeared":
					appeared++
				default:
					vanished++
				}
			}
			span := strconv.Itoa(year)
			if years > 1 {
				span += "-" + strconv.Itoa(year+years-1)
			}
			fmt.Fprintf(c.stdout, "%s, %s (UTC), %s -> %s: %d fire(s) before, %d after; %d moved, %d appeared, %d vanished\n",
				d.Spec, span, *fromFlag, *toFlag, d.FiresFrom, d.FiresTo, moved, appeared, vanished)
			if len(d.Changes) == 0 {
				continue
			}
			fmt.Fprintln(c.stdout)
			tw := newTable(c.stdout)
			fmt.Fprintln(tw, "CHANGE\tWALL\tFROM\tTO\tSHIFT")
			for _, ch := range d.Changes {
				fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\n", ch.Change, ch.Wall, fireText(ch.from), fireText(ch.to), ch.Shift)
			}
			if err := tw.Flush(); err != nil {
				return err
			}
		}
	}
	if changed {
		return &exitError{exitFindings}
	}
	return nil
}

// fireText shows a fire's instant in UTC and its local reading.
func fireText(t time.Time) string {
	if t.IsZero() {
		return "-"
	}
	return utc(t) + " (" + t.Format("15:04 MST -07:00") + ")"
}

// tzSource reads TZif data for a zone name from one tz database.
type tzSource struct {
	name string
	read func(zone string) ([]byte, error)
}

func openTZSource(flag, src string) (*tzSource, error) {
	switch src {
	case "system":
		var dirs []string
		if z := os.Getenv("ZONEINFO"); z != "" {
			dirs = append(dirs, z)
		}
		dirs = append(dirs, "/usr/share/zoneinfo/", "/usr/share/lib/zoneinfo/", "/usr/lib/locale/TZ/", "/etc/zoneinfo")
		return &tzSource{name: src, read: func(zone string) ([]byte, error) {
			for _, d := range dirs {
				if b, err := readZone(d, zone); err == nil {
					return b, nil
				}
			}
			return nil, fs.ErrNotExist
		}}, nil
	case "go":
		zipPath := filepath.Join(goroot(), "lib", "time", "zoneinfo.zip")
		if _, err := os.Stat(zipPath); err != nil {
			return nil, usagef("bad %s %q: Go's tz database %s is not here (set GOROOT to a Go installation)", flag, src, zipPath)
		}
		return openTZSource(flag, zipPath)
	}
	st, err := os.Stat(src)
	if err != nil {
		return nil, usagef("bad %s %q: %v", flag, src, unwrapPathErr(err))
	}
	if st.IsDir() {
		return &tzSource{name: src, read: func(zone string) ([]byte, error) { return readZone(src, zone) }}, nil
	}
	zr, err := zip.OpenReader(src)
	if err != nil {
		return nil, usagef("bad %s %q: not a zoneinfo directory or zip: %v", flag, src, err)
	}
	return &tzSource{name: src, read: func(zone string) ([]byte, error) {
		f, err := zr.Open(zone)
		if err != nil {
			return nil, err
		}
		defer f.Close()
		return io.ReadAll(f)
	}}, nil
}

func readZone(dir, zone string) ([]byte, error) {
	if !fs.ValidPath(zone) {
		return nil, fs.ErrInvalid
	}
	return os.ReadFile(filepath.Join(dir, filepath.FromSlash(zone)))
}

func (s *tzSource) load(zone string) (*time.Location, error) {
	b, err := s.read(zone)
	if err != nil {
		return nil, usagef("zone %q is not in %s", zone, s.name)
	}
	loc, err := time.LoadLocationFromTZData(zone, b)
	if err != nil {
		return nil, usagef("zone %q in %s is not a TZif file: %v", zone, s.name, err)
	}
	return loc, nil
}

// diffSpec compares the fires of spec in [start, end) under two tz
// databases.
func diffSpec(spec string, from, to *tzSource, start, end time.Time) (tzSpecDiff, error) {
	zone, rest := dstsafevet.SplitZone(spec)
	if zone == "" || isUTC(zone) {
		return tzSpecDiff{}, usagef("bad SPEC %q: name its zone with CRON_TZ=Zone (a spec in UTC does not depend on zone rules)", spec)
	}
	out := tzSpecDiff{Spec: spec, Zone: zone, Changes: []tzChange{}}
	var fires [2][]dstsafe.Occurrence
	for i, src := range []*tzSource{from, to} {
		loc, err := src.load(zone)
		if err != nil {
			return out, err
		}
		c, err := dstsafevet.ParseSpec(rest, dstsafe.WithLocation(loc))
		if err != nil {
			return out, usagef("bad SPEC %q: %v", spec, err)
		}
		for after := start.Add(-time.Nanosecond); ; {
			o, ok := c.NextOccurrence(after)
			if !ok || !o.At.Before(end) {
				break
			}
			if len(fires[i]) == maxFires {
				return out, usagef("SPEC %q fires more than %d times in %s; compare fewer --years", spec, maxFires, zone)
			}
			fires[i] = append(fires[i], o)
			after = o.At
		}
	}
	out.FiresFrom, out.FiresTo = len(fires[0]), len(fires[1])
	out.Changes = diffFires(fires[0], fires[1])
	return out, nil
}

// diffFires pairs the fires of two runs: same reading and instant is
// unchanged; the rest pair up by reading, in order (moved); what is left
// vanished (only before) or appeared (only after).
func diffFires(before, after []dstsafe.Occurrence) []tzChange {
	type key struct {
		wall dstsafe.Wall
		at   int64
	}
	same := map[key]int{}
	for _, o := range after {
		same[key{o.Wall, o.At.UnixNano()}]++
	}
	var left []dstsafe.Occurrence
	for _, o := range before {
		k := key{o.Wall, o.At.UnixNano()}
		if same[k] > 0 {
			same[k]--
			continue
		}
		left = append(left, o)
	}
	byWall := map[dstsafe.Wall][]dstsafe.Occurrence{}
	for _, o := range after {
		k := key{o.Wall, o.At.UnixNano()}
		// The unchanged ones were counted down above; what remains is new.
		if n := same[k]; n > 0 {
			same[k]--
			byWall[o.Wall] = append(byWall[o.Wall], o)
		}
	}
	var changes []tzChange
	for _, o := range left {
		if q := byWall[o.Wall]; len(q) > 0 {
			n := q[0]
			byWall[o.Wall] = q[1:]
			changes = append(changes, tzChange{Change: "moved", Wall: wallText(o.Wall), From: rfc3339(o.At), To: rfc3339(n.At),
				Shift: duration(int(n.At.Sub(o.At) / time.Second)), from: o.At, to: n.At})
			continue
		}
		changes = append(changes, tzChange{Change: "vanished", Wall: wallText(o.Wall), From: rfc3339(o.At), from: o.At})
	}
	for _, q := range byWall {
		for _, n := range q {
			changes = append(changes, tzChange{Change: "appeared", Wall: wallText(n.Wall), To: rfc3339(n.At), to: n.At})
		}
	}
	sort.SliceStable(changes, func(i, j int) bool {
		a, b := changes[i], changes[j]
		if a.Wall != b.Wall {
			return a.Wall < b.Wall
		}
		return firstOf(a).Before(firstOf(b))
	})
	return changes
}

func firstOf(c tzChange) time.Time {
	if c.from.IsZero() {
		return c.to
	}
	return c.from
}

// wallText formats a wall reading: "2023-04-02 02:30".
func wallText(w dstsafe.Wall) string { return w.DateString() + " " + hm(w) }

// goroot is $GOROOT, else the Go installation this binary was built with
// (where the time package itself looks last).
func goroot() string {
	if r := os.Getenv("GOROOT"); r != "" {
		return r
	}
	return runtime.GOROOT() //nolint:staticcheck // deprecated for build use; here it is the fallback the time package uses too
}

package dstsafe_test

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"math/rand/v2"
	"os"
	"os/exec"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/dstsafe/dstsafe"
)

// The differential test against python-dateutil's rrule (2.8 and later):
// random rules in UTC and in zones without DST, where no wall reading is
// in a fold or a gap, must give the same instants. dateutil expands naive
// wall readings; in these zones each is one instant.

// dateutilOracle reads one JSON case a line and answers with the first n
// wall readings dateutil's rrulestr gives, RDATEs merged in and EXDATEs
// taken out, or the error it raised. A case whose expansion runs past its
// budget of CPU time (the case's "budget" in seconds, else 0.1 s) answers
// what it has, marked "timeout".
//
// Only the expansion is bounded, and by the process's CPU time
// (ITIMER_PROF), not by the wall clock: on a loaded machine a wall-clock
// alarm fired inside rrulestr's parser, whose _to_decimal turns any
// Exception into a ValueError and so a timeout into "ParserError: Unknown
// string format", read as a disagreement. Budget is a BaseException for
// the same reason: no "except Exception" in dateutil can swallow it.
const dateutilOracle = `
import heapq, json, signal, sys
from datetime import datetime
from dateutil.rrule import rrulestr

class Budget(BaseException):
    pass

def over(signum, frame):
    raise Budget()

signal.signal(signal.SIGPROF, over)
fmt = "%Y%m%dT%H%M%S"
for line in sys.stdin:
    c = json.loads(line)
    out, res = [], {"id": c["id"]}
    try:
        rule = rrulestr("DTSTART:" + c["start"] + "\nRRULE:" + c["rule"])
        rdates = sorted(datetime.strptime(d, fmt) for d in c["rdates"])
        exdates = set(datetime.strptime(d, fmt) for d in c["exdates"])
        signal.setitimer(signal.ITIMER_PROF, c.get("budget") or 0.1)
        try:
            last = None
            for x in heapq.merge(iter(rule), rdates):
                if x == last or x in exdates:
                    continue
                last = x
                out.append(x.strftime(fmt))
                if len(out) >= c["n"]:
                    break
        finally:
            signal.setitimer(signal.ITIMER_PROF, 0)
    except Budget:
        res["timeout"] = True
    except Exception as e:
        res["error"] = "%s: %s" % (type(e).__name__, e)
    res["walls"] = out
    print(json.dumps(res), flush=True)
`

// findDateutil returns a python interpreter that imports dateutil, trying
// $DSTSAFE_PYTHON, python3 on the PATH, /usr/bin/python3 (where Debian's
// python3-dateutil package installs it) and python. Without one the test
// is skipped, naming what is missing, except under CI=true, where it fails:
// scripts/test installs python3-dateutil.
func findDateutil(tb testing.TB) string {
	tb.Helper()
	var tried []string
	for _, py := range []string{os.Getenv("DSTSAFE_PYTHON"), "python3", "/usr/bin/python3", "python"} {
		if py == "" {
			continue
		}
		path, err := exec.LookPath(py)
		if err != nil {
			tried = append(tried, py+" (not found)")
			continue
		}
		out, err := exec.Command(path, "-c", "import dateutil; print(dateutil.__version__)").CombinedOutput()
		if err != nil {
			tried = append(tried, path+" (no dateutil)")
			continue
		}
		tb.Logf("python-dateutil %s from %s", strings.TrimSpace(string(out)), path)
		return path
	}
	msg := "python-dateutil not found: tried " + strings.Join(tried, ", ") +
		"; install Debian's python3-dateutil (apt-get install python3-dateutil; scripts/test does) or set DSTSAFE_PYTHON"
	if os.Getenv("CI") == "true" {
		tb.Fatalf("%s (CI=true: the differential test must not skip)", msg)
	}
	tb.Skip(msg)
	return ""
}

// pyCase is one rule for the oracle.
type pyCase struct {
	ID      int      `json:"id"`
	Start   string   `json:"start"`
	Rule    string   `json:"rule"`
	RDates  []string `json:"rdates"`
	ExDates []string `json:"exdates"`
	N       int      `json:"n"`
	// Budget is the CPU time dateutil may spend expanding the rule, in
	// seconds; zero means 0.1 s.
	Budget float64 `json:"budget,omitempty"`
}

type pyAnswer struct {
	ID      int      `json:"id"`
	Walls   []string `json:"walls"`
	Error   string   `json:"error"`
	Timeout bool     `json:"timeout"`
}

// runDateutil sends the cases to one python process and returns the
// answers by id.
func runDateutil(py string, cases []pyCase) (map[int]pyAnswer, error) {
	return runOracle(py, dateutilOracle, cases)
}

// runOracle is runDateutil with the oracle's script given.
func runOracle(py, script string, cases []pyCase) (map[int]pyAnswer, error) {
	var in bytes.Buffer
	enc := json.NewEncoder(&in)
	for _, c := range cases {
		if err := enc.Encode(c); err != nil {
			return nil, err
		}
	}
	cmd := exec.Command(py, "-c", script)
	cmd.Stdin = &in
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		return nil, fmt.Errorf("dateutil oracle: %v\n%s", err, stderr.String())
	}
	answers := map[int]pyAnswer{}
	sc := bufio.NewScanner(bytes.NewReader(out))
	sc.Buffer(make([]byte, 1<<20), 1<<24)
	for sc.Scan() {
		var a pyAnswer
		if err := json.Unmarshal(sc.Bytes(), &a); err != nil {
			return nil, fmt.Errorf("dateutil oracle answered %q: %v", sc.Text(), err)
		}
		answers[a.ID] = a
	}
	if len(answers) != len(cases) {
		return nil, fmt.Errorf("dateutil oracle answered %d of %d cases\n%s", len(answers), len(cases), stderr.String())
	}
	return answers, nil
}

// fixedZones are zones whose offset does not change from 1994 to 2100
// (checked by the test from the time package): in them a rule's wall
// readings are never in a fold or a gap.
var fixedZones = []string{
	"UTC", "Etc/GMT+5", "Etc/GMT-14", "Etc/GMT+12", "Asia/Tokyo", "Asia/Kolkata", "Asia/Shanghai",
	"Asia/Kathmandu", "Asia/Dubai", "Pacific/Honolulu", "America/Panama", "Africa/Lagos",
	"Africa/Johannesburg", "Asia/Jakarta", "America/Phoenix", "Asia/Kabul", "Asia/Yangon",
	"Pacific/Marquesas",
}

// ruleGen makes random rules that RFC 5545 allows, that ParseRRule
// accepts, and whose meaning dateutil and ParseRRule's documentation
// agree on: no SKIP (dateutil has none), BYWEEKNO only for weeks that lie
// inside one calendar year (dateutil handles the weeks that straddle New
// Year in its own way), and a DTSTART that the rule names or not.
type ruleGen struct{ rng *rand.Rand }

func (g ruleGen) pick(n int) int { return g.rng.IntN(n) }

// list returns 1 to max distinct values from vals.
func (g ruleGen) list(vals []int, maxLen int) []int {
	n := 1 + g.pick(maxLen)
	var out []int
	for range n {
		v := vals[g.pick(len(vals))]
		if !slices.Contains(out, v) {
			out = append(out, v)
		}
	}
	return out
}

func rangeInts(lo, hi int) []int {
	var out []int
	for v := lo; v <= hi; v++ {
		out = append(out, v)
	}
	return out
}

func joinInts(vals []int) string {
	s := make([]string, len(vals))
	for i, v := range vals {
		s[i] = fmt.Sprint(v)
	}
	return strings.Join(s, ",")
}

var genFreqs = []string{"YEARLY", "YEARLY", "MONTHLY", "MONTHLY", "MONTHLY", "WEEKLY", "WEEKLY", "DAILY", "DAILY", "HOURLY", "MINUTELY", "SECONDLY"}

// alignedTo returns the values v of vals with v = base modulo step.
func alignedTo(vals []int, base, step int) []int {
	var out []int
	for _, v := range vals {
		if ((v-base)%step+step)%step == 0 {
			out = append(out, v)
		}
	}
	return out
}

func gcd(a, b int) int {
	for b != 0 {
		a, b = b, a%b
	}
	return a
}

// rule returns the RRULE value without COUNT or UNTIL, and its FREQ, for a
// rule starting at start.
func (g ruleGen) rule(start time.Time) (string, string) {
	freq := genFreqs[g.pick(len(genFreqs))]
	parts := []string{"FREQ=" + freq}
	intervals := map[string][]int{
		"HOURLY": {1, 1, 2, 3, 4, 6, 8, 12}, "MINUTELY": {1, 5, 10, 15, 20, 30, 45, 90, 720},
		"SECONDLY": {1, 15, 30, 45, 600, 3600},
	}
	k := 1
	if iv, ok := intervals[freq]; ok {
		if k = iv[g.pick(len(iv))]; k > 1 {
			parts = append(parts, fmt.Sprintf("INTERVAL=%d", k))
		}
	} else if g.pick(3) == 0 {
		parts = append(parts, fmt.Sprintf("INTERVAL=%d", 2+g.pick(4)))
	}
	sub := freq == "HOURLY" || freq == "MINUTELY" || freq == "SECONDLY"
	// At most two day parts: more mostly contradict each other, and
	// dateutil takes seconds to find that a rule never fires.
	dayParts, maxDayParts := 0, 1
	chance := func(n int) bool { return g.pick(n) == 0 }
	if !sub && chance(3) {
		maxDayParts = 2
	}
	dayChance := func(n int) bool {
		if dayParts < maxDayParts && chance(n) {
			dayParts++
			return true
		}
		return false
	}
	var byxxx bool
	add := func(s string) { parts = append(parts, s); byxxx = true }
	if dayChance(3) {
		add("BYMONTH=" + joinInts(g.list(rangeInts(1, 12), 4)))
	}
	weekno := false
	if freq == "YEARLY" && dayChance(5) {
		weeks := append(rangeInts(2, 51), rangeInts(-51, -2)...)
		add("BYWEEKNO=" + joinInts(g.list(weeks, 3)))
		weekno = true
	}
	if (freq == "YEARLY" || sub) && dayChance(5) {
		days := append(rangeInts(1, 366), rangeInts(-366, -1)...)
		add("BYYEARDAY=" + joinInts(g.list(days, 4)))
	}
	if freq != "WEEKLY" && dayChance(3) {
		days := append(rangeInts(1, 31), rangeInts(-31, -1)...)
		add("BYMONTHDAY=" + joinInts(g.list(days, 3)))
	}
	if dayChance(2) {
		codes := []string{"MO", "TU", "WE", "TH", "FR", "SA", "SU"}
		n := 1 + g.pick(4)
		var ds []string
		// Plain weekdays or ordinals, not both: dateutil intersects the
		// two sets ("TH,1TH" is the first Thursday only), where RFC 5545
		// and dstsafe list them ("TH,1TH": every Thursday).
		ordinals := (freq == "MONTHLY" || freq == "YEARLY") && !weekno && chance(2)
		for range n {
			d := codes[g.pick(7)]
			if ordinals {
				max := 5
				if freq == "YEARLY" && !strings.Contains(strings.Join(parts, ";"), "BYMONTH=") {
					max = 53
				}
				k := 1 + g.pick(max)
				if chance(2) {
					k = -k
				}
				d = fmt.Sprint(k) + d
			}
			if !slices.Contains(ds, d) {
				ds = append(ds, d)
			}
		}
		add("BYDAY=" + strings.Join(ds, ","))
	}
	// The time parts. For a sub-daily rule, the values INTERVAL reaches
	// from DTSTART, mostly: others make a rule that never fires.
	hours, minutes, seconds := rangeInts(0, 23), rangeInts(0, 59), rangeInts(0, 59)
	if !chance(10) {
		switch freq {
		case "HOURLY":
			hours = alignedTo(hours, start.Hour(), k)
		case "MINUTELY":
			minutes = alignedTo(minutes, start.Minute(), gcd(k, 60))
		case "SECONDLY":
			seconds = alignedTo(seconds, start.Second(), gcd(k, 60))
			if k%60 == 0 {
				minutes = alignedTo(minutes, start.Minute(), gcd(k/60, 60))
			}
		}
	}
	if chance(3) {
		add("BYHOUR=" + joinInts(g.list(hours, 3)))
	}
	if chance(4) {
		add("BYMINUTE=" + joinInts(g.list(minutes, 3)))
	}
	if chance(5) {
		add("BYSECOND=" + joinInts(g.list(seconds, 2)))
	}
	if byxxx && chance(4) {
		// Within a day there are a few times; within a year many days.
		// Mostly the first or last two: a position past the period's
		// candidates names nothing.
		k := 2
		if sub || freq == "DAILY" {
			k = 1 // a day, an hour, a minute hold few candidates
		}
		if chance(4) {
			k = map[string]int{"YEARLY": 20, "MONTHLY": 6, "WEEKLY": 4}[freq]
		}
		k = max(k, 2)
		pos := append(rangeInts(1, k), rangeInts(-k, -1)...)
		parts = append(parts, "BYSETPOS="+joinInts(g.list(pos, 3)))
	}
	if chance(4) {
		parts = append(parts, "WKST="+[]string{"MO", "TU", "WE", "TH", "FR", "SA", "SU"}[g.pick(7)])
	}
	g.rng.Shuffle(len(parts)-1, func(i, j int) { parts[i+1], parts[j+1] = parts[j+1], parts[i+1] })
	return strings.Join(parts, ";"), freq
}

// TestRRuleAgainstDateutil: thousands of random rules in UTC and in zones
// without DST give exactly the instants python-dateutil gives.
func TestRRuleAgainstDateutil(t *testing.T) {
	py := findDateutil(t)
	t.Parallel()
	zones := make([]*time.Location, len(fixedZones))
	for i, name := range fixedZones {
		z := zoneNamed(t, name)
		if ch := scanChanges(z.Loc, unixOf(1994, 1, 1), unixOf(2101, 1, 1), 86400); len(ch) > 0 {
			t.Fatalf("%s changes offset at %s: not a zone without DST", name, fmtUnix(z.Loc, ch[0].At))
		}
		zones[i] = z.Loc
	}
	g := ruleGen{rand.New(rand.NewPCG(13, 5545))}
	n := 4000 / randomScale
	type goCase struct {
		text string
		loc  *time.Location
		from time.Time
	}
	var cases []pyCase
	var gos []goCase
	for i := range n {
		loc := zones[g.pick(len(zones))]
		if i%3 == 0 {
			loc = time.UTC
		}
		y := 1995 + g.pick(60)
		start := time.Date(y, time.Month(1+g.pick(12)), 1+g.pick(28), g.pick(24), g.pick(60), g.pick(60), 0, loc)
		if g.pick(3) == 0 {
			start = time.Date(start.Year(), start.Month(), start.Day(), 9, 0, 0, 0, loc)
		}
		if g.pick(6) == 0 {
			start = time.Date(start.Year(), start.Month(), []int{29, 30, 31}[g.pick(3)], 0, 0, 0, 0, loc)
		}
		rule, freq := g.rule(start)
		if freq == "WEEKLY" && strings.Contains(rule, "BYSETPOS") {
			// dateutil's first week starts at DTSTART, not at WKST, and
			// BYSETPOS counts in that part of a week; RFC 5545 and
			// dstsafe count in the whole week. Start on WKST.
			wkst := time.Monday
			if i := strings.Index(rule, "WKST="); i >= 0 {
				wkst = time.Weekday(slices.Index([]string{"SU", "MO", "TU", "WE", "TH", "FR", "SA"}, rule[i+5:i+7]))
			}
			start = start.AddDate(0, 0, -((int(start.Weekday()) - int(wkst) + 7) % 7))
		}
		want := 25
		pyRule, goRule := rule, rule
		switch g.pick(3) {
		case 0:
			c := 1 + g.pick(30)
			want = min(want, c)
			pyRule += fmt.Sprintf(";COUNT=%d", c)
			goRule = pyRule
		case 1:
			spans := map[string]time.Duration{"SECONDLY": time.Hour, "MINUTELY": 12 * time.Hour, "HOURLY": 10 * 24 * time.Hour,
				"DAILY": 90 * 24 * time.Hour, "WEEKLY": 2 * 365 * 24 * time.Hour}
			span, ok := spans[freq]
			if !ok {
				span = 15 * 365 * 24 * time.Hour
			}
			until := start.Add(time.Duration(g.rng.Int64N(int64(span))))
			pyRule += ";UNTIL=" + until.Format("20060102T150405")
			goRule += ";UNTIL=" + until.UTC().Format("20060102T150405Z")
		}
		wallOf := func(t time.Time) string { return t.Format("20060102T150405") }
		var rdates, exdates []string
		if g.pick(5) == 0 {
			for range 1 + g.pick(3) {
				exdates = append(exdates, wallOf(start.AddDate(0, 0, g.pick(40))))
			}
			for range g.pick(3) {
				rdates = append(rdates, wallOf(start.AddDate(0, g.pick(6), g.pick(28)).Add(time.Duration(g.pick(86400))*time.Second)))
			}
		}
		text := "DTSTART;TZID=" + loc.String() + ":" + wallOf(start) + "\nRRULE:" + goRule
		if loc == time.UTC {
			text = "DTSTART:" + wallOf(start) + "Z\nRRULE:" + goRule
		}
		if len(exdates) > 0 {
			text += "\nEXDATE;TZID=" + loc.String() + ":" + strings.Join(exdates, ",")
		}
		if len(rdates) > 0 {
			text += "\nRDATE;TZID=" + loc.String() + ":" + strings.Join(rdates, ",")
		}
		cases = append(cases, pyCase{ID: i, Start: wallOf(start), Rule: pyRule, RDates: append([]string{}, rdates...), ExDates: append([]string{}, exdates...), N: want})
		gos = append(gos, goCase{text, loc, start.Add(-time.Second)})
	}
	// Two oracle processes, one per core.
	half := len(cases) / 2
	var other map[int]pyAnswer
	var otherErr error
	done := make(chan struct{})
	go func() { other, otherErr = runDateutil(py, cases[half:]); close(done) }()
	answers, err := runDateutil(py, cases[:half])
	<-done
	if err = errors.Join(err, otherErr); err != nil {
		t.Fatal(err)
	}
	maps.Copy(answers, other)

	var rules, instants, identical, empty, timeouts int
	failures := 0
	for i, c := range cases {
		a, gc := answers[c.ID], gos[i]
		r, err := dstsafe.ParseRRule(gc.text)
		if err != nil {
			t.Errorf("case %d: ParseRRule(%q): %v", i, gc.text, err)
			continue
		}
		if a.Error != "" {
			// dateutil refuses rules whose BYxxx parts leave nothing
			// within INTERVAL ("generates an empty set", "resulting in
			// empty rule"): the RRULE names nothing, only the RDATEs.
			if !strings.Contains(a.Error, "empty") {
				t.Errorf("case %d: dateutil: %s for\n%s", i, a.Error, gc.text)
				continue
			}
			a.Walls = nil
			for _, d := range slices.Sorted(slices.Values(c.RDates)) {
				if !slices.Contains(c.ExDates, d) && !slices.Contains(a.Walls, d) && len(a.Walls) < c.N {
					a.Walls = append(a.Walls, d)
				}
			}
			empty++
		}
		var got []string
		at := gc.from
		for range c.N {
			o, ok := r.NextOccurrence(at)
			if !ok {
				break
			}
			if o.Kind != dstsafe.Unique {
				t.Errorf("case %d: %v is %v in a zone without DST", i, o.At, o.Kind)
			}
			if o.At.Location() != r.Location() {
				t.Errorf("case %d: %v not in the rule's zone", i, o.At)
			}
			got = append(got, o.At.Format("20060102T150405"))
			at = o.At
		}
		if a.Timeout {
			// dateutil ran out of time (it walks every period up to the
			// year 9999 to find that a rule never fires again): compare
			// what it found.
			got = got[:min(len(got), len(a.Walls))]
			timeouts++
		}
		rules++
		instants += len(a.Walls)
		if !slices.Equal(got, a.Walls) {
			failures++
			if failures <= 10 {
				t.Errorf("case %d:\n%s\n(dateutil: DTSTART:%s RRULE:%s)\ndstsafe  %v\ndateutil %v", i, gc.text, c.Start, c.Rule, got, a.Walls)
			}
			continue
		}
		// The instants too: each wall reading, in a zone whose offset
		// is fixed, is one instant (the time package's).
		for k, w := range a.Walls {
			wt, _ := time.ParseInLocation("20060102T150405", w, gc.loc)
			if k == 0 {
				if o := r.Next(gc.from); !o.Equal(wt) {
					t.Errorf("case %d: first instant %v, want %v", i, o, wt)
				}
			}
		}
		if len(a.Walls) == 0 && a.Error == "" {
			empty++
		}
		identical++
	}
	if failures > 0 {
		t.Errorf("%d of %d rules differ from dateutil", failures, rules)
	}
	t.Logf("%d rules, %d instants from dateutil, %d rules identical (%d with no instance, %d cut short by dateutil's time budget)",
		rules, instants, identical, empty, timeouts)
	if rules != n || (!raceEnabled && instants < 40000) {
		t.Errorf("only %d rules and %d instants compared", rules, instants)
	}
}

// The oracle's budget makes a timeout read as a timeout, never as an
// error or a wrong answer, wherever its signal lands. Deterministically:
// the budget's signal is delivered inside dateutil's parser (from the
// Decimal call in its _to_decimal, whose "except Exception" once turned
// the timeout into "ParserError: Unknown string format", read as a
// disagreement), and every case answers a timeout. A daily rule for
// February 30th, which never fires (dateutil walks every day up to 9999
// to find that out, 3 s of CPU), times out with the full budget, and the
// other rules answer in full.
func TestDateutilOracleBudget(t *testing.T) {
	py := findDateutil(t)
	t.Parallel()
	none := []string{}
	var cases []pyCase
	for i, r := range []struct{ start, rule string }{
		{"20240101T090000", "FREQ=DAILY;BYHOUR=9,17;BYMINUTE=0,30"},
		{"20241103T013000", "FREQ=MONTHLY;BYDAY=-1FR;BYSETPOS=1"},
		{"19950228T000000", "FREQ=YEARLY;BYMONTH=2;BYMONTHDAY=28,29"},
		{"20240315T120000", "FREQ=WEEKLY;INTERVAL=2;BYDAY=MO,WE,FR;WKST=SU"},
	} {
		cases = append(cases, pyCase{ID: i, Start: r.start, Rule: r.rule, RDates: none, ExDates: none, N: 25})
	}
	never := pyCase{ID: len(cases), Start: "20240229T000000", Rule: "FREQ=DAILY;BYMONTH=2;BYMONTHDAY=30", RDates: none, ExDates: none, N: 25}
	full, err := runDateutil(py, append(slices.Clone(cases), never))
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range cases {
		if a := full[c.ID]; a.Error != "" || a.Timeout || len(a.Walls) != c.N {
			t.Errorf("%s: %+v, want %d walls", c.Rule, a, c.N)
		}
	}
	if a := full[never.ID]; !a.Timeout || a.Error != "" || len(a.Walls) != 0 {
		t.Errorf("%s: %+v, want a timeout with no walls", never.Rule, a)
	}

	// The budget's signal, sent by the parser itself.
	const inParser = `
import os, signal
import dateutil.parser._parser as _p
_decimal = _p.Decimal
def _signalled(v):
    os.kill(os.getpid(), signal.SIGPROF)
    return _decimal(v)
_p.Decimal = _signalled
`
	got, err := runOracle(py, inParser+dateutilOracle, cases)
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range cases {
		if a := got[c.ID]; !a.Timeout || a.Error != "" || len(a.Walls) != 0 {
			t.Errorf("%s, budget's signal in the parser: %+v, want a timeout", c.Rule, a)
		}
	}
}

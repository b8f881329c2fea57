package dstsafe_test

import (
	"fmt"
	"math/rand/v2"
	"strings"
	"testing"
	"time"

	"github.com/dstsafe/dstsafe"
	"github.com/robfig/cron/v3"
)

// Differential test against robfig/cron v3: in zones whose offset does not
// change, the DST policies never come into play and both libraries must
// name the same instants for every spec robfig accepts.

var (
	monthAbbr = []string{"", "JAN", "FEB", "MAR", "APR", "MAY", "JUN", "JUL", "AUG", "SEP", "OCT", "NOV", "DEC"}
	dayAbbr   = []string{"SUN", "MON", "TUE", "WED", "THU", "FRI", "SAT"}
)

// randomCase upper- or lower-cases a name at random: both libraries take
// names in any case.
func randomCase(rng *rand.Rand, s string) string {
	switch rng.IntN(3) {
	case 0:
		return strings.ToLower(s)
	case 1:
		return s[:1] + strings.ToLower(s[1:])
	}
	return s
}

// randomValue is a value in [lo, hi], sometimes spelled by name.
func randomValue(rng *rand.Rand, v int, names []string) string {
	if names != nil && names[v] != "" && rng.IntN(3) == 0 {
		return randomCase(rng, names[v])
	}
	return fmt.Sprint(v)
}

// randomField builds one field over [lo, hi]: a list of *, ?, n, a-b, */s,
// a-b/s and n/s items.
func randomField(rng *rand.Rand, lo, hi int, names []string) string {
	if rng.IntN(3) == 0 {
		return "*"
	}
	n := 1
	if rng.IntN(3) == 0 {
		n = 2 + rng.IntN(3)
	}
	items := make([]string, n)
	for i := range items {
		a := lo + rng.IntN(hi-lo+1)
		b := a + rng.IntN(hi-a+1)
		s := 1 + rng.IntN(max(1, (hi-lo+1)/2))
		switch rng.IntN(8) {
		case 0:
			items[i] = "*"
		case 1:
			items[i] = "?"
		case 2, 3:
			items[i] = randomValue(rng, a, names)
		case 4:
			items[i] = randomValue(rng, a, names) + "-" + randomValue(rng, b, names)
		case 5:
			items[i] = fmt.Sprintf("*/%d", s)
		case 6:
			items[i] = fmt.Sprintf("%s-%s/%d", randomValue(rng, a, names), randomValue(rng, b, names), s)
		case 7:
			items[i] = fmt.Sprintf("%s/%d", randomValue(rng, a, names), s)
		}
	}
	return strings.Join(items, ",")
}

// randomSpec is a random five-field spec robfig's ParseStandard accepts;
// with extended, it may also use what only dstsafe accepts (weekday 7,
// Quartz L, LW, nW, nL, n#k, descriptors, @every).
func randomSpec(rng *rand.Rand, extended bool) string {
	if extended && rng.IntN(10) == 0 {
		return []string{"@yearly", "@annually", "@monthly", "@weekly", "@daily", "@midnight", "@hourly",
			"@every 90m", "@every 1s", "@every 8760h", "@every 25h"}[rng.IntN(11)]
	}
	dom := randomField(rng, 1, 31, nil)
	dow := randomField(rng, 0, 6, dayAbbr)
	if extended {
		quartzDom := func() string {
			return []string{"L", "LW", fmt.Sprintf("%dW", 1+rng.IntN(31)), fmt.Sprint(1 + rng.IntN(31))}[rng.IntN(4)]
		}
		quartzDow := func() string {
			n := randomValue(rng, rng.IntN(7), dayAbbr)
			if rng.IntN(8) == 0 {
				n = "7" // Sunday
			}
			return []string{n + "L", fmt.Sprintf("%s#%d", n, 1+rng.IntN(5)), n}[rng.IntN(3)]
		}
		switch rng.IntN(6) {
		case 0:
			dom = quartzDom()
		case 1:
			dom = quartzDom() + "," + quartzDom()
		case 2:
			dow = quartzDow()
		case 3:
			dow = quartzDow() + "," + quartzDow()
		case 4:
			dom, dow = "?", quartzDow()
		}
	}
	return strings.Join([]string{
		randomField(rng, 0, 59, nil),
		randomField(rng, 0, 23, nil),
		dom,
		randomField(rng, 1, 12, monthAbbr),
		dow,
	}, " ")
}

// steadyZones have had one UTC offset since the year given.
var steadyZones = []struct {
	name  string
	since int
}{
	{"UTC", 1990},
	{"Asia/Tokyo", 1990},
	{"Asia/Kolkata", 1990},
	{"Etc/GMT-5", 1990},
	{"Etc/GMT+11", 1990},
	{"America/Bogota", 1994}, // DST 1992-05-03 .. 1993-04-04
	{"Asia/Kathmandu", 1990}, // +05:45 since 1986
	{"Pacific/Honolulu", 1990},
	{"Africa/Nairobi", 1990},
	{"Asia/Shanghai", 1992}, // DST until 1991
}

// TestRobfigDifferential compares the next 20 fires of thousands of random
// specs with robfig/cron v3's, from random instants 1990-2030 in zones
// without offset changes. robfig gives up (returns zero) past five years
// without a match: the comparison stops there.
func TestRobfigDifferential(t *testing.T) {
	t.Parallel()
	end := unixOf(2037, 1, 1)
	for _, sz := range steadyZones {
		z := zoneNamed(t, sz.name)
		// The premise: no offset change from the start year to 2037 (the
		// fires of a spec drawn in 2030 may run five years on).
		if ch := scanChanges(z.Loc, unixOf(sz.since, 1, 1), end, 86400); len(ch) > 0 {
			t.Fatalf("%s changes offset at %s: not a steady zone", sz.name, fmtUnix(z.Loc, ch[0].At))
		}
	}
	rng := rand.New(rand.NewPCG(2026, 3))
	n := 4000 / randomScale
	parser := cron.NewParser(cron.Minute | cron.Hour | cron.Dom | cron.Month | cron.Dow | cron.Descriptor)
	mismatches, compared := 0, 0
	for i := range n {
		sz := steadyZones[i%len(steadyZones)]
		fields := randomSpec(rng, false)
		spec := "CRON_TZ=" + sz.name + " " + fields
		theirs, err := parser.Parse(spec)
		if err != nil {
			t.Fatalf("generator made a spec robfig rejects: %q: %v", spec, err)
		}
		ours, err := dstsafe.ParseCron(spec)
		if err != nil {
			t.Errorf("ParseCron(%q) = %v; robfig accepts it", spec, err)
			mismatches++
			continue
		}
		from := unixOf(sz.since, 1, 1)
		at := time.Unix(from+rng.Int64N(unixOf(2030, 1, 1)-from), 0)
		if rng.IntN(4) == 0 {
			at = at.Add(time.Duration(rng.IntN(1e9))) // a fractional second
		}
		a, b := at, at
		for k := range 20 {
			want := theirs.Next(b)
			if want.IsZero() {
				break
			}
			got := ours.Next(a)
			if !got.Equal(want) {
				t.Errorf("spec %q from %v, fire %d: dstsafe %v, robfig %v", spec, at.UTC(), k, got, want)
				mismatches++
				break
			}
			a, b = got, want
			compared++
		}
		if mismatches >= 10 {
			t.Fatalf("stopping after %d mismatches", mismatches)
		}
	}
	// Most random specs fire often: the comparison must not be vacuous.
	if compared < n*10 {
		t.Errorf("only %d fires compared for %d specs", compared, n)
	}
	t.Logf("%d specs, %d fires compared", n, compared)
}

// TestRobfigDifferentialDescriptors: the descriptors robfig's
// ParseStandard knows mean the same in both.
func TestRobfigDifferentialDescriptors(t *testing.T) {
	for _, d := range []string{"@yearly", "@annually", "@monthly", "@weekly", "@daily", "@midnight", "@hourly"} {
		spec := "CRON_TZ=Asia/Tokyo " + d
		theirs, err := cron.ParseStandard(spec)
		if err != nil {
			t.Fatal(err)
		}
		ours := mustParse(t, spec)
		a := time.Date(2023, 12, 30, 17, 3, 4, 5, time.UTC)
		b := a
		for k := range 30 {
			a, b = ours.Next(a), theirs.Next(b)
			if !a.Equal(b) {
				t.Errorf("%s fire %d: dstsafe %v, robfig %v", spec, k, a, b)
				break
			}
		}
	}
}

// TestParseCronAcceptsRobfigSyntax: issue 2 asks ParseCron to accept the
// syntax robfig/cron v3's ParseStandard (and so Kubernetes CronJob, which
// validates with it) accepts. Each spec here is accepted by robfig and must
// parse and fire at the same instants. (@every below one second or with a
// fractional second, which robfig rounds, is a documented refusal and is
// not listed.)
func TestParseCronAcceptsRobfigSyntax(t *testing.T) {
	for _, spec := range []string{
		"*/100 * * * *",   // a step past the field's range: only the first value (minute 0)
		"5/100 * * * *",   // minute 5 only
		"1-5/99 * * * *",  // minute 1 only
		"0 0 */32 * *",    // day 1 only
		"0 0 * */13 *",    // January only
		"0 0 * * 0-6/10",  // Sunday only
		"+5 * * * *",      // strconv.Atoi takes a plus sign
		"0005 * * * *",    // and leading zeros
		"*/60 * * * *",    // minute 0 (accepted today; kept as a guard)
		"0 0 ? ? ?",       // ? anywhere
		"0 0 * JAN-dec *", // names in any case in ranges
	} {
		t.Run(spec, func(t *testing.T) {
			theirs, err := cron.ParseStandard(spec)
			if err != nil {
				t.Fatalf("robfig refuses %q: %v; fix the table", spec, err)
			}
			ours, err := dstsafe.ParseCron(spec)
			if err != nil {
				t.Fatalf("ParseCron(%q) = %v; robfig/cron v3 ParseStandard and Kubernetes accept it", spec, err)
			}
			a := time.Date(2024, 2, 27, 13, 14, 15, 0, time.UTC)
			b := a
			for k := range 20 {
				a, b = ours.Next(a), theirs.Next(b)
				if !a.Equal(b) {
					t.Fatalf("%q fire %d: dstsafe %v, robfig %v", spec, k, a, b)
				}
			}
		})
	}
}

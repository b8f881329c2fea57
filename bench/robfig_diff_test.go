package bench

import (
	"errors"
	"math/rand/v2"
	"testing"
	"time"

	"github.com/dstsafe/dstsafe"
	"github.com/dstsafe/dstsafe/internal/specgen"
	"github.com/robfig/cron/v3"
)

// Differential test against robfig/cron v3: in zones whose offset does not
// change, the DST policies never come into play and both libraries must
// name the same instants for every spec robfig accepts.

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
	for _, sz := range steadyZones {
		// The premise: no offset change from the start year to 2037 (the
		// fires of a spec drawn in 2030 may run five years on).
		requireSteady(t, sz.name, sz.since, 2037)
	}
	rng := rand.New(rand.NewPCG(2026, 3))
	n := differentialSpecs // all of them under -race too (about 15 s): the README quotes the count
	parser := cron.NewParser(cron.Minute | cron.Hour | cron.Dom | cron.Month | cron.Dow | cron.Descriptor)
	mismatches, compared := 0, 0
	for i := range n {
		sz := steadyZones[i%len(steadyZones)]
		fields := specgen.Spec(rng, false)
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
		from := time.Date(sz.since, 1, 1, 0, 0, 0, 0, time.UTC).Unix()
		at := time.Unix(from+rng.Int64N(time.Date(2030, 1, 1, 0, 0, 0, 0, time.UTC).Unix()-from), 0)
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
	// The README quotes these counts: the seed is fixed, so a change here
	// means the generator or a parser changed, and the README with it.
	if compared != differentialFires {
		t.Errorf("compared %d fires, the README says %d: update both", compared, differentialFires)
	}
}

// The size of the differential run the README reports.
const (
	differentialSpecs = 4000
	differentialFires = 79960
)

// requireSteady fails unless zone name keeps one UTC offset from the start
// of year from to the start of year to, read at every hour in between.
func requireSteady(t *testing.T, name string, from, to int) {
	t.Helper()
	loc, err := time.LoadLocation(name)
	if err != nil {
		t.Fatalf("zone %s: %v", name, err)
	}
	at, end := time.Date(from, 1, 1, 0, 0, 0, 0, time.UTC), time.Date(to, 1, 1, 0, 0, 0, 0, time.UTC)
	_, off := at.In(loc).Zone()
	for ; at.Before(end); at = at.Add(time.Hour) {
		if _, o := at.In(loc).Zone(); o != off {
			t.Fatalf("%s changes offset at %v: not a steady zone", name, at)
		}
	}
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
		"*/100 * * * *",     // a step past the field's range: only the first value (minute 0)
		"5/100 * * * *",     // minute 5 only
		"1-5/99 * * * *",    // minute 1 only
		"0 0 */32 * *",      // day 1 only
		"0 0 * */13 *",      // January only
		"0 0 * * 0-6/10",    // Sunday only
		"+5 * * * *",        // strconv.Atoi takes a plus sign
		"*/+15 +1-+5 * * *", // in steps and ranges too
		"0 0 +1,+15 * +1",   // and lists
		"0005 * * * *",      // and leading zeros
		"*/60 * * * *",      // minute 0 (accepted today; kept as a guard)
		"0 0 ? ? ?",         // ? anywhere
		"0 0 * JAN-dec *",   // names in any case in ranges
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

// TestParseCronRefusesWhatRobfigRefuses: numbers robfig/cron v3 does not
// read (strconv.Atoi refuses them, or they are negative) are refused by
// ParseCron too, with a *dstsafe.ParseError, so "+n" is the only sign
// either accepts.
func TestParseCronRefusesWhatRobfigRefuses(t *testing.T) {
	for _, spec := range []string{
		"-1 * * * *",   // a minus sign
		"*/-5 * * * *", // in a step
		"1--5 * * * *", // in a range
		"+-1 * * * *",  // two signs
		"++1 * * * *",
		"0x1 * * * *", // hexadecimal
		"1e1 * * * *",
		"+ * * * *", // a sign alone
	} {
		if _, err := cron.ParseStandard(spec); err == nil {
			t.Errorf("robfig accepts %q; fix the table", spec)
		}
		var pe *dstsafe.ParseError
		if _, err := dstsafe.ParseCron(spec); !errors.As(err, &pe) {
			t.Errorf("ParseCron(%q) = %v; want a *ParseError, as robfig/cron v3 refuses it", spec, err)
		}
	}
}

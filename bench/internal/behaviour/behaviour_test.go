package behaviour

import (
	"errors"
	"os"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/dstsafe/dstsafe/dstsafetest"
)

// peerTimeout bounds each library call. A healthy Next answers in
// microseconds, even under -race; only a real hang reaches it.
const peerTimeout = 2 * time.Second

// TestMain points time.LoadLocation, which all three libraries use for a
// CRON_TZ= prefix, at the pinned tzdata 2025b files of dstsafetest, so
// that what the tables say does not change with the host's tz database.
func TestMain(m *testing.M) {
	os.Exit(dstsafetest.RunWithZoneinfo(m))
}

var (
	outcomesOnce sync.Once
	outcomes     [][]Outcome // outcomes[i][j]: Libraries[j] on Cases[i]
)

// allOutcomes runs every library on every case, once per test binary:
// the libraries that hang on the last case leave goroutines spinning.
func allOutcomes() [][]Outcome {
	outcomesOnce.Do(func() {
		for _, c := range Cases {
			outcomes = append(outcomes, RunAll(Libraries, c, peerTimeout))
		}
	})
	return outcomes
}

// TestFamousCases asserts what dstsafe does with each famous transition —
// one fire per civil day (or month), the first reading in a fold, the
// reading shifted by the gap's length in a gap, never before the gap, and
// an answer at all on Apia's skipped day — against the instants written
// out by hand in Cases. What the peers do is asserted cell by cell by
// TestBenchREADMETable and TestREADMETable.
func TestFamousCases(t *testing.T) {
	all := allOutcomes()
	for i, c := range Cases {
		t.Run(c.Name, func(t *testing.T) {
			if _, err := dstsafetest.ZoneinfoFS().Open(c.Zone); err != nil {
				t.Fatalf("%s is not pinned in dstsafetest/zoneinfo: %v", c.Zone, err)
			}
			want, err := c.WantInstants(dstsafetest.Zone(t, c.Zone))
			if err != nil {
				t.Fatal(err)
			}
			got := all[i][0]
			switch {
			case got.Hung:
				t.Fatalf("dstsafe did not answer within %s", peerTimeout)
			case got.Err != nil:
				t.Fatalf("dstsafe: %v", got.Err)
			}
			if !equalInstants(got.Fires, want) {
				t.Errorf("dstsafe fires at\n\t%s\nwant\n\t%s", format(got.Fires), format(want))
			}
			for j, o := range all[i][1:] {
				t.Logf("%-48s %s", Peers[j].Name+":", c.Summary(o))
			}
		})
	}
}

func TestSummary(t *testing.T) {
	c := Cases[0] // Chicago 2024 fall back, daily 01:30
	loc, err := time.LoadLocation(c.Zone)
	if err != nil {
		t.Fatal(err)
	}
	want, err := c.WantInstants(loc)
	if err != nil {
		t.Fatal(err)
	}
	secondCopy := want[1].Add(time.Hour) // 01:30 CST, the repeated reading
	tests := []struct {
		name string
		o    Outcome
		want string
	}{
		{"correct", Outcome{Fires: want}, "once a day (Nov 3 at 01:30 CDT)"},
		// The billing incident: both readings of 01:30 fire.
		{"both fold copies", Outcome{Fires: []time.Time{want[0], want[1], secondCopy, want[2]}},
			"fires twice on Nov 3 (01:30 CDT, 01:30 CST)"},
		{"second copy only", Outcome{Fires: []time.Time{want[0], secondCopy, want[2]}},
			"fires Nov 3 at 01:30 CST"},
		{"skipped day", Outcome{Fires: []time.Time{want[0], want[2]}}, "skips Nov 3"},
		{"extra day", Outcome{Fires: append(append([]time.Time{}, want...), want[2].AddDate(0, 0, 1))},
			"extra fire on Nov 5 at 01:30 CST"},
		{"hung", Outcome{Hung: true}, "hangs"},
		{"hung in Next", Outcome{Hung: true, HungIn: "Next"}, "`Next` hangs"},
		{"error", Outcome{Err: errors.New("bad spec")}, "error: bad spec"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := c.Summary(tt.o); got != tt.want {
				t.Errorf("Summary = %q, want %q", got, tt.want)
			}
		})
	}
}

func TestRunReportsHangAndPanic(t *testing.T) {
	release := make(chan struct{})
	defer close(release)
	hang := Library{Name: "hang", fires: func(_ Case, _ *time.Location, _, _ time.Time, call func(string)) ([]time.Time, error) {
		call("Parse")
		call("Next")
		<-release
		return nil, nil
	}}
	if o := Run(hang, Cases[0], 10*time.Millisecond); !o.Hung || o.HungIn != "Next" {
		t.Errorf("Run of a library that never returns from Next = %+v, want Hung in Next", o)
	}

	boom := Library{Name: "boom", fires: func(Case, *time.Location, time.Time, time.Time, func(string)) ([]time.Time, error) {
		panic("boom")
	}}
	if o := Run(boom, Cases[0], peerTimeout); o.Hung || o.Err == nil {
		t.Errorf("Run of a library that panics = %+v, want an error", o)
	}
}

func TestChainRejectsNonIncreasing(t *testing.T) {
	from := time.Date(2024, 1, 1, 0, 0, 0, 0, time.UTC)
	stuck := func(time.Time) time.Time { return from.Add(time.Hour) }
	_, err := chain(stuck, from, from.AddDate(0, 0, 1), func(string) {})
	if !errors.Is(err, errNotIncreasing) {
		t.Errorf("chain of a Next that stalls: err = %v, want errNotIncreasing", err)
	}
}

func TestMarkdownHasOneRowPerCase(t *testing.T) {
	// Two cases keep it quick; the full table is what ./compare prints.
	md := Markdown(Cases[:2], peerTimeout)
	lines := strings.Split(strings.TrimSpace(md), "\n")
	if len(lines) != 2+2 {
		t.Fatalf("Markdown has %d lines, want header, rule and 2 rows:\n%s", len(lines), md)
	}
	cols := strings.Count(lines[0], "|")
	for i, l := range lines {
		if strings.Count(l, "|") != cols {
			t.Errorf("line %d has %d cells separators, header has %d: %q", i, strings.Count(l, "|"), cols, l)
		}
	}
}

func equalInstants(a, b []time.Time) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if !a[i].Equal(b[i]) {
			return false
		}
	}
	return true
}

func format(ts []time.Time) string {
	s := make([]string, len(ts))
	for i, t := range ts {
		s[i] = t.Format(time.RFC3339 + " MST")
	}
	return strings.Join(s, "\n\t")
}

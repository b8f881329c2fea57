package behaviour

import (
	"errors"
	"strings"
	"testing"
	"time"
)

// peerTimeout bounds each library call. A healthy Next answers in
// microseconds, even under -race; only a real hang reaches it.
const peerTimeout = 2 * time.Second

// TestFamousCases asserts what dstsafe does with each famous transition —
// one fire per civil day (or month), the first reading in a fold, the
// reading shifted by the gap's length in a gap, never before the gap, and
// an answer at all on Apia's skipped day — and logs what the peers do.
func TestFamousCases(t *testing.T) {
	for _, c := range Cases {
		t.Run(c.Name, func(t *testing.T) {
			loc, err := time.LoadLocation(c.Zone)
			if err != nil {
				t.Fatalf("load %s: %v", c.Zone, err)
			}
			want, err := c.WantInstants(loc)
			if err != nil {
				t.Fatal(err)
			}

			got := Run(Dstsafe, c, peerTimeout)
			switch {
			case got.Hung:
				t.Fatalf("dstsafe did not answer within %s", peerTimeout)
			case got.Err != nil:
				t.Fatalf("dstsafe: %v", got.Err)
			}
			if !equalInstants(got.Fires, want) {
				t.Errorf("dstsafe fires at\n\t%s\nwant\n\t%s", format(got.Fires), format(want))
			}

			for i, o := range RunAll(Peers, c, peerTimeout) {
				t.Logf("%-48s %s", Peers[i].Name+":", c.Summary(o))
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
	hang := Library{Name: "hang", fires: func(Case, *time.Location, time.Time, time.Time) ([]time.Time, error) {
		<-release
		return nil, nil
	}}
	if o := Run(hang, Cases[0], 10*time.Millisecond); !o.Hung {
		t.Errorf("Run of a library that never returns = %+v, want Hung", o)
	}

	boom := Library{Name: "boom", fires: func(Case, *time.Location, time.Time, time.Time) ([]time.Time, error) {
		panic("boom")
	}}
	if o := Run(boom, Cases[0], peerTimeout); o.Hung || o.Err == nil {
		t.Errorf("Run of a library that panics = %+v, want an error", o)
	}
}

func TestChainRejectsNonIncreasing(t *testing.T) {
	from := time.Date(2024, 1, 1, 0, 0, 0, 0, time.UTC)
	stuck := func(time.Time) time.Time { return from.Add(time.Hour) }
	_, err := chain(stuck, from, from.AddDate(0, 0, 1))
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

package behaviour

import (
	"os"
	"strings"
	"testing"
)

// The comparison tables of the two READMEs are claims about robfig/cron,
// gocron and dstsafe; these tests hold every cell to what the libraries do
// when the tests run, so that neither table can drift from the truth.

// markdownTable returns the lines of the first markdown table in the file
// at path that starts with a line beginning with header.
func markdownTable(t *testing.T, path, header string) []string {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var rows []string
	for _, l := range strings.Split(string(data), "\n") {
		switch {
		case len(rows) == 0 && strings.HasPrefix(l, header):
			rows = append(rows, l)
		case len(rows) > 0 && strings.HasPrefix(l, "|"):
			rows = append(rows, l)
		case len(rows) > 0:
			return rows
		}
	}
	if len(rows) == 0 {
		t.Fatalf("%s has no table starting %q", path, header)
	}
	return rows
}

// cells splits a markdown table row into its trimmed cells.
func cells(row string) []string {
	row = strings.TrimSpace(row)
	row = strings.TrimSuffix(strings.TrimPrefix(row, "|"), "|")
	out := strings.Split(row, " | ")
	for i := range out {
		out[i] = strings.TrimSpace(out[i])
	}
	return out
}

// TestBenchREADMETable: bench/README.md's table is, line for line, what
// `go run ./compare` prints: every case, every library, every cell.
func TestBenchREADMETable(t *testing.T) {
	want := strings.Split(strings.TrimSpace(markdown(Cases, allOutcomes())), "\n")
	got := markdownTable(t, "../../README.md", "| case |")
	if len(got) != len(want) {
		t.Fatalf("bench/README.md's table has %d lines, the libraries give %d:\n%s", len(got), len(want), strings.Join(want, "\n"))
	}
	for i := range want {
		g, w := cells(got[i]), cells(want[i])
		if len(g) != len(w) {
			t.Errorf("bench/README.md table line %d has %d cells, want %d:\n\t%s\n\t%s", i+1, len(g), len(w), got[i], want[i])
			continue
		}
		for j := range w {
			if g[j] != w[j] {
				t.Errorf("bench/README.md, row %q, column %q: says %q, the library does %q", g[0], cells(want[0])[j], g[j], w[j])
			}
		}
	}
}

// readmeRows maps the rows of the root README's compact table to Cases:
// a cell holds one verdict per case, separated by " / ".
var readmeRows = map[string][]string{
	"Chicago 2024-11-03, 01:30 (fold)": {"Chicago 2024 fall back, daily 01:30"},
	"Chicago 2024-03-10, 02:30 (gap)":  {"Chicago 2024 spring forward, daily 02:30"},
	"Dublin 2024, 01:30, fall / spring": {
		"Europe/Dublin 2024 fall back, daily 01:30", "Europe/Dublin 2024 spring forward, daily 01:30"},
	"Lord_Howe 2024, 30-min fold 01:45 / gap 02:15": {
		"Australia/Lord_Howe 2024 fall (30 min fold), daily 01:45", "Australia/Lord_Howe 2024 spring (30 min gap), daily 02:15"},
	"Apia 2011-12-30 (skipped day), daily 12:00": {"Pacific/Apia 2011 skipped day, daily 12:00"},
	"Apia, monthly on the 30th at 12:00":         {"Pacific/Apia 2011 skipped day, monthly on the 30th 12:00"},
}

// readmeColumns are the libraries of the root README's columns after the
// first, by index in Libraries (gocron's RunAfterTransition is in bench/'s).
var readmeColumns = []int{0, 1, 2, 3}

// verdictAgrees reports whether one verdict of the root README ("once,
// 03:30 CDT", "once (Dec 31 at 12:00 +14)", "once a day", "twice", "skips
// the day", "`Next` hangs") says what summary (Case.Summary) says. A
// detail after a comma or in parentheses must appear in summary.
func verdictAgrees(verdict, summary string) bool {
	word, detail := verdict, ""
	if i := strings.IndexAny(verdict, ",("); i >= 0 {
		word, detail = strings.TrimSpace(verdict[:i]), strings.Trim(verdict[i+1:], " )")
	}
	var ok bool
	switch word {
	case "once", "once a day", "once a month":
		ok = strings.HasPrefix(summary, "once a ")
	case "twice":
		ok = strings.HasPrefix(summary, "fires twice on ") && !strings.Contains(summary, ";")
	case "skips", "skips the day":
		ok = strings.HasPrefix(summary, "skips ") && !strings.Contains(summary, ";")
	case "hangs":
		ok = strings.HasSuffix(summary, "hangs")
	default:
		ok = strings.HasSuffix(word, " hangs") && word == summary // "`Next` hangs"
	}
	return ok && strings.Contains(summary, detail)
}

// TestREADMETable: every verdict in the root README's comparison table is
// what the library does with that case.
func TestREADMETable(t *testing.T) {
	all := allOutcomes()
	byName := map[string]int{}
	for i, c := range Cases {
		byName[c.Name] = i
	}
	rows := markdownTable(t, "../../../README.md", "| daily job |")
	header := cells(rows[0])
	if len(header) != 1+len(readmeColumns) {
		t.Fatalf("README table has %d columns, the test maps %d: %q", len(header), 1+len(readmeColumns), rows[0])
	}
	covered := map[string]bool{}
	for _, row := range rows[2:] {
		cs := cells(row)
		names, ok := readmeRows[cs[0]]
		if !ok {
			t.Errorf("README row %q is not mapped to a case in readmeRows", cs[0])
			continue
		}
		if len(cs) != len(header) {
			t.Errorf("README row %q has %d cells, want %d", cs[0], len(cs), len(header))
			continue
		}
		for k, lib := range readmeColumns {
			verdicts := strings.Split(cs[1+k], " / ")
			if len(verdicts) != len(names) {
				t.Errorf("README row %q, column %q: %d verdicts for %d cases", cs[0], header[1+k], len(verdicts), len(names))
				continue
			}
			for v, name := range names {
				i := byName[name]
				covered[name] = true
				if s := Cases[i].Summary(all[i][lib]); !verdictAgrees(verdicts[v], s) {
					t.Errorf("README row %q, column %q says %q for %q; %s does: %s", cs[0], header[1+k], verdicts[v], name, Libraries[lib].Name, s)
				}
			}
		}
	}
	for _, c := range Cases {
		if !covered[c.Name] {
			t.Errorf("case %q has no row in the README's table", c.Name)
		}
	}
}

func TestVerdictAgrees(t *testing.T) {
	for _, tc := range []struct {
		verdict, summary string
		want             bool
	}{
		{"once, 01:30 CDT", "once a day (Nov 3 at 01:30 CDT)", true},
		{"once, 01:30 CST", "once a day (Nov 3 at 01:30 CDT)", false},
		{"once (Dec 31 at 12:00 +14)", "once a month (Dec 31 at 12:00 +14)", true},
		{"once", "fires twice on Nov 3 (01:30 CDT, 01:30 CST)", false},
		{"twice", "fires twice on Nov 3 (01:30 CDT, 01:30 CST)", true},
		{"twice", "fires 3 times on Nov 3 (01:30 CDT, 01:30 CST, 02:30 CST)", false},
		{"skips the day", "skips Mar 10", true},
		{"skips", "skips Mar 10; extra fire on Mar 12 at 02:30 CDT", false},
		{"skips", "once a day (Mar 10 at 03:30 CDT)", false},
		{"hangs", "`NextRuns` hangs", true},
		{"`Next` hangs", "`Next` hangs", true},
		{"`NewJob` hangs", "`NextRuns` hangs", false},
		{"hangs", "once a month (Dec 31 at 12:00 +14)", false},
	} {
		if got := verdictAgrees(tc.verdict, tc.summary); got != tc.want {
			t.Errorf("verdictAgrees(%q, %q) = %v, want %v", tc.verdict, tc.summary, got, tc.want)
		}
	}
}

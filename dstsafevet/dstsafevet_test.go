package dstsafevet_test

import (
	"testing"
	_ "time/tzdata" // the zone rules the window checks need, whatever the host has

	"golang.org/x/tools/go/analysis"
	"golang.org/x/tools/go/analysis/analysistest"

	"github.com/dstsafe/dstsafe/dstsafevet"
)

// all runs every analyzer in one pass, so that one load of the test
// packages (type-checking their dependencies from source is the slow part,
// several times slower under -race) serves every expectation.
var all = &analysis.Analyzer{
	Name: "all",
	Doc:  "every dstsafevet analyzer",
	Run: func(pass *analysis.Pass) (any, error) {
		for _, a := range dstsafevet.Analyzers() {
			p := *pass
			p.Analyzer = a
			if _, err := a.Run(&p); err != nil {
				return nil, err
			}
		}
		return nil, nil
	},
}

// TestAnalyzers runs every analyzer over every test package and checks the
// "want" comments, the absence of any other report, and the suggested
// fixes (cronspec.go.golden):
//
//   - postmortem/naive is the loop that double-charged 1,284 customers on
//     2024-11-03; it must trip the wall-clock match and the elapsed guard;
//   - postmortem/fixed is the fix (07:30 UTC cron, ledger claim, run date
//     derived in Chicago); it has no want comment, so any report fails;
//   - wallclock, elapsedguard, localdate and cronspec hold each analyzer's
//     positives and the look-alikes no analyzer may report;
//   - testsflag has its only finding in a _test.go file: not reported.
func TestAnalyzers(t *testing.T) {
	analysistest.RunWithSuggestedFixes(t, analysistest.TestData(), all,
		"postmortem/naive", "postmortem/fixed",
		"wallclock", "elapsedguard", "localdate", "cronspec", "testsflag")
}

// With -wallclock.tests the finding in testsflag_test.go is reported.
func TestTestsFlag(t *testing.T) {
	if err := dstsafevet.WallClock.Flags.Set("tests", "true"); err != nil {
		t.Fatal(err)
	}
	defer dstsafevet.WallClock.Flags.Set("tests", "false")
	results := analysistest.Run(&recorder{TB: t}, analysistest.TestData(), dstsafevet.WallClock, "testsflag")
	n := 0
	for _, r := range results {
		n += len(r.Diagnostics)
	}
	if n != 1 {
		t.Fatalf("got %d diagnostics with -tests, want the one in testsflag_test.go", n)
	}
}

// recorder swallows the "unexpected diagnostic" errors analysistest
// reports for a finding with no want comment: here it is the point.
type recorder struct {
	testing.TB
}

func (r *recorder) Errorf(format string, args ...any) {}

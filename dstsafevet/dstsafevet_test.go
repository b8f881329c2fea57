package dstsafevet_test

import (
	"testing"
	_ "time/tzdata" // the zone rules the window checks need, whatever the host has

	"golang.org/x/tools/go/analysis"
	"golang.org/x/tools/go/analysis/analysistest"

	"github.com/dstsafe/dstsafe/dstsafevet"
)

func TestPostmortemNaiveIsFlagged(t *testing.T) {
	// The exact loop that double-charged 1,284 customers on 2024-11-03
	// must trip both the wall-clock match and the elapsed-time guard.
	analysistest.Run(t, analysistest.TestData(), all, "postmortem/naive")
}

// all runs every analyzer in one pass, for packages that trip several.
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

func TestPostmortemFixedIsClean(t *testing.T) {
	// The fix (07:30 UTC cron, ledger claim, run date derived in Chicago)
	// must pass every analyzer: a "want"-free package fails on any report.
	analysistest.Run(t, analysistest.TestData(), all, "postmortem/fixed")
}

func TestAnalyzers(t *testing.T) {
	// Each analyzer's package holds its positives (want comments) and the
	// look-alikes it must leave alone; running all analyzers over all of
	// them also proves no analyzer reports another one's negatives.
	pkgs := []string{}
	for _, a := range dstsafevet.Analyzers() {
		pkgs = append(pkgs, a.Name)
	}
	analysistest.Run(t, analysistest.TestData(), all, pkgs...)
}

func TestCronSpecSuggestedFix(t *testing.T) {
	analysistest.RunWithSuggestedFixes(t, analysistest.TestData(), dstsafevet.CronSpec, "cronspec")
}

func TestTestsFlag(t *testing.T) {
	// With -tests the wall-clock match in wallclock_test.go is reported
	// too; the package then has one more finding than its want comments.
	if err := dstsafevet.WallClock.Flags.Set("tests", "true"); err != nil {
		t.Fatal(err)
	}
	defer dstsafevet.WallClock.Flags.Set("tests", "false")
	rec := &recorder{TB: t}
	analysistest.Run(rec, analysistest.TestData(), dstsafevet.WallClock, "wallclock")
	if len(rec.errs) != 1 {
		t.Fatalf("want exactly the unexpected diagnostic in wallclock_test.go, got %d errors: %q", len(rec.errs), rec.errs)
	}
}

type recorder struct {
	testing.TB
	errs []string
}

func (r *recorder) Errorf(format string, args ...any) {
	r.errs = append(r.errs, format)
}

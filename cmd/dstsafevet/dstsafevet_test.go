package dstsafevet_test

import (
	"go/ast"
	"go/importer"
	"go/parser"
	"go/token"
	"go/types"
	"path/filepath"
	"testing"
	_ "time/tzdata" // the zone rules the window checks need, whatever the host has

	"golang.org/x/tools/go/analysis"
	"golang.org/x/tools/go/analysis/analysistest"

	"github.com/dstsafe/dstsafe/cmd/dstsafevet"
)

// all runs every analyzer in one pass, so that one load of the test
// packages (type-checking their dependencies from source is the slow part,
// several times slower under -race) serves every expectation.
var all = &analysis.Analyzer{
	Name:     "all",
	Doc:      "every dstsafevet analyzer",
	Requires: []*analysis.Analyzer{dstsafevet.NowFlow},
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
		"postmortem/naive", "postmortem/fixed", "postmortem/seed",
		"wallclock", "elapsedguard", "localdate", "cronspec", "testsflag")
}

// -wallclock.tests decides whether the finding in testsflag_test.go is
// reported. The pass is built by hand (type-checked against export data)
// because a second analysistest load would cost tens of seconds under -race.
func TestTestsFlag(t *testing.T) {
	fset := token.NewFileSet()
	var files []*ast.File
	for _, name := range []string{"testsflag.go", "testsflag_test.go"} {
		f, err := parser.ParseFile(fset, filepath.Join("testdata", "src", "testsflag", name), nil, parser.ParseComments)
		if err != nil {
			t.Fatal(err)
		}
		files = append(files, f)
	}
	info := &types.Info{
		Types: map[ast.Expr]types.TypeAndValue{}, Defs: map[*ast.Ident]types.Object{},
		Uses: map[*ast.Ident]types.Object{}, Selections: map[*ast.SelectorExpr]*types.Selection{},
	}
	pkg, err := (&types.Config{Importer: importer.Default()}).Check("testsflag", fset, files, info)
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		tests string
		want  int
	}{{"false", 0}, {"true", 1}} {
		if err := dstsafevet.WallClock.Flags.Set("tests", tc.tests); err != nil {
			t.Fatal(err)
		}
		got := runByHand(t, dstsafevet.WallClock, fset, files, pkg, info)
		if len(got) != tc.want {
			t.Errorf("-wallclock.tests=%s: %d diagnostics, want %d", tc.tests, len(got), tc.want)
		}
	}
	dstsafevet.WallClock.Flags.Set("tests", "false")
}

// -wallclock.generated decides whether the finding in a file headed
// "// Code generated ... DO NOT EDIT." is reported.
func TestGeneratedFlag(t *testing.T) {
	fset := token.NewFileSet()
	var files []*ast.File
	for _, name := range []string{"doc.go", "schedule_gen.go"} {
		f, err := parser.ParseFile(fset, filepath.Join("testdata", "src", "generatedflag", name), nil, parser.ParseComments)
		if err != nil {
			t.Fatal(err)
		}
		files = append(files, f)
	}
	info := &types.Info{
		Types: map[ast.Expr]types.TypeAndValue{}, Defs: map[*ast.Ident]types.Object{},
		Uses: map[*ast.Ident]types.Object{}, Selections: map[*ast.SelectorExpr]*types.Selection{},
	}
	pkg, err := (&types.Config{Importer: importer.Default()}).Check("generatedflag", fset, files, info)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { dstsafevet.WallClock.Flags.Set("generated", "false") })
	for _, tc := range []struct {
		generated string
		want      int
	}{{"false", 0}, {"true", 1}} {
		if err := dstsafevet.WallClock.Flags.Set("generated", tc.generated); err != nil {
			t.Fatal(err)
		}
		got := runByHand(t, dstsafevet.WallClock, fset, files, pkg, info)
		if len(got) != tc.want {
			t.Errorf("-wallclock.generated=%s: %d diagnostics, want %d", tc.generated, len(got), tc.want)
		}
	}
}

// runByHand runs an analyzer over a type-checked package without a
// driver: NowFlow first (no facts from dependencies), then the analyzer.
func runByHand(t testing.TB, a *analysis.Analyzer, fset *token.FileSet, files []*ast.File, pkg *types.Package, info *types.Info) []analysis.Diagnostic {
	t.Helper()
	var got []analysis.Diagnostic
	base := analysis.Pass{
		Fset: fset, Files: files, Pkg: pkg, TypesInfo: info, TypesSizes: types.SizesFor("gc", "amd64"),
		ImportObjectFact:  func(types.Object, analysis.Fact) bool { return false },
		ExportObjectFact:  func(types.Object, analysis.Fact) {},
		ImportPackageFact: func(*types.Package, analysis.Fact) bool { return false },
		ExportPackageFact: func(analysis.Fact) {},
		Report:            func(d analysis.Diagnostic) { got = append(got, d) },
		ResultOf:          map[*analysis.Analyzer]any{},
	}
	now := base
	now.Analyzer = dstsafevet.NowFlow
	res, err := dstsafevet.NowFlow.Run(&now)
	if err != nil {
		t.Fatal(err)
	}
	p := base
	p.Analyzer = a
	p.ResultOf = map[*analysis.Analyzer]any{dstsafevet.NowFlow: res}
	if _, err := a.Run(&p); err != nil {
		t.Fatal(err)
	}
	return got
}

package dstsafevet

import (
	"flag"
	"go/ast"
	"go/token"
	"strings"

	"golang.org/x/tools/go/analysis"
)

// Analyzers returns every dstsafevet analyzer, in a stable order.
func Analyzers() []*analysis.Analyzer {
	return []*analysis.Analyzer{WallClock, ElapsedGuard, LocalDate, CronSpec}
}

// ignoreDirective silences a diagnostic on its own line or the next one.
const ignoreDirective = "//dstsafevet:ignore"

// flagged are the analyzers with -tests and -generated flags; NowFlow
// reads the files any of them asks for.
var flagged []*analysis.Analyzer

// newAnalyzer adds the -tests and -generated flags and the NowFlow
// requirement.
func newAnalyzer(a *analysis.Analyzer) *analysis.Analyzer {
	flagged = append(flagged, a)
	a.Flags.Bool("tests", false, "also check _test.go files")
	a.Flags.Bool("generated", false, "also check generated files (a \"// Code generated ... DO NOT EDIT.\" line)")
	a.Requires = append(a.Requires, NowFlow)
	return a
}

// flow returns the NowFlow result for the pass's package.
func flow(pass *analysis.Pass) *tracker { return pass.ResultOf[NowFlow].(*tracker) }

// files returns the files of the pass the analyzer should look at.
func files(pass *analysis.Pass) []*ast.File {
	return filterFiles(pass, boolFlag(pass.Analyzer, "tests"), boolFlag(pass.Analyzer, "generated"))
}

// boolFlag reads a flag of the analyzer running the pass. It is looked up
// on the pass's analyzer, not on the package's variables: a driver that
// runs a copy of an analyzer (the golangci-lint plugin wraps each one)
// shares the flag set, since copying an Analyzer copies its FlagSet's map
// of flags, and the copy's flags are the original's.
func boolFlag(a *analysis.Analyzer, name string) bool {
	if a == nil {
		return false
	}
	f := a.Flags.Lookup(name)
	if f == nil {
		return false
	}
	g, ok := f.Value.(flag.Getter)
	if !ok {
		return false
	}
	b, _ := g.Get().(bool)
	return b
}

// filterFiles drops generated files unless withGenerated, and test files
// unless withTests.
func filterFiles(pass *analysis.Pass, withTests, withGenerated bool) []*ast.File {
	var out []*ast.File
	for _, f := range pass.Files {
		name := pass.Fset.File(f.Pos()).Name()
		if !withTests && strings.HasSuffix(name, "_test.go") {
			continue
		}
		if !withGenerated && ast.IsGenerated(f) {
			continue
		}
		out = append(out, f)
	}
	return out
}

// reporter reports diagnostics unless an ignore directive covers the line.
type reporter struct {
	pass    *analysis.Pass
	ignored map[string]map[int]bool // file name -> silenced lines
	seen    map[token.Pos]bool
}

func newReporter(pass *analysis.Pass, fs []*ast.File) *reporter {
	r := &reporter{pass: pass, ignored: map[string]map[int]bool{}, seen: map[token.Pos]bool{}}
	for _, f := range fs {
		for _, cg := range f.Comments {
			for _, c := range cg.List {
				if !strings.HasPrefix(c.Text, ignoreDirective) {
					continue
				}
				p := pass.Fset.Position(c.Slash)
				if r.ignored[p.Filename] == nil {
					r.ignored[p.Filename] = map[int]bool{}
				}
				r.ignored[p.Filename][p.Line] = true
				r.ignored[p.Filename][p.Line+1] = true
			}
		}
	}
	return r
}

func (r *reporter) report(d analysis.Diagnostic) {
	if r.seen[d.Pos] {
		return
	}
	r.seen[d.Pos] = true
	p := r.pass.Fset.Position(d.Pos)
	if r.ignored[p.Filename][p.Line] {
		return
	}
	r.pass.Report(d)
}

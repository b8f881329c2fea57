package dstsafevet_test

import (
	"fmt"
	"go/ast"
	"go/parser"
	"go/token"
	"go/types"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strings"
	"testing"

	"golang.org/x/tools/go/analysis"
	"golang.org/x/tools/go/analysis/checker"
	"golang.org/x/tools/go/packages"

	"github.com/dstsafe/dstsafe/cmd/dstsafevet"
)

// repoRoot is the dstsafe checkout this test runs in: the snippets are read
// from the real files, whatever they hold when the test runs (the README
// is rewritten often), not from a copy.
var repoRoot = filepath.Join("..", "..")

// snippetImports are the packages the documentation's fragments use
// without importing them, by the name they are used under.
var snippetImports = map[string]string{
	"dstsafe": "github.com/dstsafe/dstsafe", "dstsafetest": "github.com/dstsafe/dstsafe/dstsafetest",
	"calendar": "github.com/dstsafe/dstsafe/calendar", "ledgerkit": "github.com/dstsafe/dstsafe/ledgerkit",
	"sqlledger": "github.com/dstsafe/dstsafe/sqlledger", "sqlite": "github.com/dstsafe/dstsafe/sqlledger/sqlite",
	"redisledger": "github.com/dstsafe/dstsafe/redisledger", "dstsaferiver": "github.com/dstsafe/dstsafe/dstsaferiver",
	"dstsafeotel": "github.com/dstsafe/dstsafe/dstsafeotel", "clockwork": "github.com/jonboulle/clockwork",
	"require": "github.com/stretchr/testify/require", "assert": "github.com/stretchr/testify/assert",
	"redis": "github.com/redis/go-redis/v9", "river": "github.com/riverqueue/river",
	"time": "time", "context": "context", "fmt": "fmt", "log": "log", "slog": "log/slog", "errors": "errors",
	"os": "os", "signal": "os/signal", "sql": "database/sql", "http": "net/http", "strings": "strings",
	"sync": "sync", "testing": "testing", "json": "encoding/json", "syscall": "syscall",
}

type snippet struct {
	where string // file:line of the opening fence
	code  string
}

var fence = regexp.MustCompile("(?s)```go[^\\n]*\\n(.*?)```")

// docSnippets returns every ```go block of README.md and docs/*.md.
func docSnippets(t *testing.T) []snippet {
	t.Helper()
	mds, err := filepath.Glob(filepath.Join(repoRoot, "docs", "*.md"))
	if err != nil {
		t.Fatal(err)
	}
	mds = append([]string{filepath.Join(repoRoot, "README.md")}, mds...)
	var out []snippet
	for _, md := range mds {
		data, err := os.ReadFile(md)
		if err != nil {
			t.Fatal(err)
		}
		for _, m := range fence.FindAllSubmatchIndex(data, -1) {
			line := 1 + strings.Count(string(data[:m[0]]), "\n")
			out = append(out, snippet{fmt.Sprintf("%s:%d", filepath.Base(md), line), string(data[m[2]:m[3]])})
		}
	}
	return out
}

// wrap turns a snippet into a file: as it is when it has a package clause,
// else a package around its declarations, else a function around its
// statements; with imports for the packages it uses and does not import.
func wrap(code string) (string, bool) {
	fset := token.NewFileSet()
	var body string
	switch {
	case regexp.MustCompile(`(?m)^package \w+`).MatchString(code):
		body = code
	default:
		body = "package snippet\n\n" + code
		if _, err := parser.ParseFile(fset, "", body, 0); err != nil {
			body = "package snippet\n\nfunc _() {\n" + code + "\n}\n"
		}
	}
	f, err := parser.ParseFile(fset, "", body, 0)
	if err != nil {
		return "", false
	}
	imported := map[string]bool{}
	for _, im := range f.Imports {
		p := strings.Trim(im.Path.Value, `"`)
		name := p[strings.LastIndex(p, "/")+1:]
		if im.Name != nil {
			name = im.Name.Name
		} else if strings.HasPrefix(name, "v") && strings.Contains(p, "/") {
			name = filepath.Base(filepath.Dir(p)) // go-redis/v9
		}
		imported[name] = true
	}
	if imported["go-redis"] {
		imported["redis"] = true
	}
	declared := map[string]bool{}
	ast.Inspect(f, func(n ast.Node) bool {
		switch n := n.(type) {
		case *ast.AssignStmt:
			if n.Tok == token.DEFINE {
				for _, l := range n.Lhs {
					if id, ok := l.(*ast.Ident); ok {
						declared[id.Name] = true
					}
				}
			}
		case *ast.ValueSpec:
			for _, id := range n.Names {
				declared[id.Name] = true
			}
		case *ast.Field:
			for _, id := range n.Names {
				declared[id.Name] = true
			}
		}
		return true
	})
	var need []string
	ast.Inspect(f, func(n ast.Node) bool {
		if sel, ok := n.(*ast.SelectorExpr); ok {
			if id, ok := sel.X.(*ast.Ident); ok && !imported[id.Name] && !declared[id.Name] && snippetImports[id.Name] != "" {
				imported[id.Name] = true
				need = append(need, id.Name)
			}
		}
		return true
	})
	sort.Strings(need)
	var imports strings.Builder
	for _, n := range need {
		fmt.Fprintf(&imports, "import %q\n", snippetImports[n])
	}
	end := fset.Position(f.Name.End()).Offset
	return body[:end] + "\n\n" + imports.String() + body[end:], true
}

// TestDocSnippetsClean runs every analyzer over every Go snippet of the
// README and docs/: dstsafe's own advice must never be reported. A
// fragment is wrapped in a package (and its statements in a function) and
// type-checked as far as it goes: names it leaves undefined (ctx, a job
// function) stay untyped, which the analyzers must survive.
func TestDocSnippetsClean(t *testing.T) {
	snips := docSnippets(t)
	if len(snips) == 0 {
		t.Fatal("no ```go snippet in README.md or docs/*.md: the corpus is gone, or the fence pattern is wrong")
	}
	imp := snippetImporter(t)
	checked := 0
	for _, s := range snips {
		src, ok := wrap(s.code)
		if !ok {
			t.Logf("%s: not Go syntax, skipped", s.where)
			continue
		}
		fset := token.NewFileSet()
		f, err := parser.ParseFile(fset, s.where+".go", src, parser.ParseComments)
		if err != nil {
			t.Logf("%s: not Go syntax, skipped", s.where)
			continue
		}
		info := &types.Info{
			Types: map[ast.Expr]types.TypeAndValue{}, Defs: map[*ast.Ident]types.Object{},
			Uses: map[*ast.Ident]types.Object{}, Selections: map[*ast.SelectorExpr]*types.Selection{},
			Implicits: map[ast.Node]types.Object{}, Scopes: map[ast.Node]*types.Scope{},
		}
		var typeErrs int
		conf := types.Config{Importer: imp, Error: func(err error) {
			typeErrs++
			// A fragment that cannot import dstsafe would be checked
			// for nothing.
			if msg := err.Error(); strings.Contains(msg, "could not import github.com/dstsafe/dstsafe\"") {
				t.Errorf("%s: %s", s.where, msg)
			}
		}}
		pkg, _ := conf.Check("snippet", fset, []*ast.File{f}, info)
		checked++
		for _, a := range dstsafevet.Analyzers() {
			for _, d := range runByHand(t, a, fset, []*ast.File{f}, pkg, info) {
				t.Errorf("%s (snippet line %d): %s", s.where, fset.Position(d.Pos).Line, d.Message)
			}
		}
		t.Logf("%s: checked (%d type errors from names the fragment leaves undefined)", s.where, typeErrs)
	}
	t.Logf("%d of %d snippets checked", checked, len(snips))
}

// snippetImporter imports the packages of snippetImports that the cmd
// module can load, from export data (one go list for all of them).
func snippetImporter(t *testing.T) types.Importer {
	t.Helper()
	var paths []string
	for _, p := range snippetImports {
		paths = append(paths, p)
	}
	sort.Strings(paths)
	pkgs, err := packages.Load(&packages.Config{Mode: packages.NeedName | packages.NeedTypes | packages.NeedImports | packages.NeedDeps}, paths...)
	if err != nil {
		t.Fatal(err)
	}
	byPath := map[string]*types.Package{}
	packages.Visit(pkgs, nil, func(p *packages.Package) {
		if p.Types != nil && len(p.Errors) == 0 {
			byPath[p.PkgPath] = p.Types
		}
	})
	if byPath["github.com/dstsafe/dstsafe"] == nil {
		t.Fatal("cannot load github.com/dstsafe/dstsafe for the snippets")
	}
	return importerFunc(func(path string) (*types.Package, error) {
		if p := byPath[path]; p != nil {
			return p, nil
		}
		return nil, fmt.Errorf("%s is not a dependency of the cmd module", path)
	})
}

type importerFunc func(path string) (*types.Package, error)

func (f importerFunc) Import(path string) (*types.Package, error) { return f(path) }

// TestExamplesClean runs every analyzer, with test files, over every
// package under examples/ (each its own module in the workspace), loaded
// and type-checked as go vet would: no finding.
func TestExamplesClean(t *testing.T) {
	if testing.Short() {
		t.Skip("loads and type-checks the example modules: seconds")
	}
	mods, err := filepath.Glob(filepath.Join(repoRoot, "examples", "*", "go.mod"))
	if err != nil {
		t.Fatal(err)
	}
	if len(mods) == 0 {
		t.Fatal("no module under examples/")
	}
	for _, a := range dstsafevet.Analyzers() {
		if err := a.Flags.Set("tests", "true"); err != nil {
			t.Fatal(err)
		}
		defer a.Flags.Set("tests", "false")
	}
	for _, mod := range mods {
		dir, err := filepath.Abs(filepath.Dir(mod))
		if err != nil {
			t.Fatal(err)
		}
		diags, files := analyzeDir(t, dir, true, dstsafevet.Analyzers())
		for _, d := range diags {
			t.Errorf("%s", d)
		}
		t.Logf("%s: %d files analyzed, %d findings", filepath.Base(dir), files, len(diags))
	}
}

// analyzeDir loads ./... under dir (with tests) and runs the analyzers
// with the checker go vet's standalone drivers use, returning the
// findings as "file:line: message" (file relative to dir) and the number
// of Go files analyzed.
func analyzeDir(t *testing.T, dir string, tests bool, as []*analysis.Analyzer) ([]string, int) {
	t.Helper()
	cfg := &packages.Config{Mode: packages.LoadSyntax, Dir: dir, Tests: tests}
	pkgs, err := packages.Load(cfg, "./...")
	if err != nil {
		t.Fatal(err)
	}
	if n := packages.PrintErrors(pkgs); n > 0 {
		t.Fatalf("%s: %d package errors", dir, n)
	}
	g, err := checker.Analyze(as, pkgs, nil)
	if err != nil {
		t.Fatal(err)
	}
	seen := map[string]bool{}
	var out []string
	files := map[string]bool{}
	for _, act := range g.Roots {
		for _, f := range act.Package.GoFiles {
			files[f] = true
		}
		if act.Err != nil {
			t.Errorf("%s: %v", act, act.Err)
		}
		for _, d := range act.Diagnostics {
			p := act.Package.Fset.Position(d.Pos)
			rel, err := filepath.Rel(dir, p.Filename)
			if err != nil {
				rel = p.Filename
			}
			s := fmt.Sprintf("%s:%d: %s", filepath.ToSlash(rel), p.Line, d.Message)
			if !seen[s] {
				seen[s] = true
				out = append(out, s)
			}
		}
	}
	sort.Strings(out)
	return out, len(files)
}

package main

// The README's quickstart is this package, and every Go snippet of the
// README and docs/*.md compiles against the real packages.
//
// Conventions for a ```go block in README.md and docs/*.md:
//   - preceded by a line <!-- file: PATH -->: the block is the file PATH
//     (from the repository root), byte for byte; the file is compiled and
//     tested where it lives;
//   - starting with "package ": a complete file, compiled as it is (a
//     package of its own);
//   - anything else: a fragment, compiled as the body of
//     func(ctx context.Context, t *testing.T) (err error) (a deferred
//     Close can join its error into err); "return nil" is
//     added unless its last line returns. Imports are added for the
//     package names it uses (see snippetImports); leading import lines
//     are hoisted to the file.
// Output and shell go in ```text and ```sh blocks.

import (
	"bytes"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
)

// repoRoot is the checkout this module sits in.
const repoRoot = "../.."

type snippet struct {
	doc   string // README.md, docs/cron.md
	line  int    // of the opening fence
	file  string // from <!-- file: PATH -->, or ""
	code  string
	index int
}

var fileMarker = regexp.MustCompile(`^<!-- file: (\S+) -->$`)

// goSnippets returns the ```go blocks of a Markdown file.
func goSnippets(t *testing.T, doc string) []snippet {
	t.Helper()
	data, err := os.ReadFile(filepath.Join(repoRoot, doc))
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.SplitAfter(string(data), "\n")
	var out []snippet
	for i := 0; i < len(lines); i++ {
		if strings.TrimSpace(lines[i]) != "```go" {
			continue
		}
		s := snippet{doc: doc, line: i + 1, index: len(out)}
		if i > 0 {
			if m := fileMarker.FindStringSubmatch(strings.TrimSpace(lines[i-1])); m != nil {
				s.file = m[1]
			}
		}
		var b strings.Builder
		for i++; i < len(lines) && strings.TrimSpace(lines[i]) != "```"; i++ {
			b.WriteString(lines[i])
		}
		if i == len(lines) {
			t.Fatalf("%s:%d: ```go block not closed", doc, s.line)
		}
		s.code = b.String()
		out = append(out, s)
	}
	return out
}

func docs(t *testing.T) []string {
	t.Helper()
	pages, err := filepath.Glob(filepath.Join(repoRoot, "docs", "*.md"))
	if err != nil {
		t.Fatal(err)
	}
	out := []string{"README.md"}
	for _, p := range pages {
		rel, err := filepath.Rel(repoRoot, p)
		if err != nil {
			t.Fatal(err)
		}
		out = append(out, filepath.ToSlash(rel))
	}
	return out
}

// The README's quickstart blocks are main.go and main_test.go, byte for
// byte: they cannot drift from the code the suite compiles and runs.
func TestREADMEQuickstartIsThisPackage(t *testing.T) {
	want := []string{"examples/quickstart/main.go", "examples/quickstart/main_test.go"}
	var got []string
	for _, s := range goSnippets(t, "README.md") {
		if s.file == "" {
			continue
		}
		got = append(got, s.file)
		data, err := os.ReadFile(filepath.Join(repoRoot, s.file))
		if err != nil {
			t.Errorf("README.md:%d: %v", s.line, err)
			continue
		}
		if string(data) != s.code {
			t.Errorf("README.md:%d: the block differs from %s; copy the file into the README", s.line, s.file)
		}
	}
	if !slices.Equal(got, want) {
		t.Errorf("README.md quickstart blocks are %v, want %v", got, want)
	}
}

// snippetImports maps the package names fragments use to their paths.
var snippetImports = map[string]string{
	"calendar":         "github.com/dstsafe/dstsafe/calendar",
	"clockwork":        "github.com/jonboulle/clockwork",
	"dstsafe":          "github.com/dstsafe/dstsafe",
	"dstsafeotel":      "github.com/dstsafe/dstsafe/dstsafeotel",
	"dstsaferiver":     "github.com/dstsafe/dstsafe/dstsaferiver",
	"dstsafetest":      "github.com/dstsafe/dstsafe/dstsafetest",
	"errors":           "errors",
	"event":            "github.com/dstsafe/dstsafe/event",
	"fmt":              "fmt",
	"ledgerkit":        "github.com/dstsafe/dstsafe/ledgerkit",
	"log":              "log",
	"os":               "os",
	"redis":            "github.com/redis/go-redis/v9",
	"redisledger":      "github.com/dstsafe/dstsafe/redisledger",
	"river":            "github.com/riverqueue/river",
	"riverdatabasesql": "github.com/riverqueue/river/riverdriver/riverdatabasesql",
	"slog":             "log/slog",
	"sql":              "database/sql",
	"sqlite":           "github.com/dstsafe/dstsafe/sqlledger/sqlite",
	"sqlledger":        "github.com/dstsafe/dstsafe/sqlledger",
	"stdlib":           "github.com/jackc/pgx/v5/stdlib",
	"time":             "time",
}

var importLine = regexp.MustCompile(`^import\s+(?:(\w+)\s+)?"([^"]+)"\s*$`)

// source turns a snippet into a compilable file of package pkg.
func (s snippet) source(pkg string) string {
	header := fmt.Sprintf("// %s:%d\n\n", s.doc, s.line)
	if strings.HasPrefix(s.code, "package ") {
		_, rest, _ := strings.Cut(s.code, "\n")
		// A //line directive: the compiler, go vet and a failing test's
		// trace name the Markdown file and line, not this copy.
		return header + "package " + pkg + "\n" + fmt.Sprintf("//line %s:%d\n", s.doc, s.line+2) + rest
	}
	imports := map[string]string{"context": "context", "testing": "testing"}
	var body []string
	hoisted := 0
	for _, l := range strings.Split(strings.TrimRight(s.code, "\n"), "\n") {
		if m := importLine.FindStringSubmatch(l); m != nil && len(body) == 0 {
			hoisted++
			name := m[1]
			if name == "" {
				name = filepath.Base(m[2])
			}
			imports[name] = m[2]
			continue
		}
		body = append(body, l)
	}
	text := strings.Join(body, "\n")
	for name, path := range snippetImports {
		if regexp.MustCompile(`\b` + name + `\.`).MatchString(text) {
			if _, ok := imports[name]; !ok {
				imports[name] = path
			}
		}
	}
	var b strings.Builder
	b.WriteString(header + "package " + pkg + "\n\nimport (\n")
	names := make([]string, 0, len(imports))
	for n := range imports {
		names = append(names, n)
	}
	slices.Sort(names)
	for _, n := range names {
		if filepath.Base(imports[n]) == n || strings.HasSuffix(imports[n], "/"+n+"/v9") {
			fmt.Fprintf(&b, "\t%q\n", imports[n])
		} else {
			fmt.Fprintf(&b, "\t%s %q\n", n, imports[n])
		}
	}
	b.WriteString(")\n\nfunc _(ctx context.Context, t *testing.T) (err error) {\n")
	fmt.Fprintf(&b, "//line %s:%d\n", s.doc, s.line+1+hoisted)
	b.WriteString(text + "\n")
	last := strings.TrimSpace(body[len(body)-1])
	if !strings.HasPrefix(last, "return") {
		b.WriteString("return nil\n")
	}
	b.WriteString("}\n")
	return b.String()
}

// Every Go snippet of the README and docs/*.md compiles against the real
// packages of this checkout (the go.work workspace), so a rename that
// breaks one fails here.
func TestDocSnippetsCompile(t *testing.T) {
	if _, err := exec.LookPath("go"); err != nil {
		t.Fatalf("needs the go command: %v", err)
	}
	dir, err := os.MkdirTemp(".", "snippets-")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(dir) })
	n := 0
	where := map[string]snippet{}
	for _, doc := range docs(t) {
		for _, s := range goSnippets(t, doc) {
			if s.file != "" {
				continue
			}
			pkg := fmt.Sprintf("s%03d", n)
			n++
			where[pkg] = s
			if err := os.Mkdir(filepath.Join(dir, pkg), 0o755); err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(filepath.Join(dir, pkg, "snippet.go"), []byte(s.source(pkg)), 0o644); err != nil {
				t.Fatal(err)
			}
		}
	}
	if n < 6 {
		t.Fatalf("only %d Go snippets in README.md and docs/*.md", n)
	}
	cmd := exec.Command("go", "vet", "./"+filepath.Base(dir)+"/...")
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &out
	if err := cmd.Run(); err != nil {
		t.Errorf("%d snippets; go vet: %v\n%s", n, err, out.String())
		for pkg, s := range where {
			if strings.Contains(out.String(), pkg+"/") {
				t.Logf("%s is %s:%d:\n%s", pkg, s.doc, s.line, s.source(pkg))
			}
		}
	}
	t.Logf("%d snippets compiled", n)
}

// pendingPages are docs pages other branches write; README links to them
// before they land. Once a page exists its links are checked like any.
var pendingPages = map[string]bool{
	"docs/failures.md": true, "docs/replicas.md": true, "docs/exec.md": true, "docs/review-tools.md": true,
}

var mdLink = regexp.MustCompile(`\]\(([^)\s]+)\)`)

// slug is GitHub's anchor for a heading: lower case, spaces to hyphens,
// punctuation other than hyphens and underscores dropped.
func slug(heading string) string {
	var b strings.Builder
	for _, r := range strings.ToLower(strings.TrimSpace(heading)) {
		switch {
		case r == ' ':
			b.WriteByte('-')
		case r == '-' || r == '_' || r >= 'a' && r <= 'z' || r >= '0' && r <= '9':
			b.WriteRune(r)
		}
	}
	return b.String()
}

// Every relative link in README.md and docs/*.md names a file of the
// checkout, and every #anchor a heading of the page it points to.
func TestDocLinks(t *testing.T) {
	anchors := func(doc string) map[string]bool {
		data, err := os.ReadFile(filepath.Join(repoRoot, doc))
		if err != nil {
			return nil
		}
		out := map[string]bool{}
		inFence := false
		for _, l := range strings.Split(string(data), "\n") {
			if strings.HasPrefix(l, "```") {
				inFence = !inFence
			}
			if !inFence && strings.HasPrefix(l, "#") {
				out[slug(strings.TrimLeft(l, "#"))] = true
			}
		}
		return out
	}
	checked := 0
	for _, doc := range docs(t) {
		data, err := os.ReadFile(filepath.Join(repoRoot, doc))
		if err != nil {
			t.Fatal(err)
		}
		for _, m := range mdLink.FindAllStringSubmatch(string(data), -1) {
			target := m[1]
			if strings.Contains(target, "://") || strings.HasPrefix(target, "mailto:") {
				continue
			}
			file, anchor, _ := strings.Cut(target, "#")
			page := doc
			if file != "" {
				page = filepath.ToSlash(filepath.Join(filepath.Dir(doc), file))
			}
			if _, err := os.Stat(filepath.Join(repoRoot, page)); err != nil {
				if !pendingPages[page] {
					t.Errorf("%s: link %s: %s does not exist", doc, target, page)
				}
				continue
			}
			checked++
			if anchor != "" && !anchors(page)[anchor] {
				t.Errorf("%s: link %s: no heading #%s in %s", doc, target, anchor, page)
			}
		}
	}
	if checked < 20 {
		t.Errorf("only %d links checked", checked)
	}
}

package golangci_test

import (
	"bytes"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"

	"golang.org/x/tools/go/analysis/analysistest"

	"github.com/dstsafe/dstsafe/cmd/dstsafevet"
)

// samePathsPackages are checked through all three paths: the shapes of
// issue 24 (zoned schedulers, at-time builders, the 24 h step, hour
// windows, a helper of another package read through facts, parsed run
// times, dedup keys) and the postmortem's scheduler.
var samePathsPackages = []string{
	"corpus/zoned", "corpus/tomorrow", "corpus/windows", "corpus/helpers/loop",
	"corpus/parsed", "corpus/dedup", "corpus/variants", "postmortem/seed", "postmortem/fixed",
	"corpus/round3/timeutil", "corpus/round3", "testsflag",
}

// TestSameFindingsEveryPath runs the analyzers on the same packages as a
// vet tool (go vet -vettool=dstsafe-vet, unitchecker: one process per
// package, facts through files), as the standalone binary (dstsafe-vet
// PKG..., the checker over go/packages) and through the golangci-lint
// plugin (register.GetPlugin, New, BuildAnalyzers, the analyzers run in
// one pass per package as golangci-lint runs them, "analyzer: message"),
// and requires the same findings, line by line, with tests off and on
// (-NAME.tests; the plugin's tests setting). The testdata is a GOPATH
// tree (stub robfig/cron, gocron, go-redis), so the go command runs with
// GO111MODULE=off. golangci-lint itself is not built here: see
// TestCustomBinary.
func TestSameFindingsEveryPath(t *testing.T) {
	if testing.Short() {
		t.Skip("builds dstsafe-vet and runs go vet: tens of seconds")
	}
	testdata, err := filepath.Abs(filepath.Join("..", "dstsafevet", "testdata"))
	if err != nil {
		t.Fatal(err)
	}
	bin := filepath.Join(t.TempDir(), "dstsafe-vet")
	build := exec.Command("go", "build", "-o", bin, "github.com/dstsafe/dstsafe/cmd/dstsafe-vet")
	if out, err := build.CombinedOutput(); err != nil {
		t.Fatalf("go build: %v\n%s", err, out)
	}
	env := append(os.Environ(), "GO111MODULE=off", "GOPATH="+testdata, "GOFLAGS=", "GOWORK=off")
	run := func(name string, args ...string) []byte {
		t.Helper()
		cmd := exec.Command(name, args...)
		cmd.Dir, cmd.Env = filepath.Join(testdata, "src"), env
		var stdout, stderr bytes.Buffer
		cmd.Stdout, cmd.Stderr = &stdout, &stderr
		err := cmd.Run()
		var ee *exec.ExitError
		if err != nil && !errors.As(err, &ee) {
			t.Fatalf("%s: %v", name, err)
		}
		return append(stdout.Bytes(), stderr.Bytes()...)
	}

	// With tests on, testsflag's finding in its _test.go file is found
	// on every path; with tests off, on none.
	var counts [2]int
	for i, tests := range []bool{false, true} {
		var flags []string
		for _, a := range []string{"wallclock", "elapsedguard", "localdate", "cronspec"} {
			flags = append(flags, fmt.Sprintf("-%s.tests=%t", a, tests))
		}
		vet, err := jsonFindings(run("go", append(append([]string{"vet", "-vettool=" + bin, "-json"}, flags...), samePathsPackages...)...), testdata)
		if err != nil {
			t.Fatalf("go vet -vettool (tests %t): %v", tests, err)
		}
		standalone, err := jsonFindings(run(bin, append(append([]string{"-json"}, flags...), samePathsPackages...)...), testdata)
		if err != nil {
			t.Fatalf("dstsafe-vet (tests %t): %v", tests, err)
		}
		plug := pluginFindings(t, map[string]any{"tests": tests}, testdata, samePathsPackages...)

		if len(vet) < 40 {
			t.Fatalf("go vet -vettool found %d findings on the corpus, want at least 40: the run did not check what it should\n%s", len(vet), strings.Join(vet, "\n"))
		}
		for _, other := range []struct {
			name  string
			found []string
		}{{"dstsafe-vet (standalone)", standalone}, {"golangci-lint plugin", plug}} {
			if !slices.Equal(vet, other.found) {
				t.Errorf("tests %t: go vet -vettool and %s disagree:\n%s", tests, other.name, diff(vet, other.found))
			}
		}
		inTests := 0
		for _, f := range vet {
			if strings.Contains(f, "_test.go:") {
				inTests++
			}
		}
		if want := map[bool]int{false: 0, true: 1}[tests]; inTests != want {
			t.Errorf("tests %t: %d findings in _test.go files, want %d", tests, inTests, want)
		}
		counts[i] = len(vet)
		t.Logf("tests %t: %d findings (%d in _test.go files), the same through go vet -vettool, the standalone binary and the golangci-lint plugin", tests, len(vet), inTests)
	}
	if counts[1] <= counts[0] {
		t.Errorf("%d findings with tests on, %d with tests off: want more with tests on", counts[1], counts[0])
	}
}

// pluginFindings builds the plugin's analyzers from settings, runs them
// on pkgs as golangci-lint runs them and returns the findings, sorted; the
// analyzers' flags are put back to their defaults afterwards.
func pluginFindings(t *testing.T, settings map[string]any, testdata string, pkgs ...string) []string {
	t.Helper()
	as, err := plugin(t, settings).BuildAnalyzers()
	if err != nil {
		t.Fatal(err)
	}
	defer resetFlags()
	var found []string
	for _, r := range analysistest.Run(quietT{}, testdata, together(as), pkgs...) {
		for _, d := range r.Diagnostics {
			found = append(found, finding(r.Pass.Fset.Position(d.Pos).String(), d.Message, testdata))
		}
	}
	slices.Sort(found)
	return slices.Compact(found)
}

// resetFlags puts the analyzers' flags back to their defaults: the plugin
// sets them on the shared analyzers.
func resetFlags() {
	for _, a := range dstsafevet.Analyzers() {
		a.Flags.VisitAll(func(f *flag.Flag) { a.Flags.Set(f.Name, f.DefValue) })
	}
}

// quietT lets analysistest load and run without judging want comments:
// the comparison is the test here.
type quietT struct{}

func (quietT) Errorf(string, ...any) {}

// jsonFindings reads the -json output of go vet or dstsafe-vet (one JSON
// object per package, go vet's "# pkg" lines between them).
func jsonFindings(out []byte, root string) ([]string, error) {
	var lines []string
	for _, l := range strings.Split(string(out), "\n") {
		if !strings.HasPrefix(l, "#") {
			lines = append(lines, l)
		}
	}
	dec := json.NewDecoder(strings.NewReader(strings.Join(lines, "\n")))
	var found []string
	for {
		var tree map[string]map[string]json.RawMessage
		err := dec.Decode(&tree)
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			return nil, fmt.Errorf("%w in:\n%s", err, out)
		}
		for _, byAnalyzer := range tree {
			for name, raw := range byAnalyzer {
				var ds []struct{ Posn, Message string }
				if err := json.Unmarshal(raw, &ds); err != nil {
					var e struct{ Error string }
					if json.Unmarshal(raw, &e) == nil && e.Error != "" {
						return nil, fmt.Errorf("%s: %s", name, e.Error)
					}
					return nil, err
				}
				for _, d := range ds {
					found = append(found, finding(d.Posn, d.Message, root))
				}
			}
		}
	}
	slices.Sort(found)
	return slices.Compact(found), nil
}

var colSuffix = regexp.MustCompile(`:\d+$`)

// finding writes a diagnostic as "src/pkg/file.go:line: message".
func finding(posn, msg, root string) string {
	posn = colSuffix.ReplaceAllString(posn, "")
	if rel, err := filepath.Rel(root, posn); err == nil {
		posn = filepath.ToSlash(rel)
	}
	return posn + ": " + msg
}

func diff(a, b []string) string {
	var s strings.Builder
	for _, x := range a {
		if !slices.Contains(b, x) {
			s.WriteString("- " + x + "\n")
		}
	}
	for _, x := range b {
		if !slices.Contains(a, x) {
			s.WriteString("+ " + x + "\n")
		}
	}
	return s.String()
}

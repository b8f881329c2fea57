package golangci_test

import (
	"bytes"
	"encoding/json"
	"errors"
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
)

// samePathsPackages are checked through all three paths: the shapes of
// issue 24 (zoned schedulers, at-time builders, the 24 h step, hour
// windows, a helper of another package read through facts, parsed run
// times, dedup keys) and the postmortem's scheduler.
var samePathsPackages = []string{
	"corpus/zoned", "corpus/tomorrow", "corpus/windows", "corpus/helpers/loop",
	"corpus/parsed", "corpus/dedup", "corpus/variants", "postmortem/seed", "postmortem/fixed",
}

// TestSameFindingsEveryPath runs the analyzers on the same packages as a
// vet tool (go vet -vettool=dstsafe-vet, unitchecker: one process per
// package, facts through files), as the standalone binary (dstsafe-vet
// PKG..., the checker over go/packages) and through the golangci-lint
// plugin (register.GetPlugin, New, BuildAnalyzers, the analyzers run in
// one pass per package as golangci-lint runs them, "analyzer: message"),
// and requires the same findings, line by line. The testdata is a GOPATH
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

	vet, err := jsonFindings(run("go", append([]string{"vet", "-vettool=" + bin, "-json"}, samePathsPackages...)...), testdata)
	if err != nil {
		t.Fatalf("go vet -vettool: %v", err)
	}
	standalone, err := jsonFindings(run(bin, append([]string{"-json"}, samePathsPackages...)...), testdata)
	if err != nil {
		t.Fatalf("dstsafe-vet: %v", err)
	}

	as, err := plugin(t, map[string]any{}).BuildAnalyzers()
	if err != nil {
		t.Fatal(err)
	}
	var plug []string
	for _, r := range analysistest.Run(quietT{}, testdata, together(as), samePathsPackages...) {
		for _, d := range r.Diagnostics {
			plug = append(plug, finding(r.Pass.Fset.Position(d.Pos).String(), d.Message, testdata))
		}
	}
	slices.Sort(plug)
	plug = slices.Compact(plug)

	if len(vet) < 40 {
		t.Fatalf("go vet -vettool found %d findings on the corpus, want at least 40: the run did not check what it should\n%s", len(vet), strings.Join(vet, "\n"))
	}
	for _, other := range []struct {
		name  string
		found []string
	}{{"dstsafe-vet (standalone)", standalone}, {"golangci-lint plugin", plug}} {
		if !slices.Equal(vet, other.found) {
			t.Errorf("go vet -vettool and %s disagree:\n%s", other.name, diff(vet, other.found))
		}
	}
	t.Logf("%d findings, the same through go vet -vettool, the standalone binary and the golangci-lint plugin", len(vet))
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

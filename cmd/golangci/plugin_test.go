package golangci_test

import (
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
	_ "time/tzdata" // the cronspec window check needs zone rules

	"github.com/golangci/plugin-module-register/register"
	"go.yaml.in/yaml/v3"
	"golang.org/x/tools/go/analysis"
	"golang.org/x/tools/go/analysis/analysistest"

	"github.com/dstsafe/dstsafe/cmd/golangci"
)

// plugin returns the registered plugin built from settings, as
// golangci-lint does: by name, through the register package.
func plugin(t *testing.T, settings any) register.LinterPlugin {
	t.Helper()
	newPlugin, err := register.GetPlugin(golangci.Name)
	if err != nil {
		t.Fatal(err)
	}
	p, err := newPlugin(settings)
	if err != nil {
		t.Fatal(err)
	}
	return p
}

// TestPluginRuns registers the plugin, builds its analyzers through the
// plugin API and runs them on the postmortem's scheduler: the two
// diagnostics its want comments name, nothing else.
func TestPluginRuns(t *testing.T) {
	p := plugin(t, map[string]any{"tests": false})
	if got := p.GetLoadMode(); got != register.LoadModeTypesInfo {
		t.Errorf("load mode %q, want %q", got, register.LoadModeTypesInfo)
	}
	as, err := p.BuildAnalyzers()
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, a := range as {
		names = append(names, a.Name)
	}
	if want := []string{"wallclock", "elapsedguard", "localdate", "cronspec"}; !slices.Equal(names, want) {
		t.Fatalf("analyzers %v, want %v", names, want)
	}
	testdata, err := filepath.Abs(filepath.Join("..", "dstsafevet", "testdata"))
	if err != nil {
		t.Fatal(err)
	}
	analysistest.Run(t, testdata, together(as), "postmortem/seed", "postmortem/fixed")
}

// together runs analyzers in one pass over one load, as golangci-lint
// runs them on a package, and words each message as golangci-lint prints
// it for a plugin with several analyzers: "analyzer: message".
func together(as []*analysis.Analyzer) *analysis.Analyzer {
	var req []*analysis.Analyzer
	for _, a := range as {
		for _, r := range a.Requires {
			if !slices.Contains(req, r) {
				req = append(req, r)
			}
		}
	}
	return &analysis.Analyzer{
		Name: "plugin", Doc: "the plugin's analyzers", Requires: req,
		Run: func(pass *analysis.Pass) (any, error) {
			for _, a := range as {
				p := *pass
				p.Analyzer = a
				p.Report = func(d analysis.Diagnostic) {
					d.Message = a.Name + ": " + d.Message
					pass.Report(d)
				}
				if _, err := a.Run(&p); err != nil {
					return nil, err
				}
			}
			return nil, nil
		},
	}
}

// disable leaves analyzers out; a typo is an error, not a silent no-op.
func TestPluginSettings(t *testing.T) {
	as, err := plugin(t, map[string]any{"disable": []string{"cronspec", "localdate"}}).BuildAnalyzers()
	if err != nil {
		t.Fatal(err)
	}
	if len(as) != 2 || as[0].Name != "wallclock" || as[1].Name != "elapsedguard" {
		t.Fatalf("analyzers %v, want wallclock and elapsedguard", as)
	}
	newPlugin, err := register.GetPlugin(golangci.Name)
	if err != nil {
		t.Fatal(err)
	}
	for _, bad := range []map[string]any{{"disable": []string{"wallclok"}}, {"test": true}} {
		if _, err := newPlugin(bad); err == nil {
			t.Errorf("settings %v accepted, want an error", bad)
		}
	}
}

// TestPluginFileSettings runs the plugin's analyzers, as golangci-lint
// runs them (copies that drop the "name: " prefix, all in one pass), on a
// package whose only finding is in a _test.go file and on one whose only
// finding is in a generated file, and counts the findings: the tests and
// generated settings decide, not only the flags' values.
func TestPluginFileSettings(t *testing.T) {
	testdata, err := filepath.Abs(filepath.Join("..", "dstsafevet", "testdata"))
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		pkg      string
		settings map[string]any
		want     int
	}{
		{"testsflag", map[string]any{}, 0},
		{"testsflag", map[string]any{"tests": false}, 0},
		{"testsflag", map[string]any{"tests": true}, 1},
		{"generatedflag", map[string]any{}, 0},
		{"generatedflag", map[string]any{"generated": true}, 1},
		{"generatedflag", map[string]any{"tests": true}, 0},
	} {
		got := pluginFindings(t, tc.settings, testdata, tc.pkg)
		if len(got) != tc.want {
			t.Errorf("%s with %v: %d findings, want %d:\n%s", tc.pkg, tc.settings, len(got), tc.want, strings.Join(got, "\n"))
		}
		for _, f := range got {
			if !strings.Contains(f, "wallclock: matching the local hour") {
				t.Errorf("%s with %v: unexpected finding %s", tc.pkg, tc.settings, f)
			}
		}
	}
}

// customConfig is the part of .custom-gcl.yml the build uses.
type customConfig struct {
	Version string `yaml:"version"`
	Name    string `yaml:"name"`
	Plugins []struct {
		Module string `yaml:"module"`
		Import string `yaml:"import"`
		Path   string `yaml:"path"`
	} `yaml:"plugins"`
}

// TestCustomBinary builds the golangci-lint binary .custom-gcl.yml
// describes and runs it, with .golangci.example.yml, on the postmortem's
// scheduler. It does what golangci-lint custom does (plugins.go imports,
// replace directives, go mod tidy, go build) on golangci-lint's source
// from the Go module proxy rather than a git clone of GitHub. It downloads
// golangci-lint's dependencies and compiles them: minutes, so it runs only
// with DSTSAFE_GOLANGCI_BUILD=1.
func TestCustomBinary(t *testing.T) {
	if os.Getenv("DSTSAFE_GOLANGCI_BUILD") != "1" {
		t.Skip("set DSTSAFE_GOLANGCI_BUILD=1 to build the custom golangci-lint binary (minutes, needs the Go module proxy)")
	}
	raw, err := os.ReadFile(".custom-gcl.yml")
	if err != nil {
		t.Fatal(err)
	}
	var cfg customConfig
	if err := yaml.Unmarshal(raw, &cfg); err != nil {
		t.Fatal(err)
	}
	env := append(os.Environ(), "GOWORK=off", "GOFLAGS=-mod=mod")
	gocmd := func(dir string, args ...string) []byte {
		t.Helper()
		cmd := exec.Command("go", args...)
		cmd.Dir, cmd.Env = dir, env
		out, err := cmd.CombinedOutput()
		if err != nil {
			t.Fatalf("go %s: %v\n%s", strings.Join(args, " "), err, out)
		}
		return out
	}

	// golangci-lint's source at the configured version.
	var mod struct{ Dir string }
	if err := json.Unmarshal(gocmd(".", "mod", "download", "-json", "github.com/golangci/golangci-lint/v2@"+cfg.Version), &mod); err != nil {
		t.Fatal(err)
	}
	repo := filepath.Join(t.TempDir(), "golangci-lint")
	if err := os.CopyFS(repo, os.DirFS(mod.Dir)); err != nil {
		t.Fatal(err)
	}
	var imports strings.Builder
	imports.WriteString("package main\n\nimport (\n")
	for _, p := range cfg.Plugins {
		imports.WriteString("\t_ \"" + p.Import + "\"\n")
		abs, err := filepath.Abs(p.Path)
		if err != nil {
			t.Fatal(err)
		}
		gocmd(repo, "mod", "edit", "-replace", p.Module+"="+abs)
	}
	imports.WriteString(")\n")
	plugins := filepath.Join(repo, "cmd", "golangci-lint", "plugins.go")
	os.Chmod(plugins, 0o644)
	if err := os.WriteFile(plugins, []byte(imports.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	gocmd(repo, "mod", "tidy")
	bin := filepath.Join(t.TempDir(), cfg.Name)
	gocmd(repo, "build", "-o", bin, "./cmd/golangci-lint")

	// A project with the postmortem's scheduler, linted with it.
	proj := t.TempDir()
	seed, err := os.ReadFile(filepath.Join("..", "dstsafevet", "testdata", "src", "postmortem", "seed", "seed.go"))
	if err != nil {
		t.Fatal(err)
	}
	lintCfg, err := os.ReadFile(".golangci.example.yml")
	if err != nil {
		t.Fatal(err)
	}
	for name, data := range map[string][]byte{
		"go.mod": []byte("module example.com/billing\n\ngo 1.25.0\n"), "seed.go": seed, ".golangci.yml": lintCfg,
	} {
		if err := os.WriteFile(filepath.Join(proj, name), data, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	cmd := exec.Command(bin, "run", "--output.text.path=stdout", "--show-stats=false", "./...")
	cmd.Dir, cmd.Env = proj, append(os.Environ(), "GOWORK=off")
	out, err := cmd.CombinedOutput()
	if ee, ok := err.(*exec.ExitError); !ok || ee.ExitCode() != 1 {
		t.Fatalf("custom-gcl run: %v (want exit 1, issues found)\n%s", err, out)
	}
	for _, want := range []string{`seed\.go:20:\d+: wallclock: matching the local hour/minute`, `seed\.go:21:\d+: elapsedguard: an elapsed-time guard`} {
		// Once each: golangci-lint adds the analyzer's name, the plugin
		// drops the one the message carries for go vet.
		if !regexp.MustCompile(want).Match(out) {
			t.Errorf("custom-gcl output lacks %s:\n%s", want, out)
		}
	}
	if strings.Contains(string(out), "wallclock: wallclock:") {
		t.Errorf("analyzer name doubled:\n%s", out)
	}
	if n := strings.Count(string(out), "(dstsafevet)"); n != 2 {
		t.Errorf("%d dstsafevet issues, want 2:\n%s", n, out)
	}
}

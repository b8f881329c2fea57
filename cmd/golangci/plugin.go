// Package golangci is the golangci-lint v2 module plugin for the dstsafevet
// analyzers: wallclock, elapsedguard, localdate and cronspec, with the
// NowFlow analysis they share (its facts cross packages as under go vet).
//
// Importing it registers the plugin as "dstsafevet". Build a golangci-lint
// binary that contains it with golangci-lint custom and a .custom-gcl.yml
// (cmd/golangci/.custom-gcl.yml in a checkout), then enable it in
// .golangci.yml:
//
//	version: "2"
//	linters:
//	  enable:
//	    - dstsafevet
//	  settings:
//	    custom:
//	      dstsafevet:
//	        type: module
//	        description: DST-unsafe scheduling (wall-clock matches, elapsed-time guards, local dates, cron specs)
//	        settings:
//	          tests: false       # also check _test.go files
//	          generated: false   # also check files marked "// Code generated ... DO NOT EDIT."
//	          disable: []        # any of wallclock, elapsedguard, localdate, cronspec
//
// A line is silenced with "//dstsafevet:ignore reason", as under go vet.
package golangci

import (
	"fmt"
	"slices"
	"strconv"
	"strings"

	"github.com/golangci/plugin-module-register/register"
	"golang.org/x/tools/go/analysis"

	"github.com/dstsafe/dstsafe/cmd/dstsafevet"
)

// Name is the plugin's name in .golangci.yml.
const Name = "dstsafevet"

func init() { register.Plugin(Name, New) }

// Settings are the plugin's settings in .golangci.yml.
type Settings struct {
	// Tests also checks _test.go files. Defaults to false: tests build
	// schedules that straddle transitions on purpose.
	Tests bool `json:"tests"`
	// Generated also checks generated files (a "// Code generated ... DO
	// NOT EDIT." line, as go generate tools write). Defaults to false:
	// fix the generator, not its output.
	Generated bool `json:"generated"`
	// Disable names analyzers to leave out. Defaults to none.
	Disable []string `json:"disable"`
}

// Plugin is the dstsafevet linter plugin.
type Plugin struct {
	settings Settings
}

var _ register.LinterPlugin = (*Plugin)(nil)

// New decodes the plugin's settings; an unknown setting or analyzer name is
// an error, so a typo does not silently turn a check off.
func New(conf any) (register.LinterPlugin, error) {
	s, err := register.DecodeSettings[Settings](conf)
	if err != nil {
		return nil, fmt.Errorf("dstsafevet: %w", err)
	}
	for _, name := range s.Disable {
		if !slices.ContainsFunc(dstsafevet.Analyzers(), func(a *analysis.Analyzer) bool { return a.Name == name }) {
			return nil, fmt.Errorf("dstsafevet: disable: unknown analyzer %q (want wallclock, elapsedguard, localdate or cronspec)", name)
		}
	}
	return &Plugin{settings: s}, nil
}

// BuildAnalyzers returns the enabled analyzers, with their -tests and
// -generated flags set from the settings. golangci-lint runs NowFlow, which they require, and
// prints each message after the analyzer's name ("wallclock: ...").
func (p *Plugin) BuildAnalyzers() ([]*analysis.Analyzer, error) {
	var out []*analysis.Analyzer
	for _, a := range dstsafevet.Analyzers() {
		if slices.Contains(p.settings.Disable, a.Name) {
			continue
		}
		// The copy unprefixed makes shares these flags: the analyzers
		// read them from the analyzer that runs.
		for name, v := range map[string]bool{"tests": p.settings.Tests, "generated": p.settings.Generated} {
			if err := a.Flags.Set(name, strconv.FormatBool(v)); err != nil {
				return nil, fmt.Errorf("dstsafevet: %s: %w", a.Name, err)
			}
		}
		out = append(out, unprefixed(a))
	}
	return out, nil
}

// unprefixed returns a copy of a whose diagnostics lose their leading
// "name: ": golangci-lint puts the analyzer's name in front of every
// message of a plugin with several analyzers, and go vet does not.
func unprefixed(a *analysis.Analyzer) *analysis.Analyzer {
	c := *a
	c.Run = func(pass *analysis.Pass) (any, error) {
		p := *pass
		p.Report = func(d analysis.Diagnostic) {
			d.Message = strings.TrimPrefix(d.Message, a.Name+": ")
			pass.Report(d)
		}
		return a.Run(&p)
	}
	return &c
}

// GetLoadMode asks for type information: the analyzers need it.
func (p *Plugin) GetLoadMode() string { return register.LoadModeTypesInfo }

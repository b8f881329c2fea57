// Command testreport reads `go test -json` from stdin and prints what a
// person needs from it: each package's result line, the full output of
// every failed test, and a closing summary with the number of tests that
// passed, failed and skipped and, for every skip, the test and its reason.
// It exits 1 if any test or package failed, or if the input held no test.
//
//	go test -json ./... | go run ./scripts/internal/testreport
package main

import (
	"bufio"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"sort"
	"strings"
)

type event struct {
	Action  string
	Package string
	Test    string
	Output  string
}

type key struct{ pkg, test string }

func main() {
	os.Exit(run(os.Stdin, os.Stdout))
}

func run(in io.Reader, out io.Writer) int {
	outputs := map[key][]string{}
	var passed, failed, skipped int
	var skips, failures []string
	pkgFailed := false
	sc := bufio.NewScanner(in)
	sc.Buffer(make([]byte, 1<<20), 1<<26)
	for sc.Scan() {
		line := sc.Bytes()
		var e event
		if err := json.Unmarshal(line, &e); err != nil || e.Action == "" {
			// Build errors and other plain lines come through as they are.
			fmt.Fprintln(out, string(line))
			continue
		}
		k := key{e.Package, e.Test}
		switch e.Action {
		case "output":
			if e.Test == "" {
				// Package-level lines: "ok pkg 1.2s", "FAIL", "--- FAIL"...
				if s := strings.TrimRight(e.Output, "\n"); isResultLine(s) {
					fmt.Fprintln(out, s)
				}
				outputs[k] = append(outputs[k], e.Output)
				continue
			}
			outputs[k] = append(outputs[k], e.Output)
		case "pass":
			if e.Test != "" {
				passed++
			}
			delete(outputs, k)
		case "skip":
			if e.Test != "" {
				skipped++
				skips = append(skips, fmt.Sprintf("%s %s: %s", e.Package, e.Test, skipReason(outputs[k])))
			}
			delete(outputs, k)
		case "fail":
			if e.Test == "" {
				pkgFailed = true
				if out := strings.Join(outputs[k], ""); !strings.Contains(out, "--- FAIL") {
					failures = append(failures, fmt.Sprintf("package %s:\n%s", e.Package, out))
				}
				// Tests of the package that never ended were running when
				// it died (a timeout's panic, a crash): their output, the
				// panic's included, is the only clue, so it is shown.
				var open []key
				for o := range outputs {
					if o.pkg == e.Package && o.test != "" {
						open = append(open, o)
					}
				}
				sort.Slice(open, func(i, j int) bool { return open[i].test < open[j].test })
				for _, o := range open {
					lines := outputs[o]
					if len(lines) > 200 {
						lines = lines[len(lines)-200:]
					}
					failures = append(failures, fmt.Sprintf("%s %s (still running when the package failed):\n%s", o.pkg, o.test, strings.Join(lines, "")))
					delete(outputs, o)
				}
				continue
			}
			failed++
			failures = append(failures, fmt.Sprintf("%s %s:\n%s", e.Package, e.Test, strings.Join(outputs[k], "")))
			delete(outputs, k)
		}
	}
	if err := sc.Err(); err != nil {
		fmt.Fprintln(out, "testreport:", err)
		return 1
	}
	for _, f := range failures {
		fmt.Fprintln(out, "FAILED", f)
	}
	sort.Strings(skips)
	if len(skips) > 0 {
		fmt.Fprintf(out, "%d tests skipped:\n", len(skips))
		for _, s := range skips {
			fmt.Fprintln(out, "  SKIP", s)
		}
	}
	fmt.Fprintf(out, "%d passed, %d failed, %d skipped\n", passed, failed, skipped)
	if failed > 0 || pkgFailed || passed+failed == 0 {
		return 1
	}
	return 0
}

func isResultLine(s string) bool {
	return strings.HasPrefix(s, "ok ") || strings.HasPrefix(s, "FAIL") || strings.HasPrefix(s, "?   ") ||
		strings.HasPrefix(s, "panic:") || strings.HasPrefix(s, "# ")
}

// skipReason is the last line a skipped test printed before "--- SKIP",
// which is what t.Skip was given.
func skipReason(lines []string) string {
	reason := "no reason given"
	for _, l := range lines {
		l = strings.TrimSpace(l)
		if l == "" || strings.HasPrefix(l, "=== ") || strings.HasPrefix(l, "--- SKIP") {
			continue
		}
		reason = l
	}
	return reason
}

package main

import (
	"strings"
	"testing"
)

func TestRun(t *testing.T) {
	for _, tc := range []struct {
		name, in string
		rc       int
		want     []string
	}{
		{"a skip is counted with its reason",
			`{"Action":"output","Package":"p","Test":"T","Output":"    x_test.go:3: REDIS is not set\n"}
{"Action":"skip","Package":"p","Test":"T"}
{"Action":"pass","Package":"p","Test":"U"}
{"Action":"pass","Package":"p"}`,
			0, []string{"SKIP p T: x_test.go:3: REDIS is not set", "1 passed, 0 failed, 1 skipped"}},
		{"a failure prints its output and fails the run",
			`{"Action":"output","Package":"p","Test":"T","Output":"    boom\n"}
{"Action":"fail","Package":"p","Test":"T"}
{"Action":"fail","Package":"p"}`,
			1, []string{"FAILED p T:", "boom", "0 passed, 1 failed, 0 skipped"}},
		{"a build error fails the run",
			`# p
x.go:1: syntax error
{"Action":"output","Package":"p","Output":"FAIL\tp [build failed]\n"}
{"Action":"fail","Package":"p"}`,
			1, []string{"x.go:1: syntax error", "FAIL\tp [build failed]"}},
		{"no test at all fails the run", ``, 1, []string{"0 passed, 0 failed, 0 skipped"}},
		{"a timeout names the test that was still running, with the panic",
			`{"Action":"pass","Package":"p","Test":"Fast"}
{"Action":"output","Package":"p","Test":"Hangs","Output":"=== RUN   Hangs\n"}
{"Action":"output","Package":"p","Test":"Hangs","Output":"panic: test timed out after 10m0s\n"}
{"Action":"output","Package":"p","Output":"FAIL\tp\t600.067s\n"}
{"Action":"fail","Package":"p"}`,
			1, []string{"FAILED p Hangs (still running when the package failed):", "panic: test timed out after 10m0s", "1 passed, 0 failed, 0 skipped"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var out strings.Builder
			if rc := run(strings.NewReader(tc.in), &out); rc != tc.rc {
				t.Errorf("rc = %d, want %d; output:\n%s", rc, tc.rc, out.String())
			}
			for _, w := range tc.want {
				if !strings.Contains(out.String(), w) {
					t.Errorf("output lacks %q:\n%s", w, out.String())
				}
			}
		})
	}
}

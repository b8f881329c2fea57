package testkit

import (
	"fmt"
	"runtime"
	"strings"
	"testing"
)

// recordingTB is a testing.TB whose Skipf and Fatalf are recorded, and
// end the calling goroutine as the real ones do.
type recordingTB struct {
	testing.TB
	skipped, fatal string
}

func (r *recordingTB) Helper() {}

func (r *recordingTB) Skipf(format string, args ...any) {
	r.skipped = fmt.Sprintf(format, args...)
	runtime.Goexit()
}

func (r *recordingTB) Fatalf(format string, args ...any) {
	r.fatal = fmt.Sprintf(format, args...)
	runtime.Goexit()
}

// run calls RequireEnv on a recordingTB in a goroutine of its own, so
// that Goexit ends only that goroutine.
func run(name string) (value string, tb *recordingTB) {
	tb = &recordingTB{}
	done := make(chan struct{})
	go func() {
		defer close(done)
		value = RequireEnv(tb, name)
	}()
	<-done
	return value, tb
}

func TestRequireEnv(t *testing.T) {
	const name = "DSTSAFE_TEST_REQUIREENV_PROBE"
	tests := []struct {
		name, value, ci string
		want            string
		skipped, failed bool
	}{
		{"set", "127.0.0.1:6379", "", "127.0.0.1:6379", false, false},
		{"set under CI", "127.0.0.1:6379", "true", "127.0.0.1:6379", false, false},
		// A developer without servers: skip, naming the variable.
		{"unset", "", "", "", true, false},
		// CI without servers would report green while testing nothing: fail.
		{"unset under CI", "", "true", "", false, true},
		{"unset, CI=false", "", "false", "", true, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Setenv(name, tt.value)
			t.Setenv("CI", tt.ci)
			got, tb := run(name)
			if got != tt.want || (tb.skipped != "") != tt.skipped || (tb.fatal != "") != tt.failed {
				t.Fatalf("RequireEnv = %q, skipped %q, failed %q", got, tb.skipped, tb.fatal)
			}
			for _, msg := range []string{tb.skipped, tb.fatal} {
				if msg != "" && !strings.Contains(msg, name) {
					t.Errorf("message %q does not name %s", msg, name)
				}
			}
		})
	}
}

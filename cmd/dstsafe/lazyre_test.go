package main

import (
	"regexp"
	"testing"
)

// Every check pattern compiles: they are compiled on first use
// (lazyRegexp), so a typo would otherwise panic only when a file that
// needs it is checked.
func TestLazyPatternsCompile(t *testing.T) {
	if len(lazyPatterns) < 60 {
		t.Fatalf("%d lazy patterns, want the check command's 60 or more", len(lazyPatterns))
	}
	for _, l := range lazyPatterns {
		if _, err := regexp.Compile(l.src); err != nil {
			t.Errorf("%s: %v", l.src, err)
			continue
		}
		if got := l.get().String(); got != l.src {
			t.Errorf("compiled %q, want %q", got, l.src)
		}
	}
}

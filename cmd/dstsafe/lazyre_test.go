package main

import (
	"regexp"
	"testing"

	"github.com/stretchr/testify/require"
)

// Every check pattern compiles: they are compiled on first use
// (lazyRegexp), so a typo would otherwise panic only when a file that
// needs it is checked.
func TestLazyPatternsCompile(t *testing.T) {
	require.GreaterOrEqual(t, len(lazyPatterns), 60)
	for _, l := range lazyPatterns {
		_, err := regexp.Compile(l.src)
		require.NoError(t, err, l.src)
		require.Equal(t, l.src, l.get().String())
	}
}

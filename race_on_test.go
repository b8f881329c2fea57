//go:build race

package dstsafe_test

// Under -race every time-package call costs some 70 times more, so the
// exhaustive property tests walk a subsample: every raceZoneStride-th zone
// plus the famous ones, and fewer random cases.
const (
	raceEnabled    = true
	raceZoneStride = 10
	randomScale    = 10 // divide random case counts by this
)

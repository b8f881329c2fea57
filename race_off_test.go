//go:build !race

package dstsafe_test

// Without -race the property tests walk every zone of the tz database.
const (
	raceEnabled    = false
	raceZoneStride = 1
	randomScale    = 1
)

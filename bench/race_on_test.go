//go:build race

package bench

// Under -race the differential run takes a tenth of its specs.
const raceEnabled = true

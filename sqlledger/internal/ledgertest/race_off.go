//go:build !race

package ledgertest

// raceDetector: see race_on.go.
const raceDetector = false

//go:build !race

package sqlledger_test

// raceDetector: see race_on_test.go.
const raceDetector = false

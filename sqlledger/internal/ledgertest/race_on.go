//go:build race

package ledgertest

// raceDetector: the race detector slows modernc.org/sqlite's translated C
// about tenfold, so the 10,000-period races run without it (scripts/test
// runs them in a separate pass) and with it on a smaller scale.
const raceDetector = true

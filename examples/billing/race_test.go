//go:build race

package main

// raceDetector: SQLite's translated C runs about ten times slower under
// the race detector, too slow for the full-size replay.
const raceDetector = true

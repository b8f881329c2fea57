package dstsafe_test

import (
	"sync"
	"testing"
	"time"
)

// The waits of the root package's tests are bounded: a test whose
// scheduler is broken must fail with what it was waiting for and the
// state it found, never hang until go test's own timeout (which names
// no test: the audit's Backfill fault hung a later example 13 minutes).
// The bounds are real time, a safety net for a broken build, never a
// synchronisation: what the tests wait for happens on fake clocks.

// stuckAfter is how long a test waits for something its fake clock has
// already made due.
const stuckAfter = 30 * time.Second

// waitFor yields until cond holds; after d it fails with describe(), the
// state it was stuck in.
func waitFor(t testing.TB, d time.Duration, cond func() bool, describe func() string) {
	t.Helper()
	deadline := time.NewTimer(d)
	defer deadline.Stop()
	tick := time.NewTicker(time.Millisecond)
	defer tick.Stop()
	for !cond() {
		select {
		case <-deadline.C:
			t.Fatalf("still waiting after %v: %s", d, describe())
		case <-tick.C:
		}
	}
}

// recvWithin receives from ch; after d it fails naming what it waited
// for.
func recvWithin[T any](t testing.TB, ch <-chan T, d time.Duration, what string) T {
	t.Helper()
	deadline := time.NewTimer(d)
	defer deadline.Stop()
	select {
	case v := <-ch:
		return v
	case <-deadline.C:
		t.Fatalf("no %s after %v: stuck", what, d)
	}
	var zero T
	return zero
}

// waitWithin waits for wg; after d it fails with describe().
func waitWithin(t testing.TB, wg *sync.WaitGroup, d time.Duration, describe func() string) {
	t.Helper()
	done := make(chan struct{})
	go func() { wg.Wait(); close(done) }()
	deadline := time.NewTimer(d)
	defer deadline.Stop()
	select {
	case <-done:
	case <-deadline.C:
		t.Fatalf("still waiting after %v: %s", d, describe())
	}
}

package dstsafetest

import (
	"sync"
	"testing"
	"time"
)

// stuckAfter bounds, in real time, a suite's wait for its own goroutines
// (ledger calls racing each other): a watchdog against a hang, never a
// synchronisation.
const stuckAfter = 2 * time.Minute

// waitGroup waits for wg, at most stuckAfter; then it fails t naming
// what it waited for, instead of hanging until go test's timeout (a
// ledger call that never returns).
func waitGroup(t testing.TB, wg *sync.WaitGroup, format string, args ...any) {
	t.Helper()
	done := make(chan struct{})
	go func() {
		wg.Wait()
		close(done)
	}()
	select {
	case <-done:
	case <-wallClock.After(stuckAfter):
		t.Fatalf("dstsafetest: still waiting after %v for "+format, append([]any{stuckAfter}, args...)...)
	}
}

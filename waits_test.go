package dstsafe_test

import (
	"context"
	"fmt"
	"sync"
	"testing"
	"time"

	"github.com/jonboulle/clockwork"
	"github.com/stretchr/testify/require"

	"github.com/dstsafe/dstsafe"
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

// simCtx bounds a Simulate in a test by real time, a safety net and never
// a synchronisation (time moves on the fake clock): a simulation that
// never reaches its end (a scheduler that keeps finding work at one
// instant) fails the test with Simulate's error, which says where it
// stopped, instead of running until go test's timeout.
func simCtx(t testing.TB) context.Context {
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	t.Cleanup(cancel)
	return ctx
}

// A job that never returns on its own (it waits for its context, which
// the drain cancels) keeps Simulate's scheduler busy at its due instant:
// the clock cannot move. Bounded by its context, Simulate fails with an
// error that says where it stopped, and returns: the stopped Run cancels
// the job at once instead of draining it on a clock nobody moves.
func TestSimulateStuckFailsWithWhereItStopped(t *testing.T) {
	fc := clockwork.NewFakeClockAt(time.Date(2024, 3, 10, 6, 0, 0, 0, time.UTC))
	s := dstsafe.NewScheduler(dstsafe.WithClock(fc), dstsafe.WithLogger(quiet()))
	started := make(chan struct{})
	require.NoError(t, s.Add("export", mustCron(t, "30 6 * * *"), func(ctx context.Context, _ dstsafe.Run) error {
		close(started)
		<-ctx.Done()
		return context.Cause(ctx)
	}))
	ctx, cancel := context.WithCancel(context.Background())
	go func() { <-started; cancel() }()
	fires, err := dstsafe.Simulate(ctx, s, 24*time.Hour)
	require.ErrorIs(t, err, context.Canceled)
	require.Empty(t, fires, "the run never ended within the simulation")
	// It stopped at the job's due instant, 06:30 UTC, far from the end.
	require.True(t, fc.Now().Equal(time.Date(2024, 3, 10, 6, 30, 0, 0, time.UTC)), fc.Now())
	want := fmt.Sprintf("dstsafe: Simulate stopped at 2024-03-10T06:30:00Z (end 2024-03-11T06:00:00Z) after 0 runs: %v", context.Canceled)
	require.Equal(t, want, err.Error())
}

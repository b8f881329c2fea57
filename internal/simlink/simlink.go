// Package simlink hands package dstsafetest the cluster driver that
// package dstsafe keeps unexported: several Schedulers, each on its own
// fake clock, driven on one true time line by the simulation seam that
// Simulate uses for one.
//
// The driver needs dstsafe's unexported run loop, and dstsafetest imports
// dstsafe, so the driver lives in dstsafe and registers itself here in its
// init (the pattern of package ledgerlink). The type parameters stand for
// *dstsafe.Scheduler and dstsafe.Fire; Get panics if they disagree with
// what Set was given, so any test of the cluster simulator catches a
// mismatch.
package simlink

import (
	"context"
	"fmt"
	"strings"
	"time"

	"github.com/jonboulle/clockwork"
)

// Member is one scheduler's place on the time line.
type Member[F any] struct {
	// Clock is the scheduler's clock (it was built WithClock(Clock)); the
	// driver sets it to Local(t) whenever the true time is t.
	Clock *clockwork.FakeClock
	// Local maps a true instant to the member's clock reading, True a
	// reading back to the earliest true instant at which the clock shows
	// it. Both are non-decreasing.
	Local, True func(time.Time) time.Time
	// Record, when set, gets every run the scheduler started.
	Record func(F)
}

// Handle is a started member.
type Handle interface {
	// Stop cancels the member's Run (a crash: the caller has cut its
	// ledger off) and returns at once.
	Stop()
	// Sleep waits d on the member's clock, counted as asleep, so the
	// driver moves time on; false if ctx ends or the member stops first.
	Sleep(ctx context.Context, d time.Duration) bool
	// Wait waits for the member's Run to return and returns its error.
	Wait() error
}

// Driver drives members on one true time line.
type Driver[S, F any] interface {
	// Start runs s on m's clock from the current true instant. It may be
	// called before Run, or from Run's at callback or from a member's own
	// goroutine (an Observer) while Run runs.
	Start(s S, m Member[F]) Handle
	// Run moves the true clock, only while every member is idle, to end.
	// mark returns the instant of the caller's earliest pending action
	// (zero: none): the clock stops there, and at is called, with every
	// member idle, as soon as that instant is not after now; at must
	// consume the actions due. At the end Run stops every member and
	// waits for them.
	Run(ctx context.Context, end time.Time, mark func(now time.Time) time.Time, at func(now time.Time)) error
}

var newDriver any

// Set registers the driver constructor. Package dstsafe calls it once, in
// its init.
func Set[S, F any](f func(truth *clockwork.FakeClock) Driver[S, F]) { newDriver = f }

// New returns a driver on the true clock truth.
func New[S, F any](truth *clockwork.FakeClock) Driver[S, F] {
	f, ok := newDriver.(func(*clockwork.FakeClock) Driver[S, F])
	if !ok {
		panic("simlink: package dstsafe registered no cluster driver for these types")
	}
	return f(truth)
}

// StuckError is Driver.Run's error for members that were still running
// after being stopped and stayed busy until Run's context ended: a job
// waiting on something no clock drives. It says where the cluster was.
type StuckError struct {
	// Members are the owners of the members still running.
	Members []string
	// At is the true instant the cluster was stuck at.
	At time.Time
	// Busy is the number of goroutines counted busy, Wakes the instants
	// the sleepers wait for (true time, earliest first).
	Busy  int
	Wakes []time.Time
	// Err is the context's error.
	Err error
}

func (e *StuckError) Error() string {
	wakes := make([]string, len(e.Wakes))
	for i, w := range e.Wakes {
		wakes[i] = w.UTC().Format(time.RFC3339Nano)
	}
	return fmt.Sprintf("dstsafe: cluster simulation: %s still running after being stopped at %s: %d goroutines busy, sleepers due at [%s]: %v",
		strings.Join(e.Members, ", "), e.At.UTC().Format(time.RFC3339Nano), e.Busy, strings.Join(wakes, " "), e.Err)
}

func (e *StuckError) Unwrap() error { return e.Err }

package dstsafe

import (
	"time"

	"github.com/jonboulle/clockwork"
)

// Clock is the source of time for everything in this module that needs the
// current instant or has to wait: the Scheduler, the ledgers' lease checks and
// Simulate. Library code never calls time.Now, time.Sleep or time.NewTimer;
// it asks a Clock.
//
// Clock is deliberately the smallest interface the runner needs, so that it
// can never grow a method that breaks an outside implementation (clockwork's
// own history: adding Until to its Clock broke every third-party clock).
// Every clockwork.Clock satisfies it, the real one (clockwork.NewRealClock(),
// every default here) and a *clockwork.FakeClock alike.
type Clock interface {
	// Now returns the current instant.
	Now() time.Time
	// NewTimer returns a timer that sends the current time on its channel
	// (Chan) after at least d; Stop and Reset behave as for a *time.Timer.
	// A non-positive d fires immediately. The timer is clockwork's, so a
	// *clockwork.FakeClock drives it.
	NewTimer(d time.Duration) clockwork.Timer
}

// Compile-time proof that every clockwork clock is a Clock.
var (
	_ Clock = clockwork.Clock(nil)
	_ Clock = clockwork.NewRealClock()
	_ Clock = (*clockwork.FakeClock)(nil)
)

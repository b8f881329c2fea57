package dstsafe_test

import (
	"time"

	"github.com/jonboulle/clockwork"
)

// offsetClock is a replica's clock that reads off the ledger's by a fixed
// offset (positive: ahead), as a host whose NTP sync stopped does. Its
// timers are the fake clock's: a timer of d fires when the fake clock has
// advanced by d, as a real timer on the wrong wall clock would.
type offsetClock struct {
	*clockwork.FakeClock
	off time.Duration
}

func (c offsetClock) Now() time.Time { return c.FakeClock.Now().Add(c.off) }

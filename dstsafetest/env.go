package dstsafetest

import (
	"github.com/jonboulle/clockwork"
)

// wallClock is real time, for what a test must bound in real time and a
// fake clock cannot: a budget for its rounds, a watchdog against a hang.
// Schedules and ledgers in the suites run on fake clocks.
var wallClock = clockwork.NewRealClock()

package dstsaferiver

import (
	"time"

	"github.com/riverqueue/river/rivertype"

	"github.com/dstsafe/dstsafe"
)

// ClockTime returns a river time generator (river.Config.Test.Time) that
// reads c, so river, the ledger and the schedule share one notion of now in
// a test: a *clockwork.FakeClock stops river's clock where the test put
// it. River still sleeps on real timers, so a clock moved forward makes
// due periods fire at river's next wake-up, not at once. NowOrNil always
// returns c's time, so river passes it to the database instead of the
// database's own now().
func ClockTime(c dstsafe.Clock) rivertype.TimeGenerator {
	if c == nil {
		panic("dstsaferiver: ClockTime with nil clock")
	}
	return clockTime{c}
}

type clockTime struct{ c dstsafe.Clock }

func (t clockTime) Now() time.Time { return t.c.Now() }

func (t clockTime) NowOrNil() *time.Time {
	now := t.c.Now()
	return &now
}

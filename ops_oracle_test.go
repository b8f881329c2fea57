package dstsafe_test

import (
	"slices"
	"testing"
	"time"

	"github.com/jonboulle/clockwork"

	"github.com/dstsafe/dstsafe"
	"github.com/dstsafe/dstsafe/dstsafetest"
)

// What the operating-jobs tests expect, from the cron oracle
// (cron_oracle_test.go: the time package alone), on the pinned zones.

// pinnedOracle scans the pinned zone name over [from-2 days, to+2 days].
func pinnedOracle(t testing.TB, name string, from, to time.Time) *zoneOracle {
	t.Helper()
	return spanOracle(tzZone{Name: name, Loc: zone(t, name)}, from.Unix()-2*86400, to.Unix()+2*86400)
}

// oracleFires lists what walls under p fire in (from, to] in zone name.
func oracleFires(t testing.TB, name string, walls func(from, to int64) []int64, p policy, from, to time.Time) []fire {
	t.Helper()
	lo, hi := from.Unix(), to.Unix()
	return expectFires(pinnedOracle(t, name, from, to), walls(lo, hi), p, lo, hi)
}

// daily names the walls at hh:mm every day.
func daily(hh, mm int) func(from, to int64) []int64 {
	return func(from, to int64) []int64 { return dailyWalls(int64(hh*3600+mm*60), from, to) }
}

// every names the walls whose minute is a multiple of n.
func every(n int) func(from, to int64) []int64 {
	return func(from, to int64) []int64 { return periodicWalls(int64(n), from, to) }
}

// minutesOfHour names the walls at the given minutes of every hour.
func minutesOfHour(mins ...int) func(from, to int64) []int64 {
	return func(from, to int64) []int64 {
		var ws []int64
		for h := floorDiv(from-maxOff, 3600); h <= floorDiv(to+maxOff, 3600); h++ {
			for _, m := range mins {
				ws = append(ws, h*3600+int64(m)*60)
			}
		}
		return ws
	}
}

// shortest is the shortest interval between consecutive fires.
func shortest(fires []fire) time.Duration {
	best := time.Duration(-1)
	for i := 1; i < len(fires); i++ {
		if d := time.Duration(fires[i].At-fires[i-1].At) * time.Second; best < 0 || d < best {
			best = d
		}
	}
	return best
}

// periods lists the fires' period keys.
func periods(fires []fire) []string {
	var out []string
	for _, f := range fires {
		out = append(out, f.Period)
	}
	return out
}

// fireAt is a fire's instant.
func fireAt(f fire) time.Time { return time.Unix(f.At, 0) }

// inRange keeps the fires due in [from, to).
func inRange(fires []fire, from, to time.Time) []fire {
	return slices.DeleteFunc(slices.Clone(fires), func(f fire) bool {
		return fireAt(f).Before(from) || !fireAt(f).Before(to)
	})
}

// The runner's operating features on the MemoryLedger, through the suite
// every backend runs.
func TestSchedulerSuiteMemory(t *testing.T) {
	dstsafetest.RunSchedulerTests(t, func(t *testing.T, clock *clockwork.FakeClock) dstsafe.Ledger {
		return dstsafe.NewMemoryLedger(clock)
	})
}

package redisledger_test

import (
	"testing"

	"github.com/jonboulle/clockwork"
	"github.com/redis/go-redis/v9"

	"github.com/dstsafe/dstsafe"
	"github.com/dstsafe/dstsafe/internal/testkit"
	"github.com/dstsafe/dstsafe/redisledger"
)

// Redis going away, at startup and after it, through a proxy that closes
// its port (testkit.SchedulerOutage).
func TestSchedulerRedisOutage(t *testing.T) {
	server := testClient(t).Options().Addr
	testkit.SchedulerOutage(t, server, func(t *testing.T, clock *clockwork.FakeClock, addr string) dstsafe.Ledger {
		// No client retries: the Scheduler's backoff is on its fake clock,
		// go-redis's would be real sleeps.
		c := redis.NewClient(&redis.Options{Addr: addr, MaxRetries: -1})
		t.Cleanup(func() { _ = c.Close() })
		return mustNew(c, redisledger.WithKeyPrefix(testPrefix(t, testClient(t))), redisledger.WithClock(clock))
	})
}

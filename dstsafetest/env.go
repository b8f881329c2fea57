package dstsafetest

import (
	"os"
	"testing"

	"github.com/jonboulle/clockwork"
)

// RequireEnv returns the value of the environment variable name, which
// points a test at a real server (DSTSAFE_TEST_POSTGRES_DSN,
// DSTSAFE_TEST_REDIS_ADDR). When it is unset or empty the test is skipped
// with a message naming the variable, except under CI=true, where a skip
// would hide a missing server: there the test fails instead.
// scripts/test starts the servers and sets the variables.
func RequireEnv(t testing.TB, name string) string {
	t.Helper()
	if v := os.Getenv(name); v != "" {
		return v
	}
	if os.Getenv("CI") == "true" {
		t.Fatalf("%s is not set (CI=true: a test that needs it must not skip); run it through scripts/test", name)
	}
	t.Skipf("%s is not set; run through scripts/test, which starts the servers, or set it yourself", name)
	return ""
}

// wallClock is real time, for what a test must bound in real time and a
// fake clock cannot: a budget for its rounds, a watchdog against a hang.
// Schedules and ledgers in the suites run on fake clocks.
var wallClock = clockwork.NewRealClock()

// Package testkit is the plumbing the repository's own backend tests share:
// real servers named by environment variables (RequireEnv), a TCP proxy
// that drops connections (DroppingServer), claim benchmarks
// (BenchmarkClaims) and the instant the ledger suite's fake clocks start
// at (SuiteStart). It is internal: users of dstsafetest need none of it.
package testkit

import (
	"os"
	"testing"
	"time"
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

// SuiteStart is the instant the ledger suite's fake clocks start at: 01:30:00 CDT
// on 2024-11-03 in America/Chicago, the first reading of the fold, plus a
// fraction of a second that backends must keep to the microsecond.
var SuiteStart = time.Date(2024, 11, 3, 6, 30, 0, 123456789, time.UTC)

package dstsaferiver_test

import (
	"os"
	"testing"

	"github.com/dstsafe/dstsafe/dstsafetest"
)

// TestMain pins the tz database to the TZif files dstsafetest embeds, so
// that CRON_TZ=America/Chicago specs read the same zone on every host (the
// time package reads ZONEINFO once, before its first zone load), and runs
// the failover test's child processes (see failover_test.go).
func TestMain(m *testing.M) {
	if os.Getenv(childEnv) != "" {
		os.Exit(childMain())
	}
	if os.Getenv(killChildEnv) != "" {
		os.Exit(killChildMain())
	}
	os.Exit(dstsafetest.RunWithZoneinfo(m))
}

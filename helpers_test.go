package dstsafe

import (
	"os"
	"path/filepath"
	"sync"
	"testing"
	"time"
)

var (
	pinnedMu   sync.Mutex
	pinnedLocs = map[string]*time.Location{}
)

// pinned loads a zone from testdata/zoneinfo (tzdata 2025b), so table tests
// do not change with the host's tz database.
func pinned(tb testing.TB, name string) *time.Location {
	tb.Helper()
	pinnedMu.Lock()
	defer pinnedMu.Unlock()
	if loc, ok := pinnedLocs[name]; ok {
		return loc
	}
	data, err := os.ReadFile(filepath.Join("testdata", "zoneinfo", filepath.FromSlash(name)))
	if err != nil {
		tb.Fatalf("pinned zone %s: %v", name, err)
	}
	loc, err := time.LoadLocationFromTZData(name, data)
	if err != nil {
		tb.Fatalf("pinned zone %s: %v", name, err)
	}
	pinnedLocs[name] = loc
	return loc
}

// mustTime parses an RFC 3339 instant.
func mustTime(tb testing.TB, s string) time.Time {
	tb.Helper()
	t, err := time.Parse(time.RFC3339Nano, s)
	if err != nil {
		tb.Fatal(err)
	}
	return t
}

func wall(y int, mo time.Month, d, h, mi, s int) Wall { return Wall{y, mo, d, h, mi, s, 0} }

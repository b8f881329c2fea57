package dstsafetest

import (
	"embed"
	"fmt"
	"io/fs"
	"os"
	"sync"
	"testing"
	"time"
)

// zoneinfo holds TZif files copied from tzdata 2025b (see zoneinfo/README):
// the zones of the famous transitions, pinned so that expectations written
// out by hand do not change with the host's tz database or Go's embedded
// copy. Embedding them makes them reachable from any module that imports
// dstsafetest, with no path to the checkout.
//
//go:embed zoneinfo
var zoneinfo embed.FS

// ZoneinfoFS returns the pinned TZif files, named as in the tz database
// ("America/Chicago"): the tree a ZONEINFO directory holds. Copy it out
// (os.CopyFS) for code that loads zones by name with time.LoadLocation.
func ZoneinfoFS() fs.FS {
	sub, err := fs.Sub(zoneinfo, "zoneinfo")
	if err != nil {
		panic(err) // the directory is embedded above
	}
	return sub
}

// RunWithZoneinfo runs m with the ZONEINFO environment variable naming a
// temporary copy of ZoneinfoFS, so that time.LoadLocation — and with it
// every CRON_TZ= spec — reads the pinned files on any host, and returns
// m.Run's exit code after removing the copy. Call it from TestMain, before
// anything loads a zone: the time package reads ZONEINFO once.
//
//	func TestMain(m *testing.M) { os.Exit(dstsafetest.RunWithZoneinfo(m)) }
//
// It returns 2, after printing why, when the copy cannot be made.
func RunWithZoneinfo(m *testing.M) int {
	dir, err := os.MkdirTemp("", "dstsafe-zoneinfo-")
	if err == nil {
		defer os.RemoveAll(dir)
		err = os.CopyFS(dir, ZoneinfoFS())
	}
	if err == nil {
		err = os.Setenv("ZONEINFO", dir)
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, "dstsafetest: pinning ZONEINFO:", err)
		return 2
	}
	return m.Run()
}

var (
	zonesMu sync.Mutex
	zones   = map[string]*time.Location{}
)

// Zone returns the zone name ("America/Chicago") from the pinned tzdata
// 2025b files, and fails the test (t.Fatalf) for a zone that is not
// pinned. Every call for one name returns the same *time.Location, so
// dstsafe builds its offset table for it once per test binary.
//
// Pinned: Africa/Cairo, America/Chicago, America/Havana, America/New_York,
// America/Nuuk, America/Santiago, America/Sao_Paulo, Asia/Beirut, Asia/Kolkata,
// Australia/Lord_Howe, Australia/Sydney, Etc/UTC, Europe/Dublin,
// Europe/London, Europe/Volgograd, Pacific/Apia.
func Zone(t testing.TB, name string) *time.Location {
	t.Helper()
	return zone(t, name)
}

// testingT is what Zone needs of a testing.TB.
type testingT interface {
	Helper()
	Fatalf(format string, args ...any)
}

func zone(t testingT, name string) *time.Location {
	t.Helper()
	zonesMu.Lock()
	defer zonesMu.Unlock()
	if loc, ok := zones[name]; ok {
		return loc
	}
	// fs.ValidPath rejects "../x", "/x" and "" before the embedded FS sees them.
	data, err := fs.ReadFile(ZoneinfoFS(), name)
	if err != nil {
		t.Fatalf("dstsafetest.Zone(%q): not a pinned zone (%v)", name, err)
		return nil
	}
	loc, err := time.LoadLocationFromTZData(name, data)
	if err != nil {
		t.Fatalf("dstsafetest.Zone(%q): %v", name, err)
		return nil
	}
	zones[name] = loc
	return loc
}

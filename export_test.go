package dstsafe

import (
	"math"
	"os"
	"path/filepath"
	"sync"
	"testing"
	"time"
)

// Internals the external tests (package dstsafe_test) use.

// The calendar arithmetic Date and Wall share, checked against the time
// package in date_test.go.
var (
	CivilFromDays     = civilFromDays
	CivilFromDaysSlow = civilFromDaysSlow
	DaysFromCivil     = daysFromCivil
	WeekdayOf         = weekdayOf
)

const SecondsPerDay = secondsPerDay

// InstallZoneTable replaces loc's cached offset table with one that ends
// at unix second end, as if it had been built only that far, and reports
// whether Lookup and Next now use it. Past end they scan windows, as they
// do past the year 2400.
func InstallZoneTable(loc *time.Location, end int64) bool {
	at, off, hi := scanZone(loc, math.MinInt64/4, end)
	z := newZoneTable(loc, at, off, hi)
	tablesMu.Lock()
	storeTableLocked(z, tables.Load())
	tablesMu.Unlock()
	return tableFor(loc) == z
}

var (
	pinnedMu   sync.Mutex
	pinnedLocs = map[string]*time.Location{}
)

// pinned loads a zone from the tzdata dstsafetest.Zone embeds, for
// scheduler_internal_test.go, the last test in package dstsafe (which
// cannot import dstsafetest: it imports dstsafe). Remove it when that
// test moves to package dstsafe_test.
func pinned(tb testing.TB, name string) *time.Location {
	tb.Helper()
	pinnedMu.Lock()
	defer pinnedMu.Unlock()
	if loc, ok := pinnedLocs[name]; ok {
		return loc
	}
	data, err := os.ReadFile(filepath.Join("dstsafetest", "zoneinfo", filepath.FromSlash(name)))
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

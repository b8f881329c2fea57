package dstsafe

import (
	"context"
	"errors"
	"math"
	"time"

	"github.com/dstsafe/dstsafe/internal/civil"
)

// Internals the external tests (package dstsafe_test) use.

// WallOf is the wall reading of an instant in its location.
var WallOf = wallOf

// The calendar arithmetic Date and Wall share, checked against the time
// package in date_test.go.
var (
	CivilFromDays     = civilFromDays
	CivilFromDaysSlow = civil.CivilFromDaysSlow
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
	storeTableLocked(loc, z, tables.Load())
	tablesMu.Unlock()
	return tableFor(loc) == z
}

// RunTraced runs s as Run does, with the simulation seam's bookkeeping of
// its goroutines but no fake clock driven for it, for the tests that move
// the clock themselves (scheduler_run_test.go). idle reports, at instant
// now, whether no goroutine is busy or due, the earliest instant a parked
// goroutine waits for (zero if none), how many times goroutines have
// parked so far, and a channel closed at the next change; done receives
// Run's result.
func RunTraced(ctx context.Context, s *Scheduler) (idle func(now time.Time) (ok bool, next time.Time, parks uint64, changed <-chan struct{}), done <-chan error) {
	sim := &simulation{}
	ch := make(chan error, 1)
	go func() { ch <- s.run1(ctx, sim) }()
	return sim.act.idle, ch
}

// SameZoneTable reports whether a and b share one offset table (zones
// interned by name and tz data).
func SameZoneTable(a, b *time.Location) bool {
	za, zb := tableFor(a), tableFor(b)
	return len(za.at) > 0 && len(za.at) == len(zb.at) && &za.at[0] == &zb.at[0]
}

// ZoneDataID is the tz data identity recorded in schedule fingerprints.
var ZoneDataID = zoneDataID

// TZNames is the generated list of tz names the zone suggestions search.
var TZNames = tzNames

// RefusedZoneName reports a tz name CRON_TZ= refuses as not a place (EST,
// PST8PDT...): the zone sweeps load those with WithLocation instead.
func RefusedZoneName(name string) bool { return abbrevAdvice(name) != "" }

// ClockSkewOf returns what a claim refused for its clock carries: the
// claimer's clock minus the store's, the bound, and both readings.
func ClockSkewOf(err error) (offset, limit time.Duration, store, claimer time.Time, ok bool) {
	var se *clockSkewError
	if !errors.As(err, &se) {
		return 0, 0, time.Time{}, time.Time{}, false
	}
	return se.Offset, se.Max, se.StoreNow, se.ClaimerNow, true
}

// ErrZoneData is wrapped by the error of an event.ZoneData and by
// Description.ZoneData.
var ErrZoneData = errZoneData

package dstsafe_test

import (
	"io/fs"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/dstsafe/dstsafe"
	"github.com/dstsafe/dstsafe/dstsafetest"
)

// pinnedTZif loads name from the pinned TZif files under the given
// location name: a new *time.Location each call, as time.LoadLocation
// returns.
func pinnedTZif(t *testing.T, file, name string) *time.Location {
	t.Helper()
	data, err := fs.ReadFile(dstsafetest.ZoneinfoFS(), file)
	require.NoError(t, err)
	loc, err := time.LoadLocationFromTZData(name, data)
	require.NoError(t, err)
	return loc
}

// Zones are interned by name and tz data: every CRON_TZ= spec naming a
// zone shares one *time.Location, and two equal locations loaded apart
// share one offset table (the issue measured one table per spec, about
// 1 ms and 3 KiB each), while a location with the same name and other data
// never does.
func TestZonesInterned(t *testing.T) {
	a, err := dstsafe.ParseCron("CRON_TZ=America/Chicago 30 1 * * *")
	require.NoError(t, err)
	b, err := dstsafe.ParseCron("CRON_TZ=America/Chicago */15 * * * *")
	require.NoError(t, err)
	require.Same(t, a.Location(), b.Location(), "one zone per name")

	one, two := pinnedTZif(t, "America/Chicago", "America/Chicago"), pinnedTZif(t, "America/Chicago", "America/Chicago")
	require.NotSame(t, one, two)
	// Shared, but each answers in its own location, from the first use on.
	fold := dstsafe.Wall{Year: 2024, Month: time.November, Day: 3, Hour: 1, Minute: 30}
	r1, r2 := dstsafe.Lookup(fold, one), dstsafe.Lookup(fold, two)
	require.Same(t, one, r1.Earlier.Location())
	require.Same(t, two, r2.Later.Location())
	require.Same(t, two, r2.Transition.At.Location())
	require.True(t, r1.Earlier.Equal(r2.Earlier))
	require.True(t, dstsafe.SameZoneTable(one, two), "equal data shares a table")
	require.Equal(t, dstsafe.ZoneDataID(one), dstsafe.ZoneDataID(two))

	// The same name over New York's data is another zone: an hour apart.
	other := pinnedTZif(t, "America/New_York", "America/Chicago")
	require.False(t, dstsafe.SameZoneTable(one, other))
	require.NotEqual(t, dstsafe.ZoneDataID(one), dstsafe.ZoneDataID(other))
	noon := dstsafe.Wall{Year: 2024, Month: time.June, Day: 1, Hour: 12}
	// Expected from the time package alone.
	require.Equal(t, time.Hour, dstsafe.Lookup(noon, one).Earlier.Sub(dstsafe.Lookup(noon, other).Earlier))
	require.Equal(t, time.Date(2024, 6, 1, 12, 0, 0, 0, other).Unix(), dstsafe.Lookup(noon, other).Earlier.Unix())
}

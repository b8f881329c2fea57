package dstsafe_test

import (
	"errors"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/dstsafe/dstsafe"
	"github.com/dstsafe/dstsafe/dstsafetest"
)

// Each row is a wall reading in a real zone and what happened there. The
// instants are written out by hand from the tz database's rules (zic
// sources), not computed by the code under test.
var resolveCases = []struct {
	zone           string
	w              dstsafe.Wall
	kind           dstsafe.Kind
	earlier, later string       // RFC 3339
	transition     string       // "" for Unique
	start, end     dstsafe.Wall // affected wall range for Fold/Gap
}{
	// Chicago, fall back 2024-11-03 02:00 CDT -> 01:00 CST: 01:30 happens twice.
	// The postmortem's night: the billing job ran at both.
	{"America/Chicago", wall(2024, 11, 3, 1, 30, 0), dstsafe.Fold,
		"2024-11-03T01:30:00-05:00", "2024-11-03T01:30:00-06:00", "2024-11-03T07:00:00Z",
		wall(2024, 11, 3, 1, 0, 0), wall(2024, 11, 3, 2, 0, 0)},
	// First repeated second and the one before the range.
	{"America/Chicago", wall(2024, 11, 3, 1, 0, 0), dstsafe.Fold,
		"2024-11-03T01:00:00-05:00", "2024-11-03T01:00:00-06:00", "2024-11-03T07:00:00Z",
		wall(2024, 11, 3, 1, 0, 0), wall(2024, 11, 3, 2, 0, 0)},
	{"America/Chicago", wall(2024, 11, 3, 0, 59, 59), dstsafe.Unique,
		"2024-11-03T00:59:59-05:00", "2024-11-03T00:59:59-05:00", "", dstsafe.Wall{}, dstsafe.Wall{}},
	// 02:00 on the fall-back night happens once, in CST.
	{"America/Chicago", wall(2024, 11, 3, 2, 0, 0), dstsafe.Unique,
		"2024-11-03T02:00:00-06:00", "2024-11-03T02:00:00-06:00", "", dstsafe.Wall{}, dstsafe.Wall{}},
	// Chicago, spring forward 2024-03-10 02:00 CST -> 03:00 CDT: 02:30 never happens.
	{"America/Chicago", wall(2024, 3, 10, 2, 30, 0), dstsafe.Gap,
		"2024-03-10T01:30:00-06:00", "2024-03-10T03:30:00-05:00", "2024-03-10T08:00:00Z",
		wall(2024, 3, 10, 2, 0, 0), wall(2024, 3, 10, 3, 0, 0)},
	{"America/Chicago", wall(2024, 3, 10, 3, 0, 0), dstsafe.Unique,
		"2024-03-10T03:00:00-05:00", "2024-03-10T03:00:00-05:00", "", dstsafe.Wall{}, dstsafe.Wall{}},
	// 2100 is past the last explicit transition (2037): the POSIX rule
	// M3.2.0 puts it on Sunday 2100-03-14.
	{"America/Chicago", wall(2100, 3, 14, 2, 30, 0), dstsafe.Gap,
		"2100-03-14T01:30:00-06:00", "2100-03-14T03:30:00-05:00", "2100-03-14T08:00:00Z",
		wall(2100, 3, 14, 2, 0, 0), wall(2100, 3, 14, 3, 0, 0)},
	// 2024-12-31 is where Time.ZoneBounds reports an end before its
	// argument (golang/go#81583): an ordinary unique reading.
	{"America/Chicago", wall(2024, 12, 31, 23, 59, 59), dstsafe.Unique,
		"2024-12-31T23:59:59-06:00", "2024-12-31T23:59:59-06:00", "", dstsafe.Wall{}, dstsafe.Wall{}},
	// London 2024: BST ends 02:00 BST -> 01:00 GMT on 10-27.
	{"Europe/London", wall(2024, 10, 27, 1, 15, 0), dstsafe.Fold,
		"2024-10-27T01:15:00+01:00", "2024-10-27T01:15:00Z", "2024-10-27T01:00:00Z",
		wall(2024, 10, 27, 1, 0, 0), wall(2024, 10, 27, 2, 0, 0)},
	// London 1941: double summer time began 01:00 GMT+1 (BST) -> 02:00 (BDST, +2).
	{"Europe/London", wall(1941, 5, 4, 2, 30, 0), dstsafe.Gap,
		"1941-05-04T00:30:00Z", "1941-05-04T02:30:00+01:00", "1941-05-04T01:00:00Z",
		wall(1941, 5, 4, 2, 0, 0), wall(1941, 5, 4, 3, 0, 0)},
	// Lord Howe shifts by 30 minutes: 2024-04-07 02:00 +11 -> 01:30 +1030.
	{"Australia/Lord_Howe", wall(2024, 4, 7, 1, 45, 0), dstsafe.Fold,
		"2024-04-07T01:45:00+11:00", "2024-04-07T01:45:00+10:30", "2024-04-06T15:00:00Z",
		wall(2024, 4, 7, 1, 30, 0), wall(2024, 4, 7, 2, 0, 0)},
	// ... and forward 2024-10-06 02:00 +1030 -> 02:30 +11.
	{"Australia/Lord_Howe", wall(2024, 10, 6, 2, 15, 0), dstsafe.Gap,
		"2024-10-06T01:45:00+10:30", "2024-10-06T02:45:00+11:00", "2024-10-05T15:30:00Z",
		wall(2024, 10, 6, 2, 0, 0), wall(2024, 10, 6, 2, 30, 0)},
	// Dublin has negative DST: winter time (GMT, +00) is the "DST" period
	// and IST (+01) standard. The offsets move exactly like London's.
	{"Europe/Dublin", wall(2024, 10, 27, 1, 30, 0), dstsafe.Fold,
		"2024-10-27T01:30:00+01:00", "2024-10-27T01:30:00Z", "2024-10-27T01:00:00Z",
		wall(2024, 10, 27, 1, 0, 0), wall(2024, 10, 27, 2, 0, 0)},
	{"Europe/Dublin", wall(2024, 3, 31, 1, 30, 0), dstsafe.Gap,
		"2024-03-31T00:30:00Z", "2024-03-31T02:30:00+01:00", "2024-03-31T01:00:00Z",
		wall(2024, 3, 31, 1, 0, 0), wall(2024, 3, 31, 2, 0, 0)},
	// Samoa skipped Friday 2011-12-30 entirely: -10 -> +14 at 24:00 on the 29th.
	{"Pacific/Apia", wall(2011, 12, 30, 12, 0, 0), dstsafe.Gap,
		"2011-12-29T12:00:00-10:00", "2011-12-31T12:00:00+14:00", "2011-12-30T10:00:00Z",
		wall(2011, 12, 30, 0, 0, 0), wall(2011, 12, 31, 0, 0, 0)},
	{"Pacific/Apia", wall(2011, 12, 31, 0, 0, 0), dstsafe.Unique,
		"2011-12-31T00:00:00+14:00", "2011-12-31T00:00:00+14:00", "", dstsafe.Wall{}, dstsafe.Wall{}},
	// Havana springs forward at midnight: 2024-03-10 has no 00:00.
	{"America/Havana", wall(2024, 3, 10, 0, 0, 0), dstsafe.Gap,
		"2024-03-09T23:00:00-05:00", "2024-03-10T01:00:00-04:00", "2024-03-10T05:00:00Z",
		wall(2024, 3, 10, 0, 0, 0), wall(2024, 3, 10, 1, 0, 0)},
	// ... and falls back at 01:00 CDT -> 00:00 CST: midnight happens twice.
	{"America/Havana", wall(2024, 11, 3, 0, 30, 0), dstsafe.Fold,
		"2024-11-03T00:30:00-04:00", "2024-11-03T00:30:00-05:00", "2024-11-03T05:00:00Z",
		wall(2024, 11, 3, 0, 0, 0), wall(2024, 11, 3, 1, 0, 0)},
	// Beirut springs forward at midnight too: 2024-03-31 00:00 +02 -> 01:00 +03.
	{"Asia/Beirut", wall(2024, 3, 31, 0, 0, 0), dstsafe.Gap,
		"2024-03-30T23:00:00+02:00", "2024-03-31T01:00:00+03:00", "2024-03-30T22:00:00Z",
		wall(2024, 3, 31, 0, 0, 0), wall(2024, 3, 31, 1, 0, 0)},
	// Cairo's 2024 DST starts at 24:00 on the last Thursday of April
	// (2024-04-25 24:00 = 04-26 00:00 EET -> 01:00 EEST).
	{"Africa/Cairo", wall(2024, 4, 26, 0, 30, 0), dstsafe.Gap,
		"2024-04-25T23:30:00+02:00", "2024-04-26T01:30:00+03:00", "2024-04-25T22:00:00Z",
		wall(2024, 4, 26, 0, 0, 0), wall(2024, 4, 26, 1, 0, 0)},
	// ... and ends at 24:00 on the last Thursday of October: 00:00 EEST -> 23:00 EET.
	{"Africa/Cairo", wall(2024, 10, 31, 23, 30, 0), dstsafe.Fold,
		"2024-10-31T23:30:00+03:00", "2024-10-31T23:30:00+02:00", "2024-10-31T21:00:00Z",
		wall(2024, 10, 31, 23, 0, 0), wall(2024, 11, 1, 0, 0, 0)},
	// Volgograd moved from +03 to +04 on 2018-10-28 02:00 and back to +03
	// on 2020-12-27 02:00: offset changes with no DST involved.
	{"Europe/Volgograd", wall(2018, 10, 28, 2, 30, 0), dstsafe.Gap,
		"2018-10-28T01:30:00+03:00", "2018-10-28T03:30:00+04:00", "2018-10-27T23:00:00Z",
		wall(2018, 10, 28, 2, 0, 0), wall(2018, 10, 28, 3, 0, 0)},
	{"Europe/Volgograd", wall(2020, 12, 27, 1, 30, 0), dstsafe.Fold,
		"2020-12-27T01:30:00+04:00", "2020-12-27T01:30:00+03:00", "2020-12-26T22:00:00Z",
		wall(2020, 12, 27, 1, 0, 0), wall(2020, 12, 27, 2, 0, 0)},
	// Sao Paulo's last DST start, 2018-11-04 at midnight.
	{"America/Sao_Paulo", wall(2018, 11, 4, 0, 30, 0), dstsafe.Gap,
		"2018-11-03T23:30:00-03:00", "2018-11-04T01:30:00-02:00", "2018-11-04T03:00:00Z",
		wall(2018, 11, 4, 0, 0, 0), wall(2018, 11, 4, 1, 0, 0)},
	// Kolkata: no transitions since 1945.
	{"Asia/Kolkata", wall(2024, 3, 10, 2, 30, 0), dstsafe.Unique,
		"2024-03-10T02:30:00+05:30", "2024-03-10T02:30:00+05:30", "", dstsafe.Wall{}, dstsafe.Wall{}},
}

func TestLookupTable(t *testing.T) {
	for _, c := range resolveCases {
		t.Run(c.zone+"/"+c.w.String(), func(t *testing.T) {
			loc := dstsafetest.Zone(t, c.zone)
			r := dstsafe.Lookup(c.w, loc)
			require.Equal(t, c.kind, r.Kind, "kind")
			assert.True(t, r.Earlier.Equal(mustTime(t, c.earlier)), "Earlier = %v, want %s", r.Earlier, c.earlier)
			assert.True(t, r.Later.Equal(mustTime(t, c.later)), "Later = %v, want %s", r.Later, c.later)
			assert.Same(t, loc, r.Earlier.Location())
			tr := r.Transition
			if c.transition == "" {
				assert.Equal(t, dstsafe.Transition{}, tr)
				return
			}
			assert.True(t, tr.At.Equal(mustTime(t, c.transition)), "Transition.At = %v, want %s", tr.At, c.transition)
			assert.Same(t, loc, tr.At.Location())
			assert.Equal(t, c.kind, tr.Kind, "Transition.Kind")
			assert.Equal(t, c.start, tr.Start, "Start")
			assert.Equal(t, c.end, tr.End, "End")
			// Earlier lies before the transition and reads in the old
			// offset, Later in the new one (in a gap neither reads as w).
			nameE, offE := r.Earlier.Zone()
			nameL, offL := r.Later.Zone()
			assert.Equal(t, offE, tr.OffsetBefore, "OffsetBefore")
			assert.Equal(t, offL, tr.OffsetAfter, "OffsetAfter")
			assert.Equal(t, nameE, tr.NameBefore, "NameBefore")
			assert.Equal(t, nameL, tr.NameAfter, "NameAfter")
			// It is the transition Transitions lists.
			assert.Equal(t, dstsafe.Transitions(loc, tr.At, tr.At.Add(time.Second)), []dstsafe.Transition{tr})
		})
	}
}

func TestResolveDisambiguation(t *testing.T) {
	for _, c := range resolveCases {
		loc := dstsafetest.Zone(t, c.zone)
		earlier, later := mustTime(t, c.earlier), mustTime(t, c.later)
		for _, d := range []dstsafe.Disambiguation{dstsafe.Compatible, dstsafe.Earlier, dstsafe.Later, dstsafe.Reject} {
			got, err := dstsafe.Resolve(c.w, loc, d)
			want := earlier
			switch {
			case d == dstsafe.Later, d == dstsafe.Compatible && c.kind == dstsafe.Gap:
				want = later
			}
			if d == dstsafe.Reject && c.kind != dstsafe.Unique {
				var re *dstsafe.ResolveError
				require.ErrorAs(t, err, &re, "%s %s", c.zone, c.w)
				assert.Equal(t, c.zone, re.Zone)
				assert.Equal(t, c.w, re.Wall)
				if c.kind == dstsafe.Fold {
					assert.ErrorIs(t, err, dstsafe.ErrAmbiguous)
					assert.NotErrorIs(t, err, dstsafe.ErrNonexistent)
				} else {
					assert.ErrorIs(t, err, dstsafe.ErrNonexistent)
					assert.NotErrorIs(t, err, dstsafe.ErrAmbiguous)
				}
				assert.True(t, got.IsZero())
				continue
			}
			require.NoError(t, err)
			assert.True(t, got.Equal(want), "%s %s %v: got %v, want %v", c.zone, c.w, d, got, want)
		}
	}
}

func TestResolveErrorMessage(t *testing.T) {
	loc := dstsafetest.Zone(t, "America/Chicago")
	_, err := dstsafe.Resolve(wall(2024, 3, 10, 2, 30, 0), loc, dstsafe.Reject)
	assert.EqualError(t, err, "dstsafe: wall time 2024-03-10T02:30:00 does not exist in America/Chicago: "+
		"skipped by the -06:00 -> -05:00 transition at 2024-03-10T08:00:00Z; "+
		"candidates 2024-03-10T01:30:00-06:00 and 2024-03-10T03:30:00-05:00")
	_, err = dstsafe.Resolve(wall(2024, 11, 3, 1, 30, 0), loc, dstsafe.Reject)
	assert.EqualError(t, err, "dstsafe: wall time 2024-11-03T01:30:00 is ambiguous in America/Chicago: "+
		"repeated by the -05:00 -> -06:00 transition at 2024-11-03T07:00:00Z; "+
		"candidates 2024-11-03T01:30:00-05:00 and 2024-11-03T01:30:00-06:00")
}

func TestResolveInvalidWall(t *testing.T) {
	loc := dstsafetest.Zone(t, "America/Chicago")
	cases := []struct {
		w     dstsafe.Wall
		field string
	}{
		{dstsafe.Wall{2024, 13, 1, 0, 0, 0, 0}, "month"},
		{dstsafe.Wall{2024, 0, 1, 0, 0, 0, 0}, "month"},
		{dstsafe.Wall{2024, 2, 30, 0, 0, 0, 0}, "day"},
		{dstsafe.Wall{2100, 2, 29, 0, 0, 0, 0}, "day"}, // 2100 is not a leap year
		{dstsafe.Wall{2023, 4, 31, 0, 0, 0, 0}, "day"},
		{dstsafe.Wall{2024, 1, 0, 0, 0, 0, 0}, "day"},
		{dstsafe.Wall{2024, 3, 10, 24, 0, 0, 0}, "hour"},
		{dstsafe.Wall{2024, 3, 10, -1, 0, 0, 0}, "hour"},
		{dstsafe.Wall{2024, 3, 10, 1, 60, 0, 0}, "minute"},
		{dstsafe.Wall{2024, 3, 10, 1, 0, 60, 0}, "second"}, // no leap seconds in Go time
		{dstsafe.Wall{2024, 3, 10, 1, 0, 0, -1}, "nanosecond"},
		{dstsafe.Wall{2024, 3, 10, 1, 0, 0, 1e9}, "nanosecond"},
		{dstsafe.Wall{}, "month"},
	}
	for _, c := range cases {
		_, err := dstsafe.Resolve(c.w, loc, dstsafe.Compatible)
		require.ErrorIs(t, err, dstsafe.ErrInvalidArgument, "%#v", c.w)
		var ae *dstsafe.ArgError
		require.ErrorAs(t, err, &ae)
		assert.Equal(t, "Wall", ae.Func, "%#v", c.w)
		assert.Equal(t, c.field, ae.Arg, "%#v", c.w)
		assert.Equal(t, dstsafe.Kind(0), dstsafe.Lookup(c.w, loc).Kind, "Lookup of invalid %#v", c.w)
		assert.False(t, c.w.IsValid())
	}
	// Leap day in a leap year is fine.
	_, err := dstsafe.Resolve(dstsafe.Wall{2024, 2, 29, 0, 0, 0, 0}, loc, dstsafe.Compatible)
	assert.NoError(t, err)
}

func TestResolveNilLocationPanics(t *testing.T) {
	assert.Panics(t, func() { dstsafe.Lookup(wall(2024, 1, 1, 0, 0, 0), nil) })
	_, err := dstsafe.Resolve(wall(2024, 1, 1, 0, 0, 0), nil, dstsafe.Compatible) // returns errors: no panic
	assert.ErrorIs(t, err, dstsafe.ErrInvalidArgument)
	assert.Panics(t, func() { dstsafe.Transitions(nil, time.Time{}, time.Now()) })
}

func TestResolveKeepsNanoseconds(t *testing.T) {
	loc := dstsafetest.Zone(t, "America/Chicago")
	w := dstsafe.Wall{2024, 11, 3, 1, 59, 59, 999_999_999} // last instant of the repeated hour
	r := dstsafe.Lookup(w, loc)
	require.Equal(t, dstsafe.Fold, r.Kind)
	assert.Equal(t, w, dstsafe.WallOf(r.Earlier))
	assert.Equal(t, w, dstsafe.WallOf(r.Later))
	assert.Equal(t, time.Hour, r.Later.Sub(r.Earlier))
}

// time.Date picks an offset for a gap reading that depends on the zone (its
// doc says it "does not guarantee which"); Resolve does not.
func TestResolveDoesNotDependOnTimeDatesChoice(t *testing.T) {
	for _, zone := range []string{"America/Chicago", "Australia/Sydney", "Europe/London"} {
		loc := dstsafetest.Zone(t, zone)
		for _, tr := range dstsafe.Transitions(loc, mustTime(t, "2024-01-01T00:00:00Z"), mustTime(t, "2025-01-01T00:00:00Z")) {
			if tr.Kind != dstsafe.Gap {
				continue
			}
			w := tr.Start
			w.Minute += 30
			got, err := dstsafe.Resolve(w, loc, dstsafe.Compatible)
			require.NoError(t, err)
			_, off := got.Zone()
			assert.Equal(t, tr.OffsetAfter, off, "%s %s resolves after the gap", zone, w)
			// Half an hour into the gap is half an hour after the transition:
			// the reading is pushed forward by the gap's length.
			assert.Equal(t, 30*time.Minute, got.Sub(tr.At))
			shift := time.Duration(tr.OffsetAfter-tr.OffsetBefore) * time.Second
			// Wall readings as UTC instants: arithmetic with no offsets.
			naive := func(w dstsafe.Wall) time.Time {
				return time.Date(w.Year, w.Month, w.Day, w.Hour, w.Minute, w.Second, w.Nanosecond, time.UTC)
			}
			assert.Equal(t, naive(w).Add(shift), naive(dstsafe.WallOf(got)))
		}
	}
}

func TestTransitionsTable(t *testing.T) {
	loc := dstsafetest.Zone(t, "America/Chicago")
	got := dstsafe.Transitions(loc, mustTime(t, "2024-01-01T00:00:00Z"), mustTime(t, "2025-01-01T00:00:00Z"))
	require.Len(t, got, 2)
	assert.Equal(t, dstsafe.Gap, got[0].Kind)
	assert.True(t, got[0].At.Equal(mustTime(t, "2024-03-10T08:00:00Z")))
	assert.Equal(t, "CST", got[0].NameBefore)
	assert.Equal(t, "CDT", got[0].NameAfter)
	assert.Equal(t, wall(2024, 3, 10, 2, 0, 0), got[0].Start)
	assert.Equal(t, wall(2024, 3, 10, 3, 0, 0), got[0].End)
	assert.Equal(t, dstsafe.Fold, got[1].Kind)
	assert.Equal(t, wall(2024, 11, 3, 1, 0, 0), got[1].Start)
	assert.Equal(t, wall(2024, 11, 3, 2, 0, 0), got[1].End)

	// Half-open: a transition exactly at "to" is excluded, at "from" included.
	at := got[0].At
	assert.Len(t, dstsafe.Transitions(loc, at, at.Add(time.Second)), 1)
	assert.Empty(t, dstsafe.Transitions(loc, at.Add(-time.Hour), at))
	assert.Empty(t, dstsafe.Transitions(loc, at, at))

	// Europe/London 1941-1945 double summer time is two steps of an hour.
	london := dstsafetest.Zone(t, "Europe/London")
	ws := dstsafe.Transitions(london, mustTime(t, "1941-01-01T00:00:00Z"), mustTime(t, "1942-01-01T00:00:00Z"))
	require.Len(t, ws, 2)
	assert.Equal(t, 3600, ws[0].OffsetBefore)
	assert.Equal(t, 7200, ws[0].OffsetAfter)

	// A fixed zone has none; UTC neither.
	assert.Empty(t, dstsafe.Transitions(time.UTC, mustTime(t, "1900-01-01T00:00:00Z"), mustTime(t, "2100-01-01T00:00:00Z")))
	assert.Empty(t, dstsafe.Transitions(time.FixedZone("X", 3600), mustTime(t, "1900-01-01T00:00:00Z"), mustTime(t, "2100-01-01T00:00:00Z")))

	// Past the cached table (year 2400) the transitions are still found.
	far := dstsafe.Transitions(loc, mustTime(t, "2500-01-01T00:00:00Z"), mustTime(t, "2501-01-01T00:00:00Z"))
	require.Len(t, far, 2)
	assert.Equal(t, time.March, far[0].At.Month())
	assert.Equal(t, time.Sunday, far[0].At.Weekday())
}

// golang/go#81583: Time.ZoneBounds can return an end at or before its
// argument late in a leap year past the last explicit transition. Walking a
// zone through those days must neither loop nor lose a transition.
func TestZoneBoundsEndBeforeArgument(t *testing.T) {
	loc := dstsafetest.Zone(t, "America/Chicago")
	for _, year := range []int{2040, 2044, 2096, 2104, 2396} {
		from := time.Date(year, 12, 30, 0, 0, 0, 0, time.UTC)
		trs := dstsafe.Transitions(loc, from, from.AddDate(0, 4, 0))
		require.Len(t, trs, 1, "year %d: the March transition", year+1)
		assert.Equal(t, time.March, trs[0].At.Month())
		r := dstsafe.Lookup(wall(year, 12, 31, 12, 0, 0), loc)
		assert.Equal(t, dstsafe.Unique, r.Kind)
	}
}

func TestWallHelpers(t *testing.T) {
	w := dstsafe.Wall{2024, 3, 10, 2, 30, 0, 0}
	assert.Equal(t, "2024-03-10T02:30:00", w.String())
	assert.Equal(t, "2024-03-10T02:30:00.5", dstsafe.Wall{2024, 3, 10, 2, 30, 0, 500_000_000}.String())
	assert.Equal(t, "2024-03-10T02:30:00.000000001", dstsafe.Wall{2024, 3, 10, 2, 30, 0, 1}.String())
	assert.Equal(t, "0042-01-02T00:00:00", dstsafe.Wall{42, 1, 2, 0, 0, 0, 0}.String())
	assert.Equal(t, "2024-03-10", w.DateString())
	assert.Equal(t, time.Sunday, w.Weekday())
	y, m, d := w.Date()
	assert.Equal(t, []int{2024, 3, 10}, []int{y, int(m), d})

	later := dstsafe.Wall{2024, 3, 10, 2, 30, 0, 1}
	assert.True(t, w.Before(later))
	assert.True(t, later.After(w))
	assert.Equal(t, 0, w.Compare(w))
	assert.Equal(t, -1, dstsafe.Wall{2023, 12, 31, 23, 59, 59, 0}.Compare(dstsafe.Wall{2024, 1, 1, 0, 0, 0, 0}))

	chicago := dstsafetest.Zone(t, "America/Chicago")
	assert.Equal(t, w, dstsafe.WallOf(time.Date(2024, 3, 10, 2, 30, 0, 0, time.UTC)))
	assert.Equal(t, wall(2024, 11, 3, 1, 30, 0), dstsafe.WallOf(mustTime(t, "2024-11-03T07:30:00Z").In(chicago)))

	for _, s := range []string{"2024-11-03T01:30", "2024-11-03T01:30:00", "2024-11-03 01:30:00", "2024-11-03T01:30:00.000"} {
		got, err := dstsafe.ParseWall(s)
		require.NoError(t, err, s)
		assert.Equal(t, wall(2024, 11, 3, 1, 30, 0), got, s)
	}
	got, err := dstsafe.ParseWall("2024-11-03")
	require.NoError(t, err)
	assert.Equal(t, wall(2024, 11, 3, 0, 0, 0), got)
	for _, s := range []string{"2024-02-30T00:00", "2024-11-03T24:00", "2024-13-01", "", "01:30", "2024-11-03T01:30:00-05:00"} {
		_, err := dstsafe.ParseWall(s)
		assert.ErrorIs(t, err, dstsafe.ErrInvalidArgument, s)
	}
}

func TestKindAndDisambiguationStrings(t *testing.T) {
	assert.Equal(t, "unique", dstsafe.Unique.String())
	assert.Equal(t, "fold", dstsafe.Fold.String())
	assert.Equal(t, "gap", dstsafe.Gap.String())
	assert.Equal(t, "invalid", dstsafe.Kind(0).String())
	assert.Equal(t, "compatible", dstsafe.Compatible.String())
	assert.Equal(t, "reject", dstsafe.Reject.String())
	assert.Equal(t, "Disambiguation(9)", dstsafe.Disambiguation(9).String())
	_, err := dstsafe.Resolve(wall(2024, 1, 1, 0, 0, 0), time.UTC, dstsafe.Disambiguation(9))
	// A policy out of range is refused as an argument, not as a bad wall.
	var ae *dstsafe.ArgError
	assert.ErrorAs(t, err, &ae)
	assert.True(t, errors.Is(err, dstsafe.ErrInvalidArgument))
}

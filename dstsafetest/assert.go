package dstsafetest

import (
	"fmt"
	"sort"
	"strings"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/dstsafe/dstsafe"
)

// TestingT is the part of *testing.T the Require* assertions use. It is
// testify's require.TestingT plus Helper, so *testing.T, *testing.B and a
// fake that records failures all satisfy it.
type TestingT interface {
	Errorf(format string, args ...any)
	FailNow()
	Helper()
}

// The Require* assertions check the runs a dstsafe.Simulate returned. On
// failure they list every offending fire with its offset (Fire.String), as
// "billing 2024-11-03T01:30:00 due 2024-11-03T01:30:00-05:00 ...", and stop
// the test (FailNow).

// RequireOncePerPeriod fails if any (job, period) fired more than once.
func RequireOncePerPeriod(t TestingT, fires []dstsafe.Fire, msgAndArgs ...any) {
	t.Helper()
	type key struct{ job, period string }
	groups := map[key][]dstsafe.Fire{}
	var order []key
	for _, f := range fires {
		k := key{f.Job, f.Period}
		if _, ok := groups[k]; !ok {
			order = append(order, k)
		}
		groups[k] = append(groups[k], f)
	}
	var bad []string
	for _, k := range order {
		if g := groups[k]; len(g) > 1 {
			bad = append(bad, fmt.Sprintf("job %s period %s fired %d times:\n%s", k.job, k.period, len(g), list(g)))
		}
	}
	if len(bad) > 0 {
		require.Fail(t, "a period fired more than once:\n"+strings.Join(bad, "\n"), msgAndArgs...)
	}
}

// RequireOncePerDay fails unless each job fired exactly once on every civil
// date in zone from the date of its first fire to the date of its last:
// no date twice (a fold run twice), none missing (a gap swallowed a run).
// A date the zone never had is not missing: Pacific/Apia skipped
// 2011-12-30 (the day's start is the next day's, see dstsafe.Date.Start).
// A fire counts for the date it was scheduled on: the date of its Wall
// when its schedule is in zone (a run a gap pushed past midnight, America/Nuuk
// 2024-03-30 23:30 -> 03-31 00:30, counts for 03-30), else the date of its
// Due instant in zone. No fires at all
// passes: pair it with RequireFireCount. A nil zone is a programming
// error, never a default: it panics with a message naming the function.
// For a service with a job per zone, RequireOncePerLocalDay takes each
// job's zone from its schedule.
func RequireOncePerDay(t TestingT, fires []dstsafe.Fire, zone *time.Location, msgAndArgs ...any) {
	t.Helper()
	if zone == nil {
		panic("dstsafetest: RequireOncePerDay: nil *time.Location")
	}
	oncePerDay(t, fires, func(dstsafe.Fire) *time.Location { return zone }, msgAndArgs...)
}

// RequireOncePerLocalDay is RequireOncePerDay with each job's days in its
// own zone: the zone of its schedule, which a Fire's Due carries (a
// billing job per customer zone: "bill-tokyo" by Tokyo dates,
// "bill-chicago" by Chicago dates). A job whose schedule is in UTC is
// checked by UTC dates. The same skipped days, folds and gaps apply as in
// RequireOncePerDay.
func RequireOncePerLocalDay(t TestingT, fires []dstsafe.Fire, msgAndArgs ...any) {
	t.Helper()
	oncePerDay(t, fires, func(f dstsafe.Fire) *time.Location { return f.Due.Location() }, msgAndArgs...)
}

// oncePerDay checks each job's fires by civil date in zoneOf(fire); a
// job's missing dates are looked for in the zone of its last fire.
func oncePerDay(t TestingT, fires []dstsafe.Fire, zoneOf func(dstsafe.Fire) *time.Location, msgAndArgs ...any) {
	t.Helper()
	byJob := map[string]map[dstsafe.Date][]dstsafe.Fire{}
	jobZone := map[string]*time.Location{}
	var jobs []string
	for _, f := range fires {
		zone := zoneOf(f)
		days := byJob[f.Job]
		if days == nil {
			days = map[dstsafe.Date][]dstsafe.Fire{}
			byJob[f.Job] = days
			jobs = append(jobs, f.Job)
		}
		jobZone[f.Job] = zone
		d := dstsafe.DateOf(f.Due, zone)
		if f.Due.Location().String() == zone.String() && f.Wall.Year != 0 {
			d = dstsafe.Date{Year: f.Wall.Year, Month: f.Wall.Month, Day: f.Wall.Day}
		}
		days[d] = append(days[d], f)
	}
	var bad []string
	for _, job := range jobs {
		days, zone := byJob[job], jobZone[job]
		dates := make([]dstsafe.Date, 0, len(days))
		for d := range days {
			dates = append(dates, d)
		}
		sort.Slice(dates, func(i, j int) bool { return dates[i].Compare(dates[j]) < 0 })
		for _, d := range dates {
			if g := days[d]; len(g) > 1 {
				bad = append(bad, fmt.Sprintf("job %s fired %d times on %s (%s):\n%s", job, len(g), d, zone, list(g)))
			}
		}
		for d := dates[0]; d.Compare(dates[len(dates)-1]) < 0; d = d.AddDays(1) {
			if _, ok := days[d]; !ok && !skipped(d, zone) {
				bad = append(bad, fmt.Sprintf("job %s did not fire on %s (%s)", job, d, zone))
			}
		}
	}
	if len(bad) > 0 {
		require.Fail(t, "not once per day:\n"+strings.Join(bad, "\n")+"\nall fires:\n"+list(fires), msgAndArgs...)
	}
}

// skipped reports whether zone never had date d: its first instant is the
// next day's (Pacific/Apia 2011-12-30, Pacific/Kwajalein 1993-08-21).
func skipped(d dstsafe.Date, zone *time.Location) bool {
	return d.Start(zone).Equal(d.AddDays(1).Start(zone))
}

// RequireFiresAt fails unless the fires' Due instants are exactly want, in
// order. Instants compare as instants (time.Time.Equal), whatever their
// locations.
func RequireFiresAt(t TestingT, fires []dstsafe.Fire, want ...time.Time) {
	t.Helper()
	ok := len(fires) == len(want)
	for i := 0; ok && i < len(want); i++ {
		ok = fires[i].Due.Equal(want[i])
	}
	if ok {
		return
	}
	var b strings.Builder
	fmt.Fprintf(&b, "fires are not at the wanted instants\nwant %d:\n", len(want))
	for _, w := range want {
		fmt.Fprintf(&b, "  %s\n", w.Format(time.RFC3339Nano))
	}
	fmt.Fprintf(&b, "got %d:\n%s", len(fires), list(fires))
	require.Fail(t, b.String())
}

// RequireFireCount fails unless there are exactly n fires.
func RequireFireCount(t TestingT, fires []dstsafe.Fire, n int, msgAndArgs ...any) {
	t.Helper()
	if len(fires) != n {
		require.Fail(t, fmt.Sprintf("want %d fires, got %d:\n%s", n, len(fires), list(fires)), msgAndArgs...)
	}
}

// RequireNoFireBetween fails if a fire was due or started in [from, to):
// "never before the gap" is RequireNoFireBetween(t, fires, midnight, gapEnd).
func RequireNoFireBetween(t TestingT, fires []dstsafe.Fire, from, to time.Time, msgAndArgs ...any) {
	t.Helper()
	in := func(x time.Time) bool { return !x.Before(from) && x.Before(to) }
	var bad []dstsafe.Fire
	for _, f := range fires {
		if in(f.Due) || (!f.Started.IsZero() && in(f.Started)) {
			bad = append(bad, f)
		}
	}
	if len(bad) > 0 {
		require.Fail(t, fmt.Sprintf("fires in [%s, %s):\n%s", from.Format(time.RFC3339Nano), to.Format(time.RFC3339Nano), list(bad)), msgAndArgs...)
	}
}

// RequireNoFireErrors fails if a job returned an error.
func RequireNoFireErrors(t TestingT, fires []dstsafe.Fire, msgAndArgs ...any) {
	t.Helper()
	var bad []dstsafe.Fire
	for _, f := range fires {
		if f.Err != nil {
			bad = append(bad, f)
		}
	}
	if len(bad) > 0 {
		require.Fail(t, "jobs failed:\n"+list(bad), msgAndArgs...)
	}
}

func list(fires []dstsafe.Fire) string {
	var b strings.Builder
	for _, f := range fires {
		b.WriteString("  ")
		b.WriteString(f.String())
		b.WriteByte('\n')
	}
	return b.String()
}

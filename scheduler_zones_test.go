package dstsafe_test

import (
	"fmt"
	"os"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/dstsafe/dstsafe"
	"github.com/dstsafe/dstsafe/dstsafetest"
)

// offsetAt is the UTC offset, in seconds, in force at instant t in loc.
func offsetAt(t time.Time, loc *time.Location) int {
	_, off := t.In(loc).Zone()
	return off
}

// expectedDaily derives, from time.Time arithmetic alone, when a daily job
// at wall time hh:mm:ss fires on civil date d in loc: the earliest instant
// that reads as that wall time (the first reading in a fold), or, when no
// instant does (a gap), the wall time pushed forward by the gap: the naive
// reading minus the offset in force before the gap.
func expectedDaily(d dstsafe.Date, hh, mm, ss int, loc *time.Location) (time.Time, bool) {
	naive := time.Date(d.Year, d.Month, d.Day, hh, mm, ss, 0, time.UTC)
	var best time.Time
	for _, probe := range []time.Duration{-48 * time.Hour, -24 * time.Hour, 0, 24 * time.Hour, 48 * time.Hour} {
		off := offsetAt(naive.Add(probe), loc)
		c := naive.Add(-time.Duration(off) * time.Second)
		r := c.In(loc)
		if r.Year() == d.Year && r.Month() == d.Month && r.Day() == d.Day && r.Hour() == hh && r.Minute() == mm && r.Second() == ss {
			if best.IsZero() || c.Before(best) {
				best = c
			}
		}
	}
	if !best.IsZero() {
		return best.In(loc), false
	}
	before := offsetAt(naive.Add(-24*time.Hour), loc)
	return naive.Add(-time.Duration(before) * time.Second).In(loc), true
}

// midWall returns the wall reading halfway through the naive wall seconds
// [lo, hi), whole minutes only, as hour, minute and date.
func midWall(lo, hi int64) (int, int, dstsafe.Date) {
	m := time.Unix(lo+(hi-lo)/2, 0).UTC().Truncate(time.Minute)
	if m.Unix() < lo {
		m = m.Add(time.Minute)
	}
	return m.Hour(), m.Minute(), dstsafe.Date{Year: m.Year(), Month: m.Month(), Day: m.Day()}
}

// For every zone of the tz database with an offset change in 2024-2026: a
// daily job at a wall time inside the fold, and one inside the gap, run
// through Simulate with a MemoryLedger, fire once per civil date, at the
// instants time.Time arithmetic predicts (first reading in a fold, shifted
// forward in a gap), never before the gap ends, with the business date the
// run was scheduled for. Each zone's first fold and first gap in the range
// run by default (about 400 cases, seconds under -race); DSTSAFE_LONG=1
// runs every transition of the range. The transitions are found with the
// time package alone (scanChanges: 6-hour steps and bisection), never by
// the package under test.
func TestEveryZoneOncePerDayAcrossTransitions(t *testing.T) {
	long := os.Getenv("DSTSAFE_LONG") != ""
	from := time.Date(2024, 1, 1, 0, 0, 0, 0, time.UTC).Unix()
	to := time.Date(2027, 1, 1, 0, 0, 0, 0, time.UTC).Unix()

	type caseT struct {
		zone string
		loc  *time.Location
		at   time.Time
		kind dstsafe.Kind
		// lo, hi bound the repeated (fold) or skipped (gap) wall readings,
		// in naive wall seconds.
		lo, hi int64
	}
	var cases []caseT
	for _, z := range allZones(t) {
		var fold, gap bool
		for _, c := range scanChanges(z.Loc, from, to, 6*3600) {
			kind := dstsafe.Fold
			lo, hi := c.At+int64(c.After), c.At+int64(c.Before) // read after the change, and just before it
			if c.isGap() {
				kind, lo, hi = dstsafe.Gap, hi, lo
			}
			// Every zone's first fold and first gap; DSTSAFE_LONG=1: all of them.
			if long || (kind == dstsafe.Fold && !fold) || (kind == dstsafe.Gap && !gap) {
				cases = append(cases, caseT{z.Name, z.Loc, time.Unix(c.At, 0).In(z.Loc), kind, lo, hi})
				fold = fold || kind == dstsafe.Fold
				gap = gap || kind == dstsafe.Gap
			}
		}
	}
	require.Greater(t, len(cases), 100, "zones with a transition in 2024-2026")
	t.Logf("%d transitions", len(cases))

	for _, c := range cases {
		t.Run(fmt.Sprintf("%s/%s/%s", c.zone, c.kind, c.at.UTC().Format("2006-01-02")), func(t *testing.T) {
			t.Parallel()
			hh, mm, day := midWall(c.lo, c.hi)
			spec := fmt.Sprintf("CRON_TZ=%s %d %d * * *", c.zone, mm, hh)
			var sched *dstsafe.Cron
			if dstsafe.RefusedZoneName(c.zone) {
				// CRON_TZ=EST is refused as not a place; the zone itself
				// is still swept.
				sched = mustCron(t, fmt.Sprintf("%d %d * * *", mm, hh), dstsafe.WithLocation(c.loc))
			} else {
				sched = mustCron(t, spec)
			}
			start := c.at.Add(-50 * time.Hour)
			span := 100 * time.Hour
			s, _, _ := newSim(t, start)
			require.NoError(t, s.Add("daily", sched, nop))
			fires, err := dstsafe.Simulate(simCtx(t), s, span)
			require.NoError(t, err)

			var want []time.Time
			for d := dstsafe.DateOf(start, c.loc).AddDays(-1); d.Compare(dstsafe.DateOf(start.Add(span), c.loc).AddDays(1)) <= 0; d = d.AddDays(1) {
				at, inGap := expectedDaily(d, hh, mm, 0, c.loc)
				if d == day {
					require.Equal(t, c.kind == dstsafe.Gap, inGap, "independent check disagrees on the kind of %s", d)
				}
				if !at.Before(start) && !at.After(start.Add(span)) {
					want = append(want, at)
				}
			}
			dstsafetest.RequireFiresAt(t, fires, want...)
			for _, f := range fires {
				// The business date is the date the run was scheduled for.
				wantDate := dstsafe.DateOf(f.Due, c.loc)
				if f.Kind == dstsafe.Gap {
					// Read Due's wall clock and take the gap back off it.
					gap := time.Duration(offsetAt(f.Due, c.loc)-offsetAt(f.Due.Add(-48*time.Hour), c.loc)) * time.Second
					r := f.Due.In(c.loc)
					naive := time.Date(r.Year(), r.Month(), r.Day(), r.Hour(), r.Minute(), r.Second(), 0, time.UTC).Add(-gap)
					wantDate = dstsafe.DateOf(naive, time.UTC)
				}
				require.Equal(t, wantDate, f.RunDate, "run date of %v", f)
			}
			dstsafetest.RequireOncePerPeriod(t, fires)
			dstsafetest.RequireOncePerDay(t, fires, c.loc)
			if c.kind == dstsafe.Gap {
				// The run for the gap's date comes after the gap, never before it.
				var sameDay []dstsafe.Fire
				for _, f := range fires {
					if (dstsafe.Date{Year: f.Wall.Year, Month: f.Wall.Month, Day: f.Wall.Day}) == day {
						sameDay = append(sameDay, f)
					}
				}
				dstsafetest.RequireFireCount(t, sameDay, 1)
				dstsafetest.RequireNoFireBetween(t, sameDay, c.at.Add(-48*time.Hour), c.at)
			}
		})
	}
}

package dstsafe_test

import (
	"bytes"
	"context"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/dstsafe/dstsafe"
	"github.com/dstsafe/dstsafe/dstsafetest"
)

const zoneinfoDir = "/usr/share/zoneinfo"

// tzZones lists the zone names of the machine's tz database: every TZif
// file under /usr/share/zoneinfo except the posix/ and right/ copies and
// the localtime/posixrules aliases.
func tzZones(t testing.TB) []string {
	t.Helper()
	var names []string
	err := filepath.WalkDir(zoneinfoDir, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(zoneinfoDir, path)
		if d.IsDir() {
			if rel == "posix" || rel == "right" {
				return filepath.SkipDir
			}
			return nil
		}
		if rel == "localtime" || rel == "posixrules" || strings.Contains(rel, ".") {
			return nil
		}
		head := make([]byte, 4)
		f, err := os.Open(path)
		if err != nil {
			return nil
		}
		defer f.Close()
		if n, _ := f.Read(head); n == 4 && bytes.Equal(head, []byte("TZif")) {
			names = append(names, rel)
		}
		return nil
	})
	require.NoError(t, err, "reading the tz database")
	require.Greater(t, len(names), 300, "tz database at %s looks incomplete", zoneinfoDir)
	slices.Sort(names)
	return names
}

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

// midWall returns the wall reading halfway through [start, end), whole
// minutes only, as hour, minute.
func midWall(start, end dstsafe.Wall) (int, int, dstsafe.Date) {
	s := time.Date(start.Year, start.Month, start.Day, start.Hour, start.Minute, start.Second, 0, time.UTC)
	e := time.Date(end.Year, end.Month, end.Day, end.Hour, end.Minute, end.Second, 0, time.UTC)
	m := s.Add(e.Sub(s) / 2).Truncate(time.Minute)
	if m.Before(s) {
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
// runs every transition of the range.
func TestEveryZoneOncePerDayAcrossTransitions(t *testing.T) {
	zones := tzZones(t)
	long := os.Getenv("DSTSAFE_LONG") != ""
	from := time.Date(2024, 1, 1, 0, 0, 0, 0, time.UTC)
	to := time.Date(2027, 1, 1, 0, 0, 0, 0, time.UTC)

	type caseT struct {
		zone string
		loc  *time.Location
		tr   dstsafe.Transition
	}
	var cases []caseT
	for _, name := range zones {
		loc, err := time.LoadLocation(name)
		if err != nil {
			continue // a TZif file Go cannot load is not a zone we can test
		}
		var fold, gap bool
		for _, tr := range dstsafe.Transitions(loc, from, to) {
			// Every zone's first fold and first gap; DSTSAFE_LONG=1: all of them.
			if long || (tr.Kind == dstsafe.Fold && !fold) || (tr.Kind == dstsafe.Gap && !gap) {
				cases = append(cases, caseT{name, loc, tr})
				fold = fold || tr.Kind == dstsafe.Fold
				gap = gap || tr.Kind == dstsafe.Gap
			}
		}
	}
	require.Greater(t, len(cases), 100, "zones with a transition in 2024-2026")
	t.Logf("%d transitions", len(cases))

	for _, c := range cases {
		t.Run(fmt.Sprintf("%s/%s/%s", c.zone, c.tr.Kind, c.tr.At.UTC().Format("2006-01-02")), func(t *testing.T) {
			t.Parallel()
			hh, mm, day := midWall(c.tr.Start, c.tr.End)
			spec := fmt.Sprintf("CRON_TZ=%s %d %d * * *", c.zone, mm, hh)
			start := c.tr.At.Add(-50 * time.Hour)
			span := 100 * time.Hour
			s, _, _ := newSim(t, start)
			require.NoError(t, s.Add("daily", mustCron(t, spec), nop))
			fires, err := dstsafe.Simulate(context.Background(), s, span)
			require.NoError(t, err)

			var want []time.Time
			for d := dstsafe.DateOf(start, c.loc).AddDays(-1); d.Compare(dstsafe.DateOf(start.Add(span), c.loc).AddDays(1)) <= 0; d = d.AddDays(1) {
				at, inGap := expectedDaily(d, hh, mm, 0, c.loc)
				if d == day {
					require.Equal(t, c.tr.Kind == dstsafe.Gap, inGap, "independent check disagrees on the kind of %s", d)
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
			if c.tr.Kind == dstsafe.Gap {
				// The run for the gap's date comes after the gap, never before it.
				var sameDay []dstsafe.Fire
				for _, f := range fires {
					if (dstsafe.Date{Year: f.Wall.Year, Month: f.Wall.Month, Day: f.Wall.Day}) == day {
						sameDay = append(sameDay, f)
					}
				}
				dstsafetest.RequireFireCount(t, sameDay, 1)
				dstsafetest.RequireNoFireBetween(t, sameDay, c.tr.At.Add(-48*time.Hour), c.tr.At)
			}
		})
	}
}

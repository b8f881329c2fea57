package dstsafe_test

import (
	"fmt"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/dstsafe/dstsafe"
	"github.com/dstsafe/dstsafe/calendar"
	"github.com/dstsafe/dstsafe/dstsafetest"
)

// TestExcludingTable: payroll on holidays, a daily job over a weekend, and
// the period keys of moved runs.
func TestExcludingTable(t *testing.T) {
	chicago := dstsafetest.Zone(t, "America/Chicago")
	bank := calendar.Union(calendar.Weekends(), calendar.USFederalHolidays())
	type want struct{ at, period string }
	for _, tc := range []struct {
		name, rule string
		policy     calendar.HolidayPolicy
		from       time.Time
		want       []want
	}{
		{"payroll every other Friday; Christmas 2026 is a Friday: paid Thursday", "DTSTART:20261211T090000\nRRULE:FREQ=WEEKLY;INTERVAL=2;BYDAY=FR;COUNT=3",
			calendar.PreviousBusinessDay, time.Date(2026, 12, 1, 0, 0, 0, 0, time.UTC), []want{
				{"2026-12-11T09:00:00-06:00", "2026-12-11T09:00:00"},
				{"2026-12-24T09:00:00-06:00", "2026-12-25T09:00:00"},
				{"2027-01-08T09:00:00-06:00", "2027-01-08T09:00:00"}}},
		{"a daily 17:00 job over a weekend: Monday's own run, then Saturday's and Sunday's", "DTSTART:20240719T170000\nRRULE:FREQ=DAILY;COUNT=4",
			calendar.NextBusinessDay, time.Date(2024, 7, 1, 0, 0, 0, 0, time.UTC), []want{
				{"2024-07-19T17:00:00-05:00", "2024-07-19T17:00:00"},
				{"2024-07-22T17:00:00-05:00", "2024-07-22T17:00:00"},
				{"2024-07-22T17:00:01-05:00", "2024-07-20T17:00:00"},
				{"2024-07-22T17:00:02-05:00", "2024-07-21T17:00:00"}}},
		{"the same, moved back to Friday", "DTSTART:20240719T170000\nRRULE:FREQ=DAILY;COUNT=4",
			calendar.PreviousBusinessDay, time.Date(2024, 7, 1, 0, 0, 0, 0, time.UTC), []want{
				{"2024-07-19T17:00:00-05:00", "2024-07-19T17:00:00"},
				{"2024-07-19T17:00:01-05:00", "2024-07-20T17:00:00"},
				{"2024-07-19T17:00:02-05:00", "2024-07-21T17:00:00"},
				{"2024-07-22T17:00:00-05:00", "2024-07-22T17:00:00"}}},
		{"skipped", "DTSTART:20240719T170000\nRRULE:FREQ=DAILY;COUNT=4",
			calendar.SkipHoliday, time.Date(2024, 7, 1, 0, 0, 0, 0, time.UTC), []want{
				{"2024-07-19T17:00:00-05:00", "2024-07-19T17:00:00"},
				{"2024-07-22T17:00:00-05:00", "2024-07-22T17:00:00"}}},
		{"settlement on the last day of the month, on the business day before (Memorial Day weekend 2024, 2025-05-31 a Saturday)",
			"DTSTART:20240430T160000\nRRULE:FREQ=MONTHLY;BYMONTHDAY=-1;COUNT=15", calendar.PreviousBusinessDay,
			time.Date(2025, 4, 1, 0, 0, 0, 0, time.UTC), []want{
				{"2025-04-30T16:00:00-05:00", "2025-04-30T16:00:00"},
				{"2025-05-30T16:00:00-05:00", "2025-05-31T16:00:00"},
				{"2025-06-30T16:00:00-05:00", "2025-06-30T16:00:00"}}},
		{"asked from between the moved run and its own date", "DTSTART:20240719T170000\nRRULE:FREQ=DAILY;COUNT=4",
			calendar.NextBusinessDay, time.Date(2024, 7, 21, 12, 0, 0, 0, time.UTC), []want{
				{"2024-07-22T17:00:00-05:00", "2024-07-22T17:00:00"},
				{"2024-07-22T17:00:01-05:00", "2024-07-20T17:00:00"},
				{"2024-07-22T17:00:02-05:00", "2024-07-21T17:00:00"}}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			e := calendar.Excluding(mustRRule(t, tc.rule, dstsafe.WithLocation(chicago)), bank, tc.policy)
			var got []want
			at := tc.from
			for range len(tc.want) + 2 {
				o, ok := e.NextOccurrence(at)
				if !ok {
					break
				}
				if n := e.Next(at); !n.Equal(o.At) {
					t.Errorf("Next(%v) = %v, NextOccurrence %v", at, n, o.At)
				}
				got = append(got, want{o.At.Format(time.RFC3339), o.Period})
				at = o.At
			}
			if !slices.Equal(got, tc.want) {
				t.Errorf("got  %v\nwant %v", got, tc.want)
			}
		})
	}
	if s := calendar.PreviousBusinessDay.String(); s != "previous-business-day" {
		t.Errorf("String() = %q", s)
	}
}

// excludedOracle computes what Excluding's documentation says from the
// schedule's occurrences in a window, all at once: each occurrence on a
// business day stays; on a holiday it is dropped or moved to the business
// day, at its scheduled time of day (resolved as RFC 5545 says), then to
// the first second that the schedule's own instants and the runs moved to
// that day before it leave free.
func excludedOracle(s dstsafe.OccurrenceSchedule, cal calendar.Calendar, p calendar.HolidayPolicy, loc *time.Location, from, to time.Time) []dstsafe.Occurrence {
	var origs []dstsafe.Occurrence
	own := map[int64]bool{}
	for at := from; ; {
		o, ok := s.NextOccurrence(at)
		if !ok || o.At.After(to) {
			break
		}
		origs = append(origs, o)
		own[o.At.Unix()] = true
		at = o.At
	}
	taken := map[dstsafe.Date]map[int64]bool{}
	var out []dstsafe.Occurrence
	for _, o := range origs {
		d := date(o.Wall.Year, o.Wall.Month, o.Wall.Day)
		if !cal.Contains(d) {
			out = append(out, o)
			continue
		}
		if p == calendar.SkipHoliday {
			continue
		}
		step := 1
		if p == calendar.PreviousBusinessDay {
			step = -1
		}
		target := d.AddDays(step)
		for cal.Contains(target) {
			target = target.AddDays(step)
		}
		w := o.Wall
		w.Year, w.Month, w.Day = target.Year, target.Month, target.Day
		base, err := dstsafe.Resolve(w, loc, dstsafe.Compatible)
		if err != nil {
			panic(err)
		}
		u := base.Unix()
		if taken[target] == nil {
			taken[target] = map[int64]bool{}
		}
		for own[u] || taken[target][u] {
			u++
		}
		taken[target][u] = true
		o.At = time.Unix(u, 0).In(loc)
		out = append(out, o)
	}
	slices.SortStableFunc(out, func(a, b dstsafe.Occurrence) int { return a.At.Compare(b.At) })
	return out
}

// TestExcludingProperties: random rules and cron specs in random zones
// near offset changes, with random calendars and every policy, give what
// excludedOracle says: every period once (none lost, none twice), at
// strictly increasing instants, and from any instant in between, the
// next of them.
func TestExcludingProperties(t *testing.T) {
	t.Parallel()
	zs := testZones(t)
	rng := rand.New(rand.NewPCG(17, 1))
	specs := []string{"FREQ=DAILY", "FREQ=DAILY;BYHOUR=9,17", "FREQ=WEEKLY;BYDAY=FR", "FREQ=WEEKLY;INTERVAL=2;BYDAY=MO,FR",
		"FREQ=MONTHLY;BYMONTHDAY=-1", "FREQ=MONTHLY;SKIP=BACKWARD", "FREQ=HOURLY;INTERVAL=6", "FREQ=MINUTELY;INTERVAL=720;BYSECOND=0,1"}
	crons := []string{"30 1 * * *", "0 0 * * *", "*/30 * * * *", "0 12 * * 5"}
	n := 600 / randomScale
	if longRun {
		n *= 5
	}
	outs := 0
	for i := range n {
		z := zs[rng.IntN(len(zs))]
		o := oracleFor(z)
		center := time.Date(2024, 3, 10, 0, 0, 0, 0, time.UTC)
		if len(o.tested) > 0 {
			center = time.Unix(o.tested[rng.IntN(len(o.tested))].At, 0)
		}
		var s dstsafe.OccurrenceSchedule
		var label string
		start := center.Add(-time.Duration(rng.IntN(20*24)) * time.Hour).In(z.Loc)
		if rng.IntN(4) == 0 {
			label = crons[rng.IntN(len(crons))]
			s = mustCron(t, label, dstsafe.WithLocation(z.Loc))
		} else {
			label = "DTSTART:" + start.Format("20060102T150405") + "\nRRULE:" + specs[rng.IntN(len(specs))]
			s = mustRRule(t, label, dstsafe.WithLocation(z.Loc))
		}
		// A calendar: weekends, some random dates, or both, or US holidays.
		var ds []dstsafe.Date
		for range rng.IntN(12) {
			y, m, d := center.Add(time.Duration(rng.IntN(40*24)-10*24) * time.Hour).In(z.Loc).Date()
			ds = append(ds, date(y, m, d))
		}
		cals := []calendar.Calendar{calendar.Dates(ds...), calendar.Union(calendar.Weekends(), calendar.Dates(ds...)),
			calendar.Union(calendar.Weekends(), calendar.USFederalHolidays()), calendar.Weekdays(time.Monday, time.Tuesday, time.Wednesday)}
		cal := cals[rng.IntN(len(cals))]
		p := calendar.HolidayPolicy(rng.IntN(3))
		e := calendar.Excluding(s, cal, p)
		// The oracle's window reaches two weeks either side of the one
		// compared, so moves into and out of it are known.
		lo, hi := center.Add(-10*24*time.Hour), center.Add(30*24*time.Hour)
		want := excludedOracle(s, cal, p, z.Loc, lo.Add(-15*24*time.Hour), hi.Add(15*24*time.Hour))
		var inWin []dstsafe.Occurrence
		for _, w := range want {
			if w.At.After(lo) && !w.At.After(hi) {
				inWin = append(inWin, w)
			}
		}
		var got []dstsafe.Occurrence
		for at := lo; ; {
			occ, ok := e.NextOccurrence(at)
			if !ok || occ.At.After(hi) {
				break
			}
			if !occ.At.After(at) {
				t.Fatalf("case %d %q in %s (%v): NextOccurrence(%v) = %v, not after", i, label, z.Name, p, at, occ.At)
			}
			got = append(got, occ)
			at = occ.At
			if len(got) > len(inWin)+5 {
				break
			}
		}
		same := len(got) == len(inWin)
		for k := 0; same && k < len(got); k++ {
			same = got[k].At.Equal(inWin[k].At) && got[k].Period == inWin[k].Period && got[k].Wall == inWin[k].Wall
		}
		if !same {
			var b strings.Builder
			for k := range max(len(got), len(inWin)) {
				if k < len(got) {
					fmt.Fprintf(&b, "\n\tgot  %v %s", got[k].At.Format(time.RFC3339), got[k].Period)
				}
				if k < len(inWin) {
					fmt.Fprintf(&b, "\n\twant %v %s", inWin[k].At.Format(time.RFC3339), inWin[k].Period)
				}
			}
			t.Fatalf("case %d %q in %s, policy %v: %d fires, want %d:%s", i, label, z.Name, p, len(got), len(inWin), b.String())
		}
		seen := map[string]bool{}
		for k, g := range got {
			if seen[g.Period] {
				t.Fatalf("case %d: period %s twice", i, g.Period)
			}
			seen[g.Period] = true
			if k > 0 {
				mid := got[k-1].At.Add(time.Duration(rng.Int64N(int64(g.At.Sub(got[k-1].At)))))
				if next := e.Next(mid); !next.Equal(g.At) {
					t.Fatalf("case %d %q in %s (%v): Next(%v) = %v, want %v", i, label, z.Name, p, mid, next, g.At)
				}
			}
		}
		outs += len(got)
	}
	t.Logf("%d schedules with calendars, %d fires checked against the oracle", n, outs)
}

// TestExcludingClosed: a calendar that contains every date never fires.
func TestExcludingClosed(t *testing.T) {
	all := calendar.Weekdays(time.Sunday, time.Monday, time.Tuesday, time.Wednesday, time.Thursday, time.Friday, time.Saturday)
	for p := range calendar.HolidayPolicy(3) {
		e := calendar.Excluding(mustRRule(t, "DTSTART:20240101T090000Z\nRRULE:FREQ=DAILY"), all, p)
		if got := e.Next(time.Date(2024, 6, 1, 0, 0, 0, 0, time.UTC)); !got.IsZero() {
			t.Errorf("%v: Next = %v, want never", p, got)
		}
	}
}

// TestExcludingSkippedDay: Samoa skipped 2011-12-30. Runs of a holiday on
// the 29th move to the 30th, whose readings do not exist and are pushed a
// day forward, onto the 31st's own runs: they fire a second after them,
// also when Next is asked from the 31st.
func TestExcludingSkippedDay(t *testing.T) {
	apia := dstsafetest.Zone(t, "Pacific/Apia")
	r := mustRRule(t, "DTSTART:20111227T090000\nRRULE:FREQ=DAILY;BYHOUR=9,17;COUNT=12", dstsafe.WithLocation(apia))
	e := calendar.Excluding(r, calendar.Dates(date(2011, 12, 29)), calendar.NextBusinessDay)
	var got []string
	for at := time.Date(2011, 12, 30, 19, 0, 0, 0, time.UTC); len(got) < 4; { // 2011-12-31 09:00 +14, its own run
		o, ok := e.NextOccurrence(at)
		if !ok {
			break
		}
		got = append(got, o.At.Format(time.RFC3339)+" "+o.Period)
		at = o.At
	}
	want := []string{
		"2011-12-31T09:00:01+14:00 2011-12-29T09:00:00",
		"2011-12-31T17:00:00+14:00 2011-12-31T17:00:00",
		"2011-12-31T17:00:01+14:00 2011-12-29T17:00:00",
		"2012-01-01T09:00:00+14:00 2012-01-01T09:00:00",
	}
	if !slices.Equal(got, want) {
		t.Errorf("got  %v\nwant %v", got, want)
	}
}

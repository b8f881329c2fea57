package bench

import (
	"testing"
	"time"

	"github.com/dstsafe/dstsafe"
	"github.com/go-co-op/gocron/v2"
	"github.com/robfig/cron/v3"
)

// nextSpec is one schedule, written for each library.
type nextSpec struct {
	name string
	// dstsafe is the spec given to dstsafe.ParseCron.
	dstsafe string
	// peer is the same schedule for robfig/cron and gocron. Without a
	// prefix both use the machine's local zone, so UTC is spelled out.
	peer string
}

var nextSpecs = []nextSpec{
	// The billing job of the incident: fixed time, meets a fold and a gap.
	{"chicago-daily-0130", "CRON_TZ=America/Chicago 30 1 * * *", "CRON_TZ=America/Chicago 30 1 * * *"},
	// A periodic job: follows real time through both transitions.
	{"chicago-every-15m", "CRON_TZ=America/Chicago */15 * * * *", "CRON_TZ=America/Chicago */15 * * * *"},
	// Monthly at midnight, no zone prefix: dstsafe reads it as UTC.
	{"utc-monthly", "0 0 1 * *", "CRON_TZ=UTC 0 0 1 * *"},
	// Ranges and lists: twice an hour in business hours on weekdays of
	// the first and last quarter.
	{"chicago-ranges-lists", "CRON_TZ=America/Chicago 0,30 9-17 * JAN-MAR,OCT-DEC MON-FRI",
		"CRON_TZ=America/Chicago 0,30 9-17 * JAN-MAR,OCT-DEC MON-FRI"},
}

// nextStart is an instant Next is asked to search from.
type nextStart struct {
	name string
	at   time.Time
}

var nextStarts = []nextStart{
	// An ordinary Wednesday, 10:04:05 CDT.
	{"normal", time.Date(2024, 6, 12, 15, 4, 5, 0, time.UTC)},
	// 01:45 CDT on 2024-11-03, inside the hour that is about to repeat
	// (02:00 CDT -> 01:00 CST at 07:00Z).
	{"in-fold", time.Date(2024, 11, 3, 6, 45, 0, 0, time.UTC)},
	// 01:45 CST on 2024-03-10, a quarter of an hour before the clocks
	// jump from 02:00 CST to 03:00 CDT (08:00Z): the search crosses the gap.
	{"before-gap", time.Date(2024, 3, 10, 7, 45, 0, 0, time.UTC)},
}

func parseDstsafe(tb testing.TB, s nextSpec) *dstsafe.Cron {
	tb.Helper()
	return mustParse(tb, s.dstsafe)
}

func mustParse(tb testing.TB, spec string, opts ...dstsafe.CronOption) *dstsafe.Cron {
	tb.Helper()
	c, err := dstsafe.ParseCron(spec, opts...)
	if err != nil {
		tb.Fatalf("dstsafe.ParseCron(%q): %v", spec, err)
	}
	return c
}

func parseRobfig(tb testing.TB, s nextSpec) cron.Schedule {
	tb.Helper()
	c, err := cron.ParseStandard(s.peer)
	if err != nil {
		tb.Fatalf("cron.ParseStandard(%q): %v", s.peer, err)
	}
	return c
}

// parseGocron returns gocron v2's public Cron: the parser and Next its
// CronJob uses (robfig/cron's, behind gocron's own interface). IsValid is
// what parses, and it already calls Next once from at.
func parseGocron(tb testing.TB, s nextSpec, at time.Time) gocron.Cron {
	tb.Helper()
	c := gocron.NewDefaultCron(false)
	if err := c.IsValid(s.peer, time.UTC, at); err != nil {
		tb.Fatalf("gocron IsValid(%q): %v", s.peer, err)
	}
	return c
}

// TestNextFixturesAgree checks that the benchmarks time the same search:
// away from transitions the three libraries must return the same instant.
// Inside the DST windows they may differ (that is the point of dstsafe);
// the differences are logged.
func TestNextFixturesAgree(t *testing.T) {
	for _, s := range nextSpecs {
		for _, st := range nextStarts {
			ds := parseDstsafe(t, s)
			d, r, g := ds.Next(st.at), parseRobfig(t, s).Next(st.at), parseGocron(t, s, st.at).Next(st.at)
			if !r.Equal(g) {
				t.Errorf("%s from %s: robfig %s, gocron %s: gocron's Cron is robfig's parser, they must agree",
					s.name, st.name, r, g)
			}
			if st.name == "normal" && !d.Equal(r) {
				t.Errorf("%s from %s: dstsafe %s, robfig %s", s.name, st.name, d, r)
			}
			if !d.Equal(r) {
				t.Logf("%s from %s: dstsafe %s, robfig %s", s.name, st.name,
					d.In(ds.Location()).Format(time.RFC3339+" MST"), r.Format(time.RFC3339+" MST"))
			}
		}
	}
}

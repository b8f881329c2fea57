// Package behaviour replays the famous daylight-saving cases against
// dstsafe, robfig/cron v3 and gocron v2 and says what each library does:
// fires once, fires twice, skips a day, or hangs.
//
// It measures third-party code that can loop forever (robfig/cron's Next on
// Pacific/Apia's skipped 2011-12-30), so [Run] bounds every library call
// with a real timeout. That is the one place in the project that waits on
// the real clock on purpose; a hung call's goroutine is left spinning until
// the process exits, which is why this package is kept apart from the
// benchmarks.
package behaviour

import (
	"fmt"
	"time"
)

// Case is one real transition and a scheduled job that meets it.
type Case struct {
	// Name is the row label in the table.
	Name string
	// Zone is the IANA zone the job is scheduled in.
	Zone string
	// Spec is the five-field cron spec, without a zone prefix.
	Spec string
	// Monthly groups fires by calendar month instead of civil day.
	Monthly bool
	// From and To bound the window, as civil dates in Zone: fires are
	// collected from From's local midnight up to (not including) To's.
	From, To string
	// Want lists, in RFC 3339 with the offset in force, the instants a
	// DST-correct scheduler fires at in the window: once per period, the
	// first reading in a fold, the reading pushed forward by the gap's
	// length in a gap. These are facts about the zone, written by hand.
	Want []string
	// Edge is the index in Want of the fire at the transition, the one the
	// table shows.
	Edge int
}

// Cases are the famous transitions, in the order the README table shows them.
// The case that hangs robfig/cron and gocron comes last, so that the
// goroutines they leave spinning do not slow the others down.
var Cases = []Case{
	{
		// The billing incident: 2024-11-03 02:00 CDT -> 01:00 CST, so
		// 01:30 is read twice, at 06:30Z and again at 07:30Z.
		Name: "Chicago 2024 fall back, daily 01:30",
		//dstsafevet:ignore a replay: the job meets the transition on purpose
		Zone: "America/Chicago", Spec: "30 1 * * *",
		From: "2024-11-02", To: "2024-11-05",
		Want: []string{
			"2024-11-02T01:30:00-05:00",
			"2024-11-03T01:30:00-05:00", // first reading (CDT); 01:30 CST must not fire
			"2024-11-04T01:30:00-06:00",
		},
		Edge: 1,
	},
	{
		// 2024-03-10 02:00 CST -> 03:00 CDT: 02:30 never happens.
		Name: "Chicago 2024 spring forward, daily 02:30",
		//dstsafevet:ignore a replay: the job meets the transition on purpose
		Zone: "America/Chicago", Spec: "30 2 * * *",
		From: "2024-03-09", To: "2024-03-12",
		Want: []string{
			"2024-03-09T02:30:00-06:00",
			"2024-03-10T03:30:00-05:00", // 02:30 shifted by the 1 h gap
			"2024-03-11T02:30:00-05:00",
		},
		Edge: 1,
	},
	{
		// Samoa moved west of the date line: 2011-12-29 24:00 -10:00 is
		// 2011-12-31 00:00 +14:00, the whole of 2011-12-30 was skipped.
		// The 12:00 of the skipped day, shifted by the 24 h gap, is the
		// 12:00 of the 31st: one fire, not two.
		Name: "Pacific/Apia 2011 skipped day, daily 12:00",
		Zone: "Pacific/Apia", Spec: "0 12 * * *",
		From: "2011-12-28", To: "2012-01-01",
		Want: []string{
			"2011-12-28T12:00:00-10:00",
			"2011-12-29T12:00:00-10:00",
			"2011-12-31T12:00:00+14:00",
		},
		Edge: 2,
	},
	{
		// Negative DST: Irish winter time (GMT) is the "DST" period in
		// tzdata. 2024-10-27 02:00 IST -> 01:00 GMT repeats 01:00-02:00.
		Name: "Europe/Dublin 2024 fall back, daily 01:30",
		//dstsafevet:ignore a replay: the job meets the transition on purpose
		Zone: "Europe/Dublin", Spec: "30 1 * * *",
		From: "2024-10-26", To: "2024-10-29",
		Want: []string{
			"2024-10-26T01:30:00+01:00",
			"2024-10-27T01:30:00+01:00", // first reading (IST)
			"2024-10-28T01:30:00+00:00",
		},
		Edge: 1,
	},
	{
		// 2024-03-31 01:00 GMT -> 02:00 IST: 01:30 never happens.
		Name: "Europe/Dublin 2024 spring forward, daily 01:30",
		//dstsafevet:ignore a replay: the job meets the transition on purpose
		Zone: "Europe/Dublin", Spec: "30 1 * * *",
		From: "2024-03-30", To: "2024-04-02",
		Want: []string{
			"2024-03-30T01:30:00+00:00",
			"2024-03-31T02:30:00+01:00", // shifted by the 1 h gap
			"2024-04-01T01:30:00+01:00",
		},
		Edge: 1,
	},
	{
		// Lord Howe Island shifts by 30 minutes: 2024-10-06 02:00 +10:30
		// -> 02:30 +11:00, so 02:15 never happens.
		Name: "Australia/Lord_Howe 2024 spring (30 min gap), daily 02:15",
		//dstsafevet:ignore a replay: the job meets the transition on purpose
		Zone: "Australia/Lord_Howe", Spec: "15 2 * * *",
		From: "2024-10-05", To: "2024-10-08",
		Want: []string{
			"2024-10-05T02:15:00+10:30",
			"2024-10-06T02:45:00+11:00", // shifted by the 30 min gap
			"2024-10-07T02:15:00+11:00",
		},
		Edge: 1,
	},
	{
		// 2024-04-07 02:00 +11:00 -> 01:30 +10:30 repeats 01:30-02:00.
		Name: "Australia/Lord_Howe 2024 fall (30 min fold), daily 01:45",
		//dstsafevet:ignore a replay: the job meets the transition on purpose
		Zone: "Australia/Lord_Howe", Spec: "45 1 * * *",
		From: "2024-04-06", To: "2024-04-09",
		Want: []string{
			"2024-04-06T01:45:00+11:00",
			"2024-04-07T01:45:00+11:00", // first reading; 01:45 +10:30 must not fire
			"2024-04-08T01:45:00+10:30",
		},
		Edge: 1,
	},
	{
		// The same skipped day for a job on the 30th of each month:
		// December's 30th does not exist and fires shifted by the gap.
		Name: "Pacific/Apia 2011 skipped day, monthly on the 30th 12:00",
		Zone: "Pacific/Apia", Spec: "0 12 30 * *", Monthly: true,
		From: "2011-11-01", To: "2012-02-01",
		Want: []string{
			"2011-11-30T12:00:00-10:00",
			"2011-12-31T12:00:00+14:00", // 2011-12-30 12:00 shifted by 24 h
			"2012-01-30T12:00:00+14:00",
		},
		Edge: 1,
	},
}

// Window returns the instants bounding c's window in loc: the local
// midnights starting From and To. The cases are chosen so that neither
// midnight is near a transition.
func (c Case) Window(loc *time.Location) (from, to time.Time, err error) {
	from, err = localMidnight(c.From, loc)
	if err != nil {
		return from, to, err
	}
	to, err = localMidnight(c.To, loc)
	return from, to, err
}

// WantInstants parses c.Want and checks that each written offset is the
// one loc has at that instant, so a typo cannot hide in the table.
func (c Case) WantInstants(loc *time.Location) ([]time.Time, error) {
	out := make([]time.Time, 0, len(c.Want))
	for _, s := range c.Want {
		t, err := time.Parse(time.RFC3339, s)
		if err != nil {
			return nil, fmt.Errorf("behaviour: %s: %w", c.Name, err)
		}
		_, written := t.Zone()
		if _, actual := t.In(loc).Zone(); actual != written {
			return nil, fmt.Errorf("behaviour: %s: %s: %s has offset %ds at that instant, not %ds",
				c.Name, s, c.Zone, actual, written)
		}
		out = append(out, t.In(loc))
	}
	return out, nil
}

func localMidnight(date string, loc *time.Location) (time.Time, error) {
	d, err := time.Parse(time.DateOnly, date)
	if err != nil {
		return time.Time{}, fmt.Errorf("behaviour: %w", err)
	}
	t := time.Date(d.Year(), d.Month(), d.Day(), 0, 0, 0, 0, loc)
	if t.Hour() != 0 || t.Day() != d.Day() {
		return time.Time{}, fmt.Errorf("behaviour: %s has no midnight in %s", date, loc)
	}
	return t, nil
}

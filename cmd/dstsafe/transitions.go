package main

import (
	"fmt"
	"strconv"
	"time"

	"github.com/dstsafe/dstsafe"
)

var transitionsCmd = &command{
	name:    "transitions",
	summary: "a zone's offset changes with the wall times they skip or repeat",
	usage: `Usage: dstsafe transitions ZONE [--year Y] [--json]

Lists the offset changes of ZONE during year Y (default: the current year,
UTC): the instant, the wall clock just before and after, the change, and
the wall readings it skips (gap) or repeats (fold). Changes of abbreviation
or DST flag alone are not transitions.

Flags:
  --year Y       calendar year, 1 to 9999 (default: this year)
  --json         JSON output
  --zoneinfo DIR read zones from DIR

Examples:
  dstsafe transitions America/Chicago --year 2024
  dstsafe transitions Australia/Lord_Howe --year 2025
  dstsafe transitions Pacific/Apia --year 2011
`,
	run: runTransitions,
}

func runTransitions(c *cmdContext, args []string) error {
	yearFlag := c.fs.String("year", "", "")
	pos, err := c.parse(args, 1, 1)
	if err != nil {
		return err
	}
	loc, err := loadZone("ZONE", pos[0])
	if err != nil {
		return err
	}
	year := c.now().UTC().Year()
	if *yearFlag != "" {
		y, err := strconv.Atoi(*yearFlag)
		if err != nil || y < 1 || y > 9999 {
			return usagef("bad --year %q: want a year from 1 to 9999", *yearFlag)
		}
		year = y
	}
	from := time.Date(year, time.January, 1, 0, 0, 0, 0, time.UTC)
	trs := dstsafe.Transitions(loc, from, from.AddDate(1, 0, 0))
	if c.json {
		out := struct {
			Zone        string           `json:"zone"`
			Year        int              `json:"year"`
			Transitions []transitionJSON `json:"transitions"`
		}{Zone: loc.String(), Year: year, Transitions: []transitionJSON{}}
		for _, tr := range trs {
			out.Transitions = append(out.Transitions, toTransitionJSON(tr))
		}
		return writeJSON(c.stdout, out)
	}
	if len(trs) == 0 {
		fmt.Fprintf(c.stdout, "%s: no transitions in %d (UTC year); every wall time happens exactly once\n", loc, year)
		return nil
	}
	fmt.Fprintf(c.stdout, "%s: %d transition(s) in %d (UTC year)\n\n", loc, len(trs), year)
	tw := newTable(c.stdout)
	fmt.Fprintln(tw, "INSTANT (UTC)\tWALL CLOCK\tCHANGE\tKIND\tAFFECTED WALL TIMES")
	for _, tr := range trs {
		before, after := clockAround(tr)
		fmt.Fprintf(tw, "%s\t%s -> %s\t%s\t%s\t%s\n", utc(tr.At), before, after,
			duration(tr.OffsetAfter-tr.OffsetBefore), tr.Kind, affected(tr))
	}
	return tw.Flush()
}

package main

import (
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/dstsafe/dstsafe"
	"github.com/dstsafe/dstsafe/cmd/dstsafevet"
)

var explainCmd = &command{
	name:    "explain",
	summary: "what a schedule does, and what it does on each transition",
	usage: `Usage: dstsafe explain SPEC [--from T] [--months N] [--seconds] [--json]

Says in plain words when SPEC fires and how it treats repeated (fold) and
skipped (gap) wall times, then what it does on every transition of its
zone in the N months after --from.

Flags:
  --from T       start of the period: RFC 3339 or a wall time in the
                 schedule's zone (default now)
  --months N     length of the period, 1 to 120 (default 12)
  --seconds      the spec starts with a seconds field
  --json         JSON output
  --zoneinfo DIR read zones from DIR

Examples:
  dstsafe explain 'CRON_TZ=America/Chicago 30 1 * * *'
  dstsafe explain 'CRON_TZ=Europe/London */15 * * * *' --from 2025-01-01T00:00:00Z
`,
	run: runExplain,
}

type effectJSON struct {
	Transition transitionJSON   `json:"transition"`
	Effect     string           `json:"effect"`
	Firings    []occurrenceJSON `json:"firings"`
}

func runExplain(c *cmdContext, args []string) error {
	f := c.scheduleFlags(false)
	months := c.fs.Int("months", 12, "")
	pos, err := c.parse(args, 1, 1)
	if err != nil {
		return err
	}
	if *months < 1 || *months > 120 {
		return usagef("bad --months %d: want 1 to 120", *months)
	}
	cr, from, err := c.parseSchedule(pos[0], f)
	if err != nil {
		return err
	}
	to := from.AddDate(0, *months, 0)
	summary := describe(cr, f.seconds)
	trs := dstsafe.Transitions(cr.Location(), from, to)
	var effects []effectJSON
	for _, tr := range trs {
		occs := affectedFirings(cr, tr)
		e := effectJSON{Transition: toTransitionJSON(tr), Effect: effect(cr, tr, occs), Firings: []occurrenceJSON{}}
		for _, o := range occs {
			e.Firings = append(e.Firings, occurrenceJSON{At: utc(o.At), Local: rfc3339(o.At), Zone: abbrev(o.At),
				Wall: o.Wall.String(), Kind: o.Kind.String(), Period: o.Period, Note: note(cr, o)})
		}
		effects = append(effects, e)
	}
	if c.json {
		out := struct {
			scheduleJSON
			Summary     string       `json:"summary"`
			From        string       `json:"from"`
			To          string       `json:"to"`
			Transitions []effectJSON `json:"transitions"`
		}{describeSchedule(cr), summary, utc(from), utc(to), effects}
		if out.Transitions == nil {
			out.Transitions = []effectJSON{}
		}
		return writeJSON(c.stdout, out)
	}
	fmt.Fprintln(c.stdout, summary)
	fmt.Fprintln(c.stdout)
	if len(trs) == 0 {
		fmt.Fprintf(c.stdout, "%s has no transitions from %s to %s: every firing is at its wall time, once.\n", cr.Location(), utc(from), utc(to))
		return nil
	}
	fmt.Fprintf(c.stdout, "Transitions of %s from %s to %s:\n", cr.Location(), utc(from), utc(to))
	for i, tr := range trs {
		before, after := clockAround(tr)
		fmt.Fprintf(c.stdout, "- %s (%s -> %s, %s %s): %s\n", tr.At.Format("2006-01-02"), before, after, tr.Kind, affected(tr), effects[i].Effect)
	}
	return nil
}

// affectedFirings returns the firings around tr whose wall reading the
// transition skips or repeats.
func affectedFirings(cr *dstsafe.Cron, tr dstsafe.Transition) []dstsafe.Occurrence {
	var out []dstsafe.Occurrence
	after, end := tr.At.Add(-48*time.Hour), tr.At.Add(48*time.Hour)
	for i := 0; i < 200_000; i++ {
		o, ok := cr.NextOccurrence(after)
		if !ok || o.At.After(end) {
			break
		}
		if o.Kind != dstsafe.Unique && !o.Wall.Before(tr.Start) && o.Wall.Before(tr.End) {
			out = append(out, o)
		}
		after = o.At
	}
	return out
}

// effect says in a sentence what the schedule does on a transition.
func effect(cr *dstsafe.Cron, tr dstsafe.Transition, occs []dstsafe.Occurrence) string {
	if len(occs) == 0 {
		if cr.Fixed() {
			return "not affected: no firing is scheduled in that range"
		}
		if tr.Kind == dstsafe.Gap {
			return "the skipped readings do not exist, so none of them fires (gap policy " + cr.GapPolicy().String() + ")"
		}
		return "not affected: no firing is scheduled in that range"
	}
	if len(occs) > 3 {
		n := len(occs)
		first, last := occs[0], occs[n-1]
		return fmt.Sprintf("%d firings in that range, %s (%s) to %s (%s)", n, local(first.At), note(cr, first), local(last.At), note(cr, last))
	}
	var parts []string
	for _, o := range occs {
		if o.Kind == dstsafe.Fold {
			parts = append(parts, fmt.Sprintf("%s, at %s (%s)", note(cr, o), o.At.Format("15:04 MST"), utc(o.At)))
		} else {
			parts = append(parts, fmt.Sprintf("%s (%s)", note(cr, o), utc(o.At)))
		}
	}
	return strings.Join(parts, "; ")
}

// describe puts a schedule into a sentence: "Fires at 01:30 every day,
// America/Chicago time. Fixed-time: ..."
func describe(cr *dstsafe.Cron, seconds bool) string {
	_, rest := dstsafevet.SplitZone(cr.String())
	when := describeFields(rest, seconds)
	var policy string
	if cr.Fixed() {
		policy = "It is a fixed-time schedule: " + foldSentence(cr.FoldPolicy()) + "; " + gapSentence(cr.GapPolicy()) + "."
	} else {
		policy = "It is a periodic schedule: " + foldSentence(cr.FoldPolicy()) + "; " + gapSentence(cr.GapPolicy()) + "."
	}
	return fmt.Sprintf("Fires %s, %s time. %s", when, cr.Location(), policy)
}

func foldSentence(p dstsafe.FoldPolicy) string {
	switch p {
	case dstsafe.FoldFirst:
		return "a wall time that happens twice fires once, at the first occurrence"
	case dstsafe.FoldLast:
		return "a wall time that happens twice fires once, at the second occurrence"
	}
	return "a wall time that happens twice fires twice, following real time"
}

func gapSentence(p dstsafe.GapPolicy) string {
	switch p {
	case dstsafe.GapShift:
		return "a skipped wall time fires once, shifted forward by the length of the gap"
	case dstsafe.GapAtTransition:
		return "a skipped wall time fires once, at the end of the gap"
	}
	return "a skipped wall time does not fire"
}

var weekdays = []string{"Sunday", "Monday", "Tuesday", "Wednesday", "Thursday", "Friday", "Saturday", "Sunday"}

var descriptorWords = map[string]string{
	"@yearly": "at 00:00 on January 1", "@annually": "at 00:00 on January 1",
	"@monthly": "at 00:00 on day 1 of every month", "@weekly": "at 00:00 every Sunday",
	"@daily": "at 00:00 every day", "@midnight": "at 00:00 every day", "@hourly": "at minute 0 of every hour",
}

// describeFields renders cron fields as words, falling back to the raw
// field text for forms it does not spell out.
func describeFields(rest string, seconds bool) string {
	if strings.HasPrefix(rest, "@every") {
		return "every " + strings.TrimSpace(strings.TrimPrefix(rest, "@every")) + " of real time"
	}
	if w, ok := descriptorWords[strings.ToLower(rest)]; ok {
		return w
	}
	f := strings.Fields(rest)
	sec := "0"
	if seconds && len(f) == 6 {
		sec, f = f[0], f[1:]
	}
	if len(f) != 5 {
		return "at " + rest
	}
	return describeTime(sec, f[0], f[1]) + " " + describeDays(f[2], f[3], f[4])
}

func num(s string) (int, bool) {
	n, err := strconv.Atoi(s)
	return n, err == nil
}

func describeTime(sec, min, hour string) string {
	s, sok := num(sec)
	hours, hok := list(hour)
	mins, mok := list(min)
	if sok && hok && mok && len(hours)*len(mins) <= 6 {
		var ts []string
		for _, h := range hours {
			for _, m := range mins {
				t := fmt.Sprintf("%02d:%02d", h, m)
				if s != 0 {
					t += fmt.Sprintf(":%02d", s)
				}
				ts = append(ts, t)
			}
		}
		return "at " + strings.Join(ts, ", ")
	}
	secPart := ""
	if !sok || s != 0 {
		secPart = " (second " + sec + ")"
	}
	switch {
	case min == "*" && hour == "*":
		return "every minute" + secPart
	case strings.HasPrefix(min, "*/") && hour == "*":
		return "every " + min[2:] + " minutes" + secPart
	case mok && len(mins) == 1 && hour == "*":
		return fmt.Sprintf("at minute %d of every hour", mins[0]) + secPart
	case mok && len(mins) == 1 && strings.HasPrefix(hour, "*/"):
		return fmt.Sprintf("at minute %d of every %s hours", mins[0], hour[2:]) + secPart
	}
	return "at minute " + min + " of hour " + hour + secPart
}

// list parses "1,2,3" of plain numbers.
func list(s string) ([]int, bool) {
	var out []int
	for _, p := range strings.Split(s, ",") {
		n, ok := num(p)
		if !ok {
			return nil, false
		}
		out = append(out, n)
	}
	return out, true
}

func describeDays(dom, month, dow string) string {
	star := func(s string) bool { return s == "*" || s == "?" }
	var days string
	switch {
	case star(dom) && star(dow):
		days = "every day"
	case star(dom):
		days = "on " + describeDow(dow)
	case star(dow):
		days = "on day " + dom + " of the month"
	default:
		days = "on day " + dom + " of the month and on " + describeDow(dow)
	}
	if !star(month) {
		days += " in month " + month
	}
	return days
}

func describeDow(s string) string {
	name := func(p string) (string, bool) {
		if n, ok := num(p); ok && n >= 0 && n <= 7 {
			return weekdays[n], true
		}
		for _, w := range weekdays {
			if strings.EqualFold(p, w[:3]) {
				return w, true
			}
		}
		return "", false
	}
	var out []string
	for _, p := range strings.Split(s, ",") {
		if a, b, ok := strings.Cut(p, "-"); ok {
			na, oka := name(a)
			nb, okb := name(b)
			if oka && okb {
				out = append(out, na+" to "+nb)
				continue
			}
		}
		if n, ok := name(p); ok {
			out = append(out, n)
			continue
		}
		return "day-of-week " + s
	}
	return strings.Join(out, ", ")
}

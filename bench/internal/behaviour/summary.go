package behaviour

import (
	"fmt"
	"slices"
	"strings"
	"time"
)

// Summary says in a few words what o means for c, for a table cell:
// "once a day (Nov 3 at 01:30 CDT)", "fires twice on Nov 3 (01:30 CDT,
// 01:30 CST)", "skips Mar 10", "`Next` hangs".
func (c Case) Summary(o Outcome) string {
	switch {
	case o.Hung && o.HungIn != "":
		return "`" + o.HungIn + "` hangs"
	case o.Hung:
		return "hangs"
	case o.Err != nil:
		return "error: " + o.Err.Error()
	}
	loc, err := time.LoadLocation(c.Zone)
	if err != nil {
		return "error: " + err.Error()
	}
	want, err := c.WantInstants(loc)
	if err != nil {
		return "error: " + err.Error()
	}
	fires := make([]time.Time, len(o.Fires))
	for i, t := range o.Fires {
		fires[i] = t.In(loc)
	}

	byPeriod := map[string][]time.Time{}
	wantBy := map[string]time.Time{}
	var periods []string
	for _, t := range slices.SortedFunc(slices.Values(append(slices.Clone(want), fires...)), time.Time.Compare) {
		if p := c.period(t); !slices.Contains(periods, p) {
			periods = append(periods, p)
		}
	}
	for _, t := range fires {
		byPeriod[c.period(t)] = append(byPeriod[c.period(t)], t)
	}
	for _, t := range want {
		wantBy[c.period(t)] = t
	}

	var notes []string
	for _, p := range periods {
		got := byPeriod[p]
		w, wanted := wantBy[p]
		switch {
		case len(got) == 0:
			notes = append(notes, "skips "+p)
		case len(got) > 1:
			notes = append(notes, fmt.Sprintf("fires %s on %s (%s)", times(len(got)), p, readings(got)))
		case !wanted:
			notes = append(notes, fmt.Sprintf("extra fire on %s at %s", p, reading(got[0])))
		case !got[0].Equal(w):
			notes = append(notes, fmt.Sprintf("fires %s at %s", p, reading(got[0])))
		}
	}
	if len(notes) > 0 {
		return strings.Join(notes, "; ")
	}
	unit := "day"
	if c.Monthly {
		unit = "month"
	}
	edge := want[c.Edge]
	return fmt.Sprintf("once a %s (%s at %s)", unit, edge.Format("Jan 2"), reading(edge))
}

// period is the calendar day (or month) t falls on in its location.
func (c Case) period(t time.Time) string {
	if c.Monthly {
		return t.Format("Jan 2006")
	}
	return t.Format("Jan 2")
}

func reading(t time.Time) string { return t.Format("15:04 MST") }

func readings(ts []time.Time) string {
	s := make([]string, len(ts))
	for i, t := range ts {
		s[i] = reading(t)
	}
	return strings.Join(s, ", ")
}

func times(n int) string {
	if n == 2 {
		return "twice"
	}
	return fmt.Sprintf("%d times", n)
}

// Libraries are dstsafe and its peers, in the table's column order.
var Libraries = append([]Library{Dstsafe}, Peers...)

// Markdown renders the behaviour of dstsafe and its peers on every case as
// a markdown table, one row per case, one column per library.
func Markdown(cases []Case, timeout time.Duration) string {
	outcomes := make([][]Outcome, len(cases))
	for i, c := range cases {
		outcomes[i] = RunAll(Libraries, c, timeout)
	}
	return markdown(cases, outcomes)
}

// markdown renders outcomes[i][j], what Libraries[j] did with cases[i].
func markdown(cases []Case, outcomes [][]Outcome) string {
	var b strings.Builder
	b.WriteString("| case |")
	for _, l := range Libraries {
		b.WriteString(" " + l.Name + " |")
	}
	b.WriteString("\n| --- |" + strings.Repeat(" --- |", len(Libraries)) + "\n")
	for i, c := range cases {
		b.WriteString("| " + c.Name + " |")
		for _, o := range outcomes[i] {
			b.WriteString(" " + strings.ReplaceAll(c.Summary(o), "|", `\|`) + " |")
		}
		b.WriteString("\n")
	}
	return b.String()
}

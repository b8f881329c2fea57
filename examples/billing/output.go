package main

import (
	"encoding/json"
	"fmt"
	"io"
	"strings"
	"time"

	"github.com/dstsafe/dstsafe/examples/billing/internal/billing"
)

// summary is the last line of the demo, from the databases.
func (r Replay) summary() string {
	return fmt.Sprintf("naive: runs=%d charged=%d duplicates=%d | dstsafe: runs=%d charged=%d duplicates=%d",
		len(r.Naive.Runs), r.Naive.Charged, r.Naive.Duplicates,
		len(r.DSTSafe.Runs), r.DSTSafe.Charged, r.DSTSafe.Duplicates)
}

func writeJSON(w io.Writer, r Replay) error {
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	return enc.Encode(struct {
		Replay
		Summary string `json:"summary"`
	}{r, r.summary()})
}

func writeText(w io.Writer, r Replay) {
	p := func(format string, a ...any) { fmt.Fprintf(w, format+"\n", a...) }
	p("Replaying the night of %s in %s on a fake clock (%s).", r.Date, r.Zone, r.Database)
	if len(r.Transitions) == 0 {
		p("  The clocks do not change that night.")
	}
	for _, t := range r.Transitions {
		if t.Kind == "fold" {
			p("  At %s the clocks go back to %s: %s to %s happens twice.", t.Before, t.After, t.After[:5], t.Before[:5])
		} else {
			p("  At %s the clocks go forward to %s: %s to %s never happens.", t.Before, t.After, t.Before[:5], t.After[:5])
		}
	}
	p("  %d subscriptions due on %s; the processor declines %d of them.", r.Subscriptions, r.Date, r.Declining)
	p("")

	p("naive: matches 01:30 local every 20s, 10-minute guard, next_billing_date batch-updated at 02:15")
	for i, run := range r.Naive.Runs {
		after := ""
		if i > 0 {
			after = fmt.Sprintf(", %.0f minutes after run %d", run.Started.Sub(r.Naive.Runs[i-1].Started).Minutes(), i)
		}
		p("  run %d at %s%s: charged %d, declined %d", i+1, clock(run.Started), after, run.Charged, run.Declined)
	}
	reconcileLine(p, r.Naive)
	p("")

	p("the naive worker's 01:30 as a dstsafe schedule: %s on the dstsafe Scheduler", r.SameSpec.Spec)
	for i, f := range r.SameSpec.Fires {
		p("  fire %d at %s, period %q (%s)", i+1, clock(f.Due), f.Period, f.Kind)
	}
	fires := fmt.Sprintf("%d fires", len(r.SameSpec.Fires))
	if len(r.SameSpec.Fires) == 1 {
		fires = "1 fire"
	}
	p("  %s that night: a fixed-time job fires once in a fold, at the first reading; the second 01:30 is the same period", fires)
	p("")
	p("the fix in production shape:")

	p("dstsafe: %s, run_date in %s, claim (%q, run_date), one transaction per subscription", billing.Spec, r.Zone, billing.JobName)
	for i, run := range r.DSTSafe.Runs {
		p("  run %d at %s (%s UTC), claimed (%q, %q): charged %d, declined %d",
			i+1, clock(run.Started), run.Started.UTC().Format("15:04"), billing.JobName, run.Period, run.Charged, run.Declined)
	}
	reconcileLine(p, r.DSTSafe)
	p("")

	l := r.Local
	p("local midnight: %d customers in %d zones, billed by a job every 15 minutes at their local midnight", l.Zones, l.Zones)
	for _, m := range l.Unusual {
		loc, _ := time.LoadLocation(m.Zone)
		switch m.Kind {
		case "gap":
			p("  %s %s: 00:00 never happens; billed at the day's first instant, %s = %s UTC", m.Zone, m.Date, clock(m.At.In(loc)), m.At.Format("15:04"))
		case "fold":
			p("  %s %s: 00:00 happens twice; billed once, at the first, %s = %s UTC", m.Zone, m.Date, clock(m.At.In(loc)), m.At.Format("15:04"))
		}
	}
	p("  %s: %d charged, %d duplicates, %d off local midnight", r.Date, l.Charged, l.Duplicates, l.OffMidnight)
	p("")
	anniversaryText(p, r.Anniversary)
	p("")
	p("%s", r.summary())
}

func reconcileLine(p func(string, ...any), o Outcome) {
	rep := o.Reconcile
	var parts []string
	if n := len(rep.Duplicates); n > 0 {
		parts = append(parts, fmt.Sprintf("%d subscriptions charged twice for one period (%s taken twice)", n, money(o.DuplicateMinor)))
	} else {
		parts = append(parts, "no duplicate charges")
	}
	if n := len(rep.Unbilled); n > 0 {
		parts = append(parts, fmt.Sprintf("%d due but not billed", n))
	}
	if n := len(rep.NotAdvanced); n > 0 {
		parts = append(parts, fmt.Sprintf("%d charged but not advanced", n))
	}
	parts = append(parts, fmt.Sprintf("%d declined (dunning)", rep.Declined))
	p("  reconcile: %s; processor made %d charges", strings.Join(parts, ", "), o.ProcessorCharges)
}

// clock formats an instant as its wall reading with zone and offset:
// "2024-11-03 01:30:00 CDT (-05:00)". Without the offset, the naive
// runs would look like the same instant.
func clock(t time.Time) string { return t.Format("2006-01-02 15:04:05 MST (-07:00)") }

func money(minor int64) string {
	s := fmt.Sprintf("%d", minor/100)
	var b strings.Builder
	for i, c := range s {
		if i > 0 && (len(s)-i)%3 == 0 {
			b.WriteByte(',')
		}
		b.WriteRune(c)
	}
	return fmt.Sprintf("$%s.%02d", b.String(), minor%100)
}

package dstsafevet

import (
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/dstsafe/dstsafe"
)

// SplitZone splits a CRON_TZ= or TZ= prefix off a cron spec. It returns the
// zone name ("" when there is no prefix) and the rest of the spec.
func SplitZone(spec string) (zone, rest string) {
	s := strings.TrimSpace(spec)
	for _, p := range []string{"CRON_TZ=", "TZ="} {
		if strings.HasPrefix(s, p) {
			z, r, _ := strings.Cut(s[len(p):], " ")
			return z, strings.TrimSpace(r)
		}
	}
	return "", s
}

// ParseSpec parses a spec as the scheduling libraries write it: five
// fields, or six with a leading seconds field (robfig/cron's WithSeconds,
// gocron's CronJob(spec, true)).
func ParseSpec(spec string, opts ...dstsafe.CronOption) (*dstsafe.Cron, error) {
	c, err := dstsafe.ParseCron(spec, opts...)
	if err == nil {
		return c, nil
	}
	if _, rest := SplitZone(spec); len(strings.Fields(rest)) == 6 {
		if c6, err6 := dstsafe.ParseCron(spec, append(opts, dstsafe.WithSeconds())...); err6 == nil {
			return c6, nil
		}
	}
	return nil, err
}

// IsZoneError reports whether err is a ParseCron error about the zone.
func IsZoneError(err error) bool {
	var pe *dstsafe.ParseError
	return errors.As(err, &pe) && pe.Field == "zone"
}

// Risk is one firing of a fixed-time schedule whose wall reading a
// transition skips or repeats.
type Risk struct {
	Transition dstsafe.Transition
	Occurrence dstsafe.Occurrence
}

// String describes the risk in a few words: "01:30 occurs twice on
// 2024-11-03" or "02:30 does not exist on 2024-03-10".
func (r Risk) String() string {
	w := r.Occurrence.Wall
	hm := fmt.Sprintf("%02d:%02d", w.Hour, w.Minute)
	if w.Second != 0 {
		hm += fmt.Sprintf(":%02d", w.Second)
	}
	if r.Occurrence.Kind == dstsafe.Gap {
		return hm + " does not exist on " + w.DateString()
	}
	return hm + " occurs twice on " + w.DateString()
}

// WindowRisks returns the firings of a fixed-time schedule whose wall
// reading is skipped or repeated by a transition of its zone in [from, to),
// at most one per transition. A periodic schedule (Fixed false) follows
// real time and has none.
func WindowRisks(c *dstsafe.Cron, from, to time.Time) []Risk {
	if !c.Fixed() {
		return nil
	}
	var risks []Risk
	for _, tr := range dstsafe.Transitions(c.Location(), from, to) {
		// A transition's window is at most a day long (Apia skipped
		// 2011-12-30), so firings two days either side cover it.
		after, end := tr.At.Add(-48*time.Hour), tr.At.Add(48*time.Hour)
		for i := 0; i < 100_000; i++ { // a fixed spec fires at most 86,400 times a day
			o, ok := c.NextOccurrence(after)
			if !ok || o.At.After(end) {
				break
			}
			if o.Kind == dstsafe.Fold || o.Kind == dstsafe.Gap {
				risks = append(risks, Risk{Transition: tr, Occurrence: o})
				break
			}
			after = o.At
		}
	}
	return risks
}

// Shift says how far the transition behind the risk moves the clocks, in
// words: "an hour" for most zones, "30 minutes" for Australia/Lord_Howe,
// "a day" for Pacific/Apia's 2011 date-line jump. A job an offset change
// moves runs that far off, not always an hour.
func (r Risk) Shift() string { return ShiftWords(r.Transition.OffsetAfter - r.Transition.OffsetBefore) }

// ShiftWords writes an offset change of d seconds as words.
func ShiftWords(d int) string {
	if d < 0 {
		d = -d
	}
	switch {
	case d == 3600:
		return "an hour"
	case d%3600 == 0 && d >= 86400 && d%86400 == 0:
		if d == 86400 {
			return "a day"
		}
		return fmt.Sprintf("%d days", d/86400)
	case d%3600 == 0:
		return fmt.Sprintf("%d hours", d/3600)
	case d < 3600 && d%60 == 0:
		return fmt.Sprintf("%d minutes", d/60)
	case d%60 == 0:
		return fmt.Sprintf("%dh%02dm", d/3600, d/60%60)
	}
	return fmt.Sprintf("%d seconds", d)
}

// Window writes the wall readings the transition behind the risk skips or
// repeats: "01:00-02:00 repeated", "02:00-03:00 skipped",
// "01:30-02:00 repeated" in Lord_Howe.
func (r Risk) Window() string {
	s, e := r.Transition.Start, r.Transition.End
	what := "repeated"
	if r.Transition.Kind == dstsafe.Gap {
		what = "skipped"
	}
	return fmt.Sprintf("%02d:%02d-%02d:%02d %s", s.Hour, s.Minute, e.Hour, e.Minute, what)
}

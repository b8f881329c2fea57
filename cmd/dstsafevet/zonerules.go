package dstsafevet

import (
	"fmt"
	"go/ast"
	"time"

	"github.com/dstsafe/dstsafe"
)

// Messages of the time.Date check: from the zone's real rules when the
// zone is known here, else why the hour is a risk.
const (
	dateGapMsg = "localdate: time.Date(..., %s, %s): %s does not exist on %s (%s), and time.Date then gives %s%s; " +
		"resolve the wall time with dstsafe.Resolve(dstsafe.Wall{...}, loc, dstsafe.Compatible) and handle the gap, or schedule it with dstsafe.ParseCron"
	dateFoldMsg = "localdate: time.Date(..., %s, %s): %s occurs twice on %s (%s), and time.Date returns one of the two (here %s) without saying which it will pick; " +
		"a job timed from it runs at either, or at both when the next run is computed again after the first; " +
		"resolve it with dstsafe.Resolve(dstsafe.Wall{...}, loc, dstsafe.Earlier) and claim the period in a dstsafe.Ledger"
	dateVarHourMsg = "localdate: time.Date picks an unspecified offset when the wall time is skipped or repeated, and %s with an hour set at run time does both in some hours (%s); " +
		"resolve it with dstsafe.Resolve(dstsafe.Wall{...}, loc, dstsafe.Compatible) and handle the error"
	dateUnknownMsg = "localdate: time.Date picks an unspecified offset when the wall time is skipped or repeated, and %s in a zone this check cannot name (time.Local or a location from configuration) %s: zones with DST change their clocks between 00:00 and 04:00 (00:00 in Santiago and Havana, 01:00 in London, 02:00 in North America, 03:00 in Central Europe's fall-back), so on a transition day the job fires an hour off, twice or not at all; " +
		"name the zone, or resolve it with dstsafe.Resolve(dstsafe.Wall{...}, loc, dstsafe.Compatible) and handle the error"
)

// timeDateMessage returns the diagnostic for time.Date(y, m, d, h, min, s,
// ns, loc) used as a schedule instant, and false when the zone's rules
// never skip or repeat its wall time: midnight in Europe/Berlin (its
// clocks change at 02:00 and 03:00), 09:00 in America/Chicago. A constant
// date is checked on that date; a computed one on every day from the
// reference instant for three years.
func (t *tracker) timeDateMessage(call *ast.CallExpr) (string, bool) {
	a := call.Args
	h, okH := constInt(t.pass, a[3])
	m, okM := constInt(t.pass, a[4])
	s, okS := constInt(t.pass, a[5])
	name, known := t.locZone(a[7], 0)
	if known && name == "UTC" {
		return "", false
	}
	if !known {
		switch {
		case !okH:
			return fmt.Sprintf(dateUnknownMsg, "this time.Date", "takes its hour at run time"), true
		case h >= riskyFrom && h <= riskyTo:
			return fmt.Sprintf(dateUnknownMsg, "this time.Date", "runs at "+clock(h, m, s, okM && okS)), true
		}
		return "", false
	}
	loc, err := time.LoadLocation(name)
	if err != nil {
		return "", false
	}
	from := now().UTC().Truncate(24 * time.Hour)
	to := from.AddDate(3, 0, 0)
	trs := dstsafe.Transitions(loc, from, to)
	if !okH || !okM || !okS {
		if len(trs) == 0 {
			return "", false
		}
		return fmt.Sprintf(dateVarHourMsg, "time.Date in "+name, transitionWords(trs)), true
	}
	var days []dstsafe.Wall
	y, okY := constInt(t.pass, a[0])
	mo, okMo := constInt(t.pass, a[1])
	d, okD := constInt(t.pass, a[2])
	if okY && okMo && okD {
		days = append(days, dstsafe.Wall{Year: y, Month: time.Month(mo), Day: d})
	} else {
		// A transition's readings lie on the day it starts or the next
		// (Santiago repeats 23:00-24:00 of a Saturday).
		// A constant month or day (time.Date(y, m, 1, ...), the first of
		// the month) narrows the days to those it can name.
		for _, tr := range trs {
			for _, day := range []dstsafe.Wall{tr.Start, tr.End} {
				if okMo && time.Month(mo) != day.Month || okD && d != day.Day {
					continue
				}
				days = append(days, day)
			}
		}
	}
	for _, day := range days {
		w := dstsafe.Wall{Year: day.Year, Month: day.Month, Day: day.Day, Hour: h, Minute: m, Second: s}
		res := dstsafe.Lookup(w, loc)
		if res.Kind == dstsafe.Unique {
			continue
		}
		hm := clock(h, m, s, true)
		got := time.Date(w.Year, w.Month, w.Day, h, m, s, 0, loc)
		tr := transitionAt(loc, res)
		window := ""
		if tr != nil {
			window = Risk{Transition: *tr}.Window()
		}
		if res.Kind == dstsafe.Gap {
			note := ""
			switch {
			case got.Before(res.Earlier.Add(time.Nanosecond)) && got.Day() != w.Day:
				note = fmt.Sprintf(", before the day it was asked for: a \"next midnight\" loop that computes the next run from today's date gets the same past instant again and fires again and again until %s", wallClock(res.Later))
			case got.Before(res.Later):
				note = ", before the skipped hour: the job runs early"
			default:
				note = ", after the skipped hour: the job runs late"
			}
			return fmt.Sprintf(dateGapMsg, hm, name, hm, w.DateString(), window, got.Format("15:04 on 2006-01-02 (MST)"), note), true
		}
		which := "the first, " + got.Format("15:04 MST")
		if !got.Equal(res.Earlier) {
			which = "the second, " + got.Format("15:04 MST")
		}
		return fmt.Sprintf(dateFoldMsg, hm, name, hm, w.DateString(), window, which), true
	}
	return "", false
}

// transitionAt returns the transition that makes a wall reading skipped
// or repeated, or nil.
func transitionAt(loc *time.Location, res dstsafe.Resolution) *dstsafe.Transition {
	trs := dstsafe.Transitions(loc, res.Earlier.Add(-48*time.Hour), res.Later.Add(48*time.Hour))
	for i, tr := range trs {
		if tr.Kind == res.Kind && !tr.At.Before(res.Earlier) && !tr.At.After(res.Later) {
			return &trs[i]
		}
	}
	if len(trs) > 0 {
		return &trs[0]
	}
	return nil
}

// transitionWords names the first skipped and the first repeated window
// of trs: "02:00-03:00 skipped on 2026-03-08, 01:00-02:00 repeated on
// 2026-11-01".
func transitionWords(trs []dstsafe.Transition) string {
	var gap, fold *dstsafe.Transition
	for i := range trs {
		switch {
		case trs[i].Kind == dstsafe.Gap && gap == nil:
			gap = &trs[i]
		case trs[i].Kind == dstsafe.Fold && fold == nil:
			fold = &trs[i]
		}
	}
	var out string
	for _, tr := range []*dstsafe.Transition{gap, fold} {
		if tr == nil {
			continue
		}
		if out != "" {
			out += ", "
		}
		out += Risk{Transition: *tr}.Window() + " on " + tr.Start.DateString()
	}
	return out
}

// clock writes a time of day: "02:30", "02:30:15".
func clock(h, m, s int, known bool) string {
	switch {
	case !known:
		return fmt.Sprintf("%02d:xx", h)
	case s != 0:
		return fmt.Sprintf("%02d:%02d:%02d", h, m, s)
	}
	return fmt.Sprintf("%02d:%02d", h, m)
}

// wallClock writes an instant's wall time of day in its own zone.
func wallClock(t time.Time) string { return t.Format("15:04") }

package dstsafeui

import (
	"fmt"
	"html"
	"html/template"
	"net/url"
	"strconv"
	"strings"
	"time"

	"github.com/dstsafe/dstsafe"
)

// dayRow is one local day of a job's timeline: a track from the day's
// first instant to the next day's, as long as the day really is (25 hours
// on a fall-back day, 23 on a spring-forward one), with an hour tick at
// every hour that happens (01 twice on the fall-back day, no 02 on the
// spring-forward one).
type dayRow struct {
	Date        string // 2024-11-03
	Weekday     string
	Hours       float64 // the day's real length
	Ticks       []tick
	Periods     []marker
	Ghosts      []marker // a fold's other reading of a period, not run
	Transitions []transMark
	Notes       []note
}

type tick struct {
	Left  string // CSS left
	Label string
	Major bool
}

// marker is a period on the track.
type marker struct {
	Left  string
	State string
	Key   string
	Href  string
	Label string // the local reading it sits at ("03:30")
	Title string
	Local string // full local reading with zone and offset
	UTC   string
}

type transMark struct {
	Left  string
	Kind  string // gap or fold
	Label string
}

// note explains a period in a fold or a gap in words, under the track.
type note struct {
	Kind string
	Key  string
	Text string
}

// timeline lays periods out on the local days [fromDate, toDate) of loc.
// Labels show when a day holds at most labelMax periods.
func timeline(ps []period, loc *time.Location, sched *dstsafe.Cron, job string, fromDate, toDate dstsafe.Date) []dayRow {
	const labelMax = 12
	foldBoth := sched != nil && (sched.FoldPolicy() == dstsafe.FoldBoth || (sched.FoldPolicy() == 0 && !sched.Fixed()))
	var rows []dayRow
	i := 0
	for d := fromDate; d.Before(toDate); d = d.AddDays(1) {
		start, end := d.Start(loc), d.AddDays(1).Start(loc)
		span := end.Sub(start)
		if span <= 0 {
			// A skipped day (Pacific/Apia 2011-12-30): no instant reads it.
			rows = append(rows, dayRow{Date: d.String(), Weekday: d.Weekday().String()[:3]})
			continue
		}
		pct := func(t time.Time) string {
			return strconv.FormatFloat(100*float64(t.Sub(start))/float64(span), 'f', 3, 64) + "%"
		}
		row := dayRow{Date: d.String(), Weekday: d.Weekday().String()[:3], Hours: span.Hours()}
		for t := start; t.Before(end); t = t.Add(time.Hour) {
			l := t.In(loc)
			row.Ticks = append(row.Ticks, tick{Left: pct(t), Label: l.Format("15"), Major: l.Hour()%6 == 0})
		}
		for _, tr := range dstsafe.Transitions(loc, start, end) {
			tm := transMark{Left: pct(tr.At), Kind: tr.Kind.String()}
			from := tr.At.In(time.FixedZone(tr.NameBefore, tr.OffsetBefore)).Format("15:04 MST")
			to := tr.At.In(loc).Format("15:04 MST")
			if tr.Kind == dstsafe.Gap {
				tm.Label = fmt.Sprintf("clocks forward %s → %s: %s–%s never happen", from, to, wallHM(tr.Start), wallHM(tr.End))
			} else {
				tm.Label = fmt.Sprintf("clocks back %s → %s: %s–%s happen twice", from, to, wallHM(tr.Start), wallHM(tr.End))
			}
			row.Transitions = append(row.Transitions, tm)
		}
		first := i
		for i < len(ps) && ps[i].At.Before(end) {
			i++
		}
		day := ps[first:i]
		for _, p := range day {
			if p.At.Before(start) {
				continue
			}
			m := marker{Left: pct(p.At), State: p.State, Key: p.Key, Href: periodHref(job, p.Key)}
			if len(day) <= labelMax || (p.Expected && p.Occ.Kind != dstsafe.Unique) {
				// Room for a label, a tooltip and the instants; a dense
				// day keeps its markup small (the period page has them).
				m.Local, m.UTC = zoned(p.At, loc), utc(p.At)
				m.Label = p.At.In(loc).Format("15:04")
				m.Title = p.Key + " · " + p.State + " · " + m.Local + " · " + m.UTC
			}
			kind := dstsafe.Kind(0)
			if p.Expected {
				kind = p.Occ.Kind
			}
			switch kind {
			case dstsafe.Gap:
				m.Label = wallHM(p.Occ.Wall) + "→" + p.At.In(loc).Format("15:04")
				row.Notes = append(row.Notes, note{Kind: "gap", Key: p.Key, Text: fmt.Sprintf(
					"%s: %s does not exist on %s (the clocks skipped it); the period is at its shifted instant %s (%s), %s",
					p.Key, wallHM(p.Occ.Wall), d, m.Local, m.UTC, p.State)})
			case dstsafe.Fold:
				if foldBoth {
					break
				}
				r := dstsafe.Lookup(p.Occ.Wall, loc)
				other, which, otherWhich := r.Later, "first", "second"
				if p.At.Equal(r.Later) {
					other, which, otherWhich = r.Earlier, "second", "first"
				}
				g := marker{Left: pct(other), State: "reading", Key: p.Key, Href: m.Href, Label: wallHM(p.Occ.Wall) + "²",
					Local: zoned(other, loc), UTC: utc(other)}
				g.Title = p.Key + " · " + otherWhich + " reading " + g.Local + " · same period, not run"
				if which == "second" {
					g.Label = wallHM(p.Occ.Wall) + "¹"
				}
				row.Ghosts = append(row.Ghosts, g)
				row.Notes = append(row.Notes, note{Kind: "fold", Key: p.Key, Text: fmt.Sprintf(
					"%s: %s happens twice on %s; one period, at the %s reading %s (%s), %s; the %s reading %s (%s) is the same period and did not run",
					p.Key, wallHM(p.Occ.Wall), d, which, m.Local, m.UTC, p.State, otherWhich, g.Local, g.UTC)})
			}
			row.Periods = append(row.Periods, m)
		}
		rows = append(rows, row)
	}
	return rows
}

func wallHM(w dstsafe.Wall) string { return fmt.Sprintf("%02d:%02d", w.Hour, w.Minute) }

func periodHref(job, key string) string {
	return "period?job=" + url.QueryEscape(job) + "&period=" + url.QueryEscape(key)
}

// zoned formats t in loc: "2024-11-03 01:30:00 CDT (-05:00)".
func zoned(t time.Time, loc *time.Location) string {
	return t.In(loc).Format("2006-01-02 15:04:05 MST (-07:00)")
}

// utc formats t in UTC: "2024-11-03 06:30:00 UTC".
func utc(t time.Time) string {
	if t.IsZero() {
		return "—"
	}
	return t.UTC().Format("2006-01-02 15:04:05 UTC")
}

// Track renders the day's track: ticks, transitions, the fold's other
// readings and the periods. It writes the markup itself, escaping every
// value with html.EscapeString (each lands in an attribute or text, never
// a URL scheme, a script or a style beyond the computed left offset):
// html/template's per-action escaping was 0.6 s of a 10,000-period page.
func (r dayRow) Track() template.HTML {
	var b strings.Builder
	b.Grow(len(r.Ticks)*64 + len(r.Periods)*320)
	e := html.EscapeString
	for _, t := range r.Ticks {
		cls := "tick"
		if t.Major {
			cls = "tick major"
		}
		fmt.Fprintf(&b, `<span class="%s" style="left:%s"><i>%s</i></span>`, cls, t.Left, e(t.Label))
	}
	for _, t := range r.Transitions {
		fmt.Fprintf(&b, `<span class="tr %s" style="left:%s" title="%s"><i>%s</i></span>`, e(t.Kind), t.Left, e(t.Label), e(t.Label))
	}
	for _, g := range r.Ghosts {
		fmt.Fprintf(&b, `<a class="ghost" style="left:%s" href="%s" title="%s" data-period="%s" data-at="%s">%s</a>`,
			g.Left, e(g.Href), e(g.Title), e(g.Key), e(g.Local), e(g.Label))
	}
	for _, p := range r.Periods {
		b.WriteString(`<a class="p `)
		b.WriteString(e(p.State))
		b.WriteString(`" style="left:`)
		b.WriteString(p.Left)
		b.WriteString(`" href="`)
		b.WriteString(e(p.Href))
		if p.Title != "" {
			b.WriteString(`" title="`)
			b.WriteString(e(p.Title))
		}
		b.WriteString(`" data-period="`)
		b.WriteString(e(p.Key))
		b.WriteString(`" data-state="`)
		b.WriteString(e(p.State))
		if p.Local != "" {
			b.WriteString(`" data-at="`)
			b.WriteString(e(p.Local))
			b.WriteString(`" data-utc="`)
			b.WriteString(e(p.UTC))
		}
		b.WriteString(`">`)
		b.WriteString(e(p.Label))
		b.WriteString(`</a>`)
	}
	return template.HTML(b.String())
}

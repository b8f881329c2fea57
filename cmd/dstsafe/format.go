package main

import (
	"encoding/json"
	"fmt"
	"io"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/dstsafe/dstsafe"
)

// parseFrom parses --from: an RFC 3339 instant, or a wall time read in loc
// (the first reading if it repeats, the reading after the gap if skipped).
func parseFrom(s string, loc *time.Location) (time.Time, error) {
	if t, err := time.Parse(time.RFC3339Nano, s); err == nil {
		return t, nil
	}
	w, err := dstsafe.ParseWall(s)
	if err != nil {
		return time.Time{}, usagef("bad --from %q: want an RFC 3339 instant (2024-11-03T06:30:00Z) or a wall time in %s (2024-11-03T01:30)", s, loc)
	}
	t, err := dstsafe.Resolve(w, loc, dstsafe.Compatible)
	if err != nil {
		return time.Time{}, usagef("bad --from %q: %v", s, err)
	}
	return t, nil
}

// hm formats a wall reading's time of day: "01:30", or "01:30:15".
func hm(w dstsafe.Wall) string {
	s := fmt.Sprintf("%02d:%02d", w.Hour, w.Minute)
	if w.Second != 0 || w.Nanosecond != 0 {
		s += fmt.Sprintf(":%02d", w.Second)
	}
	return s
}

// local formats t in its zone: "2024-11-03 01:30:00 CDT -05:00".
func local(t time.Time) string { return t.Format("2006-01-02 15:04:05 MST -07:00") }

// rfc3339 formats t with its numeric offset, +00:00 included.
func rfc3339(t time.Time) string { return t.Format("2006-01-02T15:04:05-07:00") }

// utc formats t as an RFC 3339 UTC instant.
func utc(t time.Time) string { return t.UTC().Format(time.RFC3339) }

// abbrev is t's zone abbreviation.
func abbrev(t time.Time) string { n, _ := t.Zone(); return n }

// offset formats seconds east of UTC as -05:00.
func offset(sec int) string {
	sign := '+'
	if sec < 0 {
		sign, sec = '-', -sec
	}
	return fmt.Sprintf("%c%02d:%02d", sign, sec/3600, sec%3600/60)
}

// duration formats an offset change: +1h, -30m, +1h30m, +24h.
func duration(sec int) string {
	sign := "+"
	if sec < 0 {
		sign, sec = "-", -sec
	}
	h, m := sec/3600, sec%3600/60
	switch {
	case m == 0:
		return fmt.Sprintf("%s%dh", sign, h)
	case h == 0:
		return fmt.Sprintf("%s%dm", sign, m)
	}
	return fmt.Sprintf("%s%dh%dm", sign, h, m)
}

// span formats a transition's affected range: "01:00–02:00" on one day,
// with dates when it crosses midnight.
func span(start, end dstsafe.Wall) string {
	if start.DateString() == end.DateString() || (end.Hour == 0 && end.Minute == 0 && end.Second == 0 && start.Day+1 == end.Day && start.Month == end.Month) {
		e := hm(end)
		if e == "00:00" {
			e = "24:00"
		}
		return start.DateString() + " " + hm(start) + "–" + e
	}
	return start.DateString() + " " + hm(start) + " – " + end.DateString() + " " + hm(end)
}

// table aligns tab-separated rows and trims the padding tabwriter leaves
// after an empty last column.
type table struct {
	out io.Writer
	buf strings.Builder
	tw  *tabwriter.Writer
}

func newTable(w io.Writer) *table {
	t := &table{out: w}
	t.tw = tabwriter.NewWriter(&t.buf, 0, 0, 2, ' ', 0)
	return t
}

func (t *table) Write(p []byte) (int, error) { return t.tw.Write(p) }

func (t *table) Flush() error {
	if err := t.tw.Flush(); err != nil {
		return err
	}
	lines := strings.SplitAfter(t.buf.String(), "\n")
	for i, l := range lines {
		if strings.HasSuffix(l, "\n") {
			lines[i] = strings.TrimRight(l[:len(l)-1], " ") + "\n"
		}
	}
	_, err := io.WriteString(t.out, strings.Join(lines, ""))
	return err
}

func writeJSON(w io.Writer, v any) error {
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	enc.SetEscapeHTML(false)
	return enc.Encode(v)
}

// transitionJSON is a Transition for --json output.
type transitionJSON struct {
	At           string `json:"at"`
	LocalBefore  string `json:"local_before"`
	LocalAfter   string `json:"local_after"`
	OffsetBefore string `json:"offset_before"`
	OffsetAfter  string `json:"offset_after"`
	NameBefore   string `json:"name_before"`
	NameAfter    string `json:"name_after"`
	Kind         string `json:"kind"`
	Start        string `json:"start"`
	End          string `json:"end"`
}

func toTransitionJSON(tr dstsafe.Transition) transitionJSON {
	before, after := clockAround(tr)
	return transitionJSON{
		At: utc(tr.At), LocalBefore: before, LocalAfter: after,
		OffsetBefore: offset(tr.OffsetBefore), OffsetAfter: offset(tr.OffsetAfter),
		NameBefore: tr.NameBefore, NameAfter: tr.NameAfter,
		Kind: tr.Kind.String(), Start: tr.Start.String(), End: tr.End.String(),
	}
}

// clockAround returns what the wall clock shows at the transition instant
// under the old and the new offset: "02:00 CST", "03:00 CDT".
func clockAround(tr dstsafe.Transition) (before, after string) {
	b := tr.At.In(time.FixedZone(tr.NameBefore, tr.OffsetBefore))
	a := tr.At.In(time.FixedZone(tr.NameAfter, tr.OffsetAfter))
	return b.Format("15:04 MST"), a.Format("15:04 MST")
}

// affected says what a transition does to wall readings: "01:00–02:00
// repeated".
func affected(tr dstsafe.Transition) string {
	if tr.Kind == dstsafe.Gap {
		return span(tr.Start, tr.End) + " skipped"
	}
	return span(tr.Start, tr.End) + " repeated"
}

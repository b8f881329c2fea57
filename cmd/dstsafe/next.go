package main

import (
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/dstsafe/dstsafe"
)

var nextCmd = &command{
	name:    "next",
	summary: "the next firings of a schedule",
	usage: `Usage: dstsafe next SPEC [--from T] [--count N] [--fold P] [--gap P] [--seconds] [--json]

Prints the next firings of the cron SPEC strictly after --from: the instant
in UTC, the local wall time with its offset, how the scheduled wall reading
resolves (unique, fold, gap), and a note when a transition changes the
firing. SPEC has five fields (six with --seconds), an optional
CRON_TZ=Zone prefix (else UTC), or a descriptor such as @daily.

Flags:
  --from T       start after T: RFC 3339 (2024-11-01T00:00:00Z) or a wall
                 time in the schedule's zone (2024-11-01T00:00); default now
  --count N      number of firings (1-1000, default 10)
  --fold P       auto, first, last or both (default auto: first for a
                 fixed-time spec, both for a periodic one)
  --gap P        auto, shift, at-transition or skip (default auto: shift
                 for a fixed-time spec, skip for a periodic one)
  --seconds      the spec starts with a seconds field
  --json         JSON output
  --zoneinfo DIR read zones from DIR

Examples:
  dstsafe next 'CRON_TZ=America/Chicago 30 1 * * *' --from 2024-11-01T00:00:00Z --count 4
  dstsafe next 'CRON_TZ=America/Chicago 30 2 * * *' --from 2024-03-08 --gap skip
  dstsafe next 'CRON_TZ=Europe/London */30 * * * *' --from 2024-10-27T00:00 --count 6
`,
	run: runNext,
}

// scheduleFlags are the flags of commands that take a SPEC.
type scheduleFlags struct {
	from    string
	fold    string
	gap     string
	seconds bool
}

func (c *cmdContext) scheduleFlags(withPolicies bool) *scheduleFlags {
	f := &scheduleFlags{}
	c.fs.StringVar(&f.from, "from", "", "")
	if withPolicies {
		c.fs.StringVar(&f.fold, "fold", "auto", "")
		c.fs.StringVar(&f.gap, "gap", "auto", "")
	}
	c.fs.BoolVar(&f.seconds, "seconds", false, "")
	return f
}

// parseSchedule parses SPEC and --from with the policy flags.
func (c *cmdContext) parseSchedule(spec string, f *scheduleFlags, extra ...dstsafe.CronOption) (*dstsafe.Cron, time.Time, error) {
	opts := extra
	if f.fold != "" {
		var p dstsafe.FoldPolicy
		if err := p.UnmarshalText([]byte(f.fold)); err != nil {
			return nil, time.Time{}, usagef("bad --fold %q: want auto, first, last or both", f.fold)
		}
		opts = append(opts, dstsafe.WithFold(p))
	}
	if f.gap != "" {
		var p dstsafe.GapPolicy
		if err := p.UnmarshalText([]byte(f.gap)); err != nil {
			return nil, time.Time{}, usagef("bad --gap %q: want auto, shift, at-transition or skip", f.gap)
		}
		opts = append(opts, dstsafe.WithGap(p))
	}
	if f.seconds {
		opts = append(opts, dstsafe.WithSeconds())
	}
	cr, err := dstsafe.ParseCron(spec, opts...)
	if err != nil {
		var pe *dstsafe.ParseError
		if errors.As(err, &pe) {
			return nil, time.Time{}, usagef("bad SPEC %q: %s: %s", spec, pe.Field, pe.Reason)
		}
		return nil, time.Time{}, usagef("bad SPEC %q: %v", spec, err)
	}
	from := c.now()
	if f.from != "" {
		if from, err = parseFrom(f.from, cr.Location()); err != nil {
			return nil, time.Time{}, err
		}
	}
	return cr, from, nil
}

type occurrenceJSON struct {
	At     string `json:"at"`
	Local  string `json:"local"`
	Zone   string `json:"zone_abbrev"`
	Wall   string `json:"wall"`
	Kind   string `json:"kind"`
	Period string `json:"period"`
	Note   string `json:"note,omitempty"`
}

type scheduleJSON struct {
	Spec  string `json:"spec"`
	Zone  string `json:"zone"`
	Fixed bool   `json:"fixed"`
	Fold  string `json:"fold"`
	Gap   string `json:"gap"`
}

func describeSchedule(cr *dstsafe.Cron) scheduleJSON {
	return scheduleJSON{Spec: cr.String(), Zone: cr.Location().String(), Fixed: cr.Fixed(),
		Fold: cr.FoldPolicy().String(), Gap: cr.GapPolicy().String()}
}

func runNext(c *cmdContext, args []string) error {
	f := c.scheduleFlags(true)
	count := c.fs.Int("count", 10, "")
	pos, err := c.parse(args, 1, 1)
	if err != nil {
		return err
	}
	if *count < 1 || *count > 1000 {
		return usagef("bad --count %d: want 1 to 1000", *count)
	}
	cr, from, err := c.parseSchedule(pos[0], f)
	if err != nil {
		return err
	}
	var occs []dstsafe.Occurrence
	for after := from; len(occs) < *count; {
		o, ok := cr.NextOccurrence(after)
		if !ok {
			break
		}
		occs = append(occs, o)
		after = o.At
	}
	if c.json {
		out := struct {
			scheduleJSON
			From        string           `json:"from"`
			Occurrences []occurrenceJSON `json:"occurrences"`
		}{scheduleJSON: describeSchedule(cr), From: utc(from), Occurrences: []occurrenceJSON{}}
		for _, o := range occs {
			out.Occurrences = append(out.Occurrences, occurrenceJSON{
				At: utc(o.At), Local: rfc3339(o.At), Zone: abbrev(o.At), Wall: o.Wall.String(),
				Kind: o.Kind.String(), Period: o.Period, Note: note(cr, o),
			})
		}
		return writeJSON(c.stdout, out)
	}
	s := describeSchedule(cr)
	kind := "periodic"
	if s.Fixed {
		kind = "fixed-time"
	}
	fmt.Fprintf(c.stdout, "%s\n%s, %s; fold: %s, gap: %s; after %s\n\n", cr, s.Zone, kind, s.Fold, s.Gap, utc(from))
	if len(occs) == 0 {
		fmt.Fprintln(c.stdout, "never fires after that instant")
		return nil
	}
	tw := newTable(c.stdout)
	fmt.Fprintln(tw, "INSTANT (UTC)\tLOCAL\tKIND\tNOTE")
	for _, o := range occs {
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\n", utc(o.At), local(o.At), o.Kind, note(cr, o))
	}
	return tw.Flush()
}

// note explains what a transition did to an occurrence:
// "02:30 does not exist; shifted to 03:30 CDT",
// "01:30 occurs twice; first occurrence only".
func note(cr *dstsafe.Cron, o dstsafe.Occurrence) string {
	w := hm(o.Wall)
	switch o.Kind {
	case dstsafe.Gap:
		at := o.At.Format("15:04 MST")
		switch cr.GapPolicy() {
		case dstsafe.GapAtTransition:
			return fmt.Sprintf("%s does not exist; runs at %s, when the gap ends", w, at)
		default:
			return fmt.Sprintf("%s does not exist; shifted to %s", w, at)
		}
	case dstsafe.Fold:
		r := dstsafe.Lookup(o.Wall, cr.Location())
		which := "first"
		if o.At.Equal(r.Later) && !o.At.Equal(r.Earlier) {
			which = "second"
		}
		switch cr.FoldPolicy() {
		case dstsafe.FoldBoth:
			return fmt.Sprintf("%s occurs twice; %s occurrence (%s), both fire", w, which, abbrev(o.At))
		default:
			return fmt.Sprintf("%s occurs twice; %s occurrence only", w, which)
		}
	}
	// Two readings resolving to one instant, or a reading pushed onto an
	// existing one, leave Wall and the reading of At apart.
	if got := wallOf(o.At); got != o.Wall {
		return fmt.Sprintf("scheduled for %s", strings.Replace(o.Wall.String(), "T", " ", 1))
	}
	return ""
}

// wallOf returns the wall reading of t in t's location.
func wallOf(t time.Time) dstsafe.Wall {
	y, mo, d := t.Date()
	h, mi, s := t.Clock()
	return dstsafe.Wall{Year: y, Month: mo, Day: d, Hour: h, Minute: mi, Second: s, Nanosecond: t.Nanosecond()}
}

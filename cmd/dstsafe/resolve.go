package main

import (
	"errors"
	"fmt"

	"github.com/dstsafe/dstsafe"
)

var resolveCmd = &command{
	name:    "resolve",
	summary: "how a wall time resolves in a zone",
	usage: `Usage: dstsafe resolve ZONE WALL [--policy P] [--json]

Looks up the wall reading WALL (2024-11-03T01:30, 2024-11-03 01:30:00 or
a bare date for midnight) in ZONE: unique, fold (it happens twice) or gap
(it never happens), the candidate instants, the transition, and the
instant chosen by --policy.

Flags:
  --policy P     compatible (default: first reading in a fold, shifted
                 forward in a gap), earlier, later or reject (exit 1 when
                 the reading is ambiguous or does not exist)
  --json         JSON output
  --zoneinfo DIR read zones from DIR

Examples:
  dstsafe resolve America/Chicago 2024-11-03T01:30
  dstsafe resolve America/Chicago 2024-03-10T02:30 --policy later
  dstsafe resolve Europe/Dublin 2024-10-27T01:30 --policy reject
`,
	run: runResolve,
}

type resolveJSON struct {
	Zone       string          `json:"zone"`
	Wall       string          `json:"wall"`
	Kind       string          `json:"kind"`
	Earlier    string          `json:"earlier"`
	Later      string          `json:"later"`
	Transition *transitionJSON `json:"transition,omitempty"`
	Policy     string          `json:"policy"`
	Chosen     string          `json:"chosen,omitempty"`
	Error      string          `json:"error,omitempty"`
}

func runResolve(c *cmdContext, args []string) error {
	policy := c.fs.String("policy", "compatible", "")
	pos, err := c.parse(args, 2, 2)
	if err != nil {
		return err
	}
	var d dstsafe.Disambiguation
	if err := d.UnmarshalText([]byte(*policy)); err != nil {
		return usagef("bad --policy %q: want compatible, earlier, later or reject", *policy)
	}
	loc, err := loadZone("ZONE", pos[0])
	if err != nil {
		return err
	}
	w, err := dstsafe.ParseWall(pos[1])
	if err != nil {
		return usagef("bad WALL %q: want YYYY-MM-DDTHH:MM[:SS] without an offset, a real calendar date and time", pos[1])
	}
	r := dstsafe.Lookup(w, loc)
	chosen, rerr := dstsafe.Resolve(w, loc, d)
	var tr *dstsafe.Transition
	if r.Kind != dstsafe.Unique {
		tr = &r.Transition
	}
	if c.json {
		out := resolveJSON{Zone: loc.String(), Wall: w.String(), Kind: r.Kind.String(),
			Earlier: rfc3339(r.Earlier), Later: rfc3339(r.Later), Policy: d.String()}
		if tr != nil {
			j := toTransitionJSON(*tr)
			out.Transition = &j
		}
		if rerr != nil {
			out.Error = rerr.Error()
		} else {
			out.Chosen = rfc3339(chosen)
		}
		if err := writeJSON(c.stdout, out); err != nil {
			return err
		}
	} else {
		what := map[dstsafe.Kind]string{
			dstsafe.Unique: "unique: it happens exactly once",
			dstsafe.Fold:   "fold: it happens twice, the clocks go back over it",
			dstsafe.Gap:    "gap: it never happens, the clocks jump over it",
		}[r.Kind]
		fmt.Fprintf(c.stdout, "%s in %s is %s\n", w, loc, what)
		if r.Kind == dstsafe.Unique {
			fmt.Fprintf(c.stdout, "  instant:    %s (%s)\n", local(r.Earlier), utc(r.Earlier))
		} else {
			label := [2]string{"first reading", "second reading"}
			if r.Kind == dstsafe.Gap {
				label = [2]string{"before gap", "after gap"}
			}
			fmt.Fprintf(c.stdout, "  earlier:    %s (%s), %s\n", local(r.Earlier), utc(r.Earlier), label[0])
			fmt.Fprintf(c.stdout, "  later:      %s (%s), %s\n", local(r.Later), utc(r.Later), label[1])
			if tr != nil {
				before, after := clockAround(*tr)
				fmt.Fprintf(c.stdout, "  transition: %s, %s -> %s, %s\n", utc(tr.At), before, after, affected(*tr))
			}
		}
		if rerr != nil {
			fmt.Fprintf(c.stdout, "policy %s: no instant: %v\n", d, rerr)
		} else {
			fmt.Fprintf(c.stdout, "policy %s: %s (%s)\n", d, local(chosen), utc(chosen))
		}
	}
	if rerr != nil {
		if errors.Is(rerr, dstsafe.ErrAmbiguous) || errors.Is(rerr, dstsafe.ErrNonexistent) {
			return &exitError{exitFindings}
		}
		return usagef("bad WALL %q: %v", pos[1], rerr)
	}
	return nil
}

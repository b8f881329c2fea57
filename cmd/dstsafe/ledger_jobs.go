package main

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/dstsafe/dstsafe"
	"github.com/dstsafe/dstsafe/internal/editdist"
)

// requireKnown refuses (exit 1) a job the ledger has no record and no
// pause state for: a typo would otherwise read as "no periods", or
// pause a job nobody runs. It suggests the closest known name.
func requireKnown(c *cmdContext, l dstsafe.ControlLedger, job, sub string) error {
	jobs, err := l.Jobs(context.Background())
	if err != nil {
		return err
	}
	if slices.Contains(jobs, job) {
		return nil
	}
	hint := ""
	if s := closest(job, jobs); s != "" {
		hint = fmt.Sprintf("; did you mean %s?", s)
	} else if len(jobs) == 0 {
		hint = "; the ledger knows no job yet"
	}
	if sub == "pause" {
		hint += " (--force pauses a job not deployed yet)"
	}
	return refused(c, "unknown job %s: no record or pause state for it in this ledger%s", job, hint)
}

// closest returns the known job nearest to job by edit distance, if it
// is near enough to be a typo of it (at most a third of its letters
// changed, and at most 3), preferring the first by name on a tie.
func closest(job string, jobs []string) string {
	best, bestD := "", min(3, max(1, len([]rune(job))/3))+1
	for _, k := range jobs {
		if d := editdist.Bounded(job, k, bestD); d < bestD {
			best, bestD = k, d
		}
	}
	return best
}

// jobSummary is one row of `ledger jobs`.
type jobSummary struct {
	Job     string    `json:"job"`
	Periods int       `json:"periods"`
	Latest  string    `json:"latest_period,omitempty"`
	State   string    `json:"latest_state,omitempty"`
	Pause   pauseJSON `json:"pause"`
	// The job's registration (dstsafe.JobRegistry), when it has one.
	Registration *registrationJSON `json:"registration,omitempty"`
	pause        dstsafe.Pause
}

// registrationJSON is a job's registration as the CLI prints it.
type registrationJSON struct {
	Spec      string   `json:"spec"`
	Schedule  string   `json:"schedule"` // the fingerprint
	Key       string   `json:"key"`
	Zone      string   `json:"zone"`
	ZoneData  string   `json:"zone_data"`
	FirstSeen string   `json:"first_seen"`
	LastSeen  string   `json:"last_seen"`
	Changed   string   `json:"changed"`
	Owners    []string `json:"owners"`
	// Limits are the registered limits, left out when none.
	Limits *limitsJSON `json:"limits,omitempty"`
}

// limitsJSON is a job's registered limits (dstsafe.JobLimits): each left
// out when none; bounds in UTC to the nanosecond, both included.
type limitsJSON struct {
	MaxRuns int    `json:"max_runs,omitempty"`
	Start   string `json:"start,omitempty"`
	End     string `json:"end,omitempty"`
}

func toRegistrationJSON(info *dstsafe.JobInfo) *registrationJSON {
	if info == nil {
		return nil
	}
	r := &registrationJSON{Spec: info.Spec, Schedule: info.Schedule, Key: info.PeriodKey, Zone: info.Zone,
		ZoneData: info.ZoneData, FirstSeen: exact(info.FirstSeen), LastSeen: exact(info.LastSeen),
		Changed: exact(info.Changed), Owners: info.Owners}
	if lim := info.Limits; lim != (dstsafe.JobLimits{}) {
		r.Limits = &limitsJSON{MaxRuns: lim.MaxRuns}
		if !lim.Start.IsZero() {
			r.Limits.Start = exact(lim.Start)
		}
		if !lim.End.IsZero() {
			r.Limits.End = exact(lim.End)
		}
	}
	return r
}

// limitsText is a job's registered limits in words ("max runs 2, from
// 2024-11-03T07:00:00Z to 2024-12-31T23:59:59.999999999Z", bounds
// included), "" when none.
func limitsText(lim *limitsJSON) string {
	if lim == nil {
		return ""
	}
	var parts []string
	if lim.MaxRuns > 0 {
		parts = append(parts, fmt.Sprintf("max runs %d", lim.MaxRuns))
	}
	if lim.Start != "" {
		parts = append(parts, "from "+lim.Start)
	}
	if lim.End != "" {
		parts = append(parts, "to "+lim.End)
	}
	return strings.Join(parts, " ")
}

// registrationOf returns job's registration, nil when the ledger keeps
// no registry or never registered it.
func registrationOf(ctx context.Context, l dstsafe.Ledger, job string) (*dstsafe.JobInfo, error) {
	info, ok, err := registered(ctx, l, job)
	if err != nil || !ok {
		return nil, err
	}
	return &info, nil
}

// registrationLine is a registration in words, for list and show.
func registrationLine(info *dstsafe.JobInfo) string {
	spec := info.Spec
	if spec == "" {
		spec = info.Schedule
	}
	line := fmt.Sprintf("schedule %q, period key %s, zone %s, registered %s, last seen %s by %s",
		spec, orDashS(info.PeriodKey), orDashS(info.Zone), utc(info.FirstSeen), utc(info.LastSeen), strings.Join(info.Owners, ", "))
	if lim := limitsText(toRegistrationJSON(info).Limits); lim != "" {
		line += "; limits: " + lim
	}
	return line
}

// derivedSuffixes are the job keys the library derives from a job's name
// for its own records: WithMaxRuns' run slots, one-page alerts.
var derivedSuffixes = []string{"/max-runs", "/alerts"}

// derived reports whether name is a key derived from a job in known.
func derived(name string, known map[string]bool) bool {
	for _, suf := range derivedSuffixes {
		if base, ok := strings.CutSuffix(name, suf); ok && known[base] {
			return true
		}
	}
	return false
}

func ledgerJobs(c *cmdContext, l dstsafe.ControlLedger, _ *ledgerFlags, _, _ string) error {
	ctx := context.Background()
	jobs, err := l.Jobs(ctx)
	if err != nil {
		return err
	}
	known := make(map[string]bool, len(jobs))
	for _, j := range jobs {
		known[j] = true
	}
	rows := []jobSummary{}
	for _, job := range jobs {
		if derived(job, known) {
			continue
		}
		recs, err := l.List(ctx, job, "", "")
		if err != nil {
			return err
		}
		p, err := l.GetPause(ctx, job)
		if err != nil {
			return err
		}
		info, err := registrationOf(ctx, l, job)
		if err != nil {
			return err
		}
		row := jobSummary{Job: job, Periods: len(recs), Pause: toPauseJSON(p), pause: p, Registration: toRegistrationJSON(info)}
		if n := len(recs); n > 0 { // List is by period: the latest last
			row.Latest, row.State = recs[n-1].Period, recs[n-1].State.String()
		}
		rows = append(rows, row)
	}
	if c.json {
		return writeJSON(c.stdout, struct {
			Jobs []jobSummary `json:"jobs"`
		}{rows})
	}
	if len(rows) == 0 {
		fmt.Fprintln(c.stdout, "no jobs: nothing was ever registered, claimed or paused in this ledger")
		return nil
	}
	fmt.Fprintf(c.stdout, "%d job(s)\n\n", len(rows))
	tw := newTable(c.stdout)
	fmt.Fprintln(tw, "JOB\tSCHEDULE\tKEY\tLIMITS\tLAST SEEN\tPERIODS\tLATEST PERIOD\tSTATE\tPAUSE")
	for _, r := range rows {
		spec, key, limits, seen := "-", "-", "-", "-"
		if g := r.Registration; g != nil {
			spec, key, limits, seen = orDashS(g.Spec), orDashS(g.Key), orDashS(limitsText(g.Limits)), utcText(g.LastSeen)
		}
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\t%d\t%s\t%s\t%s\n", r.Job, spec, key, limits, seen, r.Periods, orDashS(r.Latest), orDashS(r.State), pauseLine(r.pause))
	}
	return tw.Flush()
}

// utcText prints an exact() instant as utc() does.
func utcText(s string) string {
	t, err := time.Parse(time.RFC3339Nano, s)
	if err != nil {
		return s
	}
	return utc(t)
}

func orDashS(s string) string {
	if s == "" {
		return "-"
	}
	return s
}

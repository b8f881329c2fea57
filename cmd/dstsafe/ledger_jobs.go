package main

import (
	"context"
	"fmt"
	"slices"

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
	pause   dstsafe.Pause
}

func ledgerJobs(c *cmdContext, l dstsafe.ControlLedger, _ *ledgerFlags, _, _ string) error {
	ctx := context.Background()
	jobs, err := l.Jobs(ctx)
	if err != nil {
		return err
	}
	rows := []jobSummary{}
	for _, job := range jobs {
		recs, err := l.List(ctx, job, "", "")
		if err != nil {
			return err
		}
		p, err := l.GetPause(ctx, job)
		if err != nil {
			return err
		}
		row := jobSummary{Job: job, Periods: len(recs), Pause: toPauseJSON(p), pause: p}
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
		fmt.Fprintln(c.stdout, "no jobs: nothing was ever claimed or paused in this ledger")
		return nil
	}
	fmt.Fprintf(c.stdout, "%d job(s)\n\n", len(rows))
	tw := newTable(c.stdout)
	fmt.Fprintln(tw, "JOB\tPERIODS\tLATEST PERIOD\tSTATE\tPAUSE")
	for _, r := range rows {
		fmt.Fprintf(tw, "%s\t%d\t%s\t%s\t%s\n", r.Job, r.Periods, orDashS(r.Latest), orDashS(r.State), pauseLine(r.pause))
	}
	return tw.Flush()
}

func orDashS(s string) string {
	if s == "" {
		return "-"
	}
	return s
}

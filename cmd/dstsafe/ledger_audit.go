package main

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/dstsafe/dstsafe"
)

// maxAuditPeriods bounds the periods one audit walks: a year of a
// per-minute job is 527,040.
const maxAuditPeriods = 1_000_000

// auditSpec is what `ledger audit` checks: the schedule's periods due in
// [from, to). cron is nil until the ledger says the job's schedule
// (no --schedule), and from and to are read in its zone then.
type auditSpec struct {
	cron     *dstsafe.Cron
	from, to time.Time
}

// parseAudit checks audit's flags before the ledger is opened.
func parseAudit(c *cmdContext, f *ledgerFlags) (*auditSpec, error) {
	switch {
	case f.job == "":
		return nil, usagef("audit: missing --job: the job's name in the ledger")
	case f.from == "" || f.to == "":
		return nil, usagef("audit: missing --from or --to: the range to audit, [from, to)")
	case f.key != "" && f.key != "wall" && f.key != "date":
		return nil, usagef("bad --key %q: want wall (a period per wall reading) or date (one per civil date, WithPeriodKey(ByDate))", f.key)
	case f.schedule == "" && (f.key != "" || f.sched.seconds || f.sched.fold != "auto" || f.sched.gap != "auto"):
		return nil, usagef("audit: --key, --fold, --gap and --seconds qualify --schedule: without it the job's registered schedule is used as it is")
	case f.schedule == "":
		return &auditSpec{}, nil // the ledger says the schedule
	}
	cr, err := auditCron(c, f, f.key)
	if err != nil {
		return nil, err
	}
	return auditBounds(f, cr)
}

// auditCron parses --schedule with period key key ("" is wall).
func auditCron(c *cmdContext, f *ledgerFlags, key string) (*dstsafe.Cron, error) {
	var k dstsafe.PeriodKey
	if key != "" {
		if err := k.UnmarshalText([]byte(key)); err != nil {
			return nil, usagef("bad --key %q: want wall or date", key)
		}
	}
	sf := *f.sched
	sf.from = ""
	cr, _, err := c.parseSchedule(f.schedule, &sf, dstsafe.WithPeriodKey(k))
	return cr, err
}

// auditBounds reads --from and --to in cr's zone.
func auditBounds(f *ledgerFlags, cr *dstsafe.Cron) (*auditSpec, error) {
	from, err := parseBound("--from", f.from, cr.Location())
	if err != nil {
		return nil, err
	}
	to, err := parseBound("--to", f.to, cr.Location())
	if err != nil {
		return nil, err
	}
	if !from.Before(to) {
		return nil, usagef("audit: --from %s is not before --to %s", f.from, f.to)
	}
	return &auditSpec{cron: cr, from: from, to: to}, nil
}

// parseBound reads an audit bound: a civil date (its first instant in
// loc: local midnight, or the end of a gap that skips midnight), an RFC
// 3339 instant, or a wall time in loc (the earlier reading in a fold).
func parseBound(name, s string, loc *time.Location) (time.Time, error) {
	if d, err := dstsafe.ParseDate(s); err == nil {
		return dstsafe.Resolve(dstsafe.Wall{Year: d.Year, Month: d.Month, Day: d.Day}, loc, dstsafe.Compatible)
	}
	t, err := parseFrom(s, loc)
	var ue *usageError
	if errors.As(err, &ue) {
		return time.Time{}, usagef("bad %s %q: want a civil date (2024-11-03: local midnight in %s), an RFC 3339 instant or a wall time", name, s, loc)
	}
	return t, err
}

// auditRow is a period of the schedule without a succeeded record.
type auditRow struct {
	Period string `json:"period"`
	Due    string `json:"due"`
	Wall   string `json:"wall"`
	Kind   string `json:"kind"`
	Status string `json:"status"` // missing, failed, abandoned, running, skipped
	Owner  string `json:"owner,omitempty"`
	Reason string `json:"reason,omitempty"`
	due    time.Time
}

// ledgerAudit lists every period the schedule had in [from, to), up to
// now, that has no succeeded record. Exit 1 when one is missing, failed
// or abandoned: work that should have happened and did not. Running
// periods are in progress, skipped ones a decision (by whom, why).
func ledgerAudit(c *cmdContext, l dstsafe.ControlLedger, f *ledgerFlags, job, _ string) error {
	now := c.now()
	recs, err := l.List(context.Background(), job, "", "")
	if err != nil {
		return err
	}
	a, err := auditSchedule(c, l, f, job, recs)
	if err != nil {
		return err
	}
	limits, err := auditLimitsOf(context.Background(), l, job, recs)
	if err != nil {
		return err
	}
	var (
		rows          []auditRow
		total, notDue int
		bad           int
		expected      []dstsafe.Occurrence
		outside, done int // not expected under the registered limits
	)
	for after := a.from.Add(-time.Nanosecond); ; {
		o, ok := a.cron.NextOccurrence(after)
		if !ok || !o.At.Before(a.to) {
			break
		}
		after = o.At
		if o.At.After(now) {
			notDue++
			continue
		}
		switch limits.excludes(o) {
		case auditOutsideBound:
			outside++
			continue
		case auditAfterMaxRuns:
			done++
			continue
		}
		if total++; total > maxAuditPeriods {
			return usagef("audit: more than %d periods from %s to %s: audit a shorter range", maxAuditPeriods, f.from, f.to)
		}
		expected = append(expected, o)
	}
	// The reconciler's classification, as a dry run: what a Scheduler
	// would find about each period (dstsafe.CheckPeriods).
	for _, c := range dstsafe.CheckPeriods(expected, recs, dstsafe.CheckPolicy{}, now) {
		row := auditRow{Period: c.Period, Due: exact(c.Occurrence.At), due: c.Occurrence.At, Wall: c.Wall.String(), Kind: c.Kind.String()}
		switch c.Status {
		case dstsafe.PeriodSucceeded:
			continue
		case dstsafe.PeriodMissing:
			row.Status = c.Status.String()
		default:
			row.Status, row.Owner, row.Reason = c.Status.String(), c.Record.Owner, c.Record.Reason
		}
		switch c.Status {
		case dstsafe.PeriodMissing, dstsafe.PeriodFailed, dstsafe.PeriodAbandoned, dstsafe.PeriodReleased:
			bad++
		}
		rows = append(rows, row)
	}
	if c.json {
		if rows == nil {
			rows = []auditRow{}
		}
		err := writeJSON(c.stdout, struct {
			Job      string       `json:"job"`
			Schedule scheduleJSON `json:"schedule"`
			Key      string       `json:"key"`
			From     string       `json:"from"`
			To       string       `json:"to"`
			Periods  int          `json:"periods"`
			NotDue   int          `json:"not_due"`
			// Not expected under the registered limits (omitted when 0).
			OutsideBounds int        `json:"outside_bounds,omitempty"`
			AfterMaxRuns  int        `json:"after_max_runs,omitempty"`
			Complete      bool       `json:"complete"`
			Incomplete    []auditRow `json:"incomplete"`
		}{job, describeSchedule(a.cron), a.cron.PeriodKey().String(), exact(a.from), exact(a.to), total, notDue, outside, done, bad == 0, rows})
		if err == nil && bad > 0 {
			err = &exitError{code: exitFindings}
		}
		return err
	}
	fmt.Fprintf(c.stdout, "%s: %s, periods due from %s to %s (UTC, end excluded): %d\n",
		job, a.cron, utc(a.from), utc(a.to), total)
	if notDue > 0 {
		fmt.Fprintf(c.stdout, "%d later period(s) not due yet, not audited\n", notDue)
	}
	if outside > 0 {
		fmt.Fprintf(c.stdout, "%d period(s) outside the job's registered bounds, not expected\n", outside)
	}
	if done > 0 {
		fmt.Fprintf(c.stdout, "%d period(s) after the job used its %d runs (registered max runs), not expected\n", done, limits.lim.MaxRuns)
	}
	if p, err := l.GetPause(context.Background(), job); err != nil {
		return err
	} else if p.Paused {
		// Replicas record the periods due while paused as skipped; a
		// missing one was due while no replica ran.
		fmt.Fprintf(c.stdout, "%s: %s\n", job, pauseLine(p))
	}
	if len(rows) == 0 {
		fmt.Fprintln(c.stdout, "complete: every period due has a succeeded record")
		return nil
	}
	counts := map[string]int{}
	for _, r := range rows {
		counts[r.Status]++
	}
	var parts []string
	for _, st := range []string{"missing", "failed", "abandoned", "released", "running", "skipped"} {
		if counts[st] > 0 {
			parts = append(parts, fmt.Sprintf("%d %s", counts[st], st))
		}
	}
	verdict := "incomplete"
	if bad == 0 {
		verdict = "nothing missing or failed"
	}
	fmt.Fprintf(c.stdout, "%s: %d without a succeeded record: %s\n\n", verdict, len(rows), strings.Join(parts, ", "))
	tw := newTable(c.stdout)
	fmt.Fprintln(tw, "PERIOD\tDUE (UTC)\tKIND\tSTATUS\tOWNER\tNOTE")
	for _, r := range rows {
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\t%s\n", r.Period, utc(r.due), r.Kind, r.Status, orDashS(r.Owner), r.Reason)
	}
	if err := tw.Flush(); err != nil {
		return err
	}
	if bad > 0 {
		return &exitError{code: exitFindings}
	}
	return nil
}

// auditSchedule settles the schedule audit walks, the way exec does: the
// job's registered one (dstsafe.JobRegistry), else the one its latest
// record was claimed under (Record.Schedule), so that `ledger audit --job
// X --from --to` needs nothing else; or --schedule, with the registered
// period key when --key is not given. A --schedule that is not the
// registered one is audited as given, with a note on stderr.
func auditSchedule(c *cmdContext, l dstsafe.ControlLedger, f *ledgerFlags, job string, recs []dstsafe.Record) (*auditSpec, error) {
	ctx := context.Background()
	info, err := registrationOf(ctx, l, job)
	if err != nil {
		return nil, err
	}
	if f.audit.cron != nil {
		if info == nil || info.Schedule == "" {
			return f.audit, nil
		}
		cr := f.audit.cron
		if f.key == "" && info.PeriodKey != "" && info.PeriodKey != cr.PeriodKey().String() {
			if cr, err = auditCron(c, f, info.PeriodKey); err != nil {
				return nil, err
			}
		}
		if !sameSchedule(info.Schedule, fingerprintOf(cr)) {
			fmt.Fprintf(c.stderr, "dstsafe ledger: note: job %s is registered with schedule %s; auditing --schedule %q (period key %s) as given\n",
				job, describeRegistered(*info), f.schedule, cr.PeriodKey())
		}
		return auditBounds(f, cr)
	}
	fp, from := "", ""
	if info != nil && info.Schedule != "" {
		fp, from = info.Schedule, "registered"
	} else {
		for i := len(recs) - 1; i >= 0; i-- { // by period: the latest last
			if recs[i].Schedule != "" {
				fp, from = recs[i].Schedule, "its latest record's"
				break
			}
		}
	}
	if fp == "" {
		return nil, usagef("audit: job %s has no registered schedule and no record carries one: give --schedule (CRON_TZ=Zone ...) and --key", job)
	}
	cr, err := scheduleOf(dstsafe.JobInfo{Schedule: fp})
	if err != nil {
		return nil, usagef("audit: job %s's %s schedule cannot be read back (%v): give --schedule and --key", job, from, err)
	}
	return auditBounds(f, cr)
}

package main

import (
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/dstsafe/dstsafe"
)

// dueOccurrence returns the latest occurrence of cr at or before now, if
// it is at most misfire before now: the period a trigger firing at now
// stands for. A trigger is late by its own scheduling (a CronJob
// controller's 10 s loop, a pod's image pull, a systemd timer's
// AccuracySec), so an occurrence a little before now is the one it was
// fired for; one further back was some other trigger's, and running it now
// would be a catch-up nobody asked for.
//
// At a fall-back night a fixed-time 01:30 job has one occurrence, at the
// first 01:30: a trigger at the second 01:30, an hour later, finds nothing
// due (with a misfire window under an hour) or the period already claimed
// (with a wider one). At a spring-forward night the 02:30 occurrence is at
// 03:30 (GapShift): a trigger at 03:00, right after the gap, finds nothing
// due and one at 03:30 runs it.
func dueOccurrence(cr *dstsafe.Cron, now time.Time, misfire time.Duration) (dstsafe.Occurrence, bool) {
	var last dstsafe.Occurrence
	found := false
	// Occurrences fall on whole seconds and NextOccurrence is strictly
	// after its argument: start just before the window's first whole
	// second, so an occurrence misfire ago counts even when now is a
	// fraction of a second past a whole one.
	from := now.Add(-misfire).Truncate(time.Second).Add(-time.Nanosecond)
	for o, ok := cr.NextOccurrence(from); ok && !o.At.After(now); o, ok = cr.NextOccurrence(o.At) {
		last, found = o, true
	}
	return last, found
}

// foldSpan bounds how far before a scheduled time its wall reading's
// first instance may be: a fold repeats at most a few hours (one hour for
// DST almost everywhere).
const foldSpan = 6 * time.Hour

// scheduledOccurrence returns the occurrence of cr a trigger names by its
// scheduled time at (a CronJob's scheduled-timestamp annotation): the
// occurrence at that instant, or, when at is the second instance of a
// repeated wall reading that the schedule fires once (a trigger that
// fires a fixed-time job at both 01:30s of a fall-back night, as
// Kubernetes CronJobs do), the occurrence of that wall reading, so both
// triggers claim one period. Any other instant is not the schedule's:
// the trigger's schedule and --schedule disagree.
func scheduledOccurrence(cr *dstsafe.Cron, at time.Time) (dstsafe.Occurrence, error) {
	if o, ok := cr.NextOccurrence(at.Add(-time.Nanosecond)); ok && o.At.Equal(at) {
		return o, nil
	}
	w := wallOf(at.In(cr.Location()))
	for o, ok := cr.NextOccurrence(at.Add(-foldSpan)); ok && !o.At.After(at); o, ok = cr.NextOccurrence(o.At) {
		if o.Wall == w {
			return o, nil
		}
	}
	return dstsafe.Occurrence{}, usagef("scheduled time %s (%s in %s) is not an occurrence of %q: the trigger's schedule and --schedule disagree",
		at.UTC().Format(time.RFC3339), w, cr.Location(), cr.String())
}

// periodFields are what the command gets of its period, as template
// fields ({{.RunDate}}) and DSTSAFE_* environment variables.
type periodFields struct {
	Job    string
	Period string // the ledger key, Occurrence.Period
	// RunDate is the date of the scheduled wall reading, as the Scheduler's
	// Run.RunDate (without WithRunDateLocation): a 23:30 run pushed past
	// midnight by a gap keeps its date.
	RunDate        string
	Due            string // the instant due, RFC 3339 in the schedule's zone
	Wall           string // the scheduled wall reading (02:30 when a gap moved it to 03:30)
	Kind           string // unique, fold or gap
	Attempt        int
	Token          int64
	Owner          string
	IdempotencyKey string
}

// fieldsOf builds the fields of occurrence o of job, claimed as rec, the
// way the Scheduler builds a Run from an occurrence: Period is
// o.Period, RunDate the date of o.Wall, Due o.At.
func fieldsOf(job string, o dstsafe.Occurrence, rec dstsafe.Record) periodFields {
	return periodFields{
		Job: job, Period: o.Period,
		RunDate: dstsafe.Date{Year: o.Wall.Year, Month: o.Wall.Month, Day: o.Wall.Day}.String(),
		Due:     o.At.Format(time.RFC3339), Wall: o.Wall.String(), Kind: o.Kind.String(),
		Attempt: rec.Attempt, Token: rec.Token, Owner: rec.Owner,
		IdempotencyKey: idempotencyKey(job, o.Period),
	}
}

// idempotencyKey is the key a run passes to systems that deduplicate
// writes (a payment provider's Idempotency-Key): JOB/PERIOD, the same for
// every attempt of the period, so a retry after a crash is recognised as
// the same request.
func idempotencyKey(job, period string) string { return job + "/" + period }

// env is the fields as DSTSAFE_* environment variables.
func (f periodFields) env() []string {
	return []string{
		"DSTSAFE_JOB=" + f.Job,
		"DSTSAFE_PERIOD=" + f.Period,
		"DSTSAFE_RUN_DATE=" + f.RunDate,
		"DSTSAFE_DUE=" + f.Due,
		"DSTSAFE_WALL=" + f.Wall,
		"DSTSAFE_KIND=" + f.Kind,
		fmt.Sprintf("DSTSAFE_ATTEMPT=%d", f.Attempt),
		fmt.Sprintf("DSTSAFE_TOKEN=%d", f.Token),
		"DSTSAFE_OWNER=" + f.Owner,
		"DSTSAFE_IDEMPOTENCY_KEY=" + f.IdempotencyKey,
	}
}

// k8sJobScheduledTime reads the scheduled time out of the name a
// Kubernetes CronJob gives the Jobs it creates: the CronJob's name, a
// dash, and the scheduled instant in minutes since 1970-01-01 UTC
// (billing-28843470 is 2024-11-03T06:30:00Z). Pods carry the name in
// their batch.kubernetes.io/job-name label, which the downward API can
// pass, unlike the Job's scheduled-timestamp annotation, which Kubernetes
// does not copy to the pod. A name without such a suffix is not a
// CronJob's (a Job created by hand): false.
func k8sJobScheduledTime(name string) (time.Time, bool) {
	i := strings.LastIndexByte(name, '-')
	if i <= 0 || i == len(name)-1 {
		return time.Time{}, false
	}
	m, err := strconv.ParseInt(name[i+1:], 10, 64)
	// Unix minutes of years 1970 to about 3900 fit in 31 bits.
	if err != nil || m <= 0 || m > 1<<30 || name[i+1] == '+' {
		return time.Time{}, false
	}
	return time.Unix(m*60, 0).UTC(), true
}

// k8sNameSpan bounds how far from now the instant a Job name encodes may
// be for the name to be taken as a CronJob's: a Job created by hand
// (billing-2, billing-manual-7) encodes a minute of 1970, which is no
// scheduled time.
const k8sNameSpan = 400 * 24 * time.Hour

// findPeriod works out which period of x.cron this trigger stands for:
// the occurrence at the scheduled time the trigger names (--scheduled-time,
// or a CronJob's Job name), which must be one (exit 2 otherwise: the
// trigger's schedule or zone and exec's disagree); else the latest
// occurrence at most --misfire before now (x.due false when none).
func (x *execRun) findPeriod() error {
	f, cr, now := x.f, x.cron, x.c.now()
	x.due = false
	if f.scheduledTime != "" {
		at, err := time.Parse(time.RFC3339Nano, f.scheduledTime)
		if err != nil {
			return usagef("bad --scheduled-time %q: want RFC 3339 (2024-11-03T01:30:00-05:00)", f.scheduledTime)
		}
		if x.occ, err = scheduledOccurrence(cr, at); err != nil {
			return err
		}
		x.due = true
		return nil
	}
	if at, ok := k8sJobScheduledTime(f.k8sJob); ok && at.Sub(now).Abs() <= k8sNameSpan {
		o, err := scheduledOccurrence(cr, at)
		if err != nil {
			return usagef("Job %s was created by its CronJob for %s (%s in exec's zone %s), which is not an occurrence of %q: "+
				"the CronJob's schedule or spec.timeZone and exec's schedule disagree; nothing run",
				f.k8sJob, at.UTC().Format(time.RFC3339), wallOf(at.In(cr.Location())), cr.Location(), cr.String())
		}
		x.occ, x.due = o, true
		return nil
	}
	x.occ, x.due = dueOccurrence(cr, now, f.misfire)
	return nil
}

// nothingDue ends a trigger that stands for no period. Near a
// transition of the schedule's zone that is expected: the second 01:30
// of a fall-back night for a job that fires once, a trigger right after
// a spring-forward gap whose occurrence the gap shifted later. Anywhere
// else a trigger with nothing due means its schedule or zone and exec's
// disagree (a CronJob in America/New_York wrapping a schedule in
// America/Chicago fires an hour early, every day): a silent exit 0 would
// be a daily no-op while every Job shows Completed, so it is an error,
// exit 2, unless --poll says the trigger fires more often on purpose.
func (x *execRun) nothingDue() error {
	f, cr, now := x.f, x.cron, x.c.now()
	next := "none"
	if n := cr.Next(now); !n.IsZero() {
		next = n.UTC().Format(time.RFC3339)
	}
	loc := cr.Location()
	if f.poll || nearTransition(loc, now) {
		x.say("nothing due: job %s has no occurrence of %q in the %s (--misfire) up to %s (next: %s); nothing run",
			f.job, cr.String(), f.misfire, now.UTC().Format(time.RFC3339), next)
		return nil
	}
	prev := "none in the last 400 days"
	for _, back := range []time.Duration{time.Hour, 3 * 24 * time.Hour, 40 * 24 * time.Hour, 400 * 24 * time.Hour} {
		if o, ok := dueOccurrence(cr, now, back); ok {
			prev = o.At.UTC().Format(time.RFC3339)
			break
		}
	}
	return x.fail(exitUsage, "nothing due at %s (%s in exec's zone %s): no occurrence of %q in the %s (--misfire) before it "+
		"(previous %s, next %s); a trigger away from the schedule's occurrences never runs anything: its schedule or zone "+
		"(a CronJob's spec.timeZone) and exec's disagree, or it fired late (--misfire); --poll if it fires more often on purpose",
		now.UTC().Format(time.RFC3339), wallOf(now.Truncate(time.Second).In(loc)), loc, cr.String(), f.misfire, prev, next)
}

// nearTransition reports whether loc changes its UTC offset within
// foldSpan of t.
func nearTransition(loc *time.Location, t time.Time) bool {
	_, before := t.Add(-foldSpan).In(loc).Zone()
	_, after := t.Add(foldSpan).In(loc).Zone()
	return before != after
}

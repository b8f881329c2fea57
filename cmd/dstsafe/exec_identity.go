package main

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/dstsafe/dstsafe"
	"github.com/dstsafe/dstsafe/internal/identlink"
)

// A job's identity (dstsafe.JobRegistry): the ledger knows each job's
// schedule (its fingerprint: spec, zone, fold and gap policies, period
// key) as the in-process Scheduler registered it, so that `dstsafe exec`
// keys a period exactly as the Scheduler does (a ByDate job's "2026-12-05",
// never "2026-12-05T01:30:00") and a job can move between the two:
//
//   - no --schedule: the registered schedule is used; a job the ledger
//     never registered is an error (exit 2);
//   - a --schedule (with --fold, --gap, --seconds, --key) that is not the
//     registered one is an error (exit 2) naming both; the registered
//     period key is used when --key is not given;
//   - a --schedule on a job not registered yet registers it, so that a
//     Scheduler starting later under another schedule is refused.
//
// A ledger without a registry (a backend built before it) needs
// --schedule and checks nothing.

// scheduleOf reads a registered fingerprint back into its schedule.
func scheduleOf(info dstsafe.JobInfo) (*dstsafe.Cron, error) {
	v, err := identlink.Get().Parse(info.Schedule)
	if err != nil {
		return nil, err
	}
	return v.(*dstsafe.Cron), nil
}

// fingerprintOf is cr's fingerprint, as the Scheduler registers it.
func fingerprintOf(cr *dstsafe.Cron) string { return identlink.Get().Fingerprint(cr) }

// sameSchedule reports whether two fingerprints name one schedule,
// whatever zone data each was computed with.
func sameSchedule(a, b string) bool { return identlink.Get().Same(a, b) }

// registered returns job's registration: ok false when the ledger keeps
// no registry or never registered job.
func registered(ctx context.Context, l dstsafe.Ledger, job string) (info dstsafe.JobInfo, ok bool, err error) {
	r, isReg := l.(dstsafe.JobRegistry)
	if !isReg {
		return dstsafe.JobInfo{}, false, nil
	}
	info, err = r.LookupJob(ctx, job)
	if errors.Is(err, dstsafe.ErrNotFound) {
		return dstsafe.JobInfo{}, false, nil
	}
	return info, err == nil, err
}

// describeRegistered names a registration for messages: its spec, key
// and zone data, since when.
func describeRegistered(info dstsafe.JobInfo) string {
	spec := info.Spec
	if spec == "" {
		spec = info.Schedule
	}
	s := fmt.Sprintf("%q", spec)
	if info.PeriodKey != "" {
		s += " (period key " + info.PeriodKey + ")"
	}
	if !info.Changed.IsZero() {
		s += " since " + info.Changed.UTC().Format(time.RFC3339)
	}
	if len(info.Owners) > 0 {
		s += " by " + info.Owners[0]
	}
	return s
}

// identify settles the job's schedule against the ledger's registry,
// before anything is claimed: it sets x.cron (from the registry when
// --schedule was not given) and x.limits (the registered ones, see
// exec_limits.go), and registers the job. Errors are exec's
// final ones (exit 2 for a mismatch or an unknown job, 125 for the
// ledger).
func (x *execRun) identify(l dstsafe.Ledger) error {
	f := x.f
	ctx, cancel := context.WithTimeout(context.Background(), ledgerTimeout)
	defer cancel()
	info, known, err := registered(ctx, l, f.job)
	if err != nil {
		return x.fail(exitLedger, "reading job %s's registration: %v; nothing run", f.job, err)
	}
	_, isReg := l.(dstsafe.JobRegistry)
	switch {
	case x.cron == nil && !isReg:
		return usagef("missing --schedule: this ledger keeps no job registry to read job %s's schedule from", f.job)
	case x.cron == nil && !known:
		return usagef("job %s is not registered in this ledger: give --schedule (with its zone, CRON_TZ=America/Chicago 30 1 * * *) the first time, or check the name (dstsafe ledger jobs)", f.job)
	case x.cron == nil:
		cr, err := scheduleOf(info)
		if err != nil {
			return usagef("job %s's registered schedule %s cannot be read back (%v): give --schedule", f.job, describeRegistered(info), err)
		}
		x.cron = cr
	case known && info.Schedule != "":
		if f.key == "" && info.PeriodKey != "" && info.PeriodKey != x.cron.PeriodKey().String() {
			// --key not given: the job's own key, as the Scheduler has it.
			var key dstsafe.PeriodKey
			if err := key.UnmarshalText([]byte(info.PeriodKey)); err == nil {
				cr, _, err := x.c.parseSchedule(f.schedule, &f.sf, dstsafe.WithPeriodKey(key))
				if err != nil {
					return err
				}
				x.cron = cr
			}
		}
		if mine := fingerprintOf(x.cron); !sameSchedule(info.Schedule, mine) {
			return usagef("job %s is registered with schedule %s; --schedule says %q (period key %s): "+
				"drop --schedule to run the registered one, or fix --schedule (a schedule change is the service's: Scheduler.Update or WithTakeOver)",
				f.job, describeRegistered(info), f.schedule, x.cron.PeriodKey())
		}
	}
	x.fp = fingerprintOf(x.cron)
	x.limits = info.Limits // zero when not registered
	if !isReg || f.schedule == "" {
		return nil
	}
	// Registered by the --schedule: a new job, or the same schedule seen
	// again (last seen, owners, this build's zone data).
	// No Limits: exec does not say, and the registered ones stay.
	info, err = l.(dstsafe.JobRegistry).RegisterJob(ctx, dstsafe.JobRegistration{
		Job: f.job, Owner: x.owner, Schedule: x.fp, Spec: x.cron.String(),
		PeriodKey: x.cron.PeriodKey().String(), Zone: x.cron.Location().String(), ZoneData: zoneDataOf(x.fp),
	})
	var ce *dstsafe.JobConflictError
	switch {
	case errors.As(err, &ce):
		// Another schedule registered between the lookup and now.
		return usagef("job %s is registered with schedule %s; --schedule says %q", f.job, describeRegistered(ce.Registered), f.schedule)
	case err != nil:
		return x.fail(exitLedger, "registering job %s: %v; nothing run", f.job, err)
	}
	x.limits = info.Limits // as stored now: a registration between the lookup and now may have set them
	return nil
}

// zoneDataOf is the zone data id in a fingerprint ("cron1;zone;ID;...").
func zoneDataOf(fp string) string {
	n := 0
	start := -1
	for i := 0; i < len(fp); i++ {
		if fp[i] == ';' {
			n++
			switch n {
			case 2:
				start = i + 1
			case 3:
				return fp[start:i]
			}
		}
	}
	return ""
}

package dstsafeui

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/dstsafe/dstsafe"
)

// internalSuffixes name the keys the Scheduler derives from a job's name
// for its own bookkeeping (WithMaxRuns' counter, the alerts of missed
// periods): they are not jobs an operator runs, and the pages hide them.
var internalSuffixes = []string{"/max-runs", "/alerts"}

func internalJob(name string) bool {
	for _, s := range internalSuffixes {
		if strings.HasSuffix(name, s) {
			return true
		}
	}
	return false
}

// jobIdentity is what the pages know of a job's schedule.
type jobIdentity struct {
	Name string
	// Spec is the schedule as written, when the ledger's registry has it;
	// else the fingerprint's spec.
	Spec string
	// Cron is the schedule parsed back from its fingerprint; nil when the
	// job's records carry none that parses (a plain Schedule).
	Cron *dstsafe.Cron
	Loc  *time.Location
	// From says where the schedule came from: "registry" or "records".
	From string
	// Owners, FirstSeen and LastSeen are the registration's, when the
	// ledger is a dstsafe.JobRegistry that knows the job.
	Owners              []string
	FirstSeen, LastSeen time.Time
	// Limits are the registration's limits (WithMaxRuns, WithBounds).
	Limits dstsafe.JobLimits
}

// LimitsText is the registered limits in words, in the schedule's zone
// ("max runs 2 · from 2024-11-03 01:00:00 CST (-06:00)"), "" when none.
func (j jobIdentity) LimitsText() string {
	var parts []string
	if n := j.Limits.MaxRuns; n > 0 {
		parts = append(parts, fmt.Sprintf("max runs %d", n))
	}
	loc := j.Loc
	if loc == nil {
		loc = time.UTC
	}
	if t := j.Limits.Start; !t.IsZero() {
		parts = append(parts, "from "+zoned(t, loc))
	}
	if t := j.Limits.End; !t.IsZero() {
		parts = append(parts, "to "+zoned(t, loc))
	}
	return strings.Join(parts, " · ")
}

// Zone is the schedule's zone name, "" when unknown.
func (j jobIdentity) Zone() string {
	if j.Loc == nil {
		return ""
	}
	return j.Loc.String()
}

// identify finds job's schedule: the ledger's registration when it is a
// dstsafe.JobRegistry that knows the job, else the fingerprint of the
// newest record that has one (records lists the job's records in period
// order, or a window of them; every record is read when none of these
// has a fingerprint).
func (u *ui) identify(ctx context.Context, job string, records []dstsafe.Record) (jobIdentity, error) {
	reg, _ := u.l.(dstsafe.JobRegistry)
	return identify(ctx, u.l, job, records, reg)
}

// identify is ui.identify with the registry apart: nil to skip it, and
// records nil to consult the registry alone.
func identify(ctx context.Context, l dstsafe.Ledger, job string, records []dstsafe.Record, reg dstsafe.JobRegistry) (jobIdentity, error) {
	id := jobIdentity{Name: job, Loc: time.UTC}
	if reg != nil {
		info, err := reg.LookupJob(ctx, job)
		switch {
		case err == nil && info.Schedule != "":
			if c, perr := dstsafe.ParseFingerprint(info.Schedule); perr == nil {
				id.Spec, id.Cron, id.Loc, id.From = info.Spec, c, c.Location(), "registry"
				id.Owners, id.FirstSeen, id.LastSeen = info.Owners, info.FirstSeen, info.LastSeen
				id.Limits = info.Limits
				if id.Spec == "" {
					id.Spec = c.String()
				}
				return id, nil
			}
		case err != nil && !errors.Is(err, dstsafe.ErrNotFound):
			return id, err
		}
	}
	if records == nil {
		return id, nil
	}
	c := newestSchedule(records)
	if c == nil {
		// The window held no fingerprint: look at every record.
		all, err := l.List(ctx, job, "", "")
		if err != nil {
			return id, err
		}
		c = newestSchedule(all)
	}
	if c != nil {
		id.Spec, id.Cron, id.Loc, id.From = c.String(), c, c.Location(), "records"
	}
	return id, nil
}

// newestSchedule parses the fingerprint of the newest record that has one
// that parses: the claim that carries the schedule in force when it was
// made. Nil when none does.
func newestSchedule(records []dstsafe.Record) *dstsafe.Cron {
	var newest *dstsafe.Record
	for i := range records {
		r := &records[i]
		if r.Schedule == "" {
			continue
		}
		if newest == nil || r.StartedAt.After(newest.StartedAt) {
			newest = r
		}
	}
	if newest == nil {
		return nil
	}
	c, err := dstsafe.ParseFingerprint(newest.Schedule)
	if err != nil {
		return nil
	}
	return c
}

package main

import (
	"context"

	"github.com/dstsafe/dstsafe"
)

// auditLimits is what `ledger audit` takes from a job's registered limits
// (dstsafe.JobLimits): the periods the job is not to run, which a
// Scheduler (and exec) neither runs nor records, so that they are not
// reported missing. A period outside the bounds, or without a record
// after the job used its max runs (after its latest succeeded period,
// once every run slot is succeeded), is not expected; a period with a
// record is audited as any other.
type auditLimits struct {
	lim       dstsafe.JobLimits
	done      bool   // every run slot succeeded
	doneAfter string // the latest succeeded period, when done
	has       map[string]bool
}

// auditLimitsOf reads job's registered limits and, under max runs, its
// run slots. The zero auditLimits (nothing excluded) when the ledger
// keeps no registry or the job has no registration.
func auditLimitsOf(ctx context.Context, l dstsafe.ControlLedger, job string, recs []dstsafe.Record) (auditLimits, error) {
	info, err := registrationOf(ctx, l, job)
	if err != nil || info == nil {
		return auditLimits{}, err
	}
	a := auditLimits{lim: info.Limits, has: make(map[string]bool, len(recs))}
	for _, r := range recs {
		a.has[r.Period] = true
	}
	if n := info.Limits.MaxRuns; n > 0 {
		slots, err := l.List(ctx, job+maxRunsSuffix, "", "")
		if err != nil {
			return auditLimits{}, err
		}
		succeeded := map[string]bool{}
		for _, s := range slots {
			succeeded[s.Period] = s.State == dstsafe.StateSucceeded
		}
		used := 0
		for i := 1; i <= n; i++ {
			if succeeded[slotPeriod(i)] {
				used++
			}
		}
		if a.done = used >= n; a.done {
			for _, r := range recs {
				if r.State == dstsafe.StateSucceeded && r.Period > a.doneAfter {
					a.doneAfter = r.Period
				}
			}
		}
	}
	return a, nil
}

// Why an occurrence is not expected under the limits.
const (
	auditExpected     = ""
	auditOutsideBound = "bounds"
	auditAfterMaxRuns = "max runs"
)

// excludes says why o is not expected to run, or auditExpected.
func (a auditLimits) excludes(o dstsafe.Occurrence) string {
	switch {
	case a.has[o.Period]:
		return auditExpected
	case !a.lim.Start.IsZero() && o.At.Before(a.lim.Start), !a.lim.End.IsZero() && o.At.After(a.lim.End):
		return auditOutsideBound
	case a.done && o.Period > a.doneAfter:
		return auditAfterMaxRuns
	}
	return auditExpected
}

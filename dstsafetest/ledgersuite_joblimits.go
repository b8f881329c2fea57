package dstsafetest

// The job limits of dstsafe.JobRegistry: what WithMaxRuns and WithBounds
// said, stored with the registration so that `dstsafe exec` honours them
// as every Scheduler replica does. A registration that says nothing (nil
// Limits: exec, an older release) keeps them; one that says replaces
// them, zero clearing; a refused one changes nothing.

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/dstsafe/dstsafe"
)

// The billing job's limits: two runs, from the second 01:00 of the
// fall-back night in Chicago (07:00Z, a nanosecond in: the bounds keep
// nanoseconds) to the end of the year there, given in Chicago's standard
// time (UTC-6); the registry returns them in UTC.
var (
	cst         = time.FixedZone("CST", -6*3600)
	limitsStart = time.Date(2024, 11, 3, 7, 0, 0, 1, time.UTC)
	limitsEnd   = time.Date(2024, 12, 31, 23, 59, 59, 999_999_999, cst)
	billLimits  = dstsafe.JobLimits{MaxRuns: 2, Start: limitsStart.In(cst), End: limitsEnd}
)

func limited(owner string, lim *dstsafe.JobLimits) dstsafe.JobRegistration {
	reg := billing(owner)
	reg.Limits = lim
	return reg
}

// The service registers its limits; exec (nil) keeps them; a deploy with
// other limits replaces them; a deploy without (zero) clears them.
func (s suite) testJobLimits(t *testing.T) {
	l, clock := s.registrySetup(t)
	at := now(clock)
	want := dstsafe.JobInfo{Job: "billing", Schedule: billAt0130, Spec: specAt0130, PeriodKey: "date",
		Zone: "America/Chicago", ZoneData: "2024a", FirstSeen: at, LastSeen: at, Changed: at, Owners: []string{"billing-1"},
		Limits: dstsafe.JobLimits{MaxRuns: 2, Start: limitsStart, End: limitsEnd.UTC()}}
	lim := billLimits
	sameInfo(t, want, register(t, l, limited("billing-1", &lim)), "RegisterJob with limits")
	sameInfo(t, want, lookup(t, l, "billing"), "LookupJob")

	clock.Advance(time.Minute)
	got := register(t, l, limited("exec@host", nil))
	check.Equal(t, want.Limits.MaxRuns, got.Limits.MaxRuns, "MaxRuns after a registration without limits")
	sameInstant(t, limitsStart, got.Limits.Start, "Start after a registration without limits")
	sameInstant(t, limitsEnd, got.Limits.End, "End after a registration without limits")
	sameInfo(t, got, lookup(t, l, "billing"), "LookupJob")

	clock.Advance(time.Minute)
	got = register(t, l, limited("billing-2", &dstsafe.JobLimits{MaxRuns: 5}))
	check.Equal(t, dstsafe.JobLimits{MaxRuns: 5}, got.Limits, "limits replaced")
	sameInfo(t, got, lookup(t, l, "billing"), "LookupJob")

	clock.Advance(time.Minute)
	got = register(t, l, limited("billing-3", &dstsafe.JobLimits{}))
	check.Equal(t, dstsafe.JobLimits{}, got.Limits, "limits cleared")
	sameInfo(t, got, lookup(t, l, "billing"), "LookupJob")
}

// A second service under the name with limits of its own is refused: the
// billing job's limits stay.
func (s suite) testJobLimitsKeptOnConflict(t *testing.T) {
	l, clock := s.registrySetup(t)
	lim := billLimits
	before := register(t, l, limited("billing-1", &lim))
	clock.Advance(time.Hour)
	reg := limited("invoices-1", &dstsafe.JobLimits{MaxRuns: 1})
	reg.Schedule, reg.Spec = billAt0200, specAt0200
	_, err := l.RegisterJob(context.Background(), reg)
	must.ErrorIs(t, err, dstsafe.ErrJobConflict)
	sameInfo(t, before, lookup(t, l, "billing"), "LookupJob after a refused registration")
}

// Scheduler.Update moves the bill to 02:00 with other limits: they come
// with the takeover; a plain schedule's registration sets its own too.
func (s suite) testJobLimitsTakeOver(t *testing.T) {
	l, clock := s.registrySetup(t)
	lim := billLimits
	register(t, l, limited("billing-1", &lim))
	clock.Advance(24 * time.Hour)
	reg := limited("billing-1", &dstsafe.JobLimits{End: limitsEnd})
	reg.Schedule, reg.Spec, reg.TakeOver = billAt0200, specAt0200, true
	got := register(t, l, reg)
	check.Equal(t, 0, got.Limits.MaxRuns, "MaxRuns after the takeover")
	sameInstant(t, time.Time{}, got.Limits.Start, "Start after the takeover")
	sameInstant(t, limitsEnd, got.Limits.End, "End after the takeover")
	sameInfo(t, got, lookup(t, l, "billing"), "LookupJob after the takeover")

	clock.Advance(time.Minute)
	got = register(t, l, dstsafe.JobRegistration{Job: "billing", Owner: "adhoc", Limits: &dstsafe.JobLimits{MaxRuns: 1}})
	check.Equal(t, dstsafe.JobLimits{MaxRuns: 1}, got.Limits, "limits of a plain schedule's registration")
	check.Equal(t, billAt0200, got.Schedule, "Schedule after a plain registration")
}

// Limits no Scheduler could have are refused before anything is stored:
// an *ArgError naming the field, wrapping ErrInvalidArgument; the limits
// stored before stay.
func (s suite) testJobBadLimits(t *testing.T) {
	l, clock := s.registrySetup(t)
	ctx := context.Background()
	for _, tc := range []struct {
		arg string
		lim dstsafe.JobLimits
	}{
		{"Limits.MaxRuns", dstsafe.JobLimits{MaxRuns: -1}},
		{"Limits.End", dstsafe.JobLimits{Start: limitsStart, End: limitsStart.Add(-time.Nanosecond)}},
	} {
		_, err := l.RegisterJob(ctx, limited("billing-1", &tc.lim))
		must.ErrorIs(t, err, dstsafe.ErrInvalidArgument, "RegisterJob with limits %+v", tc.lim)
		var ae *dstsafe.ArgError
		must.True(t, errors.As(err, &ae), "RegisterJob with limits %+v: %T, want a *dstsafe.ArgError", tc.lim, err)
		check.Equal(t, tc.arg, ae.Arg)
		_, err = l.LookupJob(ctx, "billing")
		must.ErrorIs(t, err, dstsafe.ErrNotFound, "a refused registration stored something")
	}
	lim := billLimits
	before := register(t, l, limited("billing-1", &lim))
	clock.Advance(time.Minute)
	_, err := l.RegisterJob(ctx, limited("billing-2", &dstsafe.JobLimits{MaxRuns: -2}))
	must.ErrorIs(t, err, dstsafe.ErrInvalidArgument)
	sameInfo(t, before, lookup(t, l, "billing"), "LookupJob after refused limits")
}

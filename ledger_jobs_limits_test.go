package dstsafe_test

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/dstsafe/dstsafe"
)

// The billing job's fingerprints at 01:30 and 02:00 Chicago (the form the
// Scheduler registers; Merge compares them, it does not parse them).
const (
	limitsAt0130 = "cron1;America/Chicago;2024a;first;shift;date;0;0;30 1 * * *"
	limitsAt0200 = "cron1;America/Chicago;2024a;first;shift;date;0;0;0 2 * * *"
)

// Merge stores a registration's limits whenever it stores the
// registration, and only then: nil keeps what is stored (exec, an older
// release), a zero JobLimits clears, a conflict keeps the old ones.
func TestMergeLimits(t *testing.T) {
	zone := chicago()
	// The fall-back night: 01:00 CST (07:00Z, the instant the clocks went
	// back), given in Chicago's zone; the registry stores it in UTC.
	start := time.Date(2024, 11, 3, 7, 0, 0, 0, time.UTC).In(zone)
	end := time.Date(2024, 12, 31, 23, 59, 59, 999_999_999, time.UTC)
	stored := &dstsafe.JobInfo{Job: "billing", Schedule: limitsAt0130, Owners: []string{"billing-1"},
		Limits: dstsafe.JobLimits{MaxRuns: 3, End: end}}
	now := time.Date(2024, 11, 4, 12, 0, 0, 0, time.UTC)
	for _, tc := range []struct {
		name     string
		existing *dstsafe.JobInfo
		reg      dstsafe.JobRegistration
		want     dstsafe.JobLimits
		conflict bool
	}{
		{"a new job says its limits", nil,
			dstsafe.JobRegistration{Schedule: limitsAt0130, Limits: &dstsafe.JobLimits{MaxRuns: 2, Start: start}},
			dstsafe.JobLimits{MaxRuns: 2, Start: time.Date(2024, 11, 3, 7, 0, 0, 0, time.UTC)}, false},
		{"a new job registered by exec has none", nil,
			dstsafe.JobRegistration{Schedule: limitsAt0130}, dstsafe.JobLimits{}, false},
		{"exec registers again: the stored limits stay", stored,
			dstsafe.JobRegistration{Schedule: limitsAt0130}, stored.Limits, false},
		{"a replica with other limits replaces them", stored,
			dstsafe.JobRegistration{Schedule: limitsAt0130, Limits: &dstsafe.JobLimits{MaxRuns: 5}},
			dstsafe.JobLimits{MaxRuns: 5}, false},
		{"a replica without limits clears them", stored,
			dstsafe.JobRegistration{Schedule: limitsAt0130, Limits: &dstsafe.JobLimits{}}, dstsafe.JobLimits{}, false},
		{"a takeover sets its own", stored,
			dstsafe.JobRegistration{Schedule: limitsAt0200, TakeOver: true, Limits: &dstsafe.JobLimits{Start: start}},
			dstsafe.JobLimits{Start: start.UTC()}, false},
		{"a plain schedule sets its own", stored,
			dstsafe.JobRegistration{Limits: &dstsafe.JobLimits{MaxRuns: 1}}, dstsafe.JobLimits{MaxRuns: 1}, false},
		{"another service under the name: refused, nothing changes", stored,
			dstsafe.JobRegistration{Schedule: limitsAt0200, Limits: &dstsafe.JobLimits{MaxRuns: 9}}, stored.Limits, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			tc.reg.Job, tc.reg.Owner = "billing", "billing-2"
			got, err := tc.reg.Merge(tc.existing, now)
			if tc.conflict {
				require.ErrorIs(t, err, dstsafe.ErrJobConflict)
				require.Equal(t, tc.want, tc.existing.Limits, "the stored limits")
				return
			}
			require.NoError(t, err)
			require.Equal(t, tc.want.MaxRuns, got.Limits.MaxRuns, "MaxRuns")
			for _, b := range []struct {
				name      string
				want, got time.Time
			}{{"Start", tc.want.Start, got.Limits.Start}, {"End", tc.want.End, got.Limits.End}} {
				require.True(t, b.want.Equal(b.got), "%s: want %v, got %v", b.name, b.want, b.got)
				if !b.got.IsZero() {
					require.Equal(t, time.UTC, b.got.Location(), "%s stored in UTC", b.name)
				}
			}
		})
	}
}

// Limits a Scheduler could never have are refused before anything is
// stored: an *ArgError naming the field, wrapping ErrInvalidArgument.
func TestRegisterJobBadLimits(t *testing.T) {
	start := time.Date(2024, 11, 3, 7, 0, 0, 0, time.UTC)
	for _, tc := range []struct {
		arg    string
		limits dstsafe.JobLimits
	}{
		{"Limits.MaxRuns", dstsafe.JobLimits{MaxRuns: -1}},
		{"Limits.End", dstsafe.JobLimits{Start: start, End: start.Add(-time.Nanosecond)}},
		{"Limits.End", dstsafe.JobLimits{End: time.Date(10000, 1, 1, 0, 0, 0, 0, time.UTC)}},
	} {
		l := dstsafe.NewMemoryLedger(nil)
		_, err := l.RegisterJob(context.Background(), dstsafe.JobRegistration{Job: "billing", Owner: "billing-1",
			Schedule: limitsAt0130, Limits: &tc.limits})
		require.ErrorIs(t, err, dstsafe.ErrInvalidArgument, "%+v", tc.limits)
		var ae *dstsafe.ArgError
		require.True(t, errors.As(err, &ae), "%T", err)
		require.Equal(t, tc.arg, ae.Arg)
		_, err = l.LookupJob(context.Background(), "billing")
		require.ErrorIs(t, err, dstsafe.ErrNotFound, "a refused registration stored something")
	}
	// Both ends at one instant is a one-instant window, not a reversed one.
	l := dstsafe.NewMemoryLedger(nil)
	_, err := l.RegisterJob(context.Background(), dstsafe.JobRegistration{Job: "billing", Owner: "billing-1",
		Schedule: limitsAt0130, Limits: &dstsafe.JobLimits{Start: start, End: start}})
	require.NoError(t, err)
}

// The Scheduler registers each job's WithMaxRuns and WithBounds, so that
// `dstsafe exec` honours them; an Update with other options registers
// those, and a job without limits registers none, clearing older ones.
func TestRegisterSchedulerLimits(t *testing.T) {
	zone := chicago()
	begin := time.Date(2024, 11, 1, 0, 0, 0, 0, time.UTC)
	// From the first 01:00 of the fall-back night (CDT, 06:00Z) to the end
	// of the year in Chicago.
	start := time.Date(2024, 11, 3, 6, 0, 0, 0, time.UTC)
	end := time.Date(2024, 12, 31, 23, 59, 59, 500_000_000, zone)
	s, clock, ledger := newSim(t, begin, dstsafe.WithOwner("v1"))
	var updErr error
	require.NoError(t, s.Add("billing", byDate(t, billingSpec), nop, dstsafe.WithMaxRuns(2), dstsafe.WithBounds(start, end)))
	require.NoError(t, s.Add("ops", mustCron(t, "0 0 2 11 *"), func(context.Context, dstsafe.Run) error {
		info, err := ledger.LookupJob(context.Background(), "billing")
		if err != nil {
			return err
		}
		if info.Limits.MaxRuns != 2 || !info.Limits.Start.Equal(start) || !info.Limits.End.Equal(end) {
			return errors.New("limits not registered at Run's start")
		}
		updErr = s.Update("billing", byDate(t, billingSpec), dstsafe.WithMaxRuns(5))
		return nil
	}))
	fires, err := dstsafe.Simulate(simCtx(t), s, 24*time.Hour)
	require.NoError(t, err)
	require.NoError(t, updErr)
	require.Len(t, fires, 1, "ops ran")
	require.NoError(t, fires[0].Err)
	info, err := ledger.LookupJob(context.Background(), "billing")
	require.NoError(t, err)
	require.Equal(t, dstsafe.JobLimits{MaxRuns: 5}, info.Limits, "the Update's limits")

	plain := dstsafe.NewScheduler(dstsafe.WithClock(clock), dstsafe.WithLedger(ledger), dstsafe.WithLogger(quiet()),
		dstsafe.WithOwner("v2"))
	require.NoError(t, plain.Add("billing", byDate(t, billingSpec), nop))
	_, err = dstsafe.Simulate(simCtx(t), plain, time.Hour)
	require.NoError(t, err)
	info, err = ledger.LookupJob(context.Background(), "billing")
	require.NoError(t, err)
	require.Equal(t, dstsafe.JobLimits{}, info.Limits, "a deploy without limits clears them")
}

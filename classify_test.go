package dstsafe_test

import (
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/dstsafe/dstsafe"
)

func TestCheckPeriods(t *testing.T) {
	due := time.Date(2024, 11, 3, 6, 30, 0, 0, time.UTC) // 01:30 CDT, the first of the fold's two
	o := dstsafe.Occurrence{At: due, Period: "2024-11-03T01:30:00"}
	rec := func(st dstsafe.State, mod func(*dstsafe.Record)) []dstsafe.Record {
		r := dstsafe.Record{Job: "billing", Period: o.Period, State: st, Owner: "billing-2", Attempt: 1,
			StartedAt: due, LeaseUntil: due.Add(time.Minute), FinishedAt: due.Add(10 * time.Second)}
		if st == dstsafe.StateRunning {
			r.FinishedAt = time.Time{}
		}
		if mod != nil {
			mod(&r)
		}
		return []dstsafe.Record{r}
	}
	retryAll := dstsafe.RetryPolicy{MaxAttempts: 3, Failed: true, Abandoned: true}
	for _, tc := range []struct {
		name   string
		recs   []dstsafe.Record
		p      dstsafe.CheckPolicy
		now    time.Time
		status dstsafe.PeriodStatus
		action dstsafe.Action
		at     time.Time
	}{
		{"due at 01:29 CDT", nil, dstsafe.CheckPolicy{}, due.Add(-time.Minute), dstsafe.PeriodNotDue, dstsafe.ActionNone, time.Time{}},
		// Every replica was down at 01:30: run it by the catch-up policy.
		{"never claimed", nil, dstsafe.CheckPolicy{}, due.Add(time.Hour), dstsafe.PeriodMissing, dstsafe.ActionRun, time.Time{}},
		{"never claimed, paused", nil, dstsafe.CheckPolicy{Paused: true}, due.Add(time.Hour), dstsafe.PeriodMissing, dstsafe.ActionSkipPaused, time.Time{}},
		{"running, heartbeating", rec(dstsafe.StateRunning, func(r *dstsafe.Record) { r.LeaseUntil = due.Add(time.Hour) }),
			dstsafe.CheckPolicy{}, due.Add(2 * time.Minute), dstsafe.PeriodRunning, dstsafe.ActionNone, time.Time{}},
		// A bill still running 5 minutes after 01:30 (the default deadline) pages.
		{"running past the deadline", rec(dstsafe.StateRunning, func(r *dstsafe.Record) { r.LeaseUntil = due.Add(time.Hour) }),
			dstsafe.CheckPolicy{}, due.Add(6 * time.Minute), dstsafe.PeriodRunning, dstsafe.ActionReportAtRisk, due.Add(5 * time.Minute)},
		// billing-2 was SIGKILLed mid-run; its lease ended at 01:31.
		{"abandoned, takeover allowed", rec(dstsafe.StateRunning, nil), dstsafe.CheckPolicy{Retry: retryAll},
			due.Add(2 * time.Minute), dstsafe.PeriodAbandoned, dstsafe.ActionTakeOver, time.Time{}},
		{"abandoned, default policy", rec(dstsafe.StateRunning, nil), dstsafe.CheckPolicy{},
			due.Add(2 * time.Minute), dstsafe.PeriodAbandoned, dstsafe.ActionReportMissed, time.Time{}},
		{"abandoned, paused", rec(dstsafe.StateRunning, nil), dstsafe.CheckPolicy{Retry: retryAll, Paused: true},
			due.Add(2 * time.Minute), dstsafe.PeriodAbandoned, dstsafe.ActionWaitPaused, time.Time{}},
		// The card processor was down: retried 30 s after the failure.
		{"failed, backoff", rec(dstsafe.StateFailed, nil), dstsafe.CheckPolicy{Retry: retryAll, RetryBackoff: 30 * time.Second},
			due.Add(20 * time.Second), dstsafe.PeriodFailed, dstsafe.ActionRetry, due.Add(40 * time.Second)},
		{"failed, attempts used", rec(dstsafe.StateFailed, func(r *dstsafe.Record) { r.Attempt = 3 }), dstsafe.CheckPolicy{Retry: retryAll},
			due.Add(time.Hour), dstsafe.PeriodFailed, dstsafe.ActionReportMissed, time.Time{}},
		// `dstsafe ledger retry billing 2024-11-03T01:30:00` after the outage.
		{"failed, released", rec(dstsafe.StateFailed, func(r *dstsafe.Record) { r.Released = true }), dstsafe.CheckPolicy{},
			due.Add(time.Hour), dstsafe.PeriodReleased, dstsafe.ActionTakeOver, time.Time{}},
		{"succeeded", rec(dstsafe.StateSucceeded, nil), dstsafe.CheckPolicy{}, due.Add(time.Hour), dstsafe.PeriodSucceeded, dstsafe.ActionNone, time.Time{}},
		{"skipped", rec(dstsafe.StateSkipped, nil), dstsafe.CheckPolicy{}, due.Add(time.Hour), dstsafe.PeriodSkipped, dstsafe.ActionNone, time.Time{}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got := dstsafe.CheckPeriods([]dstsafe.Occurrence{o}, tc.recs, tc.p, tc.now)
			require.Len(t, got, 1)
			require.Equal(t, tc.status, got[0].Status)
			require.Equal(t, tc.action, got[0].Action)
			require.True(t, tc.at.Equal(got[0].At), "At %v, want %v", got[0].At, tc.at)
		})
	}
}

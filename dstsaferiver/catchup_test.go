package dstsaferiver_test

import (
	"context"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/dstsafe/dstsafe"
	"github.com/dstsafe/dstsafe/dstsaferiver"
)

// TestCatchUp: what a client that becomes leader enqueues late, by policy,
// for the postmortem's job (01:30 Chicago daily) after an outage. The
// instants are the real ones: 01:30 is CDT (-05:00) until 11-03 and CST
// (-06:00) from 11-04; "now" is 12:00 CST on 11-05 unless said.
func TestCatchUp(t *testing.T) {
	noon := time.Date(2024, 11, 5, 18, 0, 0, 0, time.UTC)
	cases := []struct {
		name   string
		policy dstsafe.CatchUpPolicy
		ran    []string // periods in the ledger
		now    time.Time
		want   []string
	}{
		{"latest: the most recent missed day only", dstsafe.CatchUpLatest{}, []string{"2024-11-01"}, noon, []string{"2024-11-05"}},
		{"latest: nothing missed", dstsafe.CatchUpLatest{}, []string{"2024-11-04", "2024-11-05"}, noon, nil},
		// 11-03 01:30 CDT was 59.5 h before now, 11-02 83.5 h.
		{"all within 72 h", dstsafe.CatchUpAll{Window: 72 * time.Hour}, []string{"2024-11-01"}, noon, []string{"2024-11-03", "2024-11-04", "2024-11-05"}},
		{"all within 30 days, at most 2", dstsafe.CatchUpAll{Window: 30 * 24 * time.Hour, Max: 2}, []string{"2024-11-01"}, noon, []string{"2024-11-04", "2024-11-05"}},
		{"all with a zero window: none late", dstsafe.CatchUpAll{}, []string{"2024-11-01"}, noon, nil},
		{"all: only after the latest record (11-02 left out before stays out)", dstsafe.CatchUpAll{Window: 30 * 24 * time.Hour}, []string{"2024-11-01", "2024-11-03"}, noon, []string{"2024-11-04", "2024-11-05"}},
		{"skip", dstsafe.CatchUpSkip{}, []string{"2024-11-01"}, noon, nil},
		{"a new job catches up nothing", dstsafe.CatchUpAll{Window: 30 * 24 * time.Hour}, nil, noon, nil},
		// 20 s after 01:30 CST on 11-05: on time, whatever the policy.
		{"on time under skip", dstsafe.CatchUpSkip{}, []string{"2024-11-04"}, time.Date(2024, 11, 5, 7, 30, 20, 0, time.UTC), []string{"2024-11-05"}},
		{"on time for a new job", dstsafe.CatchUpLatest{}, nil, time.Date(2024, 11, 5, 7, 30, 20, 0, time.UTC), []string{"2024-11-05"}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			sched, err := dstsafe.ParseCron("CRON_TZ=America/Chicago 30 1 * * *", dstsafe.WithPeriodKey(dstsafe.ByDate))
			require.NoError(t, err)
			ledger := dstsafe.NewMemoryLedger(nil)
			ctx := context.Background()
			for _, p := range c.ran {
				rec, err := ledger.Claim(ctx, dstsafe.ClaimRequest{Job: "report", Period: p, Owner: "earlier"})
				require.NoError(t, err)
				_, err = ledger.Finish(ctx, "report", p, rec.Token, dstsafe.StateSucceeded, "")
				require.NoError(t, err)
			}
			next, construct := dstsaferiver.Parts(sched, report, &dstsaferiver.Options{Ledger: ledger, CatchUp: c.policy, Logger: discard})
			var got []string
			at := next(c.now)
			for ; !at.After(c.now); at = next(at) {
				args, _ := construct()
				require.NotNil(t, args)
				p, err := dstsaferiver.PeriodOf(jobRow(t, args))
				require.NoError(t, err)
				got = append(got, p.Period)
				// Worked, as a worker would: the leader's recheck finds it.
				rec, err := ledger.Claim(ctx, dstsafe.ClaimRequest{Job: "report", Period: p.Period, Owner: "worker"})
				require.NoError(t, err)
				_, err = ledger.Finish(ctx, "report", p.Period, rec.Token, dstsafe.StateSucceeded, "")
				require.NoError(t, err)
			}
			require.Equal(t, c.want, got)
			// Then the schedule: the next 01:30 after now, once the
			// leader's recheck wake-up (which constructs nothing) found
			// the periods it enqueued in the ledger.
			require.True(t, at.After(c.now))
			for range 3 {
				if args, _ := construct(); args != nil {
					break
				}
				at = next(at)
			}
			o, _ := sched.NextOccurrence(c.now)
			require.True(t, at.Equal(o.At), "after the catch-up river follows the schedule from now")
		})
	}
}

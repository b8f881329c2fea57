package dstsafe_test

import (
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/dstsafe/dstsafe"
)

// A secondly job with the default recovery window (an hour) runs 601
// periods in 10 minutes. Reconciling the whole window at every pass would
// read every record written so far at every fire: 1+2+...+601, about
// 181,000 records. A full pass runs once per wake interval (a minute)
// and whenever the job has open periods; the passes in between read the
// periods since the previous pass. So at most 11 full passes of at most
// 601 records, plus a few records per fire: under 20,000 in all, each
// period still run exactly once.
func TestReconcileCostOfASecondlyJob(t *testing.T) {
	start := time.Date(2024, 11, 3, 6, 0, 0, 0, time.UTC) // 01:00 CDT, the fold's first hour
	_, clock, mem := newSim(t, start)
	ledger := &listCounter{Ledger: mem}
	s := dstsafe.NewScheduler(dstsafe.WithClock(clock), dstsafe.WithLedger(ledger), dstsafe.WithLogger(quiet()), dstsafe.WithOwner("test"))
	require.NoError(t, s.Add("poll", mustCron(t, "* * * * * *", dstsafe.WithSeconds()), nop))
	fires, err := dstsafe.Simulate(simCtx(t), s, 10*time.Minute)
	require.NoError(t, err)
	require.Len(t, fires, 601)
	seen := map[string]int{}
	for _, f := range fires {
		seen[f.Period]++
	}
	require.Len(t, seen, 601, "a period ran twice")
	rows, lists := ledger.rows.Load(), ledger.lists.Load()
	t.Logf("601 fires: %d List calls, %d records read (%.1f a fire)", lists, rows, float64(rows)/601)
	require.Less(t, rows, int64(20_000), "the reconciler reads the whole window at every fire")
}

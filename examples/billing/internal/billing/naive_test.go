package billing_test

import (
	"context"
	"testing"
	"time"

	"github.com/dstsafe/dstsafe"
	"github.com/dstsafe/dstsafe/examples/billing/internal/billing"
	"github.com/dstsafe/dstsafe/examples/billing/internal/billingtest"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestNaiveReplaysTheIncident runs the postmortem's worker on the legacy
// schema, ticking every 20 s through a night: on the fall-back night it
// charges everyone twice, on other nights once. The dstsafe job is tested
// against the same nights in job_test.go and in the command's tests.
func TestNaiveReplaysTheIncident(t *testing.T) {
	billingtest.ForEach(t, func(t *testing.T, b billingtest.Backend) {
		for _, tc := range []struct {
			night   dstsafe.Date
			runs    int
			comment string
		}{
			{fallBack, 2, "01:30 CDT, then 01:30 CST 60 minutes later; 02:15 only after both"},
			{dstsafe.Date{Year: 2024, Month: time.November, Day: 10}, 1, "an ordinary Sunday"},
			{dstsafe.Date{Year: 2024, Month: time.March, Day: 10}, 1, "spring forward at 02:00: 01:30 happens once"},
		} {
			t.Run(tc.night.String(), func(t *testing.T) {
				ctx := context.Background()
				db, _ := b.Open(t)
				require.NoError(t, billing.MigrateLegacy(ctx, db))
				const n, failing = 30, 2
				seed := billing.NewSeed(n, failing, tc.night, chicago)
				require.NoError(t, billing.InsertSubscriptions(ctx, db, seed.Subscriptions))
				w := world{db: db, seed: seed}
				naive := billing.NewNaive(db, newSim(), chicago)
				start, _ := billing.LocalMidnight(tc.night, chicago)
				var err error
				dstsafe.SimulateTicks(start, start.Add(24*time.Hour-time.Second), 20*time.Second, func(now time.Time) {
					if err == nil {
						err = naive.Tick(ctx, now)
					}
				})
				require.NoError(t, err)

				runs, err := billing.NaiveRuns(ctx, db)
				require.NoError(t, err)
				require.Len(t, runs, tc.runs, tc.comment)
				for _, r := range runs {
					assert.Equal(t, "01:30", r.Started.In(chicago).Format("15:04"))
				}
				rep, err := billing.Reconcile(ctx, db, tc.night)
				require.NoError(t, err)
				if tc.runs == 1 {
					assert.Empty(t, rep.Duplicates)
				} else {
					assert.Len(t, rep.Duplicates, n-failing, tc.comment)
					assert.Equal(t, time.Hour, runs[1].Started.Sub(runs[0].Started))
				}
				for id, c := range chargesPerSubscription(t, w.db) {
					assert.Equal(t, tc.runs, c, "subscription %d", id)
				}
			})
		}
	})
}

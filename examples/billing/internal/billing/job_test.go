package billing_test

import (
	"context"
	"github.com/dstsafe/dstsafe"
	"sync"
	"testing"
	"time"

	"github.com/dstsafe/dstsafe/examples/billing/internal/billing"
	"github.com/dstsafe/dstsafe/examples/billing/internal/billingtest"
	"github.com/dstsafe/dstsafe/examples/billing/internal/payments"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

var (
	chicago = mustLoad("America/Chicago")
	// The night the clocks went back and 01:30 happened twice.
	fallBack = dstsafe.Date{Year: 2024, Month: time.November, Day: 3}
)

func mustLoad(name string) *time.Location {
	loc, err := time.LoadLocation(name)
	if err != nil {
		panic(err)
	}
	return loc
}

// world is a migrated, seeded database with its processor.
type world struct {
	db   *billing.DB
	loc  billingtest.Location
	sim  *payments.Simulator
	seed billing.Seed
}

func newWorld(t *testing.T, b billingtest.Backend, n, failing int) world {
	t.Helper()
	ctx := context.Background()
	db, loc := b.Open(t)
	require.NoError(t, billing.Migrate(ctx, db))
	seed := billing.NewSeed(n, failing, fallBack, chicago)
	require.NoError(t, billing.InsertSubscriptions(ctx, db, seed.Subscriptions))
	return world{db: db, loc: loc, sim: newSim(), seed: seed}
}

func newSim() *payments.Simulator { return payments.NewSimulator() }

func (w world) job() *billing.Job {
	return &billing.Job{DB: w.db, Processor: w.sim, Zone: chicago}
}

// chargesPerSubscription counts successful charge rows per subscription, from
// the database.
func chargesPerSubscription(t *testing.T, db *billing.DB) map[int64]int {
	t.Helper()
	rows, err := db.Query(`SELECT subscription_id, count(*) FROM charges WHERE status = 'succeeded' GROUP BY subscription_id`)
	require.NoError(t, err)
	defer rows.Close()
	out := map[int64]int{}
	for rows.Next() {
		var id int64
		var n int
		require.NoError(t, rows.Scan(&id, &n))
		out[id] = n
	}
	require.NoError(t, rows.Err())
	return out
}

// requireBilledOnce checks, from the database and the processor, that every
// subscription but the declining ones was charged exactly once, and that
// reconciliation finds nothing wrong.
func requireBilledOnce(t *testing.T, w world) {
	t.Helper()
	declining := map[string]bool{}
	for _, ref := range w.seed.Declining {
		declining[ref] = true
	}
	perSub := chargesPerSubscription(t, w.db)
	captured := map[string]int{}
	for _, c := range w.sim.Captured() {
		captured[c.CustomerRef]++
	}
	for _, s := range w.seed.Subscriptions {
		want := 1
		if declining[s.CustomerRef] {
			want = 0
		}
		assert.Equal(t, want, perSub[s.ID], "charge rows of subscription %d", s.ID)
		assert.Equal(t, want, captured[s.CustomerRef], "processor charges of %s", s.CustomerRef)
	}
	rep, err := billing.Reconcile(context.Background(), w.db, fallBack)
	require.NoError(t, err)
	assert.True(t, rep.OK(), "reconcile: %+v", rep)
	assert.Equal(t, len(w.seed.Declining), rep.Declined)
}

func TestBillTwiceSequentially(t *testing.T) {
	billingtest.ForEach(t, func(t *testing.T, b billingtest.Backend) {
		w := newWorld(t, b, 60, 3)
		ctx := context.Background()
		first, err := w.job().Bill(ctx, fallBack, "run-1")
		require.NoError(t, err)
		assert.Equal(t, billing.Result{Due: 60, Charged: 57, Declined: 3}, first)

		// The same run_date again, as the naive job's second 01:30 did:
		// the charged subscriptions are no longer due, the declined ones
		// already have their row for the period.
		second, err := w.job().Bill(ctx, fallBack, "run-2")
		require.NoError(t, err)
		assert.Equal(t, billing.Result{Due: 3, AlreadyBilled: 3}, second)
		requireBilledOnce(t, w)
	})
}

func TestBillConcurrently(t *testing.T) {
	billingtest.ForEach(t, func(t *testing.T, b billingtest.Backend) {
		w := newWorld(t, b, 80, 4)
		ctx := context.Background()
		// Two workers read the same due list and race subscription by
		// subscription: the unique charge key decides each race.
		var wg sync.WaitGroup
		results := make([]billing.Result, 2)
		for i := range results {
			wg.Go(func() {
				res, err := w.job().Bill(ctx, fallBack, "worker")
				assert.NoError(t, err)
				results[i] = res
			})
		}
		wg.Wait()
		assert.Equal(t, 76, results[0].Charged+results[1].Charged)
		assert.Equal(t, 4, results[0].Declined+results[1].Declined)
		requireBilledOnce(t, w)
	})
}

func TestProcessorTimeoutRetriedWithSameKey(t *testing.T) {
	billingtest.ForEach(t, func(t *testing.T, b billingtest.Backend) {
		w := newWorld(t, b, 10, 0)
		// The processor charges subscription 4 but the answer is lost, as
		// when the request times out: the job asks again with the same key
		// and gets the first charge back instead of a second one.
		w.sim.LoseResponses(billing.IdempotencyKey(4, fallBack), 1)
		res, err := w.job().Bill(context.Background(), fallBack, "run-1")
		require.NoError(t, err)
		assert.Equal(t, 10, res.Charged)
		assert.Equal(t, 11, w.sim.Requests(), "one retry")
		requireBilledOnce(t, w)
	})
}

func TestUnknownOutcomeRolledBackThenRerun(t *testing.T) {
	billingtest.ForEach(t, func(t *testing.T, b billingtest.Backend) {
		w := newWorld(t, b, 10, 0)
		ctx := context.Background()
		// Every attempt for subscription 4 times out, though the processor
		// charged at the first: the job cannot know, rolls the subscription
		// back and reports it.
		w.sim.LoseResponses(billing.IdempotencyKey(4, fallBack), 3)
		res, err := w.job().Bill(ctx, fallBack, "run-1")
		require.Error(t, err)
		assert.Equal(t, 9, res.Charged)
		rep, err := billing.Reconcile(ctx, w.db, fallBack)
		require.NoError(t, err)
		assert.Equal(t, []int64{4}, rep.Unbilled)
		assert.Len(t, w.sim.Captured(), 10, "the processor did charge subscription 4")

		// The rerun asks with the same key and records the first charge.
		res, err = w.job().Bill(ctx, fallBack, "run-2")
		require.NoError(t, err)
		assert.Equal(t, billing.Result{Due: 1, Charged: 1}, res)
		requireBilledOnce(t, w)
	})
}

func TestIdempotencyKeyHasNoPersonalData(t *testing.T) {
	assert.Equal(t, "sub-1284-period-2024-11-03", billing.IdempotencyKey(1284, fallBack))
}

func TestRunDateIsDerivedInTheCompanyZone(t *testing.T) {
	j := &billing.Job{Zone: chicago}
	for _, tc := range []struct {
		at   time.Time
		want dstsafe.Date
	}{
		// The scheduled run: 07:30 UTC is 01:30 CST on 2024-11-03.
		{time.Date(2024, 11, 3, 7, 30, 0, 0, time.UTC), fallBack},
		// 03:00 UTC is still 2024-11-02 in Chicago (22:00 CDT): the UTC
		// date would bill a day early.
		{time.Date(2024, 11, 3, 3, 0, 0, 0, time.UTC), dstsafe.Date{Year: 2024, Month: 11, Day: 2}},
	} {
		assert.Equal(t, tc.want, j.RunDate(tc.at), "%s", tc.at)
	}
}

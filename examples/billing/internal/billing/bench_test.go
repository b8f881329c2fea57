package billing_test

import (
	"context"
	"os"
	"testing"

	"github.com/dstsafe/dstsafe/examples/billing/internal/billing"
	"github.com/dstsafe/dstsafe/examples/billing/internal/billingtest"
	"github.com/stretchr/testify/require"
)

// BenchmarkBill measures a run's throughput: one transaction per
// subscription (charge row, processor call, result, next period).
// The PostgreSQL one commits durably.
func BenchmarkBill(b *testing.B) {
	backends := []billingtest.Backend{billingtest.SQLite()}
	if dsn := os.Getenv(billingtest.PostgresEnv); dsn != "" {
		backends = append(backends, billingtest.Postgres(dsn))
	}
	for _, be := range backends {
		b.Run(be.Name, func(b *testing.B) {
			ctx := context.Background()
			db, _ := be.Open(b)
			require.NoError(b, billing.Migrate(ctx, db))
			seed := billing.NewSeed(b.N, 0, fallBack, chicago)
			require.NoError(b, billing.InsertSubscriptions(ctx, db, seed.Subscriptions))
			job := &billing.Job{DB: db, Processor: newSim(), Zone: chicago}
			b.ResetTimer()
			res, err := job.Bill(ctx, fallBack, "bench")
			b.StopTimer()
			require.NoError(b, err)
			require.Equal(b, b.N, res.Charged)
			b.ReportMetric(float64(b.N)/b.Elapsed().Seconds(), "subscriptions/s")
		})
	}
}

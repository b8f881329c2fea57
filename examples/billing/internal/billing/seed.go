package billing

import (
	"fmt"
	"github.com/dstsafe/dstsafe"

	"github.com/dstsafe/dstsafe/examples/billing/internal/payments"
	"time"
)

// Seed is a generated set of subscriptions.
type Seed struct {
	Subscriptions []Subscription
	// Declining are the customers the processor must decline.
	Declining []string
}

// plans are monthly prices in cents.
var plans = []int64{1900, 2900, 4900, 7900, 9900}

// NewSeed returns n subscriptions due on date in zone, ids 1..n, of which
// failing (spread evenly) belong to customers whose card the processor
// declines (payments.DeclinedPrefix).
func NewSeed(n, failing int, date dstsafe.Date, zone *time.Location) Seed {
	var s Seed
	for i := 1; i <= n; i++ {
		s.Subscriptions = append(s.Subscriptions, Subscription{
			ID:              int64(i),
			CustomerRef:     fmt.Sprintf("cus_%06d", i),
			AmountMinor:     plans[i%len(plans)],
			Currency:        "usd",
			NextBillingDate: date,
			Zone:            zone,
		})
	}
	for k := range failing {
		// The middle of each of failing equal slices.
		sub := &s.Subscriptions[(2*k+1)*n/(2*failing)]
		sub.CustomerRef = fmt.Sprintf("%s%06d", payments.DeclinedPrefix, sub.ID)
		s.Declining = append(s.Declining, sub.CustomerRef)
	}
	return s
}

package billing

import (
	"fmt"
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
// failing (spread evenly) belong to customers whose card will be declined.
func NewSeed(n, failing int, date Date, zone *time.Location) Seed {
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
		i := (2*k + 1) * n / (2 * failing) // the middle of each of failing equal slices
		s.Declining = append(s.Declining, s.Subscriptions[i].CustomerRef)
	}
	return s
}

// Package naive is the billing worker from the 2024-11-03 postmortem, as it
// ran: it polled every 20 s, matched 01:30 America/Chicago on the wall
// clock, and guarded against a rerun with "started less than 10 minutes
// ago". When 01:30 came round again at -06:00, 70 real minutes after the
// first run, the guard let it through and 1,284 customers paid twice.
package naive

import (
	"context"
	"log"
	"time"
)

type Billing struct {
	Chicago *time.Location
	lastRun time.Time
}

func (b *Billing) runBilling(ctx context.Context) error { return nil }

func (b *Billing) Loop(ctx context.Context) {
	for {
		select {
		case <-ctx.Done():
			return
		case <-time.After(20 * time.Second):
		}
		now := time.Now().In(b.Chicago)
		if now.Hour() == 1 && now.Minute() == 30 { // want `wallclock: matching the local hour/minute`
			if time.Since(b.lastRun) < 10*time.Minute { // want `elapsedguard: an elapsed-time guard`
				continue
			}
			b.lastRun = time.Now()
			if err := b.runBilling(ctx); err != nil {
				log.Printf("billing: %v", err)
			}
		}
	}
}

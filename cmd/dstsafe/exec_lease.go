package main

import (
	"context"
	"errors"
	"time"

	"github.com/jonboulle/clockwork"

	"github.com/dstsafe/dstsafe"
)

// keepLease extends the lease of the claim rec every lease/3 on clock until
// ctx ends (nil) or the ledger says the claim's token no longer holds the
// period (an error wrapping dstsafe.ErrLeaseLost): someone took the
// period over, so the run must stop. Any other heartbeat error (the
// database restarting) is passed to onErr and retried at the next beat:
// the lease outlasts two missed beats, and a token nobody took over still
// holds its period after its lease ran out (the token fences, not the
// clock).
func keepLease(ctx context.Context, clock clockwork.Clock, l dstsafe.Ledger, rec dstsafe.Record, lease time.Duration, onErr func(error)) error {
	every := max(lease/3, time.Millisecond)
	t := clock.NewTimer(every)
	defer t.Stop()
	for {
		select {
		case <-ctx.Done():
			return nil
		case <-t.Chan():
		}
		// A beat that takes longer than the time between beats is as good
		// as missed: give up on it and try the next.
		beatCtx, cancel := context.WithTimeout(ctx, every)
		_, err := l.Heartbeat(beatCtx, rec.Job, rec.Period, rec.Token, lease)
		cancel()
		switch {
		case err == nil:
		case errors.Is(err, dstsafe.ErrLeaseLost):
			return err
		case ctx.Err() != nil:
			return nil
		default:
			onErr(err)
		}
		t.Reset(every)
	}
}

// offsetClock is the real clock shifted so that it read at when the
// process started (--now, DSTSAFE_NOW): time still passes, so leases
// still run out, but from a replayed instant.
type offsetClock struct {
	clockwork.Clock
	shift time.Duration
}

func newOffsetClock(at time.Time) offsetClock {
	real := clockwork.NewRealClock()
	return offsetClock{Clock: real, shift: at.Sub(real.Now())}
}

func (c offsetClock) Now() time.Time                  { return c.Clock.Now().Add(c.shift) }
func (c offsetClock) Since(t time.Time) time.Duration { return c.Now().Sub(t) }
func (c offsetClock) Until(t time.Time) time.Duration { return t.Sub(c.Now()) }

package payments

import (
	"context"
	"errors"
	"net/http/httptest"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

type proc struct {
	sim *Simulator // what the processor did
	p   Processor  // what the billing job calls
}

// processors returns both processors the billing job can talk to: the
// simulator in process, and a simulator behind its HTTP handler.
func processors(t *testing.T, opts ...SimulatorOption) map[string]proc {
	t.Helper()
	local := NewSimulator(opts...)
	remote := NewSimulator(opts...)
	srv := httptest.NewServer(Handler(remote))
	t.Cleanup(srv.Close)
	return map[string]proc{
		"in-process": {local, local},
		"http":       {remote, &HTTPClient{BaseURL: srv.URL, Client: srv.Client()}},
	}
}

func TestIdempotency(t *testing.T) {
	ctx := context.Background()
	req := Request{IdempotencyKey: "sub-7-period-2024-11-03", CustomerRef: "cus_7", AmountMinor: 4900, Currency: "usd"}
	for name, tc := range processors(t, WithDeclined("insufficient_funds", "cus_8")) {
		t.Run(name, func(t *testing.T) {
			first, err := tc.p.Charge(ctx, req)
			require.NoError(t, err)
			assert.False(t, first.Replayed)

			// A retry (after a timeout, from another worker, a day later)
			// gets the first answer back and moves no money.
			again, err := tc.p.Charge(ctx, req)
			require.NoError(t, err)
			assert.True(t, again.Replayed)
			assert.Equal(t, first.ID, again.ID)
			assert.Len(t, tc.sim.Captured(), 1)

			// Same key, other amount: a bug in the caller, refused.
			other := req
			other.AmountMinor = 9900
			_, err = tc.p.Charge(ctx, other)
			assert.ErrorIs(t, err, ErrKeyReused)

			// A decline is a first result too, and is replayed.
			dreq := Request{IdempotencyKey: "sub-8-period-2024-11-03", CustomerRef: "cus_8", AmountMinor: 1900, Currency: "usd"}
			for range 2 {
				_, err = tc.p.Charge(ctx, dreq)
				var de *DeclineError
				require.ErrorAs(t, err, &de)
				assert.Equal(t, "insufficient_funds", de.Code)
				assert.ErrorIs(t, err, ErrDeclined)
			}
			assert.Len(t, tc.sim.Captured(), 1)
		})
	}
}

func TestNoKeyIsRefused(t *testing.T) {
	for name, tc := range processors(t) {
		t.Run(name, func(t *testing.T) {
			_, err := tc.p.Charge(context.Background(), Request{CustomerRef: "cus_1", AmountMinor: 1900, Currency: "usd"})
			assert.ErrorIs(t, err, ErrNoIdempotencyKey)
			assert.Empty(t, tc.sim.Captured())
			// The client refuses before sending anything.
			assert.Zero(t, tc.sim.Requests())
		})
	}
}

func TestInFlightKeyConflicts(t *testing.T) {
	ctx := context.Background()
	req := Request{IdempotencyKey: "sub-1-period-2024-11-03", CustomerRef: "cus_1", AmountMinor: 1900, Currency: "usd"}
	for name, tc := range processors(t) {
		t.Run(name, func(t *testing.T) {
			arrived, release := tc.sim.Hold(req.IdempotencyKey)
			done := make(chan error, 1)
			go func() {
				_, err := tc.p.Charge(ctx, req)
				done <- err
			}()
			<-arrived
			_, err := tc.p.Charge(ctx, req)
			assert.ErrorIs(t, err, ErrInFlight)
			assert.True(t, Retryable(err))
			release()
			require.NoError(t, <-done)
			c, err := tc.p.Charge(ctx, req)
			require.NoError(t, err)
			assert.True(t, c.Replayed)
			assert.Len(t, tc.sim.Captured(), 1)
		})
	}
}

func TestLostResponseThenRetry(t *testing.T) {
	ctx := context.Background()
	req := Request{IdempotencyKey: "sub-2-period-2024-11-03", CustomerRef: "cus_2", AmountMinor: 2900, Currency: "usd"}
	for name, tc := range processors(t) {
		t.Run(name, func(t *testing.T) {
			tc.sim.LoseResponses(req.IdempotencyKey, 1)
			_, err := tc.p.Charge(ctx, req)
			require.Error(t, err)
			assert.True(t, Retryable(err), "a lost response must be retryable: %v", err)
			assert.Len(t, tc.sim.Captured(), 1, "the processor charged although the caller saw a timeout")

			c, err := tc.p.Charge(ctx, req)
			require.NoError(t, err)
			assert.True(t, c.Replayed)
			assert.Len(t, tc.sim.Captured(), 1)
			assert.False(t, errors.Is(err, ErrKeyReused))
		})
	}
}

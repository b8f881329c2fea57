// Package payments is the payment-processor side of the billing example: the
// Processor interface the billing job calls, Simulator, an in-process
// processor that keeps Stripe's idempotency rules, and an HTTP transport so
// that a processor can outlive the billing process that calls it (the crash
// tests kill the billing process and ask the processor what it charged).
package payments

import (
	"context"
	"errors"
	"fmt"
)

// Request asks a processor to charge a customer.
type Request struct {
	// IdempotencyKey makes a retried request harmless: the processor answers
	// every request with the same key with the result of the first one.
	// Build it from internal IDs and the billing period only
	// ("sub-42-period-2024-11-03"), never from personal data: processors
	// log and display keys. Required.
	IdempotencyKey string
	CustomerRef    string
	AmountMinor    int64
	Currency       string
}

// Charge is a processor's answer to a successful Request.
type Charge struct {
	ID             string `json:"id"`
	IdempotencyKey string `json:"idempotency_key"`
	CustomerRef    string `json:"customer"`
	AmountMinor    int64  `json:"amount"`
	Currency       string `json:"currency"`
	// Replayed is true when the processor answered from its idempotency
	// store: no money moved for this call.
	Replayed bool `json:"replayed"`
}

// Processor charges customers. Implementations must keep the idempotency
// contract documented on Simulator.Charge.
type Processor interface {
	Charge(ctx context.Context, req Request) (Charge, error)
}

var (
	// ErrNoIdempotencyKey: the request has no idempotency key. Clients
	// refuse to send such a request; processors refuse to serve it.
	ErrNoIdempotencyKey = errors.New("payments: idempotency key required")
	// ErrKeyReused: the key was used before with different parameters.
	ErrKeyReused = errors.New("payments: idempotency key reused with different parameters")
	// ErrInFlight: a request with the same key is still being processed.
	// Retry later with the same key.
	ErrInFlight = errors.New("payments: a request with this idempotency key is in flight")
	// ErrDeclined: the charge was declined. Replayed for every retry with
	// the same key, like any first result.
	ErrDeclined = errors.New("payments: card declined")
)

// DeclineError is the error of a declined charge.
// errors.Is(err, ErrDeclined) reports true for it.
type DeclineError struct {
	Code string // "card_declined", "insufficient_funds", ...
}

func (e *DeclineError) Error() string { return "payments: card declined: " + e.Code }

// Unwrap returns ErrDeclined.
func (e *DeclineError) Unwrap() error { return ErrDeclined }

// Retryable reports whether a failed call may be retried with the same key:
// the processor may or may not have processed it (timeouts, lost
// responses), or is still processing it.
func Retryable(err error) bool {
	return errors.Is(err, ErrInFlight) || errors.Is(err, context.DeadlineExceeded) || errors.Is(err, errTransport)
}

// errTransport marks errors on the way to or from the processor.
var errTransport = errors.New("payments: transport error")

func transportError(err error) error { return fmt.Errorf("%w: %w", errTransport, err) }

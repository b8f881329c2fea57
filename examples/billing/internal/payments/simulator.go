package payments

import (
	"context"
	"fmt"
	"strings"
	"sync"
)

// DeclinedPrefix marks test customers whose every charge is declined, like
// Stripe's test card 4000000000000002: "cus_declined_000185".
const DeclinedPrefix = "cus_declined_"

// Simulator is an in-process payment processor with Stripe's idempotency
// rules. It moves no real money; Captured says how much it would have.
// The zero value is not usable: call NewSimulator. Safe for concurrent use.
type Simulator struct {
	mu       sync.Mutex
	keys     map[string]*entry
	declined map[string]string // customer ref -> decline code
	holds    map[string]*hold
	lose     map[string]int // key -> responses still to lose
	captured []Charge
	requests int
}

// entry is the idempotency record of one key.
type entry struct {
	req    Request
	done   chan struct{} // closed once charge and err are final
	charge Charge
	err    error
}

// SimulatorOption configures NewSimulator.
type SimulatorOption func(*Simulator)

// WithDeclined makes the simulator decline every charge of the given
// customers with code ("card_declined", "insufficient_funds", ...).
func WithDeclined(code string, customerRefs ...string) SimulatorOption {
	return func(s *Simulator) {
		for _, ref := range customerRefs {
			s.declined[ref] = code
		}
	}
}

// NewSimulator returns a processor that accepts every charge except those
// of customers named with DeclinedPrefix and those its options decline.
func NewSimulator(opts ...SimulatorOption) *Simulator {
	s := &Simulator{
		keys:     map[string]*entry{},
		declined: map[string]string{},
		holds:    map[string]*hold{},
		lose:     map[string]int{},
	}
	for _, opt := range opts {
		opt(s)
	}
	return s
}

// Charge charges req.CustomerRef, keeping Stripe's idempotency contract:
//
//   - no idempotency key: ErrNoIdempotencyKey, nothing charged;
//   - a key seen before with the same parameters: the first result again,
//     success (with Replayed set) or error alike, nothing charged;
//   - a key seen before with other parameters: ErrKeyReused;
//   - a key whose first request is still being processed: ErrInFlight.
//
// Declines are results like any other and are replayed.
func (s *Simulator) Charge(ctx context.Context, req Request) (Charge, error) {
	if req.IdempotencyKey == "" {
		return Charge{}, ErrNoIdempotencyKey
	}
	c, err := s.charge(req)
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.lose[req.IdempotencyKey] > 0 {
		// Processed, but the answer never reaches the caller: what a
		// client sees when its request times out.
		s.lose[req.IdempotencyKey]--
		return Charge{}, transportError(fmt.Errorf("response lost: %w", context.DeadlineExceeded))
	}
	return c, err
}

func (s *Simulator) charge(req Request) (Charge, error) {
	s.mu.Lock()
	s.requests++
	if e, ok := s.keys[req.IdempotencyKey]; ok {
		defer s.mu.Unlock()
		if e.req != req {
			return Charge{}, fmt.Errorf("%w: key %q", ErrKeyReused, req.IdempotencyKey)
		}
		select {
		case <-e.done:
		default:
			return Charge{}, fmt.Errorf("%w: key %q", ErrInFlight, req.IdempotencyKey)
		}
		if e.err != nil {
			return Charge{}, e.err
		}
		c := e.charge
		c.Replayed = true
		return c, nil
	}
	e := &entry{req: req, done: make(chan struct{})}
	s.keys[req.IdempotencyKey] = e
	h := s.holds[req.IdempotencyKey]
	s.mu.Unlock()

	if h != nil {
		// A test keeps this request in flight.
		h.arrive.Do(func() { close(h.arrived) })
		<-h.release
	}

	s.mu.Lock()
	defer s.mu.Unlock()
	code, ok := s.declined[req.CustomerRef]
	if !ok && strings.HasPrefix(req.CustomerRef, DeclinedPrefix) {
		code, ok = "card_declined", true
	}
	if ok {
		e.err = &DeclineError{Code: code}
	} else {
		e.charge = Charge{
			ID:             fmt.Sprintf("ch_%06d", len(s.captured)+1),
			IdempotencyKey: req.IdempotencyKey,
			CustomerRef:    req.CustomerRef,
			AmountMinor:    req.AmountMinor,
			Currency:       req.Currency,
		}
		s.captured = append(s.captured, e.charge)
	}
	close(e.done)
	return e.charge, e.err
}

type hold struct {
	arrive  sync.Once
	arrived chan struct{}
	release chan struct{}
}

// Hold keeps the first request with key in flight until release is called,
// so that a test can act while it is: send a concurrent request with the
// same key, start a second billing process. arrived is closed when that
// request reaches the processor.
func (s *Simulator) Hold(key string) (arrived <-chan struct{}, release func()) {
	h := &hold{arrived: make(chan struct{}), release: make(chan struct{})}
	s.mu.Lock()
	s.holds[key] = h
	s.mu.Unlock()
	var once sync.Once
	return h.arrived, func() { once.Do(func() { close(h.release) }) }
}

// LoseResponses makes the answers to the next n requests with key get lost:
// the processor processes each request (the first one charges) but the
// caller gets a timeout. The money moved; the caller does not know it.
func (s *Simulator) LoseResponses(key string, n int) {
	s.mu.Lock()
	s.lose[key] += n
	s.mu.Unlock()
}

// Captured returns the charges the simulator made, in order: the money that
// moved. Replays are not in it.
func (s *Simulator) Captured() []Charge {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]Charge(nil), s.captured...)
}

// Requests returns how many requests reached the simulator, replays and
// refusals included (but not those without a key).
func (s *Simulator) Requests() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.requests
}

var _ Processor = (*Simulator)(nil)

package dstsafe

import (
	"errors"
	"fmt"
	"sync"
	"time"

	"github.com/dstsafe/dstsafe/event"
)

var (
	// ErrLedgerUnreachable: the Scheduler's ledger does not answer. Run
	// returns it (wrapped with the ledger's type and last error) when the
	// ledger did not answer within the startup timeout (WithStartupTimeout);
	// Healthy returns it while an outage after startup has lasted that
	// long.
	ErrLedgerUnreachable = errors.New("dstsafe: ledger unreachable")
	// errNotReady: Healthy was called while the Scheduler is not running:
	// not started, starting (reaching its ledger), or stopped. Unexported:
	// a readiness probe needs only err != nil.
	errNotReady = errors.New("dstsafe: scheduler not ready")
)

// The default of WithStartupTimeout.
const defaultStartupTimeout = 30 * time.Second

// WithStartupTimeout bounds how long Run waits, at its start, for the
// ledger to answer a first call (on the scheduler's clock): a ledger that
// does not answer within d, retried with backoff (1 s doubling), makes Run
// return an error wrapping ErrLedgerUnreachable and the ledger's last
// error, naming the ledger's type, so a service fails its start rather
// than run without a ledger. A permanent error (a table never migrated)
// ends Run at once. The same d is how long an outage after startup may
// last before Healthy reports it. Defaults to 30 s; zero or negative
// means the default.
func WithStartupTimeout(d time.Duration) SchedulerOption {
	return func(cfg *schedulerConfig) { cfg.startup = d }
}

// phase is where a Scheduler is in its life.
type phase uint8

const (
	phaseIdle     phase = iota // Run not called yet
	phaseStarting              // Run reaches the ledger
	phaseRunning
	phaseStopped // Run returned
)

// health is a Scheduler's phase and what it knows of its ledger's
// reachability, for Healthy and Describe.
type health struct {
	memory  bool          // the default MemoryLedger: not durable
	startup time.Duration // WithStartupTimeout

	mu        sync.Mutex
	phase     phase
	downSince time.Time // the first failure of the current outage; zero while the ledger answers
	lastErr   error     // the latest failure of the current outage
}

func newHealth(memory bool, startup time.Duration) health {
	if startup <= 0 {
		startup = defaultStartupTimeout
	}
	return health{memory: memory, startup: startup}
}

func (h *health) setPhase(p phase) {
	h.mu.Lock()
	h.phase = p
	if p == phaseStarting {
		h.downSince, h.lastErr = time.Time{}, nil
	}
	h.mu.Unlock()
}

// ledgerFailed records a failed ledger call (transient or permanent) and
// tells the observers: one event.LedgerError per failure.
func (s *Scheduler) ledgerFailed(job string, err error) {
	now := s.clock.Now()
	h := &s.health
	h.mu.Lock()
	if h.downSince.IsZero() {
		h.downSince = now
	}
	h.lastErr = err
	h.mu.Unlock()
	if s.observed() {
		s.emit(Event{Type: event.LedgerError, Job: job, At: now, Err: err})
	}
}

// ledgerAnswered records a ledger call that answered: an outage is over.
func (s *Scheduler) ledgerAnswered() {
	h := &s.health
	h.mu.Lock()
	if !h.downSince.IsZero() {
		h.downSince, h.lastErr = time.Time{}, nil
	}
	h.mu.Unlock()
}

// ledgerDown reports since when the ledger has not answered, and its
// latest error; zero when it answers.
func (s *Scheduler) ledgerDown() (time.Time, error) {
	s.health.mu.Lock()
	defer s.health.mu.Unlock()
	return s.health.downSince, s.health.lastErr
}

// ledgerKind names the ledger for errors, logs and Describe:
// "memory (not durable)" for the default MemoryLedger, else its type
// ("*sqlledger.Ledger"), marked "(not durable)" for a MemoryLedger.
func (s *Scheduler) ledgerKind() string {
	if s.health.memory {
		return "memory (not durable)"
	}
	if _, ok := s.ledger.(*MemoryLedger); ok {
		return fmt.Sprintf("%T (not durable)", s.ledger)
	}
	return fmt.Sprintf("%T", s.ledger)
}

// Healthy reports whether the Scheduler is running with a ledger that
// answers, for a readiness probe: nil while Run runs and the ledger's
// latest call answered, or an outage has lasted less than the startup
// timeout (WithStartupTimeout: a database restart of a few seconds does
// not fail the probe). Otherwise an error saying why (Run not
// called yet, still reaching the ledger at its start, or returned), or
// ErrLedgerUnreachable with the instant the outage began and the ledger's
// latest error ("ledger unreachable since 2024-11-03T06:30:00Z"), or the
// refused option when NewScheduler was given one. It does no I/O.
func (s *Scheduler) Healthy() error {
	if s.cfgErr != nil {
		return s.cfgErr
	}
	h := &s.health
	h.mu.Lock()
	p, since, last := h.phase, h.downSince, h.lastErr
	h.mu.Unlock()
	switch p {
	case phaseIdle:
		return fmt.Errorf("%w: not started", errNotReady)
	case phaseStarting:
		return fmt.Errorf("%w: starting: reaching the ledger", errNotReady)
	case phaseStopped:
		return fmt.Errorf("%w: stopped", errNotReady)
	}
	if !since.IsZero() && s.clock.Now().Sub(since) >= h.startup {
		return fmt.Errorf("%w: %s since %s: %w", ErrLedgerUnreachable, s.ledgerKind(), since.UTC().Format(time.RFC3339), last)
	}
	return nil
}

// healthProbe is the key Run's first ledger call reads: a period no job
// has, so the answer is ErrNotFound (or, from a ledger that has it, its
// record), either of which shows the ledger answers.
const (
	healthProbeJob    = "dstsafe.health"
	healthProbePeriod = "startup"
)

// reachLedger is Run's first stage: it calls the ledger until it answers,
// retrying a transient error with backoff on the clock for at most the
// startup timeout. It returns nil when the ledger answered or ctx ended
// (Run then returns as for a cancelled context), else the error Run
// returns.
func (s *Scheduler) reachLedger(rs *runState) error {
	h := &s.health
	if s.health.memory {
		s.log.Warn("scheduler ledger not durable", "ledger", s.ledgerKind(),
			"consequence", "periods are not remembered across restarts nor shared between replicas: use sqlledger or redisledger")
	}
	deadline := s.clock.Now().Add(h.startup)
	backoff := time.Second
	env := runEnv{ctx: rs.ctx, stopping: rs.stopping, sim: rs.sim}
	for {
		_, err := s.ledger.Get(rs.ctx, healthProbeJob, healthProbePeriod)
		if err == nil || isAnswer(err) {
			s.ledgerAnswered()
			return nil
		}
		if rs.ctx.Err() != nil {
			return nil
		}
		s.ledgerFailed("", err)
		if isPermanent(err) {
			s.log.Error("scheduler start failed: permanent ledger error", "ledger", s.ledgerKind(), "error", err)
			return fmt.Errorf("dstsafe: ledger %s: %w", s.ledgerKind(), err)
		}
		left := deadline.Sub(s.clock.Now())
		if left <= 0 {
			s.log.Error("scheduler start failed: ledger unreachable", "ledger", s.ledgerKind(),
				"startup_timeout", h.startup, "error", err)
			return fmt.Errorf("%w: %s did not answer within %v: %w", ErrLedgerUnreachable, s.ledgerKind(), h.startup, err)
		}
		wait := min(backoff, left)
		s.log.Warn("scheduler start: ledger unreachable", "ledger", s.ledgerKind(), "error", err, "retry_in", wait)
		if !s.sleep(env, wait) {
			return nil
		}
		backoff = min(2*backoff, time.Minute)
	}
}

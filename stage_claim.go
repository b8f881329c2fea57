package dstsafe

import (
	"context"
	"errors"
	"time"

	"github.com/dstsafe/dstsafe/event"
)

// claim claims t in the ledger. A ledger that fails (database restarting,
// network down) is retried with backoff on the clock, 1 s doubling to a
// minute, until it answers or Run stops: a database that goes away at
// 01:30 delays the run, it does not lose it. A permanent error stops Run.
// Without Run (RunNow) the first error is returned. An existing claim is
// logged as "run already claimed" with its record and returned as is.
func (s *Scheduler) claim(env runEnv, j *job, t task) (Record, error) {
	o := t.o
	var rec Record
	// One ID for every try: a try whose answer was lost after the store
	// committed is found by the next one as this claim's own.
	id := s.claimIDs.next()
	err := s.ledgerCall(env, j.name, "run claim failed", func(ctx context.Context) error {
		var err error
		rec, err = s.ledger.Claim(ctx, s.stamp(ClaimRequest{
			Job: j.name, Period: o.Period, Owner: s.owner, Lease: t.spec.cfg.lease, Retry: env.claimPolicy(t),
			Schedule: s.fingerprintNow(j), ID: id,
		}))
		return err
	})
	s.noteClaim(j.name, t, err)
	var ce *ClaimedError
	switch {
	case err == nil:
		s.emitTask(event.Claimed, j.name, t, rec.Attempt, "", nil)
		s.periodClaimed(j.name, t, true, nil)
	case errors.As(err, &ce):
		e := ce.Existing
		s.log.Info("run already claimed", "job", j.name, "period", o.Period, "due", o.At,
			"state", e.State.String(), "owner", e.Owner, "started", e.StartedAt,
			"attempt", e.Attempt, "token", e.Token)
		s.emitTask(event.ClaimedElsewhere, j.name, t, e.Attempt, "", nil)
		s.periodClaimed(j.name, t, false, &e)
		s.zoneDataMet(j, t, e)
	}
	return rec, err
}

// ledgerCall calls f until it succeeds or gets an answer (a claimed
// period, a lost lease, no record, no support): a transient error is
// retried with backoff on the clock, 1 s doubling to a minute, while Run
// runs (env.rs set) and env's context lasts. A permanent error stops Run.
// Without Run the first error is returned. msg is the log message of a
// failure.
func (s *Scheduler) ledgerCall(env runEnv, job, msg string, f func(ctx context.Context) error) error {
	backoff := time.Second
	for {
		err := f(env.ctx)
		if err == nil || isAnswer(err) {
			s.ledgerAnswered()
			return err
		}
		if env.ctx.Err() == nil {
			s.ledgerFailed(job, err)
		}
		if env.rs == nil || isPermanent(err) || env.ctx.Err() != nil {
			s.log.Error(msg, "job", job, "error", err)
			if env.rs != nil && isPermanent(err) {
				s.fail(env.rs, job, err)
			}
			return err
		}
		s.log.Error(msg, "job", job, "error", err, "retry_in", backoff)
		if !s.sleep(env, backoff) {
			return err
		}
		backoff = min(2*backoff, time.Minute)
	}
}

// isAnswer reports whether a ledger error is the ledger's answer about a
// period or job rather than a failure.
func isAnswer(err error) bool {
	return errors.Is(err, ErrAlreadyClaimed) || errors.Is(err, ErrLeaseLost) || errors.Is(err, ErrNotFound) ||
		errors.Is(err, errNotSupported) || errors.Is(err, ErrMaxRuns) || errors.Is(err, ErrClockSkew)
}

// fingerprintNow is the fingerprint of j's schedule in force now, which
// every claim records: a run planned under an old schedule and claimed
// after an edit records the new one, as the schedule in force from then on.
func (s *Scheduler) fingerprintNow(j *job) string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return j.spec.fp()
}

package dstsafe

import (
	"errors"
	"fmt"
	"sync"
	"time"

	"github.com/dstsafe/dstsafe/event"
)

// WithMaxClockOffset sets how far the Scheduler's Clock may be from its
// ledger's clock, either way, for its claims to be accepted
// (ClaimRequest.MaxClockOffset; every claim carries the Clock's reading in
// ClaimRequest.Now). A replica beyond it claims nothing and runs nothing:
// each period it would have run is refused with an error wrapping
// ErrClockSkew, reported as event.ClockSkew (with Event.Offset) and logged
// at ERROR once per episode (Describe shows it meanwhile), and stays
// claimable by a replica whose clock is right; the replica tries again at
// its next periods, and resumes once its clock is fixed. Within it, the
// replica fires up to d early or late (its Clock decides when), and the
// ledger still runs each period once.
//
// Defaults to 5 s, also for zero: NTP keeps hosts within milliseconds,
// and a clock 5 s off is broken. A negative d makes Add fail with an
// error wrapping ErrInvalidArgument.
func WithMaxClockOffset(d time.Duration) SchedulerOption {
	return func(cfg *schedulerConfig) { cfg.maxClockOffset = d }
}

// checkMaxClockOffset is Add's check of WithMaxClockOffset.
func (s *Scheduler) checkMaxClockOffset() error {
	if s.maxClockOffset < 0 {
		return fmt.Errorf("%w: WithMaxClockOffset(%v): negative offset", errInvalidRange, s.maxClockOffset)
	}
	return nil
}

// stamp sets the claimer's side of the clock check on a claim of s: the
// Clock's now and the offset allowed.
func (s *Scheduler) stamp(req ClaimRequest) ClaimRequest {
	req.Now = s.clock.Now()
	req.MaxClockOffset = s.maxClockOffset
	return req
}

// skewState is whether the Scheduler's last claim was refused for clock
// skew: an episode starts with the first refusal (logged at ERROR) and
// ends with the next claim the ledger answers otherwise (logged at INFO).
type skewState struct {
	mu  sync.Mutex
	cur *clockSkewError // the latest refusal of the episode; nil outside one
}

// current returns the refusal of the episode under way, or nil.
func (k *skewState) current() error {
	k.mu.Lock()
	defer k.mu.Unlock()
	if k.cur == nil {
		return nil
	}
	e := *k.cur
	return &e
}

// noteClaim records what the ledger answered a claim of period t of job:
// a refusal for clock skew starts or continues an episode and emits
// event.ClockSkew; any other answer (a claim, a *ClaimedError) ends one. A
// failure of the ledger says nothing about clocks and changes nothing.
func (s *Scheduler) noteClaim(job string, t task, err error) {
	var se *clockSkewError
	switch {
	case errors.As(err, &se):
		s.skew.mu.Lock()
		first := s.skew.cur == nil
		e := *se
		s.skew.cur = &e
		s.skew.mu.Unlock()
		if first {
			s.log.Error("clock skew: claims refused", "job", job, "period", t.o.Period, "due", t.o.At,
				"offset", se.Offset, "max", se.Max, "clock", se.ClaimerNow, "ledger_clock", se.StoreNow)
		}
		if s.observed() {
			ev := s.taskEvent(event.ClockSkew, job, t)
			ev.Offset, ev.Err = se.Offset, err
			s.emit(ev)
		}
	case err == nil || errors.Is(err, ErrAlreadyClaimed):
		s.skew.mu.Lock()
		was := s.skew.cur
		s.skew.cur = nil
		s.skew.mu.Unlock()
		if was != nil {
			s.log.Info("clock skew over: claims accepted", "job", job, "period", t.o.Period)
		}
	}
}

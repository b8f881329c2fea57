package dstsafe

import (
	"context"
	"errors"

	"github.com/dstsafe/dstsafe/event"
)

// alertBits are the alerts settled about one period.
type alertBits uint8

const (
	alertAtRisk     alertBits = 1 << iota // settled: reported, here or elsewhere
	alertAtRiskMine                       // reported here
	alertMissed
)

// report reports typ, event.AtRisk or event.Missed, about t with reason:
// once per period across every replica on the ledger. The first Scheduler
// to record the alert in the ledger (a claim of the derived job
// "<job>/alerts", period "<period>/at-risk" or "<period>/missed",
// finished succeeded at once, the way WithMaxRuns keeps its slots)
// reports it; the others find it claimed and stay quiet. A Missed is
// always preceded by its AtRisk (reported here unless another replica
// did). When the ledger cannot record the alert (it is down: often why
// the period is at risk) the alert is reported anyway: twice rather than
// never. The replica that reported AtRisk reports the Missed; another
// one does only when the first has not within a wake interval (it died
// in between). rs is nil outside Run: the alert is then reported as is.
func (s *Scheduler) report(rs *runState, typ event.Type, job string, t task, reason string, cause error) {
	if t.manual() {
		return
	}
	bit, kind := alertAtRisk, "at-risk"
	if typ == event.Missed {
		s.report(rs, event.AtRisk, job, t, reason, cause)
		bit, kind = alertMissed, "missed"
	}
	s.mu.Lock()
	j := s.jobs[job]
	var had alertBits
	if j != nil {
		had = j.alerted[t.o.Period]
	}
	s.mu.Unlock()
	if had&bit != 0 {
		return
	}
	if typ == event.Missed && rs != nil && had&alertAtRiskMine == 0 && !s.atRiskStale(rs, job, t.o.Period) {
		return // its AtRisk's reporter reports it; looked at again at the next pass
	}
	s.setAlerted(j, t.o.Period, bit)
	if rs != nil && !s.firstToAlert(rs, job, t.o.Period, kind, reason) {
		return
	}
	if typ == event.AtRisk {
		s.setAlerted(j, t.o.Period, alertAtRiskMine)
		s.log.Warn("run at risk", "job", job, "period", t.o.Period, "deadline", deadlineOf(t), "reason", reason)
	}
	s.emitTask(typ, job, t, 0, reason, cause)
}

// setAlerted notes bit about j's period (j may be nil: removed).
func (s *Scheduler) setAlerted(j *job, period string, bit alertBits) {
	if j == nil {
		return
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if j.alerted == nil {
		j.alerted = make(map[string]alertBits)
	}
	j.alerted[period] |= bit
}

// atRiskStale reports whether the at-risk alert of job's period, recorded
// by another replica, is older than a wake interval (that replica would
// have reported the Missed by then), or cannot be read.
func (s *Scheduler) atRiskStale(rs *runState, job, period string) bool {
	rec, err := s.ledger.Get(context.WithoutCancel(rs.ctx), alertsJob(job), alertPeriod(period, "at-risk"))
	if err != nil || rec.Owner == s.owner {
		return true
	}
	return s.clock.Now().Sub(rec.StartedAt) >= s.sweepInterval()
}

// firstToAlert records an alert of kind about job's period in the ledger
// and reports whether this Scheduler recorded it first (or could not
// record it).
func (s *Scheduler) firstToAlert(rs *runState, job, period, kind, reason string) bool {
	key, p := alertsJob(job), alertPeriod(period, kind)
	if validateKey("job", key) != nil || validateKey("period", p) != nil {
		return true // not a key the ledger takes: report, undeduplicated
	}
	ctx := context.WithoutCancel(rs.ctx)
	rec, err := s.ledger.Claim(ctx, s.stamp(ClaimRequest{Job: key, Period: p, Owner: s.owner, ID: s.claimIDs.next()}))
	var ce *ClaimedError
	switch {
	case errors.As(err, &ce):
		return false // another replica reported it
	case err != nil:
		s.log.Warn("run alert not recorded", "job", job, "period", period, "alert", kind, "error", err)
		return true
	}
	if _, err := s.ledger.Finish(ctx, key, p, rec.Token, StateSucceeded, reason); err != nil {
		s.log.Warn("run alert not recorded", "job", job, "period", period, "alert", kind, "error", err)
	}
	return true
}

// pruneAlerts forgets the settled alerts of j's periods not in keep (the
// periods of its recovery window; nil: all). The ledger still holds them:
// a later pass that looks again finds them recorded.
func (s *Scheduler) pruneAlerts(j *job, keep map[string]bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if len(j.alerted) == 0 {
		return
	}
	for p := range j.alerted {
		if !keep[p] {
			delete(j.alerted, p)
		}
	}
}

package dstsafe

import (
	"context"
	"strconv"
	"time"

	"github.com/dstsafe/dstsafe/event"
)

// WithRecoveryWindow sets how far back the Scheduler reconciles the job:
// on every pass of the job (when it comes due, and at every wake while it
// has periods that are not final) it compares the job's periods due
// within d before now with the ledger's records of them (one Ledger.List)
// and drives each to one outcome by CheckPeriods. The whole window is
// compared at the first pass, whenever the previous pass left a period
// open or ran one behind the cursor, and when the last full pass is a
// wake interval (WithWakeInterval) old or more; a pass in between compares
// only the periods since the previous pass (a secondly job does not read
// 3,600 records at every fire). What the reconciler does: a period due with no
// record is run (catch-up policy); an abandoned one is taken over when the
// job's RetryPolicy allows it, a failed one retried after the backoff, a
// released one (`dstsafe ledger retry`) run; one that will not run is
// reported at risk and then missed, once across replicas. A period older
// than d is not looked at again: after a restart the job resumes after
// its latest record, as CatchUpPolicy says, and an operator runs an older
// one with RunNow or Backfill.
//
// Only periods of the schedule in force are expected, from when it took
// effect (the job's Add, Run's start, an Update that changed it, or the
// earliest period the ledger records under it, whichever is earliest):
// an edit never makes a period retroactive.
//
// Defaults to an hour, or twice the lease plus the deadline plus the
// misfire threshold when that is longer: a takeover needs the lease and a
// wake interval (2 minutes with the defaults), an alert the deadline (5
// minutes), and an hour also covers a ledger outage of up to an hour and
// an operator who releases a failed period within it, while a full pass of
// a minutely job reads at most about 60 records. Zero means the default; a
// negative d makes Add fail with an error wrapping ErrInvalidArgument.
func WithRecoveryWindow(d time.Duration) JobOption {
	return func(c *jobConfig) {
		if d < 0 {
			c.fail(&ArgError{Func: "WithRecoveryWindow", Arg: "d", Err: errInvalidRange})
			return
		}
		c.recovery = d
	}
}

// defaultRecoveryWindow is the recovery window's floor without
// WithRecoveryWindow.
const defaultRecoveryWindow = time.Hour

// recoveryWindow is the job's recovery window (WithRecoveryWindow).
func (c *jobConfig) recoveryWindow() time.Duration {
	if c.recovery > 0 {
		return c.recovery
	}
	deadline := c.deadline
	if deadline <= 0 {
		deadline = max(deadlineFactor*c.misfire, minDeadline)
	}
	return max(defaultRecoveryWindow, 2*(c.lease+deadline+c.misfire)+c.jitter)
}

// maxReconciled bounds the periods one pass looks at (a secondly job with
// a long window): the most recent ones.
const maxReconciled = 10000

// reconciled is what a reconcile pass found to do.
type reconciled struct {
	missing   []task // due, no record, after the schedule took effect: run by the catch-up policy
	takeovers []task // abandoned, released, or failed past the backoff: claim over the old attempt
	alerts    []alert
	open      bool // periods not final: reconcile again at the next wake
}

// alert is an at-risk or missed report a pass decided on.
type alert struct {
	typ    event.Type // event.AtRisk or event.Missed (which reports AtRisk first)
	t      task
	reason string
}

// reconcile is the reconciler's step of a job's pass (plan): it lists the
// ledger's records of the job's recovery window once and classifies every
// period of the window the pass does not already hold in due (CheckPeriods'
// classification). Only periods at or before handled (the cursor when
// the pass began) are looked at: those after it are the pass's due, so a
// job that comes due with nothing open behind it makes no ledger call and
// walks no occurrence here. Periods this Scheduler holds (the job is
// running or queued here) are left to their runner: their missing
// records and takeovers wait for a pass when the job is idle here. ok is
// false when Run stops or the ledger failed for good.
func (s *Scheduler) reconcile(rs *runState, j *job, spec *jobSpec, now, handled time.Time, due []task) (r reconciled, ok bool) {
	window := spec.cfg.recoveryWindow()
	from := now.Add(-window - spec.cfg.jitter)
	// A full pass looks at the whole window; an incremental one only at
	// the periods after the cursor the previous pass started from (that
	// pass's due, now run or running), when the previous pass left
	// nothing open, under the same spec, less than a wake interval after
	// the last full pass. A secondly job with an hour's window reads its
	// 3,600 records once per wake interval, not at every fire.
	s.mu.Lock()
	incremental := !j.open && j.reconSpec == spec && !j.reconFull.IsZero() &&
		now.Sub(j.reconFull) < s.sweepInterval() && !j.reconTo.After(handled)
	if incremental && j.reconTo.After(from) {
		from = j.reconTo
	}
	s.mu.Unlock()
	defer func() {
		s.mu.Lock()
		defer s.mu.Unlock()
		if !ok || r.open || len(r.missing)+len(r.takeovers) > 0 {
			// The next pass is a full one: the job is open, Run stops,
			// or this pass found periods to run behind the cursor.
			j.reconFull = time.Time{}
			return
		}
		j.reconTo, j.reconSpec = handled, spec
		if !incremental {
			j.reconFull = now
		}
	}()
	if !handled.After(from) {
		if !incremental {
			s.pruneAlerts(j, nil)
		}
		return r, true // nothing behind the cursor within the window
	}
	// due is oldest first and usually one period: a scan, not a map (a
	// pass runs at every fire).
	inDue := func(p string) bool {
		for i := len(due) - 1; i >= 0; i-- {
			if due[i].o.Period == p {
				return true
			}
		}
		return false
	}
	var expected []task
	for o, more := spec.nextAfter(from); more && !o.At.After(now); o, more = spec.nextAfter(o.At) {
		t := spec.taskOf(j.name, o)
		if t.start.After(now) || now.Sub(t.start) > window || inDue(o.Period) {
			continue
		}
		if len(expected) == maxReconciled {
			expected = append(expected[:0], expected[maxReconciled/2:]...)
		}
		expected = append(expected, t)
	}
	if len(expected) == 0 {
		if !incremental {
			s.pruneAlerts(j, nil)
		}
		return r, true // nothing due in the window: no ledger call
	}
	fromKey := expected[0].o.Period
	for _, t := range expected[1:] {
		fromKey = min(fromKey, t.o.Period)
	}
	recs, err := s.ledger.List(rs.ctx, j.name, fromKey, "")
	if err != nil {
		if rs.ctx.Err() != nil {
			return r, false
		}
		s.ledgerFailed(j.name, err)
		if isPermanent(err) {
			s.fail(rs, j.name, err)
			return r, false
		}
		s.log.Error("run reconcile failed: ledger list", "job", j.name, "error", err)
		r.open = true // looked at again at the next wake
		return r, true
	}
	s.ledgerAnswered()
	byPeriod := make(map[string]Record, len(recs))
	for _, rec := range recs {
		byPeriod[rec.Period] = rec
	}

	s.mu.Lock()
	since, busy := j.since, j.active > 0 || len(j.queued) > 0
	s.mu.Unlock()
	// The schedule took effect at since, or at the earliest period the
	// ledger records under it (another replica ran it before this one
	// started).
	fp := spec.fp()
	floor := since
	for _, t := range expected {
		if rec, ok := byPeriod[t.o.Period]; ok && (fp == "" || rec.Schedule == "" || sameSchedule(rec.Schedule, fp)) {
			if t.o.At.Before(floor) {
				floor = t.o.At
			}
			break // expected is oldest first
		}
	}

	policy := CheckPolicy{Retry: spec.cfg.retry, RetryBackoff: spec.cfg.retryBackoff}
	var paused, pauseKnown bool
	seen := make(map[string]bool, len(expected))
	for _, t := range expected {
		seen[t.o.Period] = true
		rec, recorded := byPeriod[t.o.Period]
		if !recorded && (t.o.At.Before(floor) || !t.o.At.Before(since)) {
			// Before the schedule took effect: not its period. Or due
			// since this Scheduler took the job on: its own pass found it
			// due and claimed it (a claim refused for clock skew stays
			// for a replica whose clock is right).
			continue
		}
		c := checkPeriod(t.o, rec, recorded, policy, deadlineOf(t), now)
		switch c.Action {
		case ActionRun, ActionTakeOver, ActionRetry:
			if !pauseKnown {
				pauseKnown = true
				if s.control != nil {
					p, ok := s.pauseOf(rs, j.name)
					if !ok {
						return r, false
					}
					paused = p.Paused
				}
			}
			if paused {
				policy.Paused = true
				c = checkPeriod(t.o, rec, recorded, policy, deadlineOf(t), now)
				policy.Paused = false
			}
		}
		mine := recorded && rec.Owner == s.owner && busy
		switch c.Action {
		case ActionRun:
			if busy {
				r.open = true // may be queued here: looked at once the job is idle
				continue
			}
			r.missing = append(r.missing, t)
		case ActionSkipPaused:
			r.missing = append(r.missing, t) // the pause split records it
		case ActionTakeOver:
			r.open = true
			if !busy {
				r.takeovers = append(r.takeovers, t)
			}
		case ActionRetry:
			r.open = true
			if !busy && !now.Before(c.At) {
				r.takeovers = append(r.takeovers, t)
			}
		case ActionReportAtRisk:
			r.open = true
			r.alerts = append(r.alerts, alert{typ: event.AtRisk, t: t, reason: riskElsewhere + ": " + c.Record.State.String() + " by " + c.Record.Owner})
		case ActionReportMissed:
			r.open = true // an operator may release it: looked at every wake
			why := c.Record.State.String() + " by " + c.Record.Owner + ", attempt " + strconv.Itoa(c.Record.Attempt) + ": no takeover allowed"
			r.alerts = append(r.alerts, alert{typ: event.Missed, t: t, reason: why})
		case ActionWaitPaused:
			r.open = true
		default:
			if c.Status == PeriodRunning && !mine {
				r.open = true // it may be abandoned by the next wake
			}
		}
	}
	if !incremental {
		s.pruneAlerts(j, seen)
	}
	return r, true
}

// windowChecks classifies the periods of job's recovery window due by
// now, as the reconciler does, for Describe.
func (s *Scheduler) windowChecks(ctx context.Context, job string, spec *jobSpec, now time.Time, paused bool) ([]PeriodCheck, error) {
	window := spec.cfg.recoveryWindow()
	var expected []task
	for o, more := spec.nextAfter(now.Add(-window - spec.cfg.jitter)); more && !o.At.After(now) && len(expected) < maxReconciled; o, more = spec.nextAfter(o.At) {
		if t := spec.taskOf(job, o); !t.start.After(now) && now.Sub(t.start) <= window {
			expected = append(expected, t)
		}
	}
	if len(expected) == 0 {
		return nil, nil
	}
	from := expected[0].o.Period
	for _, t := range expected[1:] {
		from = min(from, t.o.Period)
	}
	recs, err := s.ledger.List(ctx, job, from, "")
	if err != nil {
		return nil, err
	}
	byPeriod := make(map[string]Record, len(recs))
	for _, r := range recs {
		byPeriod[r.Period] = r
	}
	p := CheckPolicy{Retry: spec.cfg.retry, RetryBackoff: spec.cfg.retryBackoff, Paused: paused}
	out := make([]PeriodCheck, 0, len(expected))
	for _, t := range expected {
		rec, ok := byPeriod[t.o.Period]
		out = append(out, checkPeriod(t.o, rec, ok, p, deadlineOf(t), now))
	}
	return out, nil
}

// markOpen marks j as having periods that are not final: the loop
// reconciles it at every wake. s.mu must be held.
func (s *Scheduler) markOpenLocked(j *job, open bool) {
	if j.removed {
		open = false
	}
	if open == j.open {
		return
	}
	j.open = open
	if s.open == nil {
		s.open = make(map[*job]struct{})
	}
	if open {
		s.open[j] = struct{}{}
		s.pokeLocked()
	} else {
		delete(s.open, j)
	}
}

// markOpen is markOpenLocked for a job named job, taking s.mu.
func (s *Scheduler) markOpen(job string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if j := s.jobs[job]; j != nil {
		s.markOpenLocked(j, true)
	}
}

// sweepLocked starts a pass of every open job that is not being planned,
// when the sweep is due, and returns when the next one is (zero: no open
// job, or no wake interval: then open jobs are swept whenever the loop
// wakes for a due job). One pass per open job per wake interval: a job
// with nothing open costs nothing. s.mu must be held.
func (s *Scheduler) sweepLocked(rs *runState, now time.Time) time.Time {
	if len(s.open) == 0 {
		s.nextSweep = time.Time{}
		return time.Time{}
	}
	wakeAt := func() time.Time {
		if s.wakeInterval <= 0 {
			return time.Time{} // swept when the loop wakes for a due job
		}
		return s.nextSweep
	}
	if s.nextSweep.IsZero() {
		s.nextSweep = now.Add(s.sweepInterval())
	}
	if now.Before(s.nextSweep) {
		return wakeAt()
	}
	s.nextSweep = now.Add(s.sweepInterval())
	for j := range s.open {
		if j.planning || j.removed || !j.primed {
			continue
		}
		if j.qi >= 0 {
			s.queue.remove(j)
		}
		j.planning = true
		s.spawn(rs, func() { s.plan(rs, j, true) })
	}
	return wakeAt()
}

// sweepInterval is how often open jobs are reconciled: the wake interval
// (WithWakeInterval; its default when it is off).
func (s *Scheduler) sweepInterval() time.Duration {
	if s.wakeInterval > 0 {
		return s.wakeInterval
	}
	return defaultWakeInterval
}

// pokeLocked wakes the loop if it sleeps, so it looks at the open jobs.
// s.mu must be held.
func (s *Scheduler) pokeLocked() {
	if rs := s.run; rs != nil && s.wakeInterval > 0 && s.sleeping && (s.nextSweep.IsZero() || s.sleepUntil.After(s.nextSweep)) {
		select {
		case s.wake <- struct{}{}:
			rs.sim.begin()
		default:
		}
	}
}

package dstsafe

import (
	"container/heap"
	"slices"
	"time"

	"github.com/dstsafe/dstsafe/event"
)

// A period's deadline is its due start (Due plus jitter) plus the job's
// WithDeadline, or by default deadlineFactor times the job's misfire
// threshold, and at least minDeadline: 5 minutes with the default
// threshold of a minute.
const (
	deadlineFactor = 5
	minDeadline    = time.Minute
)

// deadlineOf is the deadline of the scheduled task t.
func deadlineOf(t task) time.Time {
	if d := t.spec.cfg.deadline; d > 0 {
		return t.start.Add(d)
	}
	return t.start.Add(max(deadlineFactor*t.spec.cfg.misfire, minDeadline))
}

// The reasons of event.AtRisk and event.Missed.
const (
	riskNotClaimed = "not claimed yet" // the ledger is down, the job waits behind its previous run, or the planner is late
	riskRunning    = "running"         // claimed here, running or retrying
	riskElsewhere  = "claimed elsewhere, not succeeded"
	missedFailed   = "failed: no retry left"
)

// watch is a period the Scheduler found due and that has not ended yet:
// the deadline stage of a fire (plan -> watch -> claim -> run -> finish).
// A watch ends when the period succeeds, is skipped (a catch-up, pause or
// overlap skip is event.Missed), fails with no retry left (event.Missed),
// or Run stops (the next Run catches it up). One that reaches its
// deadline first is event.AtRisk.
type watch struct {
	job       string
	t         task
	at        time.Time // the deadline
	i         int       // in watches.h; -1 once the deadline passed
	running   bool      // claimed by this Scheduler
	elsewhere bool      // claimed by another one: its record decides
	atRisk    bool      // event.AtRisk emitted
}

type watchKey struct{ job, period string }

// watches are a Scheduler's open periods: a heap by deadline, which the
// loop wakes for (one timer for all of them), and an index by job and
// period. Guarded by Scheduler.mu.
type watches struct {
	h     watchHeap
	byKey map[watchKey]*watch
}

type watchHeap []*watch

func (h watchHeap) Len() int           { return len(h) }
func (h watchHeap) Less(a, b int) bool { return h[a].at.Before(h[b].at) }
func (h watchHeap) Swap(a, b int)      { h[a], h[b] = h[b], h[a]; h[a].i = a; h[b].i = b }
func (h *watchHeap) Push(x any)        { w := x.(*watch); w.i = len(*h); *h = append(*h, w) }
func (h *watchHeap) Pop() any {
	old := *h
	w := old[len(old)-1]
	old[len(old)-1] = nil
	*h = old[:len(old)-1]
	w.i = -1
	return w
}

// watchDue opens a watch for each scheduled task in due, at now, and
// returns those already past their deadline (a catch-up after downtime):
// the planner reports the ones it runs at risk at once. s.mu must be held.
func (s *Scheduler) watchDue(job string, due []task, now time.Time) (late map[string]*watch) {
	ws := &s.watches
	if ws.byKey == nil {
		ws.byKey = make(map[watchKey]*watch)
	}
	for _, t := range due {
		k := watchKey{job, t.o.Period}
		if t.manual() || ws.byKey[k] != nil {
			continue
		}
		w := &watch{job: job, t: t, at: deadlineOf(t), i: -1}
		ws.byKey[k] = w
		if w.at.After(now) {
			heap.Push(&ws.h, w)
			continue
		}
		w.atRisk = true
		if late == nil {
			late = make(map[string]*watch)
		}
		late[t.o.Period] = w
	}
	return late
}

// unwatch ends the watch of job's period, if any, and returns it. s.mu
// must be held.
func (s *Scheduler) unwatchLocked(job, period string) *watch {
	k := watchKey{job, period}
	w := s.watches.byKey[k]
	if w == nil {
		return nil
	}
	delete(s.watches.byKey, k)
	if w.i >= 0 {
		heap.Remove(&s.watches.h, w.i)
	}
	return w
}

// periodEnded ends the watch of t: it succeeded, or was recorded as not
// to run. missed, when set, is the reason event.Missed gives.
func (s *Scheduler) periodEnded(job string, t task, missed string) {
	if t.manual() {
		return
	}
	s.mu.Lock()
	w := s.watches.byKey[watchKey{job, t.o.Period}]
	if w != nil && w.elsewhere && missed == missedFailed {
		s.mu.Unlock()
		return // taken over while it ran: the new holder's record decides
	}
	s.unwatchLocked(job, t.o.Period)
	if missed == missedFailed {
		// It may be retried (by policy or an operator's release) by a
		// later pass: looked at again at every wake.
		if j := s.jobs[job]; j != nil {
			s.markOpenLocked(j, true)
		}
	}
	rs := s.run
	s.mu.Unlock()
	switch {
	case w == nil || missed == "":
	case missed == missedFailed:
		s.report(rs, event.Missed, job, t, missed, nil) // the period will not run: at risk, then missed
	default:
		s.emitTask(event.Missed, job, t, 0, missed, nil) // skipped on purpose: its one record says so
	}
}

// periodClaimed notes that t was claimed here (mine) or by another
// Scheduler: then, if that record is not final, it is looked at once
// more at the deadline.
func (s *Scheduler) periodClaimed(job string, t task, mine bool, existing *Record) {
	if t.manual() {
		return
	}
	s.mu.Lock()
	w := s.watches.byKey[watchKey{job, t.o.Period}]
	if w != nil && !mine && existing != nil && (existing.State == StateSucceeded || existing.State == StateSkipped) {
		s.unwatchLocked(job, t.o.Period)
		w = nil
	}
	if w != nil {
		w.running, w.elsewhere = mine, !mine
	}
	if !mine && existing != nil && existing.State != StateSucceeded && existing.State != StateSkipped {
		// Running, failed or abandoned elsewhere: reconciled at every
		// wake until it ends (taken over when the policy allows).
		if j := s.jobs[job]; j != nil {
			s.markOpenLocked(j, true)
		}
	}
	s.mu.Unlock()
}

// expiredLocked pops the watches whose deadline is at or before now.
// s.mu must be held.
func (s *Scheduler) expiredLocked(now time.Time) []*watch {
	var out []*watch
	h := &s.watches.h
	for h.Len() > 0 && !(*h)[0].at.After(now) {
		w := heap.Pop(h).(*watch)
		w.atRisk = true
		out = append(out, w)
	}
	return out
}

// atRisk reports the watches past their deadline (report: once across
// replicas), in one goroutine (the loop never waits on the ledger). A
// period claimed elsewhere is looked up first: succeeded or skipped
// there, it is not at risk.
func (s *Scheduler) atRisk(rs *runState, expired []*watch) {
	s.spawn(rs, func() {
		for _, w := range expired {
			switch {
			case w.elsewhere:
				rec, err := s.ledger.Get(rs.ctx, w.job, w.t.o.Period)
				if err == nil && (rec.State == StateSucceeded || rec.State == StateSkipped) {
					s.mu.Lock()
					s.unwatchLocked(w.job, w.t.o.Period)
					s.mu.Unlock()
					continue
				}
				reason := riskElsewhere
				if err == nil {
					reason += ": " + rec.State.String() + " by " + rec.Owner
				}
				s.report(rs, event.AtRisk, w.job, w.t, reason, err)
			default:
				reason := riskNotClaimed
				if w.running {
					reason = riskRunning
				}
				s.report(rs, event.AtRisk, w.job, w.t, reason, nil)
			}
		}
	})
}

// atRiskOf lists job's periods past their deadline and not ended, for
// Describe.
func (s *Scheduler) atRiskOf(job string) []string {
	s.mu.Lock()
	defer s.mu.Unlock()
	var out []string
	for k, w := range s.watches.byKey {
		if k.job == job && w.atRisk {
			out = append(out, k.period)
		}
	}
	slices.Sort(out)
	return out
}

// unwatchAll ends every watch when Run returns: the next Run resumes after
// the ledger's records and catches the periods up by policy.
func (s *Scheduler) unwatchAll() {
	s.watches = watches{}
}

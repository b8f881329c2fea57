package dstsafe

// The path of one period, in order. Each stage is a function in its own
// file; plan (below) is one pass of a job along it, run in the job's own
// goroutine whenever the job comes due:
//
//  1. expected (stage_expect.go): prime resumes the job from the ledger
//     (its latest record) and plan collects the occurrences due since the
//     cursor, under the schedule in force at each (edits never make a
//     period retroactive); reconcile (stage_reconcile.go) compares the
//     periods of the recovery window behind the cursor with the ledger
//     (CheckPeriods, classify.go) and adds the missing ones and the
//     takeovers. Jobs with open periods get a pass at every wake
//     (sweepLocked).
//  2. decided (stage_decide.go): the run limit and the pause (pauseOf,
//     splitPaused), then the misfire threshold and catch-up policy
//     (jobConfig.plan), then the overlap policy (in plan) split the due
//     periods into those to run and those to record as skipped.
//  3. claimed (stage_claim.go): claim takes the period in the ledger,
//     retrying transient errors with one ClaimRequest.ID; the clock-skew
//     check (stage_claim_skew.go) and the zone-data check
//     (stage_claim_zonedata.go) read its answer.
//  4. run (stage_run.go): runBatch and execute run the claimed periods in
//     order, invoke runs one attempt under a heartbeat (scheduler_keeper.go)
//     and retries a failure by the job's RetryPolicy.
//  5. recorded (stage_record.go): the outcome is finished in the ledger;
//     skip records a period deliberately not run, markTookEffect the
//     period before an edit took effect.
//  6. reported (stage_report.go): the deadline watch opened when the
//     period came due ends with the outcome, or reports it at risk, then
//     missed, once across replicas (report, stage_report_alert.go).

import (
	"context"
	"time"

	"github.com/dstsafe/dstsafe/event"
)

// maxCatchUp bounds how many missed periods one planning records
// individually; older ones are passed over with a log line.
const maxCatchUp = 10000

// plan is one job's planner, run in a goroutine of its own (never the
// loop's) while the job is out of the queue: it resumes the job from the
// ledger if needed, collects the occurrences due by now (under the
// schedules in force when they were due, across edits), puts the job back
// in the queue for its next occurrence, records what the pause, catch-up
// and overlap policies skip, and runs the rest: in this goroutine when
// inline, else in a new one.
func (s *Scheduler) plan(rs *runState, j *job, inline bool) {
	s.mu.Lock()
	primed := j.primed
	s.mu.Unlock()
	if !primed && !s.prime(rs, j) {
		s.mu.Lock()
		j.planning = false
		s.mu.Unlock()
		return
	}
	now := s.clock.Now()
	s.mu.Lock()
	spec, edits, cursor := j.spec, j.edits, j.cursor
	handled := cursor // periods after it are this pass's due
	next, hasNext := j.next, j.hasNext
	if !j.fresh {
		next, hasNext = spec.nextAfter(cursor)
	}
	j.edits = nil
	s.mu.Unlock()

	var due []task
	dropped := 0
	// The old schedules' periods before each edit, then the current one's
	// from the last edit on: an edit never makes a period retroactive.
	var tookEffect, floor time.Time
	for _, e := range edits {
		end := e.at.Add(-time.Nanosecond)
		if e.spec != nil {
			for o, ok := e.spec.nextAfter(cursor); ok && !o.At.After(end); o, ok = e.spec.nextAfter(o.At) {
				due = appendDue(due, e.spec.taskOf(j.name, o), &dropped)
			}
		}
		if end.After(cursor) {
			cursor = end
		}
		tookEffect, floor = end, e.floor
	}
	if len(edits) > 0 {
		next, hasNext = spec.nextAfter(cursor)
	}
	for hasNext {
		t := spec.taskOf(j.name, next)
		if t.start.After(now) {
			break
		}
		due = appendDue(due, t, &dropped)
		cursor = next.At
		next, hasNext = spec.nextAfter(cursor)
	}

	// Reconciled: the periods of the recovery window this pass does not
	// hold, compared with the ledger's records (stage_reconcile.go). The
	// missing ones join due (older first), for the catch-up and pause
	// policies; the takeovers are claimed over their old attempt.
	rec, ok := s.reconcile(rs, j, spec, now, handled, due)
	if !ok {
		s.mu.Lock()
		j.planning, j.primed = false, false
		s.mu.Unlock()
		return
	}
	if len(rec.missing) > 0 {
		due = append(rec.missing, due...)
	}
	takeovers := rec.takeovers

	var late map[string]*watch // past their deadline already
	if len(due)+len(takeovers) > 0 {
		// Watched from now on, before any ledger call: a period due while
		// the ledger is down is at risk at its deadline, not silent.
		s.mu.Lock()
		if !j.removed {
			late = s.watchDue(j.name, append(takeovers, due...), now)
		}
		s.mu.Unlock()
	}

	// The ledger's say: whether the job has used its runs, or is paused.
	var paused []task
	done := false
	if len(due) > 0 {
		ok := true
		if spec.cfg.maxRuns > 0 {
			done, ok = s.runsDone(rs, j.name, spec)
		}
		if ok && !done {
			var p Pause
			if p, ok = s.pauseOf(rs, j.name); ok {
				due, paused = splitPaused(due, p)
			}
		}
		if !ok {
			// Run stops, or the ledger failed for good: nothing is lost,
			// the next Run resumes after the latest record.
			s.mu.Lock()
			j.planning, j.primed = false, false
			s.mu.Unlock()
			return
		}
		if done {
			s.mu.Lock()
			for _, t := range due {
				s.unwatchLocked(j.name, t.o.Period) // the job is done: not missed
			}
			s.mu.Unlock()
			due, hasNext, takeovers = nil, false, nil
			s.log.Info("run limit reached: job done", "job", j.name, "max_runs", spec.cfg.maxRuns)
		}
	}
	run, skip := spec.cfg.plan(due, now)
	if len(takeovers) > 0 {
		run = append(takeovers, run...)
	}

	var batch, overlapped []task
	serial := false
	var cancelRunning context.CancelCauseFunc
	s.mu.Lock()
	j.cursor, j.next, j.hasNext, j.fresh = cursor, next, hasNext, true
	j.planning = false
	s.markOpenLocked(j, rec.open)
	if !j.removed {
		switch {
		case len(j.edits) > 0:
			s.enqueue(j, now) // edited meanwhile: plan again at once
		case hasNext:
			s.enqueue(j, spec.taskOf(j.name, next).start)
		}
		switch mode := spec.cfg.overlap; {
		case len(run) == 0:
		case rs.stopped():
			// Not claimed, so not lost: the next Run resumes after the
			// latest record and catches these up by policy.
			j.primed = false
		case mode == OverlapAllow:
			batch = run
			j.active++
		case j.active == 0:
			j.queued = append(j.queued[:0], run...)
			j.active++
			serial = true
		case mode == OverlapQueue:
			j.queued = append(j.queued, run...)
		case mode == OverlapBufferOne:
			k := min(max(1-len(j.queued), 0), len(run))
			j.queued = append(j.queued, run[:k]...)
			overlapped = run[k:]
		case mode == OverlapCancelRunning:
			overlapped = j.queued
			j.queued = append([]task(nil), run...)
			cancelRunning = j.cancelRun
		default: // OverlapSkip
			overlapped = run
		}
	}
	s.mu.Unlock()

	if cancelRunning != nil {
		s.log.Warn("run cancelled: a newer period came due", "job", j.name, "period", run[0].o.Period)
		cancelRunning(ErrOverlapCancelled)
	}
	if s.observed() {
		for _, t := range paused {
			s.emitTask(event.Due, j.name, t, 0, "", nil)
		}
		for _, t := range skip {
			s.emitTask(event.Due, j.name, t, 0, "", nil)
		}
		for _, t := range run {
			s.emitTask(event.Due, j.name, t, 0, "", nil)
			if late[t.o.Period] != nil {
				s.report(rs, event.AtRisk, j.name, t, riskNotClaimed, nil)
			}
		}
	}
	if dropped > 0 {
		s.log.Warn("run catch-up truncated", "job", j.name, "unrecorded_periods", dropped)
	}
	for _, t := range paused {
		s.skip(rs, j, t, reasonPaused)
	}
	for _, t := range skip {
		s.skip(rs, j, t, reasonCatchUp)
	}
	for _, t := range overlapped {
		s.skip(rs, j, t, reasonOverlap)
	}
	if len(edits) > 0 {
		s.markTookEffect(rs, j, spec, tookEffect, floor, due)
	}
	for _, a := range rec.alerts {
		s.report(rs, a.typ, j.name, a.t, a.reason, nil)
	}
	switch {
	case batch == nil && !serial:
	case inline:
		s.runBatch(rs, j, batch, serial)
	default:
		s.spawn(rs, func() { s.runBatch(rs, j, batch, serial) })
	}
}

// appendDue appends t to due, keeping at most maxCatchUp: past that the
// older half is dropped (counted in dropped), amortised O(1) per period.
func appendDue(due []task, t task, dropped *int) []task {
	if len(due) == maxCatchUp {
		due = append(due[:0], due[maxCatchUp/2:]...)
		*dropped += maxCatchUp / 2
	}
	return append(due, t)
}

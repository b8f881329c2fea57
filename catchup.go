package dstsafe

import (
	"context"
	"errors"
	"time"

	"github.com/dstsafe/dstsafe/event"
)

// CatchUpPolicy says what a job does with periods that came due while it
// could not run (scheduler down, VM suspended, clock stepped forward). It is
// one of CatchUpLatest, CatchUpAll and CatchUpSkip.
//
// A period is missed when it was due more than the misfire threshold before
// the scheduler noticed it. Periods the policy does not run are recorded as
// StateSkipped in the ledger, so each period ends with exactly one record.
// After a restart, missed periods are those after the job's latest record in
// the ledger (looked for up to about 400 days back); a job with no record
// starts fresh and catches up nothing.
//
// Missed periods are counted under the schedule that was in force, never
// under a newer one: a schedule edited between deploys (Kubernetes'
// kubernetes#63371: "0 23 * * *" that ran at 23:00, changed to "0 5 * * *"
// and restarted at 08:00) does not run the 05:00 period at 08:00. Each
// claim records the fingerprint of the schedule in force (spec, zone,
// policies and the zone data, ClaimRequest.Schedule). When the latest
// record was made under another schedule, the periods that schedule missed
// until the restart are caught up by the policy, and the new schedule
// starts at the restart: its earlier periods never run, and the most
// recent of them is recorded as skipped ("before the schedule took
// effect") so that later restarts see when it took effect. Update follows
// the same rule with the instant of the Update.
type CatchUpPolicy interface {
	catchUp()
}

// CatchUpLatest runs the most recent missed period, once, and skips the
// older ones: Quartz's fire-once-now, Kubernetes' most-recent. The default.
type CatchUpLatest struct{}

// CatchUpAll runs every missed period due within Window of now, oldest
// first and at most Max of them (the most recent ones; zero means no
// limit), and skips the rest. A zero Window runs none of them late.
type CatchUpAll struct {
	Window time.Duration
	Max    int
}

// CatchUpSkip runs no missed period: all of them are skipped.
type CatchUpSkip struct{}

func (CatchUpLatest) catchUp() {}
func (CatchUpAll) catchUp()    {}
func (CatchUpSkip) catchUp()   {}

// maxCatchUp bounds how many missed periods one planning records
// individually; older ones are passed over with a log line.
const maxCatchUp = 10000

// plan splits due tasks (oldest first) into those to run and those to
// record as skipped, by the misfire threshold and catch-up policy. A
// task's lateness counts from its due start (jitter included).
func (c jobConfig) plan(due []task, now time.Time) (run, skip []task) {
	n := len(due)
	for n > 0 && now.Sub(due[n-1].start) <= c.misfire {
		n--
	}
	late, onTime := due[:n], due[n:]
	if len(late) == 0 {
		return onTime, nil // the common case: nothing missed
	}
	switch p := c.catchUp.(type) {
	case CatchUpSkip:
		skip = late
	case CatchUpAll:
		first := len(late)
		for i, t := range late {
			if now.Sub(t.start) <= p.Window {
				first = i
				break
			}
		}
		if p.Max > 0 && len(late)-first > p.Max {
			first = len(late) - p.Max
		}
		skip, run = late[:first], append(run, late[first:]...)
	default: // CatchUpLatest
		if len(onTime) == 0 && len(late) > 0 {
			skip, run = late[:len(late)-1], append(run, late[len(late)-1])
		} else {
			skip = late
		}
	}
	return append(run, onTime...), skip
}

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
	var tookEffect time.Time
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
		tookEffect = end
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

	var late map[string]*watch // past their deadline already
	if len(due) > 0 {
		// Watched from now on, before any ledger call: a period due while
		// the ledger is down is at risk at its deadline, not silent.
		s.mu.Lock()
		if !j.removed {
			late = s.watchDue(j.name, due, now)
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
			due, hasNext = nil, false
			s.log.Info("run limit reached: job done", "job", j.name, "max_runs", spec.cfg.maxRuns)
		}
	}
	run, skip := spec.cfg.plan(due, now)

	var batch, overlapped []task
	serial := false
	var cancelRunning context.CancelCauseFunc
	s.mu.Lock()
	j.cursor, j.next, j.hasNext, j.fresh = cursor, next, hasNext, true
	j.planning = false
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
				s.emitTask(event.AtRisk, j.name, t, 0, riskNotClaimed, nil)
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
		s.markTookEffect(rs, j, spec, tookEffect, due)
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

// markTookEffect records the latest period of spec at or before at (the
// instant before it took effect) as skipped, unless it is among due: it
// never runs, and a restart finds in the ledger when spec took effect.
func (s *Scheduler) markTookEffect(rs *runState, j *job, spec *jobSpec, at time.Time, due []task) {
	o, ok := spec.lastAtOrBefore(at)
	if !ok {
		return
	}
	for _, t := range due {
		if t.o.Period == o.Period {
			return
		}
	}
	if s.observed() {
		s.emitTask(event.Due, j.name, spec.taskOf(j.name, o), 0, "", nil)
	}
	s.skip(rs, j, spec.taskOf(j.name, o), reasonEdit)
}

// resumeLookback lists how far back prime looks for a job's latest
// record, widening only when the narrower window is empty, so a frequent
// job reads a few days of records and a yearly one still finds its last.
var resumeLookback = []time.Duration{3 * 24 * time.Hour, 40 * 24 * time.Hour, 400 * 24 * time.Hour}

// prime sets j's cursor from the ledger: the claim time of its latest
// record, or just before now for a job with no record (it starts fresh
// and catches up nothing, nor runs a period due before now whose jittered
// start is after it). When that record was made under another
// schedule, it queues the edit, so that plan counts missed periods under
// the schedule that was in force. A transient ledger error is retried
// with backoff on the clock; it returns false when Run stops first or the
// error is permanent (Run then fails).
func (s *Scheduler) prime(rs *runState, j *job) bool {
	backoff := time.Second
	for {
		now := s.clock.Now()
		s.mu.Lock()
		spec := j.spec
		s.mu.Unlock()
		recs, err := s.latestRecords(rs.ctx, j.name, now)
		if err != nil {
			if rs.ctx.Err() != nil {
				return false
			}
			s.ledgerFailed(j.name, err)
			if isPermanent(err) {
				s.fail(rs, j.name, err)
				return false
			}
			s.log.Error("run resume failed: ledger list", "job", j.name, "error", err, "retry_in", backoff)
			if !s.sleep(runEnv{ctx: rs.ctx, stopping: rs.stopping, sim: rs.sim}, backoff) {
				return false
			}
			backoff = min(2*backoff, time.Minute)
			continue
		}
		s.ledgerAnswered()
		// A job with no record starts with the periods due after now,
		// jitter or not: a period due before it was added is not its to
		// run, even when its jittered start is still to come.
		cursor := now.Add(-time.Nanosecond)
		if spec.cfg.jitter > 0 && len(recs) == 0 {
			if o, ok := spec.nextAfter(now.Add(-spec.cfg.jitter)); ok && !o.At.After(now) && spec.taskOf(j.name, o).start.After(now) {
				// Said, since a restart in this window of a job that has
				// never recorded a period looks the same: another replica
				// that was running still runs it.
				s.log.Warn("run not started: due before the job started", "job", j.name, "period", o.Period,
					"due", o.At, "start", spec.taskOf(j.name, o).start)
			}
		}
		var edits []edit
		if len(recs) > 0 && !recs[len(recs)-1].StartedAt.After(now) {
			last := recs[len(recs)-1]
			cursor = last.StartedAt
			if last.Schedule != "" && spec.fp() != "" && !sameSchedule(last.Schedule, spec.fp()) {
				// The latest period was made under another schedule. If a
				// record shows the current one already in force (it took
				// effect before a restart), resume from its newest claim;
				// else it takes effect now.
				var since time.Time
				for _, r := range recs {
					if sameSchedule(r.Schedule, spec.fp()) && r.StartedAt.After(since) && !r.StartedAt.After(now) {
						since = r.StartedAt
					}
				}
				if !since.IsZero() {
					cursor = since
				} else {
					edits = []edit{{spec: specOfFingerprint(last.Schedule, spec), at: now}}
					s.log.Info("run schedule changed", "job", j.name, "last_period", last.Period,
						"last_schedule", last.Schedule, "schedule", spec.fp())
				}
			}
			s.log.Info("run resume", "job", j.name, "last_period", last.Period,
				"last_state", last.State.String(), "last_started", last.StartedAt)
		}
		s.mu.Lock()
		j.primed, j.cursor, j.fresh = true, cursor, false
		j.edits = append(edits, j.edits...)
		s.mu.Unlock()
		return true
	}
}

// latestRecords lists j's records of the most recent lookback window that
// has any, ordered by period (the latest last).
func (s *Scheduler) latestRecords(ctx context.Context, job string, now time.Time) ([]Record, error) {
	for _, back := range resumeLookback {
		// Period keys start with the civil date in the schedule's zone; two
		// days of margin cover every UTC offset.
		from := DateOf(now.Add(-back-48*time.Hour), time.UTC).String()
		recs, err := s.ledger.List(ctx, job, from, "")
		if err != nil || len(recs) > 0 {
			return recs, err
		}
	}
	return nil, nil
}

// skip records t as deliberately not run, so the period has its one
// record. The claim carries the fingerprint of the schedule in force.
func (s *Scheduler) skip(rs *runState, j *job, t task, reason string) {
	rec, err := s.ledger.Claim(rs.ctx, s.stamp(ClaimRequest{Job: j.name, Period: t.o.Period, Owner: s.owner,
		Lease: t.spec.cfg.lease, Schedule: s.fingerprintNow(j)}))
	s.noteClaim(j.name, t, err)
	if err != nil {
		var ce *ClaimedError
		if errors.As(err, &ce) {
			s.emitTask(event.ClaimedElsewhere, j.name, t, ce.Existing.Attempt, "", nil)
			s.periodClaimed(j.name, t, false, &ce.Existing)
			return // already has its record
		}
		if errors.Is(err, ErrClockSkew) {
			return // reported by noteClaim, logged once per episode
		}
		s.ledgerFailed(j.name, err)
		if isPermanent(err) {
			s.fail(rs, j.name, err)
		}
		s.log.Error("run skip failed: ledger claim", "job", j.name, "period", t.o.Period, "error", err)
		return
	}
	if _, err := s.ledger.Finish(rs.ctx, j.name, t.o.Period, rec.Token, StateSkipped, reason); err != nil {
		if !isAnswer(err) {
			s.ledgerFailed(j.name, err)
		}
		if isPermanent(err) {
			s.fail(rs, j.name, err)
		}
		s.log.Error("run skip failed: ledger finish", "job", j.name, "period", t.o.Period, "error", err)
		return
	}
	s.ledgerAnswered()
	s.log.Warn("run skipped", "job", j.name, "period", t.o.Period, "due", t.o.At, "reason", reason)
	s.emitTask(event.Skipped, j.name, t, rec.Attempt, reason, nil)
	missed := reason
	if reason == reasonEdit || reason == reasonMaxRuns {
		missed = "" // on purpose: not a period the job was to run
	}
	s.periodEnded(j.name, t, missed)
}

// fingerprintNow is the fingerprint of j's schedule in force now, which
// every claim records: a run planned under an old schedule and claimed
// after an edit records the new one, as the schedule in force from then on.
func (s *Scheduler) fingerprintNow(j *job) string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return j.spec.fp()
}

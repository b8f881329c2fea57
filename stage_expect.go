package dstsafe

import (
	"context"
	"time"
)

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
		j.since = now
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

package dstsafe

import (
	"context"
	"errors"
	"time"
)

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

// pauseOf reads job's pause state for a planner, retrying a transient
// ledger error with backoff until Run stops; false when it stops first
// or the error is permanent (Run then fails). A ledger that is no
// ControlLedger never pauses.
func (s *Scheduler) pauseOf(rs *runState, job string) (Pause, bool) {
	if s.control == nil {
		return Pause{}, true
	}
	var p Pause
	err := s.ledgerCall(rs.planEnv(), job, "run pause check failed", func(ctx context.Context) error {
		var err error
		p, err = s.control.GetPause(ctx, job)
		if errors.Is(err, errNotSupported) {
			p, err = Pause{}, nil
		}
		return err
	})
	return p, err == nil
}

// splitPaused takes out of due (oldest first) the periods that came due
// while the job was paused: all of them while it is, and those due before
// its resumption once it is not.
func splitPaused(due []task, p Pause) (run, paused []task) {
	if p.Paused {
		return nil, due
	}
	if p.Since.IsZero() {
		return due, nil
	}
	i := 0
	for i < len(due) && due[i].start.Before(p.Since) {
		i++
	}
	return due[i:], due[:i]
}

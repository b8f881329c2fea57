package dstsafe

import (
	"context"
	"errors"
	"time"
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

// maxCatchUp bounds how many missed periods one wake records individually;
// older ones are passed over with a log line.
const maxCatchUp = 10000

// plan splits due occurrences (oldest first) into those to run and those
// to record as skipped, by the misfire threshold and catch-up policy.
func (c jobConfig) plan(due []Occurrence, now time.Time) (run, skip []Occurrence) {
	n := len(due)
	for n > 0 && now.Sub(due[n-1].At) <= c.misfire {
		n--
	}
	late, onTime := due[:n], due[n:]
	switch p := c.catchUp.(type) {
	case CatchUpSkip:
		skip = late
	case CatchUpAll:
		first := len(late)
		for i, o := range late {
			if now.Sub(o.At) <= p.Window {
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

// resumeLookback lists how far back resumeCursor looks for a job's latest
// record, widening only when the narrower window is empty, so a frequent
// job reads a few days of records and a yearly one still finds its last.
var resumeLookback = []time.Duration{3 * 24 * time.Hour, 40 * 24 * time.Hour, 400 * 24 * time.Hour}

// resumeCursor returns the instant after which j's occurrences are new:
// when the job's latest ledger record was claimed, or just before now for a
// job with no record (it starts fresh and catches up nothing).
func (s *Scheduler) resumeCursor(ctx context.Context, j *job, now time.Time) time.Time {
	fresh := now.Add(-time.Nanosecond)
	for _, back := range resumeLookback {
		// Period keys start with the civil date in the schedule's zone; two
		// days of margin cover every UTC offset.
		from := DateOf(now.Add(-back-48*time.Hour), time.UTC).String()
		recs, err := s.ledger.List(ctx, j.name, from, "")
		if err != nil {
			s.log.Error("run resume failed: ledger list", "job", j.name, "error", err)
			return fresh
		}
		if len(recs) == 0 {
			continue
		}
		last := recs[len(recs)-1]
		if last.StartedAt.After(now) {
			return fresh
		}
		s.log.Info("run resume", "job", j.name, "last_period", last.Period,
			"last_state", last.State.String(), "last_started", last.StartedAt)
		return last.StartedAt
	}
	return fresh
}

// skip records o as deliberately not run, so the period has its one record.
func (s *Scheduler) skip(ctx context.Context, j *job, o Occurrence, reason string) {
	rec, err := s.ledger.Claim(ctx, ClaimRequest{Job: j.name, Period: o.Period, Owner: s.owner, Lease: j.cfg.lease})
	if err != nil {
		var ce *ClaimedError
		if errors.As(err, &ce) {
			return // already has its record
		}
		s.log.Error("run skip failed: ledger claim", "job", j.name, "period", o.Period, "error", err)
		return
	}
	if _, err := s.ledger.Finish(ctx, j.name, o.Period, rec.Token, StateSkipped, reason); err != nil {
		s.log.Error("run skip failed: ledger finish", "job", j.name, "period", o.Period, "error", err)
		return
	}
	s.log.Warn("run skipped", "job", j.name, "period", o.Period, "due", o.At, "reason", reason)
}

package dstsaferiver

import (
	"context"
	"time"

	"github.com/dstsafe/dstsafe"
)

// maxCatchUp bounds the periods one leader start considers, the most
// recent kept, as the Scheduler does.
const maxCatchUp = 10000

// lookback lists how far back lastUpTo looks for a schedule's latest
// occurrence, widening only when the narrower window has none, so a
// frequent job walks an hour of occurrences and a yearly one still finds
// its last.
var lookback = []time.Duration{time.Hour, 3 * 24 * time.Hour, 40 * 24 * time.Hour, 400 * 24 * time.Hour}

// lastUpTo returns the latest occurrence of s at or before t, if one is
// found within the longest lookback.
func lastUpTo(s dstsafe.OccurrenceSchedule, t time.Time) (dstsafe.Occurrence, bool) {
	for _, back := range lookback {
		var last dstsafe.Occurrence
		found := false
		for o, ok := s.NextOccurrence(t.Add(-back)); ok && !o.At.After(t); o, ok = s.NextOccurrence(o.At) {
			last, found = o, true
		}
		if found {
			return last, true
		}
	}
	return dstsafe.Occurrence{}, false
}

// plan returns the periods a leader starting at now enqueues, oldest
// first (see NewPeriodicJob): those of the recovery window without a
// record, and the late ones the catch-up policy brings back. On a ledger error it enqueues the on-time
// periods only, and logs the error: river's queue refuses any of them that
// are already waiting, and the worker's claim any that already ran.
func (p *periodic[T]) plan(ctx context.Context, now time.Time) []dstsafe.Occurrence {
	onTimeFrom := now.Add(-p.misfire)
	start := onTimeFrom // the window is (start, now]
	switch c := p.catchUp.(type) {
	case dstsafe.CatchUpAll:
		if w := now.Add(-c.Window); w.Before(start) {
			start = w
		}
	case dstsafe.CatchUpSkip:
	default: // CatchUpLatest
		if last, ok := lastUpTo(p.sched, now); ok && !last.At.After(start) {
			start = last.At.Add(-time.Nanosecond)
		}
	}
	var due []dstsafe.Occurrence
	for o, ok := p.sched.NextOccurrence(start); ok && !o.At.After(now); o, ok = p.sched.NextOccurrence(o.At) {
		if len(due) == maxCatchUp {
			due = append(due[:0], due[maxCatchUp/2:]...)
		}
		due = append(due, o)
	}
	if len(due) == 0 {
		return nil
	}

	recs, err := p.records(ctx, due[0])
	if err != nil {
		p.log.Error("dstsaferiver catch-up failed: ledger list", "job", p.name, "error", err)
	}
	recorded := make(map[string]bool, len(recs))
	for _, r := range recs {
		recorded[r.Period] = true
	}
	known := len(recs) > 0 // the job ran before: late periods count
	// On time are the periods of the recovery window (due at most
	// MisfireThreshold before now) without a record, wherever the latest
	// record is: an outage or a dead leader can leave one behind a later
	// period some other client inserted. Late are those after the latest
	// record: those before it were run, are still queued, or were left
	// out on purpose.
	after := len(due)
	for after > 0 && !recorded[due[after-1].Period] {
		after--
	}
	var late, onTime []dstsafe.Occurrence
	for i, o := range due {
		switch {
		case recorded[o.Period]:
		case o.At.After(onTimeFrom):
			onTime = append(onTime, o)
		case i >= after:
			late = append(late, o)
		}
	}
	var run []dstsafe.Occurrence
	if known {
		switch c := p.catchUp.(type) {
		case dstsafe.CatchUpAll:
			missed := late
			if c.Max > 0 && len(missed) > c.Max {
				missed = missed[len(missed)-c.Max:]
			}
			run = missed
		case dstsafe.CatchUpSkip:
		default: // CatchUpLatest
			if len(onTime) == 0 && len(late) > 0 {
				run = late[len(late)-1:]
			}
		}
	}
	lateRun := len(run)
	run = append(run, onTime...)
	if len(run) > 0 {
		p.log.Info("dstsaferiver catch-up", "job", p.name, "now", now, "periods", len(run),
			"first", run[0].Period, "last", run[len(run)-1].Period, "late", lateRun, "late_left_out", len(late)-lateRun)
	}
	return run
}

// records returns the ledger's records of the job from the date of the
// occurrence before first on (period keys start with the wall date),
// looking further back, by the lookback steps, while there are none: a job
// with no record at all is new.
func (p *periodic[T]) records(ctx context.Context, first dstsafe.Occurrence) ([]dstsafe.Record, error) {
	if p.ledger == nil {
		return nil, nil // CatchUpSkip without a ledger: on-time periods only
	}
	anchor := first
	if before, ok := lastUpTo(p.sched, first.At.Add(-time.Nanosecond)); ok {
		anchor = before
	}
	from := anchor.Wall.DateString()
	for i := 0; ; i++ {
		recs, err := p.ledger.List(ctx, p.name, from, "")
		if err != nil || len(recs) > 0 || i == len(lookback) {
			return recs, err
		}
		from = dstsafe.DateOf(anchor.At.Add(-lookback[i]-48*time.Hour), time.UTC).String()
	}
}

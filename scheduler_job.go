package dstsafe

import (
	"context"
	"time"
)

type job struct {
	name  string
	sched Schedule
	occ   OccurrenceSchedule // nil for a plain Schedule
	fn    func(context.Context, Run) error
	cfg   jobConfig

	// Guarded by Scheduler.mu.
	primed  bool       // cursor initialised (from memory or the ledger)
	cursor  time.Time  // the last occurrence handled: the next is after it
	next    Occurrence // first occurrence after cursor, if hasNext
	hasNext bool
	active  int          // workers running this job
	queue   []Occurrence // OverlapQueue: periods waiting for the worker
}

// nextAfter returns j's first occurrence strictly after t.
func (j *job) nextAfter(t time.Time) (Occurrence, bool) {
	var o Occurrence
	if j.occ != nil {
		var ok bool
		if o, ok = j.occ.NextOccurrence(t); !ok {
			return Occurrence{}, false
		}
	} else {
		if loc := j.cfg.scheduleLoc; loc != nil {
			t = t.In(loc)
		}
		at := j.sched.Next(t)
		if at.IsZero() {
			return Occurrence{}, false
		}
		if loc := j.cfg.scheduleLoc; loc != nil {
			at = at.In(loc)
		}
		w := WallOf(at)
		o = Occurrence{At: at, Wall: w, Kind: Unique, Period: w.String()}
		if Lookup(w, at.Location()).Kind == Fold {
			o.Kind = Fold
		}
	}
	// A schedule that does not move forward would make the loop spin.
	if !o.At.After(t) {
		return Occurrence{}, false
	}
	return o, true
}

// runOf builds the Run the job function sees.
func (j *job) runOf(o Occurrence, rec Record) Run {
	// In the schedule's own zone the business date is the date the run was
	// scheduled for, which is the date of Due except when a gap pushes the
	// run past midnight (America/Nuuk 2024-03-30 23:30 -> 03-31 00:30):
	// that run is still the 03-30 run, or 03-31 would be billed twice.
	d := Date{o.Wall.Year, o.Wall.Month, o.Wall.Day}
	if loc := j.cfg.runDateLoc; loc != nil && loc.String() != o.At.Location().String() {
		d = DateOf(o.At, loc)
	}
	return Run{
		Job: j.name, Period: o.Period, Wall: o.Wall, Kind: o.Kind, Due: o.At,
		RunDate: d, Attempt: rec.Attempt, Token: rec.Token,
	}
}

// findPeriod returns the occurrence of j keyed period. Every period key
// starts with the civil date ("2024-11-03..."), which bounds the search.
func (j *job) findPeriod(period string) (Occurrence, bool) {
	if len(period) < len("2006-01-02") {
		return Occurrence{}, false
	}
	d, err := time.Parse("2006-01-02", period[:10])
	if err != nil {
		return Occurrence{}, false
	}
	from, to := d.Add(-48*time.Hour), d.Add(72*time.Hour)
	t := from
	for range 1 << 20 {
		o, ok := j.nextAfter(t)
		if !ok || o.At.After(to) {
			return Occurrence{}, false
		}
		if o.Period == period {
			return o, true
		}
		t = o.At
	}
	return Occurrence{}, false
}

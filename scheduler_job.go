package dstsafe

import (
	"context"
	"fmt"
	"sync"
	"time"
)

// job is one job's state in a Scheduler. A job is in one of three places:
// in the Scheduler's queue, waiting for its next occurrence; owned by a
// planner goroutine (planning), which reads the ledger, advances the
// cursor and decides what to run and skip; or unprimed, before Run first
// looks at it. Only the planner moves the cursor, and only forward.
type job struct {
	name string
	seq  uint64 // Add order

	// Guarded by Scheduler.mu.
	spec     *jobSpec
	edits    []edit // schedule changes not planned yet, oldest first
	primed   bool   // cursor initialised (from memory or the ledger)
	planning bool   // a planner owns cursor, next and edits
	removed  bool
	cursor   time.Time  // the last occurrence handled: the next is after it
	next     Occurrence // first occurrence of spec after cursor, if hasNext
	hasNext  bool
	fresh    bool      // next is computed for spec and cursor
	due      time.Time // when in the queue: the instant it comes due
	qi       int       // index in the queue, -1 when not in it
	active   int       // goroutines running this job's periods
	queued   []task    // periods waiting for the running one (every mode but Allow)
	// cancelRun cancels the running period's context, for
	// OverlapCancelRunning; nil when none runs.
	cancelRun context.CancelCauseFunc
	// added is when Add was called: an edit's took-effect record is never
	// for a period before it.
	added time.Time
	// since is when this Scheduler put the job's schedule in force (Run's
	// start, an Add while running, an Update that changed the schedule):
	// the reconciler expects no period of it before since, or before the
	// first period the ledger records under it.
	since time.Time
	// open: the job has periods in its recovery window that are not
	// final (running elsewhere, abandoned, failed, released), so each
	// wake reconciles it (Scheduler.open).
	open bool
	// alerted are the alerts this Scheduler has settled per period
	// (reported here or found recorded by another replica).
	alerted map[string]alertBits
	// reconFull is when the last full reconcile pass of the job ran
	// (zero: none since it was primed), reconTo the cursor that pass or a
	// later incremental one started from, reconSpec the spec they ran
	// under (stage_reconcile.go).
	reconFull, reconTo time.Time
	reconSpec          *jobSpec
}

// jobSpec is what Add or Update was given, checked; immutable. A run keeps
// the spec it was planned under, so an Update does not change it.
type jobSpec struct {
	sched Schedule
	occ   OccurrenceSchedule // nil for a plain Schedule
	fn    func(context.Context, Run) error
	cfg   jobConfig
	cron  *Cron // sched when it is a *Cron, which has a fingerprint

	fpOnce sync.Once
	fpText string
}

// fp returns the schedule's fingerprint for the ledger ("" for a plain
// Schedule), computed on first use: it needs the zone's table, which Add
// does not build.
func (sp *jobSpec) fp() string {
	if sp.cron == nil {
		return sp.fpText
	}
	sp.fpOnce.Do(func() { sp.fpText = fingerprint(sp.cron) })
	return sp.fpText
}

// task is one period to run, with the spec that computed it.
type task struct {
	spec *jobSpec
	o    Occurrence
	// start is when it is due to start: o.At plus the job's jitter (see
	// WithJitter), the instant the misfire threshold counts from. Zero for
	// a period run by hand (RunNow, Backfill): manual.
	start time.Time
}

// manual reports whether t was started by hand (RunNow, Backfill), not
// by the schedule.
func (t task) manual() bool { return t.start.IsZero() }

// taskOf is the scheduled task of occurrence o of job under sp.
func (sp *jobSpec) taskOf(job string, o Occurrence) task {
	return task{spec: sp, o: o, start: o.At.Add(sp.jitterOf(job, o.Period))}
}

// edit is a schedule change: spec was in force until at (nil when it is
// not known, after a restart under a schedule whose fingerprint cannot be
// parsed back).
type edit struct {
	spec *jobSpec
	at   time.Time
	// floor: the period recorded as skipped when the edit takes effect
	// (markTookEffect) must be after it: for an Update, when the job was
	// added, so that no record is written for a day before the job
	// existed. Zero after a restart: that record is the only trace of
	// when the new schedule took effect (TestSecondRestartAfterEdit).
	floor time.Time
}

// newJobSpec checks a schedule and its options for job name, for Add and
// Update: what needs the Scheduler (its clock, its ledger) too.
func (s *Scheduler) newJobSpec(name string, sched Schedule, fn func(context.Context, Run) error, opts []JobOption) (*jobSpec, error) {
	spec, err := newJobSpec(sched, fn, opts)
	if err != nil {
		return nil, err
	}
	cfg := &spec.cfg
	if cfg.maxRuns > 0 {
		if err := validateKey("job", maxRunsJob(name)); err != nil {
			return nil, fmt.Errorf("%w: too long for WithMaxRuns: %w", errInvalidJobName, err)
		}
	}
	if cfg.pauseAfter > 0 && s.control == nil {
		return nil, fmt.Errorf("%w: WithPauseOnFailure needs a ControlLedger, %T is not one", errNotSupported, s.ledger)
	}
	if err := spec.checkJitter(s.clock.Now()); err != nil {
		return nil, err
	}
	return spec, nil
}

// newJobSpec checks a schedule and its options.
func newJobSpec(sched Schedule, fn func(context.Context, Run) error, opts []JobOption) (*jobSpec, error) {
	if sched == nil || isNilCron(sched) {
		return nil, errNilSchedule
	}
	cfg := jobConfig{catchUp: CatchUpLatest{}, lease: DefaultLease, misfire: DefaultMisfireThreshold}
	for _, o := range opts {
		if o != nil {
			o(&cfg)
		}
	}
	if cfg.err != nil {
		return nil, cfg.err
	}
	occ, _ := sched.(OccurrenceSchedule)
	if err := cfg.checkApplies(sched, occ); err != nil {
		return nil, err
	}
	if cfg.overlap > OverlapBufferOne {
		return nil, &ArgError{Func: "WithOverlap", Arg: "o", Err: fmt.Errorf("%w: Overlap %d", errUnknownPolicy, cfg.overlap)}
	}
	if cfg.lease <= 0 {
		cfg.lease = DefaultLease
	}
	if cfg.heartbeat <= 0 || cfg.heartbeat >= cfg.lease {
		cfg.heartbeat = cfg.lease / 3
	}
	if cfg.misfire < 0 {
		cfg.misfire = 0
	}
	spec := &jobSpec{sched: sched, fn: fn, cfg: cfg}
	spec.occ = occ
	spec.cron, _ = sched.(*Cron)
	return spec, nil
}

func isNilCron(sched Schedule) bool {
	c, ok := sched.(*Cron)
	return ok && c == nil
}

// nextAfter returns the spec's first occurrence strictly after t, within
// the job's bounds (WithBounds).
func (sp *jobSpec) nextAfter(t time.Time) (Occurrence, bool) {
	if sp.cfg.bounds == nil {
		return sp.nextOf(t)
	}
	if b := sp.cfg.bounds.start; !b.IsZero() && t.Before(b) {
		t = b.Add(-time.Nanosecond)
	}
	o, ok := sp.nextOf(t)
	if !ok || (!sp.cfg.bounds.end.IsZero() && o.At.After(sp.cfg.bounds.end)) {
		return Occurrence{}, false
	}
	return o, true
}

// nextOf returns the schedule's first occurrence strictly after t,
// ignoring the bounds.
func (sp *jobSpec) nextOf(t time.Time) (Occurrence, bool) {
	var o Occurrence
	if sp.occ != nil {
		var ok bool
		if o, ok = sp.occ.NextOccurrence(t); !ok {
			return Occurrence{}, false
		}
	} else {
		if loc := sp.cfg.scheduleLoc; loc != nil {
			t = t.In(loc)
		}
		at := sp.sched.Next(t)
		if at.IsZero() {
			return Occurrence{}, false
		}
		if loc := sp.cfg.scheduleLoc; loc != nil {
			at = at.In(loc)
		}
		w := wallOf(at)
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

// lastWindows are how far back lastAtOrBefore looks, widening only when
// the narrower window has no occurrence.
var lastWindows = []time.Duration{time.Hour, 3 * 24 * time.Hour, 40 * 24 * time.Hour, 400 * 24 * time.Hour}

// lastAtOrBefore returns the spec's latest occurrence at or before t,
// looking back at most about 400 days.
func (sp *jobSpec) lastAtOrBefore(t time.Time) (Occurrence, bool) {
	for _, back := range lastWindows {
		var last Occurrence
		found := false
		for o, ok := sp.nextAfter(t.Add(-back)); ok && !o.At.After(t); o, ok = sp.nextAfter(o.At) {
			last, found = o, true
		}
		if found {
			return last, true
		}
	}
	return Occurrence{}, false
}

// runOf builds the Run the job function sees.
func (sp *jobSpec) runOf(job string, o Occurrence, rec Record) Run {
	// In the schedule's own zone the business date is the date the run was
	// scheduled for, which is the date of Due except when a gap pushes the
	// run past midnight (America/Nuuk 2024-03-30 23:30 -> 03-31 00:30):
	// that run is still the 03-30 run, or 03-31 would be billed twice.
	d := Date{o.Wall.Year, o.Wall.Month, o.Wall.Day}
	if loc := sp.cfg.runDateLoc; loc != nil && loc.String() != o.At.Location().String() {
		d = DateOf(o.At, loc)
	}
	return Run{
		Job: job, Period: o.Period, Wall: o.Wall, Kind: o.Kind, Due: o.At,
		RunDate: d, Attempt: rec.Attempt, Token: rec.Token,
	}
}

// periodMover is a schedule whose occurrences may fire days away from the
// date their period key starts with: calendar.Excluded moves them to a business day.
type periodMover interface {
	// FiresOn returns the date, in the schedule's zone, on which the
	// occurrence whose period key starts with date d fires (give or take a
	// day a gap swallows), or false if no such occurrence fires.
	FiresOn(d Date) (Date, bool)
}

// findPeriod returns the spec's occurrence keyed period. Every period key
// starts with the civil date ("2024-11-03...") of the wall reading it was
// scheduled for, which bounds the search to a few days around the date it
// fires on: that date, or the business day Excluding moved it to.
func (sp *jobSpec) findPeriod(period string) (Occurrence, bool) {
	if len(period) < len("2006-01-02") {
		return Occurrence{}, false
	}
	d, err := time.Parse("2006-01-02", period[:10])
	if err != nil {
		return Occurrence{}, false
	}
	if m, ok := sp.occ.(periodMover); ok {
		on, ok := m.FiresOn(Date{d.Year(), d.Month(), d.Day()})
		if !ok {
			return Occurrence{}, false
		}
		d = time.Date(on.Year, on.Month, on.Day, 0, 0, 0, 0, time.UTC)
	}
	from, to := d.Add(-48*time.Hour), d.Add(72*time.Hour)
	t := from
	for range 1 << 20 {
		o, ok := sp.nextAfter(t)
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

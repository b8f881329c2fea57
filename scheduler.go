package dstsafe

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"os"
	"strconv"
	"sync"
	"time"
	"unicode/utf8"
)

var (
	// ErrInvalidJobName: Add was given an empty or non-UTF-8 job name.
	ErrInvalidJobName = errors.New("dstsafe: invalid job name")
	// ErrDuplicateJob: Add was given a name already in use.
	ErrDuplicateJob = errors.New("dstsafe: duplicate job name")
	// ErrNilSchedule: Add was given a nil Schedule.
	ErrNilSchedule = errors.New("dstsafe: nil schedule")
	// ErrNilJobFunc: Add was given a nil job function.
	ErrNilJobFunc = errors.New("dstsafe: nil job function")
	// ErrUnsupportedOption: a job option does not apply to the schedule
	// (fold and gap overrides need a *Cron).
	ErrUnsupportedOption = errors.New("dstsafe: option not supported by schedule")
	// ErrUnknownJob: RunNow named a job that was never added.
	ErrUnknownJob = errors.New("dstsafe: unknown job")
	// ErrUnknownPeriod: RunNow named a period the job's schedule never has.
	ErrUnknownPeriod = errors.New("dstsafe: unknown period")
	// ErrRunning: Run (or Simulate) was called while the scheduler runs.
	ErrRunning = errors.New("dstsafe: scheduler already running")
	// ErrDrainTimeout: Run gave up waiting for in-flight jobs at shutdown.
	ErrDrainTimeout = errors.New("dstsafe: drain timeout")
	// ErrJobTimeout is the cause of a job context cancelled by WithTimeout
	// (context.Cause).
	ErrJobTimeout = errors.New("dstsafe: job timeout")
)

// JobError is the error Add and RunNow return about a job: Err is one of
// the sentinels above (errors.Is works through it).
type JobError struct {
	Job    string
	Period string // RunNow only
	Err    error
}

func (e *JobError) Error() string {
	s := "dstsafe: job " + strconv.Quote(e.Job)
	if e.Period != "" {
		s += " period " + strconv.Quote(e.Period)
	}
	return s + ": " + e.Err.Error()
}

// Unwrap returns the sentinel.
func (e *JobError) Unwrap() error { return e.Err }

// Scheduler runs jobs once per logical period. It sleeps on its Clock until
// the next occurrence of any job, claims the period in its Ledger, runs the
// job with a heartbeat on the claim, and records the outcome.
//
// It never repeats a period: it remembers the last occurrence each job
// handled and only looks strictly after it, so a wall clock stepped back
// (NTP, a VM restored from a snapshot) delays the next run but cannot bring
// an old one back; and the ledger refuses a second claim of a period from
// this or any other process, before or after a restart.
//
// Build one with NewScheduler, Add jobs (before or while Run runs), then
// call Run. A Scheduler is safe for concurrent use.
type Scheduler struct {
	clock        Clock
	ledger       Ledger
	log          *slog.Logger
	owner        string
	drainTimeout time.Duration
	wakeInterval time.Duration

	act     activity
	workers sync.WaitGroup
	wake    chan struct{}

	mu         sync.Mutex
	jobs       []*job
	byName     map[string]*job
	running    bool
	simulating bool
	record     func(Fire)
}

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

// NewScheduler returns a Scheduler configured by opts. Without options it
// runs on the real clock with a MemoryLedger, logs to slog.Default() and
// names itself "hostname:pid" in the ledger.
func NewScheduler(opts ...SchedulerOption) *Scheduler {
	cfg := schedulerConfig{drainTimeout: DefaultDrainTimeout, wakeInterval: DefaultWakeInterval}
	for _, o := range opts {
		o(&cfg)
	}
	if cfg.clock == nil {
		cfg.clock = RealClock()
	}
	if cfg.ledger == nil {
		cfg.ledger = NewMemoryLedger(cfg.clock)
	}
	if cfg.logger == nil {
		cfg.logger = slog.Default()
	}
	if cfg.owner == "" {
		host, err := os.Hostname()
		if err != nil || host == "" {
			host = "dstsafe"
		}
		cfg.owner = host + ":" + strconv.Itoa(os.Getpid())
	}
	return &Scheduler{
		clock:        cfg.clock,
		ledger:       cfg.ledger,
		log:          cfg.logger,
		owner:        cfg.owner,
		drainTimeout: cfg.drainTimeout,
		wakeInterval: cfg.wakeInterval,
		wake:         make(chan struct{}, 1),
		byName:       make(map[string]*job),
	}
}

// Add registers a job: fn runs once per period of s. Add may be called
// before or while Run runs; a job added while running starts with the
// occurrences after the current instant (or after its latest ledger
// record).
//
// It returns a *JobError wrapping ErrInvalidJobName for an empty or
// non-UTF-8 name, ErrDuplicateJob for a name already added, ErrNilSchedule,
// ErrNilJobFunc, or ErrUnsupportedOption when WithJobFold or WithJobGap is
// used with a schedule that is not a *Cron. Nothing is registered then.
//
// A schedule that is not an OccurrenceSchedule (a robfig/cron schedule,
// say) works too: each instant it returns is keyed by its wall reading in
// the zone of WithScheduleZone (set it), so two instants that read the same
// (a fold) share a period and the second is reported as already claimed.
func (s *Scheduler) Add(name string, sched Schedule, fn func(ctx context.Context, run Run) error, opts ...JobOption) error {
	fail := func(err error) error { return &JobError{Job: name, Err: err} }
	if name == "" || !utf8.ValidString(name) {
		return fail(ErrInvalidJobName)
	}
	if sched == nil || isNilCron(sched) {
		return fail(ErrNilSchedule)
	}
	if fn == nil {
		return fail(ErrNilJobFunc)
	}
	cfg := jobConfig{catchUp: CatchUpLatest{}, lease: DefaultLease, misfire: DefaultMisfireThreshold}
	for _, o := range opts {
		o(&cfg)
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
	if c, ok := sched.(*Cron); ok && (cfg.fold != nil || cfg.gap != nil || cfg.periodKey != nil) {
		cc, err := c.withJobOptions(cfg.fold, cfg.gap, cfg.periodKey)
		if err != nil {
			return fail(err)
		}
		sched, cfg.periodKey = cc, nil
	} else if cfg.fold != nil || cfg.gap != nil {
		return fail(ErrUnsupportedOption)
	}
	j := &job{name: name, sched: sched, fn: fn, cfg: cfg}
	j.occ, _ = sched.(OccurrenceSchedule)

	s.mu.Lock()
	if _, dup := s.byName[name]; dup {
		s.mu.Unlock()
		return fail(ErrDuplicateJob)
	}
	s.byName[name] = j
	s.jobs = append(s.jobs, j)
	running := s.running
	s.mu.Unlock()
	if running {
		s.poke()
	}
	return nil
}

func isNilCron(sched Schedule) bool {
	c, ok := sched.(*Cron)
	return ok && c == nil
}

// poke wakes the Run loop so it re-evaluates its jobs.
func (s *Scheduler) poke() {
	select {
	case s.wake <- struct{}{}:
	default:
	}
}

// nextAfter returns j's first occurrence strictly after t, with the period
// key the job's options ask for.
func (j *job) nextAfter(t time.Time) (Occurrence, bool) {
	var o Occurrence
	if j.occ != nil {
		var ok bool
		if o, ok = j.occ.NextOccurrence(t); !ok {
			return Occurrence{}, false
		}
	} else {
		if loc := j.cfg.scheduleZone; loc != nil {
			t = t.In(loc)
		}
		at := j.sched.Next(t)
		if at.IsZero() {
			return Occurrence{}, false
		}
		if loc := j.cfg.scheduleZone; loc != nil {
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
	if j.cfg.periodKey != nil {
		switch *j.cfg.periodKey {
		case ByDate:
			o.Period = o.Wall.DateString()
		case ByWall:
			o.Period = o.Wall.String()
			if o.Kind == Fold && j.occ != nil && !o.At.Equal(Lookup(o.Wall, o.At.Location()).Earlier) {
				o.Period += ";fold=1"
			}
		}
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
	if loc := j.cfg.runDateZone; loc != nil && loc.String() != o.At.Location().String() {
		d = DateOf(o.At, loc)
	}
	return Run{
		Job: j.name, Period: o.Period, Wall: o.Wall, Kind: o.Kind, Due: o.At,
		RunDate: d, Attempt: rec.Attempt, Token: rec.Token,
	}
}

// maxCatchUp bounds how many missed periods one wake records individually;
// older ones are passed over with a log line.
const maxCatchUp = 10000

// Run runs the scheduler until ctx is cancelled, then stops starting runs,
// waits for the running ones up to the drain timeout (WithDrainTimeout) and
// returns. It returns nil after a clean drain, ErrDrainTimeout when jobs
// were still running (their contexts are then cancelled and their
// heartbeats stop, so their claims lapse to abandoned rather than stay
// running for ever), or ErrRunning if the scheduler is already running.
//
// On start each job resumes after its latest record in the ledger, so a
// restarted process neither repeats the period its predecessor ran nor
// forgets the ones it missed (see CatchUpPolicy).
func (s *Scheduler) Run(ctx context.Context) error {
	s.mu.Lock()
	if s.running {
		s.mu.Unlock()
		return ErrRunning
	}
	s.running = true
	sim := s.simulating
	s.mu.Unlock()
	defer func() {
		s.mu.Lock()
		s.running = false
		s.mu.Unlock()
	}()

	s.act.begin()
	defer s.act.end()
	jobCtx, cancelJobs := context.WithCancelCause(context.WithoutCancel(ctx))
	defer cancelJobs(context.Canceled)
	stopping := make(chan struct{})

	for {
		now := s.clock.Now()
		wakeAt := s.tick(jobCtx, now, stopping)
		if !sim && s.wakeInterval > 0 {
			if limit := now.Add(s.wakeInterval); wakeAt.IsZero() || limit.Before(wakeAt) {
				wakeAt = limit
			}
		}
		var timer Timer
		var fired <-chan time.Time
		if !wakeAt.IsZero() {
			// Measure from a fresh reading: time has passed during tick.
			timer = s.clock.NewTimer(wakeAt.Sub(s.clock.Now()))
			fired = timer.Chan()
		}
		id := s.act.park(wakeAt)
		select {
		case <-fired:
		case <-s.wake:
		case <-ctx.Done():
		}
		s.act.unpark(id)
		if timer != nil {
			timer.Stop()
		}
		if ctx.Err() != nil {
			break
		}
	}
	close(stopping)
	return s.drain(cancelJobs)
}

// drain waits for the workers, up to the drain timeout.
func (s *Scheduler) drain(cancelJobs context.CancelCauseFunc) error {
	done := make(chan struct{})
	go func() {
		s.workers.Wait()
		close(done)
	}()
	select {
	case <-done:
		return nil
	default:
	}
	if s.drainTimeout >= 0 {
		now := s.clock.Now()
		timer := s.clock.NewTimer(s.drainTimeout)
		id := s.act.park(now.Add(s.drainTimeout))
		select {
		case <-done:
		case <-timer.Chan():
		}
		s.act.unpark(id)
		timer.Stop()
		select {
		case <-done:
			return nil
		default:
		}
	}
	s.log.Error("scheduler drain timeout: cancelling running jobs", "owner", s.owner, "drain_timeout", s.drainTimeout)
	cancelJobs(ErrDrainTimeout)
	return ErrDrainTimeout
}

// tick handles every occurrence due at now and returns the earliest
// instant a job comes due next (zero if none ever does).
func (s *Scheduler) tick(ctx context.Context, now time.Time, stopping chan struct{}) time.Time {
	s.mu.Lock()
	jobs := append([]*job(nil), s.jobs...)
	s.mu.Unlock()

	var wakeAt time.Time
	for _, j := range jobs {
		s.mu.Lock()
		primed := j.primed
		s.mu.Unlock()
		if !primed {
			cursor := s.resumeCursor(ctx, j, now)
			s.mu.Lock()
			j.primed, j.cursor = true, cursor
			j.next, j.hasNext = j.nextAfter(cursor)
			s.mu.Unlock()
		}

		// Collect the occurrences in (cursor, now]. Only the loop goroutine
		// moves the cursor, and only forward: a clock stepped back finds
		// nothing due and sleeps until the occurrence after the cursor.
		var due []Occurrence
		dropped := 0
		s.mu.Lock()
		for j.hasNext && !j.next.At.After(now) {
			if len(due) == maxCatchUp {
				// Keep the most recent half: amortised O(1) per period.
				due = append(due[:0], due[maxCatchUp/2:]...)
				dropped += maxCatchUp / 2
			}
			due = append(due, j.next)
			j.cursor = j.next.At
			j.next, j.hasNext = j.nextAfter(j.cursor)
		}
		if j.hasNext && (wakeAt.IsZero() || j.next.At.Before(wakeAt)) {
			wakeAt = j.next.At
		}
		s.mu.Unlock()

		if dropped > 0 {
			s.log.Warn(j.name+".run catch-up truncated", "job", j.name, "unrecorded_periods", dropped)
		}
		if len(due) > 0 {
			run, skip := j.cfg.plan(due, now)
			for _, o := range skip {
				s.skip(ctx, j, o, "missed: catch-up policy")
			}
			if len(run) > 0 {
				s.dispatch(ctx, j, run, stopping)
			}
		}
	}
	return wakeAt
}

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
			s.log.Error(j.name+".run resume failed: ledger list", "job", j.name, "error", err)
			return fresh
		}
		if len(recs) == 0 {
			continue
		}
		last := recs[len(recs)-1]
		if last.StartedAt.After(now) {
			return fresh
		}
		s.log.Info(j.name+".run resume", "job", j.name, "last_period", last.Period,
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
		s.log.Error(j.name+".run skip failed: ledger claim", "job", j.name, "period", o.Period, "error", err)
		return
	}
	if _, err := s.ledger.Finish(ctx, j.name, o.Period, rec.Token, StateSkipped, reason); err != nil {
		s.log.Error(j.name+".run skip failed: ledger finish", "job", j.name, "period", o.Period, "error", err)
		return
	}
	s.log.Warn(j.name+".run skipped", "job", j.name, "period", o.Period, "due", o.At, "reason", reason)
}

// dispatch starts a worker for the batch, or applies the overlap policy
// when the job is still running.
func (s *Scheduler) dispatch(ctx context.Context, j *job, batch []Occurrence, stopping chan struct{}) {
	s.mu.Lock()
	if j.active > 0 {
		switch j.cfg.overlap {
		case OverlapQueue:
			j.queue = append(j.queue, batch...)
			s.mu.Unlock()
			return
		case OverlapAllow:
		default:
			s.mu.Unlock()
			for _, o := range batch {
				s.skip(ctx, j, o, "overlap: previous run still running")
			}
			return
		}
	}
	j.active++
	s.act.begin()
	s.workers.Add(1)
	s.mu.Unlock()
	go s.worker(ctx, j, batch, stopping)
}

// worker runs a batch of periods of one job in order, then whatever the
// overlap queue collected meanwhile.
func (s *Scheduler) worker(ctx context.Context, j *job, batch []Occurrence, stopping chan struct{}) {
	defer s.workers.Done()
	defer s.act.end()
	for {
		for _, o := range batch {
			select {
			case <-stopping:
				// Not claimed, so not lost: the next start resumes after the
				// latest record and catches these up by policy.
				s.mu.Lock()
				j.active--
				j.queue = nil
				s.mu.Unlock()
				return
			default:
			}
			s.execute(ctx, j, o, stopping)
		}
		s.mu.Lock()
		if len(j.queue) == 0 {
			j.active--
			s.mu.Unlock()
			return
		}
		batch, j.queue = j.queue, nil
		s.mu.Unlock()
	}
}

// execute claims o and runs it, retrying by the job's policy. It returns
// the job's last error, or the claim error (a *ClaimedError when the
// period was claimed before).
func (s *Scheduler) execute(ctx context.Context, j *job, o Occurrence, stopping <-chan struct{}) error {
	for {
		rec, err := s.ledger.Claim(ctx, ClaimRequest{
			Job: j.name, Period: o.Period, Owner: s.owner, Lease: j.cfg.lease, Retry: j.cfg.retry,
		})
		if err != nil {
			var ce *ClaimedError
			if errors.As(err, &ce) {
				e := ce.Existing
				s.log.Info(j.name+".run already claimed", "job", j.name, "period", o.Period, "due", o.At,
					"state", e.State.String(), "owner", e.Owner, "started", e.StartedAt,
					"attempt", e.Attempt, "token", e.Token)
			} else {
				s.log.Error(j.name+".run claim failed", "job", j.name, "period", o.Period, "due", o.At, "error", err)
			}
			return err
		}
		err = s.invoke(ctx, j, o, rec)
		if err == nil || !j.cfg.retry.Failed || rec.Attempt >= j.cfg.retry.MaxAttempts {
			return err
		}
		if !s.sleep(j.cfg.retryBackoff, stopping) {
			return err
		}
	}
}

// sleep waits d on the clock; false if stopping closed first.
func (s *Scheduler) sleep(d time.Duration, stopping <-chan struct{}) bool {
	if d <= 0 {
		return true
	}
	now := s.clock.Now()
	t := s.clock.NewTimer(d)
	defer t.Stop()
	id := s.act.park(now.Add(d))
	defer s.act.unpark(id)
	select {
	case <-t.Chan():
		return true
	case <-stopping:
		return false
	}
}

// invoke runs one claimed attempt: the job under a heartbeat (and timeout),
// then Finish with the outcome.
func (s *Scheduler) invoke(ctx context.Context, j *job, o Occurrence, rec Record) error {
	run := j.runOf(o, rec)
	started := s.clock.Now()
	s.logRun(ctx, slog.LevelInfo, ".run start", run)

	runCtx, cancel := context.WithCancelCause(ctx)
	defer cancel(context.Canceled)
	stop := make(chan struct{})
	hbDone := make(chan struct{})
	go s.heartbeat(ctx, runCtx, cancel, j, run, rec.LeaseUntil, stop, hbDone)
	err := callJob(runCtx, j.fn, run)
	close(stop)
	<-hbDone

	state, reason := StateSucceeded, ""
	if err != nil {
		state, reason = StateFailed, err.Error()
		if cause := context.Cause(runCtx); cause != nil && !errors.Is(err, cause) && runCtx.Err() != nil {
			reason += " (" + cause.Error() + ")"
		}
	}
	finishCtx := context.WithoutCancel(ctx)
	if _, ferr := s.ledger.Finish(finishCtx, j.name, run.Period, run.Token, state, reason); ferr != nil {
		if errors.Is(ferr, ErrLeaseLost) {
			s.logRun(ctx, slog.LevelWarn, ".run finish rejected: lease lost", run, "outcome", state.String())
		} else {
			s.logRun(ctx, slog.LevelError, ".run finish failed", run, "outcome", state.String(), "error", ferr)
		}
	}
	took := s.clock.Now().Sub(started)
	if err != nil {
		s.logRun(ctx, slog.LevelError, ".run finish", run, "outcome", state.String(), "duration", took, "error", err)
	} else {
		s.logRun(ctx, slog.LevelInfo, ".run finish", run, "outcome", state.String(), "duration", took)
	}
	s.mu.Lock()
	record := s.record
	s.mu.Unlock()
	if record != nil {
		record(Fire{Job: run.Job, Period: run.Period, Wall: run.Wall, Kind: run.Kind, Due: run.Due,
			Started: started, RunDate: run.RunDate, Attempt: run.Attempt, Err: err})
	}
	return err
}

// logRun logs msg (prefixed with the job name) with the run's attributes,
// in the postmortem's shape: msg="billing.run start" job=billing
// period=... run_date=2024-11-03 due=2024-11-03T01:30:00.000-05:00 ...
// It builds nothing when the level is disabled.
func (s *Scheduler) logRun(ctx context.Context, level slog.Level, msg string, run Run, extra ...any) {
	if !s.log.Enabled(ctx, level) {
		return
	}
	attrs := append([]any{"job", run.Job, "period", run.Period, "run_date", run.RunDate.String(), "due", run.Due,
		"wall", run.Wall.String(), "kind", run.Kind.String(), "attempt", run.Attempt, "token", run.Token,
		"owner", s.owner}, extra...)
	s.log.Log(ctx, level, run.Job+msg, attrs...)
}

// PanicError is the error a job's panic is turned into; the run is
// recorded as failed and the scheduler keeps going.
type PanicError struct {
	Value any
}

func (e *PanicError) Error() string { return fmt.Sprintf("dstsafe: job panicked: %v", e.Value) }

func callJob(ctx context.Context, fn func(context.Context, Run) error, run Run) (err error) {
	defer func() {
		if v := recover(); v != nil {
			err = &PanicError{Value: v}
		}
	}()
	return fn(ctx, run)
}

// heartbeat extends the claim every heartbeat interval while the job runs,
// cancels the job's context when the lease is lost (taken over, or expired
// while the ledger was unreachable) or the timeout passes, and stops when
// stop closes or the scheduler gives up draining (base is cancelled).
func (s *Scheduler) heartbeat(base, runCtx context.Context, cancel context.CancelCauseFunc, j *job, run Run,
	leaseUntil time.Time, stop <-chan struct{}, done chan<- struct{}) {
	defer close(done)
	beat := s.clock.NewTimer(j.cfg.heartbeat)
	defer beat.Stop()
	var timeout <-chan time.Time
	if j.cfg.timeout > 0 {
		t := s.clock.NewTimer(j.cfg.timeout)
		defer t.Stop()
		timeout = t.Chan()
	}
	beats := beat.Chan()
	for {
		select {
		case <-stop:
			return
		case <-base.Done():
			return
		case <-timeout:
			timeout = nil
			s.log.Warn(j.name+".run timeout", "job", j.name, "period", run.Period, "timeout", j.cfg.timeout)
			cancel(ErrJobTimeout)
		case <-beats:
			rec, err := s.ledger.Heartbeat(base, j.name, run.Period, run.Token, j.cfg.lease)
			switch {
			case err == nil:
				leaseUntil = rec.LeaseUntil
			case errors.Is(err, ErrLeaseLost):
				s.log.Error(j.name+".run lease lost", "job", j.name, "period", run.Period, "token", run.Token, "error", err)
				cancel(ErrLeaseLost)
				beats = nil
				continue
			default:
				s.log.Warn(j.name+".run heartbeat failed", "job", j.name, "period", run.Period, "error", err)
				if !s.clock.Now().Before(leaseUntil) {
					s.log.Error(j.name+".run lease expired", "job", j.name, "period", run.Period, "lease_until", leaseUntil)
					cancel(fmt.Errorf("%w: lease expired at %s while the ledger was unreachable", ErrLeaseLost, leaseUntil.Format(time.RFC3339)))
					beats = nil
					continue
				}
			}
			beat.Reset(j.cfg.heartbeat)
		}
	}
}

// RunNow claims period of job and runs it in the caller's goroutine, for
// operators re-running or back-filling a period by hand. It returns the
// job's error; a *ClaimedError (errors.Is ErrAlreadyClaimed) when the period
// already has a record, so it did not run; or a *JobError wrapping
// ErrUnknownJob or ErrUnknownPeriod when job was never added or period is not
// one of its schedule's periods (looked up within a few days of the date the
// period key starts with). It ignores the overlap and catch-up policies and
// does not need Run to be running.
func (s *Scheduler) RunNow(ctx context.Context, job, period string) error {
	s.mu.Lock()
	j := s.byName[job]
	s.mu.Unlock()
	if j == nil {
		return &JobError{Job: job, Period: period, Err: ErrUnknownJob}
	}
	o, ok := j.findPeriod(period)
	if !ok {
		return &JobError{Job: job, Period: period, Err: ErrUnknownPeriod}
	}
	return s.execute(ctx, j, o, nil)
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

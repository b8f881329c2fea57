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

	"github.com/jonboulle/clockwork"
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

// NewScheduler returns a Scheduler configured by opts. Without options it
// runs on the real clock with a MemoryLedger, logs to slog.Default() and
// names itself "hostname:pid" in the ledger.
func NewScheduler(opts ...SchedulerOption) *Scheduler {
	cfg := schedulerConfig{drainTimeout: defaultDrainTimeout, wakeInterval: defaultWakeInterval}
	for _, o := range opts {
		if o != nil {
			o(&cfg)
		}
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
// ErrNilJobFunc, ErrNilLocation for a location option given nil, or
// ErrUnknownPolicy for a policy value out of range. Nothing is registered
// then. Fold and gap policies and the period key belong to the schedule
// (WithFold, WithGap, WithPeriodKey in ParseCron).
//
// A schedule that is not an OccurrenceSchedule (a robfig/cron schedule,
// say) works too: each instant it returns is keyed by its wall reading in
// the location of WithScheduleLocation (set it), so two instants that read
// the same (a fold) share a period and the second is reported as already
// claimed.
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
		if o != nil {
			o(&cfg)
		}
	}
	if cfg.err != nil {
		return fail(cfg.err)
	}
	if cfg.overlap > OverlapAllow {
		return fail(&ArgError{Func: "WithOverlap", Arg: "o", Err: fmt.Errorf("%w: Overlap %d", ErrUnknownPolicy, cfg.overlap)})
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
		var timer clockwork.Timer
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
			s.log.Warn("run catch-up truncated", "job", j.name, "unrecorded_periods", dropped)
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

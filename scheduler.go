package dstsafe

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"log/slog"
	"os"
	"slices"
	"strconv"
	"sync"
	"sync/atomic"
	"time"

	"github.com/jonboulle/clockwork"
)

var (
	// ErrUnknownJob: RunNow, Update or Remove named a job that is not
	// there (never added, or removed).
	ErrUnknownJob = errors.New("dstsafe: unknown job")
	// ErrDrainTimeout: Run gave up waiting for in-flight jobs at shutdown.
	ErrDrainTimeout = errors.New("dstsafe: drain timeout")
	// ErrJobTimeout is the cause of a job context cancelled by WithTimeout
	// (context.Cause).
	ErrJobTimeout = errors.New("dstsafe: job timeout")
	// ErrOverlapCancelled is the cause of a job context cancelled because
	// a newer period came due (OverlapCancelRunning).
	ErrOverlapCancelled = errors.New("dstsafe: cancelled: a newer period came due")
)

// JobError is the error Add, Update, Remove, RunNow and Run return about a
// job: Err is one of the sentinels above, an *ArgError, or the ledger's
// error that stopped Run (errors.Is(err, ErrPermanent)); errors.Is and
// errors.As work through it.
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
	return onePrefix(s + ": " + e.Err.Error())
}

// Unwrap returns Err.
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
// It never forgets one either: that cursor is only an optimisation. Each
// pass of a job also reconciles the job's recovery window
// (WithRecoveryWindow) against the ledger, with the classification of
// CheckPeriods, so a period abandoned by a crashed replica is taken over
// (when the job's RetryPolicy allows it), a failed one retried, one an
// operator released run, and one that will not run reported at risk and
// then missed, once across replicas. A job with such open periods is
// reconciled at every wake; the others are not touched.
//
// The cost of a fire does not grow with the number of jobs: the next due
// instant of every job is kept in a heap, so the loop touches only the jobs
// that are due, and everything that waits on the ledger (resuming a job
// after a restart, recording missed periods, claiming, running) happens in
// the job's own goroutine, never in the loop: a slow or hung ledger delays
// the job, not the others, and not Run's return (see Run). The running
// attempts' heartbeats and timeouts (WithLease, WithTimeout) share one
// timer on the Clock and one goroutine, with each heartbeat's ledger call
// in a goroutine of its own: a hung heartbeat delays no other run's. On a
// *clockwork.FakeClock that timer is one waiter while any attempt runs,
// however many do, and none while none does.
//
// Build one with NewScheduler, Add jobs (before or while Run runs), then
// call Run. Update and Remove change jobs while it runs. A Scheduler is
// safe for concurrent use. The zero value is not usable: call NewScheduler.
type Scheduler struct {
	clock        Clock
	ledger       Ledger
	control      ControlLedger // ledger, when it is one; else nil
	observers    []Observer
	log          *slog.Logger
	owner        string
	drainTimeout time.Duration
	wakeInterval time.Duration

	mu    sync.Mutex
	jobs  map[string]*job
	seq   uint64   // Add order, to break ties in queue
	queue dueQueue // primed jobs waiting for their next occurrence
	run   *runState
	// The loop's timer while it sleeps: a job queued earlier pokes it.
	sleepUntil time.Time
	sleeping   bool
	wake       chan struct{}

	keeper keeper // the running attempts' heartbeats and timeouts
	// regMu orders registrations of one job name against each other:
	// Run's registration of every job (which looks a job's spec up, then
	// registers it) against an Update that takes the name over and
	// replaces the spec, so Run never judges a conflict from a spec an
	// Update is replacing (scheduler_register.go).
	regMu sync.Mutex

	// cfgErr is the first refused SchedulerOption: Add, Update and Run
	// return it, so a nil ledger never runs on a silent default.
	cfgErr error
	health health // Run's phase and the ledger's reachability (Healthy)
	// watches are the periods found due and not ended, by deadline
	// (event.AtRisk). Guarded by mu.
	watches watches
	// Clock skew (stage_claim_skew.go): the offset claims allow, and
	// whether the last claim was refused for it.
	maxClockOffset time.Duration
	skew           skewState
	// claimIDs names each period claim (ClaimRequest.ID) across its tries.
	claimIDs *claimIDs
	// open are the jobs with periods in their recovery window that are
	// not final: the loop reconciles each at every wake (stage_reconcile.go),
	// from nextSweep on. Guarded by mu.
	open      map[*job]struct{}
	nextSweep time.Time
}

// runState is one call of Run (or Simulate).
type runState struct {
	ctx       context.Context // ledger I/O of planning: ends with Run's context
	jobCtx    context.Context // what jobs run under: cancelled at the drain timeout
	finishCtx context.Context // jobCtx without its cancellation: outcomes are recorded
	stopping  chan struct{}   // closed when Run stops starting runs
	stopLoop  context.CancelCauseFunc
	workers   sync.WaitGroup
	sim       *simulation // nil in production

	failOnce sync.Once
	failed   error // the permanent ledger error that stopped Run
}

// stopped reports whether Run has stopped starting runs.
func (rs *runState) stopped() bool {
	select {
	case <-rs.stopping:
		return true
	default:
		return false
	}
}

// NewScheduler returns a Scheduler configured by opts. Without options it
// runs on the real clock with a MemoryLedger, logs to slog.Default() and
// names itself "hostname:pid" in the ledger. An option it refuses (a nil
// or typed-nil ledger, a typed-nil clock or observer: see each option) is
// kept and returned, as an *ArgError naming it, by Add, Update, Run and
// Healthy: NewScheduler itself returns no error. On a *clockwork.FakeClock
// (tests, Simulate) it logs nothing unless WithLogger is given.
func NewScheduler(opts ...SchedulerOption) *Scheduler {
	cfg := schedulerConfig{drainTimeout: defaultDrainTimeout, wakeInterval: defaultWakeInterval}
	for _, o := range opts {
		if o != nil {
			o(&cfg)
		}
	}
	if cfg.clock == nil {
		cfg.clock = clockwork.NewRealClock()
	}
	memoryDefault := cfg.ledger == nil
	if memoryDefault {
		cfg.ledger = NewMemoryLedger(cfg.clock)
	}
	if cfg.logger == nil {
		cfg.logger = slog.Default()
		if _, fake := cfg.clock.(*clockwork.FakeClock); fake {
			// A test (Simulate needs a fake clock): real-time stamps on
			// fake due times mislead, and a year's simulation logged
			// 4,402 lines. WithLogger still logs.
			cfg.logger = slog.New(slog.DiscardHandler)
		}
	}
	if cfg.owner == "" {
		host, err := os.Hostname()
		if err != nil || host == "" {
			host = "dstsafe"
		}
		cfg.owner = host + ":" + strconv.Itoa(os.Getpid())
	}
	control, _ := cfg.ledger.(ControlLedger)
	s := &Scheduler{
		clock:        cfg.clock,
		ledger:       cfg.ledger,
		control:      control,
		observers:    cfg.observers,
		log:          cfg.logger,
		owner:        cfg.owner,
		drainTimeout: cfg.drainTimeout,
		wakeInterval: cfg.wakeInterval,
		wake:         make(chan struct{}, 1),
		jobs:         make(map[string]*job),
		cfgErr:       cfg.err,
		health:       newHealth(memoryDefault, cfg.startup),
		claimIDs:     newClaimIDs(),
	}
	s.maxClockOffset = cfg.maxClockOffset
	return s
}

// Add registers a job: fn runs once per period of s. Add may be called
// before or while Run runs; a job added while running starts with the
// occurrences after the current instant (or after its latest ledger
// record). Before Run, Add does no ledger I/O; Run registers the job in
// the ledger's job registry at its start and reads its latest record in
// the job's own goroutine. While Run runs, Add registers the job first
// and returns a *JobError wrapping ErrJobConflict when the registry holds
// another schedule under name (see WithTakeOver).
//
// It returns a *JobError wrapping ErrInvalidArgument for a name a ledger
// cannot key (empty, longer than ledgerkit.MaxKeyLen bytes, not UTF-8, with NUL),
// ErrInvalidArgument for a name already added, ErrInvalidArgument, ErrInvalidArgument,
// ErrInvalidArgument for a location option given nil, or ErrInvalidArgument for
// a policy value out of range, an option that could not apply to the
// schedule or the other options (WithScheduleLocation on an
// OccurrenceSchedule, a WithRetry that never retries, a heartbeat not
// shorter than the lease: *ArgError), or the SchedulerOption NewScheduler
// refused (WithLedger(nil), a typed nil). Nothing is registered then. Fold and gap
// policies and the period key belong to the schedule (WithFold, WithGap,
// WithPeriodKey in ParseCron).
//
// A schedule that is not an OccurrenceSchedule (a robfig/cron schedule,
// say) works too: each instant it returns is keyed by its wall reading in
// the location of WithScheduleLocation (set it), so two instants that read
// the same (a fold) share a period and the second is reported as already
// claimed.
func (s *Scheduler) Add(name string, sched Schedule, fn func(ctx context.Context, run Run) error, opts ...JobOption) error {
	fail := func(err error) error { return &JobError{Job: name, Err: err} }
	if s.cfgErr != nil {
		return fail(s.cfgErr)
	}
	if err := validateKey("job", name); err != nil {
		return fail(fmt.Errorf("%w: %w", errInvalidJobName, err))
	}
	if fn == nil {
		return fail(errNilJobFunc)
	}
	if err := s.checkMaxClockOffset(); err != nil {
		return fail(err)
	}
	spec, err := s.newJobSpec(name, sched, fn, opts)
	if err != nil {
		return fail(err)
	}
	if err := s.registerAdded(name, spec); err != nil {
		return fail(err)
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if _, dup := s.jobs[name]; dup {
		return fail(errDuplicateJob)
	}
	s.seq++
	j := &job{name: name, seq: s.seq, spec: spec, qi: -1, added: s.clock.Now()}
	s.jobs[name] = j
	if rs := s.run; rs != nil {
		j.planning = true
		s.spawn(rs, func() { s.plan(rs, j, true) })
	}
	return nil
}

// Update replaces the schedule and options of job name, keeping its
// function, while Run runs or not, from any goroutine. A run in progress
// finishes under the schedule and options it started with; opts replace
// the job's options (give all of them again). It returns the errors Add
// returns for the new schedule and options, or a *JobError wrapping
// ErrUnknownJob. Update takes the name over in the ledger's job registry
// (see WithTakeOver): while Run runs it registers the new schedule before
// it changes anything, else the next Run does.
//
// An edit never runs a period retroactively. The periods of the old
// schedule due before the instant of the Update are handled under the old
// schedule (on time, or by the catch-up policy); the new schedule starts
// at that instant: its periods before it never run, and the most recent
// of them is recorded as skipped ("before the schedule took effect"), so
// that a restart does not run it either. An Update that keeps the
// schedule (same fingerprint: spec, zone and policies) changes only the
// options. The same rule holds when a restarted process finds its latest
// ledger record made under another schedule (see CatchUpPolicy).
func (s *Scheduler) Update(name string, sched Schedule, opts ...JobOption) error {
	s.mu.Lock()
	j := s.jobs[name]
	var fn func(context.Context, Run) error
	if j != nil {
		fn = j.spec.fn
	}
	s.mu.Unlock()
	if s.cfgErr != nil {
		return &JobError{Job: name, Err: s.cfgErr}
	}
	if j == nil {
		return &JobError{Job: name, Err: ErrUnknownJob}
	}
	spec, err := s.newJobSpec(name, sched, fn, opts)
	if err != nil {
		return &JobError{Job: name, Err: err}
	}
	spec.cfg.takeOver = true // an Update takes the name over (scheduler_register.go)
	s.regMu.Lock()
	defer s.regMu.Unlock()
	if err := s.registerLive(name, spec, true); err != nil {
		return &JobError{Job: name, Err: err}
	}
	at := s.clock.Now()
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.jobs[name] != j {
		return &JobError{Job: name, Err: ErrUnknownJob}
	}
	old := j.spec
	j.spec = spec
	if spec.fp() != "" && sameSchedule(old.fp(), spec.fp()) {
		// Same periods: cursor and next stay. A job that had nothing left
		// (its runs used, its bounds passed) may have some again, from the
		// instant of the Update on.
		if j.primed && !j.planning && j.qi < 0 && j.active == 0 {
			j.cursor, j.fresh = at.Add(-time.Nanosecond), false
			s.enqueue(j, at)
		}
		return nil
	}
	if !j.primed && !j.planning {
		// Not running: a later Run finds the change from the ledger.
		return nil
	}
	j.edits = append(j.edits, edit{spec: old, at: at, floor: j.added})
	j.since = at
	if j.planning {
		return nil // the planner sees the edit when it is done
	}
	if j.qi >= 0 {
		s.queue.remove(j)
	}
	s.enqueue(j, at)
	return nil
}

// Remove deletes job name, while Run runs or not, from any goroutine. A
// run in progress finishes; no new run of the job starts after Remove
// returns. Its ledger records stay: a job added again under the name
// resumes after them. It returns a *JobError wrapping ErrUnknownJob for a
// name that is not there.
func (s *Scheduler) Remove(name string) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	j := s.jobs[name]
	if j == nil {
		return &JobError{Job: name, Err: ErrUnknownJob}
	}
	delete(s.jobs, name)
	j.removed = true
	s.markOpenLocked(j, false)
	for k := range s.watches.byKey {
		if k.job == name {
			s.unwatchLocked(k.job, k.period)
		}
	}
	if j.qi >= 0 {
		s.queue.remove(j)
	}
	return nil
}

// enqueue puts j in the queue, due at due, and wakes the loop if it sleeps
// past due. s.mu must be held.
func (s *Scheduler) enqueue(j *job, due time.Time) {
	s.queue.push(j, due)
	if rs := s.run; rs != nil && (!s.sleeping || due.Before(s.sleepUntil)) {
		select {
		case s.wake <- struct{}{}:
			// The loop is woken, so it is busy from now: Simulate must not
			// move the clock before it looks at the queue. It ends this
			// count when it takes the poke.
			rs.sim.begin()
		default:
		}
	}
}

// spawn starts f in a goroutine counted by Run's drain (and, under
// Simulate, as busy until it ends). s.mu may be held.
func (s *Scheduler) spawn(rs *runState, f func()) {
	rs.workers.Add(1)
	rs.sim.begin()
	go func() {
		defer rs.workers.Done()
		defer rs.sim.end()
		growStack()
		f()
	}()
}

// growStack grows the calling goroutine's stack past 16 KiB while it is
// still shallow. A run's call chain (plan, execute, claim, the ledger's
// Claim) needs a little more than the 8 KiB a goroutine starts with, and
// growing it down there copies a dozen frames, each looked up in the
// function tables: a quarter of the CPU of a fire, measured with
// BenchmarkSchedulerScale. Growing it here copies two frames.
//
//go:noinline
func growStack() {
	var pad [12 << 10]byte
	touch(pad[:])
}

//go:noinline
func touch(b []byte) { b[len(b)-1] = 0 }

// primers bounds how many jobs resume from the ledger at once when Run
// starts, so that 100,000 jobs do not make 100,000 goroutines.
const primers = 16

// Run runs the scheduler until ctx is cancelled, then stops starting runs,
// waits for the running ones up to the drain timeout (WithDrainTimeout) and
// returns. It returns nil after a clean drain, ErrDrainTimeout when jobs
// (or ledger calls) were still running: their contexts are then cancelled
// and their heartbeats stop, so their claims lapse to abandoned rather than
// stay running for ever. Run returns within the drain timeout after ctx
// ends, whatever the ledger does.
//
// A permanent ledger error (errors.Is(err, ErrPermanent): a table never
// migrated, a closed pool; or a key the ledger refuses) stops Run as if
// ctx had ended: it drains and returns a *JobError naming the job and
// wrapping the ledger's error. Transient errors (a database restarting)
// are retried with backoff on the clock. Run returns ErrInvalidArgument if the
// scheduler is already running.
//
// Run first reaches the ledger: one that does not answer within the
// startup timeout (WithStartupTimeout, 30 s on the clock) makes Run return
// an error wrapping ErrLedgerUnreachable and the ledger's error, and a
// permanent error returns at once; nothing runs then. After that, every
// failed ledger call is an event.LedgerError and Healthy reports an
// outage that lasts the startup timeout. Without WithLedger, Run logs once
// at WARN that the MemoryLedger forgets every period at a restart. A
// SchedulerOption NewScheduler refused is Run's error, as it is Add's.
//
// On start each job resumes after its latest record in the ledger, so a
// restarted process neither repeats the period its predecessor ran nor
// forgets the ones it missed (see CatchUpPolicy), and its first pass
// reconciles the recovery window: a period its predecessor left abandoned
// or failed is taken over by the job's RetryPolicy (see
// WithRecoveryWindow).
func (s *Scheduler) Run(ctx context.Context) error { return s.run1(ctx, nil) }

// run1 is Run with the simulation seam: sim is nil in production; Simulate
// passes the bookkeeping it drives the fake clock with (which goroutines
// are busy, what they wait for) and the recorder of fires.
func (s *Scheduler) run1(ctx context.Context, sim *simulation) error {
	loopCtx, stopLoop := context.WithCancelCause(ctx)
	defer stopLoop(nil)
	jobCtx, cancelJobs := context.WithCancelCause(context.WithoutCancel(ctx))
	defer cancelJobs(context.Canceled)
	rs := &runState{ctx: loopCtx, jobCtx: jobCtx, finishCtx: context.WithoutCancel(jobCtx),
		stopping: make(chan struct{}), stopLoop: stopLoop, sim: sim}

	if s.cfgErr != nil {
		return s.cfgErr
	}
	s.mu.Lock()
	if s.run != nil {
		s.mu.Unlock()
		return errRunning
	}
	s.run = rs
	// A poke left in the channel is an earlier Run's: drop it now, before
	// anything can poke for this one. A poke made while this Run starts
	// (an Add or Update during registration) counts this Run's
	// simulation busy until the loop takes it, so it must stay.
	select {
	case <-s.wake:
	default:
	}
	s.keeper.hold()
	defer s.keeper.release()
	sim.begin()
	defer sim.end()
	s.mu.Unlock()
	defer s.health.setPhase(phaseStopped)
	s.health.setPhase(phaseStarting)
	started := s.clock.Now()
	err := s.reachLedger(rs)
	if err == nil {
		err = s.registerJobs(rs, started) // scheduler_register.go
	}
	if err != nil {
		// Nothing ran; jobs added meanwhile find Run stopping.
		close(rs.stopping)
		s.drain(rs, cancelJobs)
		s.mu.Lock()
		s.run, s.sleeping = nil, false
		s.mu.Unlock()
		return err
	}
	s.health.setPhase(phaseRunning)
	s.mu.Lock()
	var fresh []*job
	for _, j := range s.jobs {
		if !j.primed && !j.planning {
			if j.qi >= 0 {
				s.queue.remove(j)
			}
			j.planning = true
			fresh = append(fresh, j)
		}
	}
	slices.SortFunc(fresh, func(a, b *job) int { return cmp.Compare(a.seq, b.seq) })
	s.mu.Unlock()

	var next atomic.Int64
	for range min(primers, len(fresh)) {
		s.spawn(rs, func() {
			for i := int(next.Add(1)) - 1; i < len(fresh); i = int(next.Add(1)) - 1 {
				s.plan(rs, fresh[i], false)
				s.logJobStart(rs.ctx, fresh[i])
			}
		})
	}
	s.loop(rs)
	close(rs.stopping)
	err = s.drain(rs, cancelJobs)
	s.mu.Lock()
	s.run, s.sleeping = nil, false
	s.unwatchAll()
	s.nextSweep = time.Time{} // the open jobs stay open: the next Run sweeps them
	s.mu.Unlock()
	if rs.failed != nil {
		return rs.failed
	}
	return err
}

// loop hands every job that comes due to a goroutine of its own, until
// Run's context ends. Each turn costs O(log N) per due job.
func (s *Scheduler) loop(rs *runState) {
	var timer clockwork.Timer // one for the loop's life, Reset each turn
	for {
		now := s.clock.Now()
		s.mu.Lock()
		for s.queue.Len() > 0 && !s.queue.peek().due.After(now) {
			j := s.queue.pop()
			j.planning = true
			s.spawn(rs, func() { s.plan(rs, j, true) })
		}
		// Deadlines are looked at whenever the loop wakes (a due job, a
		// poke, and at least every WithWakeInterval), never woken for:
		// a wake of their own would move every test that waits for the
		// next due instant, and the wake interval bounds the delay.
		if expired := s.expiredLocked(now); len(expired) > 0 {
			s.mu.Unlock()
			s.atRisk(rs, expired)
			continue // the clock moved while observers ran: look again
		}
		// Jobs with periods that are not final are reconciled at every
		// wake interval, also under Simulate.
		sweepAt := s.sweepLocked(rs, now)
		var wakeAt time.Time
		if s.queue.Len() > 0 {
			wakeAt = s.queue.peek().due
		}
		if !sweepAt.IsZero() && (wakeAt.IsZero() || sweepAt.Before(wakeAt)) {
			wakeAt = sweepAt
		}
		if (rs.sim == nil || !rs.sim.fakeTime) && s.wakeInterval > 0 {
			if limit := now.Add(s.wakeInterval); wakeAt.IsZero() || limit.Before(wakeAt) {
				wakeAt = limit
			}
		}
		s.sleeping, s.sleepUntil = !wakeAt.IsZero(), wakeAt
		var fired <-chan time.Time
		if !wakeAt.IsZero() {
			// Measure from a fresh reading: time has passed since now.
			d := wakeAt.Sub(s.clock.Now())
			if timer == nil {
				timer = s.clock.NewTimer(d)
			} else {
				timer.Reset(d)
			}
			fired = timer.Chan()
		}
		s.mu.Unlock()
		id := rs.sim.park(wakeAt)
		poked := false
		select {
		case <-fired:
		case <-s.wake:
			poked = true
		case <-rs.ctx.Done():
		}
		rs.sim.unpark(id)
		if poked {
			rs.sim.end() // the poker's count (see enqueue)
		}
		if timer != nil && !timer.Stop() && fired != nil {
			select { // fired and not read: drain it, so a Reset starts clean
			case <-timer.Chan():
			default:
			}
		}
		if rs.ctx.Err() != nil {
			s.mu.Lock()
			s.sleeping = false
			s.mu.Unlock()
			return
		}
	}
}

// drain waits for the workers, up to the drain timeout.
func (s *Scheduler) drain(rs *runState, cancelJobs context.CancelCauseFunc) error {
	done := make(chan struct{})
	go func() {
		rs.workers.Wait()
		close(done)
	}()
	select {
	case <-done:
		return nil
	default:
	}
	if s.drainTimeout >= 0 && !rs.sim.givenUp() {
		// (Under a simulation whose context ended, nobody moves the
		// clock the timeout runs on: the jobs are cancelled at once.)
		now := s.clock.Now()
		timer := s.clock.NewTimer(s.drainTimeout)
		id := rs.sim.park(now.Add(s.drainTimeout))
		select {
		case <-done:
		case <-timer.Chan():
		}
		rs.sim.unpark(id)
		timer.Stop()
		select {
		case <-done:
			return nil
		default:
		}
	}
	s.log.Error("scheduler drain timeout: cancelling running jobs", "owner", s.owner, "drain_timeout", s.drainTimeout)
	cancelJobs(ErrDrainTimeout)
	if rs.sim != nil && rs.sim.awaitCut && rs.sim.givenUp() {
		<-done // Simulate's fires: every run that ended, recorded
	}
	return ErrDrainTimeout
}

// isPermanent reports whether a ledger error will not go away by retrying:
// ErrPermanent, or a key or request the ledger refuses.
func isPermanent(err error) bool {
	return errors.Is(err, ErrPermanent) || errors.Is(err, errInvalidKey) || errors.Is(err, errInvalidRequest)
}

// fail stops Run for a permanent ledger error of job: Run drains and
// returns it. The first one wins.
func (s *Scheduler) fail(rs *runState, job string, err error) {
	rs.failOnce.Do(func() {
		s.log.Error("scheduler stopped: permanent ledger error", "job", job, "error", err)
		rs.failed = &JobError{Job: job, Err: err}
		rs.stopLoop(rs.failed)
	})
}

// byHand looks job up (nil if it is not there) for a run by hand, RunNow
// or Backfill, with the spec in force, and counts the caller busy under
// Simulate: the caller calls sim.end when done.
func (s *Scheduler) byHand(job string) (*job, *jobSpec, *simulation) {
	s.mu.Lock()
	defer s.mu.Unlock()
	j := s.jobs[job]
	var sim *simulation
	if s.run != nil {
		sim = s.run.sim
	}
	var spec *jobSpec
	if j != nil {
		spec = j.spec
	}
	sim.begin()
	return j, spec, sim
}

// RunNow claims period of job and runs it in the caller's goroutine, for
// operators re-running or back-filling a period by hand. It returns the
// job's error; a *ClaimedError (errors.Is ErrAlreadyClaimed) when the period
// already has a record, so it did not run; a *JobError wrapping
// ErrUnknownJob or ErrInvalidArgument when job is not there or period is not
// one of its schedule's periods (looked up within a few days of the date
// the period key starts with, or of the business day Excluding moved it
// to, however far: a run moved out of a closure keeps its period); or a *JobError wrapping the ledger's error
// when the claim failed (one wrapping ErrMaxRuns when the job has used
// its runs). It ignores the overlap and catch-up policies, the jitter and
// a pause (an operator's explicit run), keeps the bounds and the run
// limit, and does not need Run to be running. Every wait (a retry's
// backoff) ends when ctx does.
func (s *Scheduler) RunNow(ctx context.Context, job, period string) error {
	j, spec, sim := s.byHand(job)
	defer sim.end()
	if j == nil {
		return &JobError{Job: job, Period: period, Err: ErrUnknownJob}
	}
	o, ok := spec.findPeriod(period)
	if !ok {
		return &JobError{Job: job, Period: period, Err: errUnknownPeriod}
	}
	out := s.execute(runEnv{ctx: ctx, sim: sim}, j, task{spec: spec, o: o})
	if out.ledgerErr != nil {
		if errors.Is(out.ledgerErr, ErrAlreadyClaimed) {
			return out.ledgerErr
		}
		return &JobError{Job: job, Period: period, Err: out.ledgerErr}
	}
	return out.fire.Err
}

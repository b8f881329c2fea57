package dstsafe

import (
	"fmt"
	"log/slog"
	"time"
)

// SchedulerOption configures NewScheduler. A nil SchedulerOption is
// ignored.
type SchedulerOption func(*schedulerConfig)

type schedulerConfig struct {
	clock        Clock
	ledger       Ledger
	logger       *slog.Logger
	owner        string
	drainTimeout time.Duration
	wakeInterval time.Duration
	observers    []Observer
	startup      time.Duration
	err          error // the first bad option: Add, Update and Run return it
	// maxClockOffset: WithMaxClockOffset (stage_claim_skew.go).
	maxClockOffset time.Duration
}

// fail keeps the first bad option's error.
func (c *schedulerConfig) fail(err error) {
	if c.err == nil {
		c.err = err
	}
}

// The defaults of WithDrainTimeout and WithWakeInterval.
const (
	defaultDrainTimeout = 30 * time.Second
	defaultWakeInterval = time.Minute
)

// WithClock sets the Scheduler's clock. Defaults to clockwork.NewRealClock(); a
// nil clock is ignored, as if not given (the real clock is what production
// wants, and Simulate refuses it, so a test notices). A typed nil (a nil
// *clockwork.FakeClock) would panic on the scheduler's goroutines: Add,
// Update and Run return an *ArgError wrapping ErrInvalidArgument instead.
// Pass a *clockwork.FakeClock to drive the scheduler in tests (see
// Simulate).
func WithClock(c Clock) SchedulerOption {
	return func(cfg *schedulerConfig) {
		switch {
		case c == nil:
		case isNilValue(c):
			cfg.fail(&ArgError{Func: "WithClock", Arg: "c", Err: fmt.Errorf("%w (%T)", errNilClock, c)})
		default:
			cfg.clock = c
		}
	}
}

// WithLedger sets the ledger runs are claimed in. Without it the Scheduler
// uses a new MemoryLedger on its clock, which only guards one process: its
// periods are not remembered across restarts nor shared between replicas,
// and Run logs that once at WARN ("scheduler ledger not durable");
// services that restart or run replicas need a shared, durable ledger
// (sqlledger, redisledger). A nil ledger, or a typed nil (a nil
// *sqlledger.Ledger), is never a default, since a silent memory ledger
// would let a restarted process run a period again: Add, Update and Run
// return an *ArgError ("dstsafe: WithLedger: l: nil ledger") wrapping
// ErrInvalidArgument.
func WithLedger(l Ledger) SchedulerOption {
	return func(cfg *schedulerConfig) {
		if l == nil || isNilValue(l) {
			cfg.fail(&ArgError{Func: "WithLedger", Arg: "l", Err: fmt.Errorf("%w (%T)", errNilLedger, l)})
			return
		}
		cfg.ledger = l
	}
}

// WithLogger sets the structured logger. Defaults to slog.Default(), or to
// no logging on a *clockwork.FakeClock (a test or Simulate: the records
// would carry real time beside fake due times); a nil logger is ignored,
// as if not given. Use slog.New(slog.DiscardHandler) for none. Run logs
// one "job scheduled" line per job at INFO when it starts (job, schedule,
// zone, next).
func WithLogger(l *slog.Logger) SchedulerOption {
	return func(cfg *schedulerConfig) {
		if l != nil {
			cfg.logger = l
		}
	}
}

// WithOwner names this scheduler in the ledger's records ("billing-7f9c").
// Defaults to "hostname:pid"; an empty owner is ignored, as if not
// given.
func WithOwner(owner string) SchedulerOption {
	return func(cfg *schedulerConfig) {
		if owner != "" {
			cfg.owner = owner
		}
	}
}

// WithDrainTimeout sets how long Run waits, after its context is cancelled,
// for jobs that are still running. When it expires their contexts are
// cancelled, heartbeats stop (so their leases lapse and the periods become
// abandoned) and Run returns ErrDrainTimeout. Defaults to 30 s; a negative
// value means do not wait at all.
func WithDrainTimeout(d time.Duration) SchedulerOption {
	return func(cfg *schedulerConfig) { cfg.drainTimeout = d }
}

// WithWakeInterval caps how long the scheduler sleeps before it reads the
// clock again. Go timers run on the monotonic clock, which stops while a VM
// is suspended; waking at least this often lets the scheduler notice a
// resumed VM or a stepped wall clock. Defaults to a minute; zero or
// negative means sleep until the next occurrence. Simulate ignores it: a
// fake clock does not drift.
func WithWakeInterval(d time.Duration) SchedulerOption {
	return func(cfg *schedulerConfig) { cfg.wakeInterval = d }
}

// WithObserver tells o about everything the Scheduler does with each
// period (see Observer and event.Type for what is emitted where). Several
// WithObserver options all observe, in the order given; a nil Observer is
// ignored (the pattern "obs is set only when metrics are on"). A typed
// nil (a nil pointer whose type implements Observer) would panic on the
// scheduler's goroutines: Add, Update and Run return an *ArgError
// wrapping ErrInvalidArgument instead. Defaults to none.
func WithObserver(o Observer) SchedulerOption {
	return func(cfg *schedulerConfig) {
		switch {
		case o == nil:
		case isNilValue(o):
			cfg.fail(&ArgError{Func: "WithObserver", Arg: "o", Err: fmt.Errorf("%w (%T)", errNilObserver, o)})
		default:
			cfg.observers = append(cfg.observers, o)
		}
	}
}

// JobOption configures one job in Scheduler.Add and Scheduler.Update. A
// nil JobOption is ignored.
type JobOption func(*jobConfig)

type jobConfig struct {
	catchUp      CatchUpPolicy
	overlap      Overlap
	timeout      time.Duration
	retry        RetryPolicy
	retryBackoff time.Duration
	lease        time.Duration
	heartbeat    time.Duration
	misfire      time.Duration
	runDateLoc   *time.Location
	scheduleLoc  *time.Location
	jitter       time.Duration
	bounds       *bounds // WithBounds; nil: none
	maxRuns      int
	pauseAfter   int           // WithPauseOnFailure; 0: never
	deadline     time.Duration // WithDeadline; 0: deadlineFactor x misfire
	recovery     time.Duration // WithRecoveryWindow; 0: recoveryWindow's default
	takeOver     bool          // WithTakeOver, or set by Update
	err          error         // the first bad option, returned by Add
}

// DefaultMisfireThreshold is how late a run may start and still count as on
// time, unless WithMisfireThreshold says otherwise.
const DefaultMisfireThreshold = time.Minute

// WithCatchUp sets what the job does with periods it missed while the
// scheduler was down, suspended or stalled. Defaults to CatchUpLatest{}
// (without the option). The policy decides whether a missed period runs
// late or never, so it is never guessed: a nil policy, or one that is not
// CatchUpLatest{}, CatchUpAll{...} or CatchUpSkip{} by value (a
// *CatchUpAll would otherwise be read as CatchUpLatest), makes Add return
// a *JobError wrapping an *ArgError wrapping ErrInvalidArgument.
func WithCatchUp(p CatchUpPolicy) JobOption {
	return func(c *jobConfig) {
		switch p.(type) {
		case CatchUpLatest, CatchUpAll, CatchUpSkip:
			c.catchUp = p
		case nil:
			c.fail(&ArgError{Func: "WithCatchUp", Arg: "p", Err: errNilPolicy})
		default:
			c.fail(&ArgError{Func: "WithCatchUp", Arg: "p", Err: fmt.Errorf("%w: %T: want CatchUpLatest{}, CatchUpAll{...} or CatchUpSkip{}", errUnknownPolicy, p)})
		}
	}
}

// WithOverlap sets what happens when a period comes due while the job's
// previous run is still going. Defaults to OverlapSkip. A value out of
// range makes Add return a *JobError wrapping ErrInvalidArgument.
func WithOverlap(o Overlap) JobOption {
	return func(c *jobConfig) { c.overlap = o }
}

// WithTimeout cancels the job's context after d (on the scheduler's clock).
// The run then finishes as failed unless the job returns nil anyway.
// Defaults to no timeout; zero or negative means none.
func WithTimeout(d time.Duration) JobOption {
	return func(c *jobConfig) { c.timeout = d }
}

// WithRetry lets a failed run be retried: after backoff the scheduler claims
// the period again (a takeover with a new fencing token) while
// p.MaxAttempts allows, and p is passed to the ledger so a failed or
// abandoned period may be taken over. Defaults to no retry, which is what a
// money-moving job wants unless it is idempotent end to end. A zero or
// negative backoff retries at once. A policy that could never retry is
// refused rather than ignored (Add returns a *JobError wrapping an
// *ArgError wrapping ErrInvalidArgument): Failed or Abandoned with a
// MaxAttempts below 2 (it counts the first attempt), a MaxAttempts above 1
// with neither, a negative MaxAttempts, and a positive backoff without
// Failed (the backoff paces retries of failed runs only). The zero
// RetryPolicy with no backoff is the explicit "no retry".
func WithRetry(p RetryPolicy, backoff time.Duration) JobOption {
	return func(c *jobConfig) {
		c.retry = p
		c.retryBackoff = backoff
	}
}

// WithLease sets the claim's lease and how often a running job heartbeats.
// Defaults to DefaultLease and a third of the lease: a lease that is zero
// or negative means DefaultLease, a heartbeat that is zero or negative
// lease/3. A heartbeat not shorter than the lease would let the claim
// lapse between heartbeats: Add returns a *JobError wrapping an *ArgError
// wrapping ErrInvalidArgument.
func WithLease(lease, heartbeat time.Duration) JobOption {
	return func(c *jobConfig) {
		c.lease = lease
		c.heartbeat = heartbeat
	}
}

// WithMisfireThreshold sets how late a run may start and still count as on
// time (Quartz's misfire threshold). Later periods are handled by the
// catch-up policy. Defaults to DefaultMisfireThreshold; a negative d
// means zero: only a run that starts at its due instant is on time.
func WithMisfireThreshold(d time.Duration) JobOption {
	return func(c *jobConfig) { c.misfire = d }
}

// WithDeadline sets how long after its due start a period may go without
// succeeding before the Scheduler says so: past due + d a period that has
// not succeeded (not claimed yet because the ledger is down or a previous
// run holds the job, still running or retrying, or claimed by a replica
// that has not finished it) is at risk, an event.AtRisk with the reason,
// shown by Describe (Description.AtRisk), while there is still time to
// act; a period the Scheduler then gives up on (skipped by catch-up, a
// pause or overlap, or failed with no retry left) is an event.Missed. The
// deadline is checked each time the scheduler wakes, so it is noticed up
// to WithWakeInterval late. Defaults to 5 times the misfire threshold
// (WithMisfireThreshold), and at least a minute: 5 minutes by default. A
// zero or negative d is refused by Add: a period is never at risk the
// instant it is due.
func WithDeadline(d time.Duration) JobOption {
	return func(c *jobConfig) {
		if d <= 0 {
			c.fail(&ArgError{Func: "WithDeadline", Arg: "d", Err: fmt.Errorf("%w: deadline %v: want a positive duration after the due start", errInvalidRange, d)})
			return
		}
		c.deadline = d
	}
}

// WithRunDateLocation sets the location in which Run.RunDate is derived:
// the civil date of the instant the run was due, in loc. By default, and
// when loc is the schedule's own zone, RunDate is the date of the scheduled
// wall reading instead, which differs only when a gap pushes a run past
// midnight (America/Nuuk, 2024-03-30 23:30 ran at 03-31 00:30 and is the
// 03-30 run). A nil loc is never a default: Add returns a *JobError
// wrapping ErrInvalidArgument.
func WithRunDateLocation(loc *time.Location) JobOption {
	return func(c *jobConfig) {
		if loc == nil {
			c.fail(&ArgError{Func: "WithRunDateLocation", Arg: "loc", Err: errNilLocation})
		}
		c.runDateLoc = loc
	}
}

// WithScheduleLocation sets the location in which the instants of a plain
// Schedule (one without NextOccurrence, such as a robfig/cron schedule)
// are read to key their periods and derive their run dates. Without it they
// are read in the location the schedule returns them in, and robfig/cron
// returns them in the location of its argument, UTC here: its two 01:30s
// of a Chicago fold would then be two periods. Always set it for a plain
// schedule with a zone. It is ignored for an OccurrenceSchedule (a *Cron),
// which keys its own periods in its own zone. A nil loc is never a
// default: Add returns a *JobError wrapping ErrInvalidArgument.
func WithScheduleLocation(loc *time.Location) JobOption {
	return func(c *jobConfig) {
		if loc == nil {
			c.fail(&ArgError{Func: "WithScheduleLocation", Arg: "loc", Err: errNilLocation})
		}
		c.scheduleLoc = loc
	}
}

// WithBounds limits the job to the periods due from start to end, both
// included: no period due before start or after end runs, is caught up or
// is recorded, and RunNow and Backfill refuse or pass over them. A zero
// start or end leaves that side open. The bounds compare the instant the
// schedule's fold and gap policies give a period (Occurrence.At), never
// its wall reading: a start of 2024-11-03 07:00Z (01:00 CST, the instant
// the Chicago clocks went back) keeps the second 01:30 of a FoldBoth job
// (01:30 CST) and drops the first (01:30 CDT, 06:30Z); an end of 03:00 CDT
// on 2024-03-10 drops a 02:30 job's run that the gap shifted to 03:30 CDT.
// After end the job has nothing left to run (Describe lists no next
// occurrence). An end before start is an *ArgError wrapping
// ErrInvalidArgument.
func WithBounds(start, end time.Time) JobOption {
	return func(c *jobConfig) {
		if !start.IsZero() && !end.IsZero() && end.Before(start) {
			c.fail(&ArgError{Func: "WithBounds", Arg: "end", Err: fmt.Errorf("%w: end %s before start %s",
				errInvalidRange, end.Format(time.RFC3339), start.Format(time.RFC3339))})
			return
		}
		c.bounds = &bounds{start, end}
		if start.IsZero() && end.IsZero() {
			c.bounds = nil
		}
	}
}

// bounds are WithBounds' instants; a zero one is open. A pointer in
// jobConfig, which every job has: most jobs have none.
type bounds struct{ start, end time.Time }

// startOf and endOf are the bounds of c, zero when open.
func (c *jobConfig) startOf() time.Time {
	if c.bounds == nil {
		return time.Time{}
	}
	return c.bounds.start
}

func (c *jobConfig) endOf() time.Time {
	if c.bounds == nil {
		return time.Time{}
	}
	return c.bounds.end
}

// fail keeps the first bad option's error for Add.
func (c *jobConfig) fail(err error) {
	if c.err == nil {
		c.err = err
	}
}

// Overlap says what happens when a period comes due while the same job's
// previous run has not finished. Runs of one job started by Backfill or
// RunNow are not counted: the ledger keeps two runs of one period apart,
// the overlap policy only keeps runs of different periods apart.
type Overlap uint8

const (
	// OverlapSkip records the new period as skipped. The default.
	OverlapSkip Overlap = iota
	// OverlapQueue runs the new period after the running one finishes;
	// any number may wait, and they run oldest first.
	OverlapQueue
	// OverlapAllow runs the new period at once, concurrently.
	OverlapAllow
	// OverlapCancelRunning cancels the running period's context (its
	// cause is ErrOverlapCancelled, and it is recorded failed unless it
	// returns nil anyway, never retried), waits for it to return, then
	// runs the new period. A period still waiting when a newer one comes
	// due is recorded as skipped: the newest period wins.
	OverlapCancelRunning
	// OverlapBufferOne lets one period wait for the running one, as
	// Temporal's BufferOne does: it runs when the running one finishes. A
	// period that comes due while one is already waiting is recorded as
	// skipped.
	OverlapBufferOne
)

// String returns "skip", "queue", "allow", "cancel-running" or
// "buffer-one".
func (o Overlap) String() string {
	switch o {
	case OverlapSkip:
		return "skip"
	case OverlapQueue:
		return "queue"
	case OverlapAllow:
		return "allow"
	case OverlapCancelRunning:
		return "cancel-running"
	case OverlapBufferOne:
		return "buffer-one"
	}
	return "invalid"
}

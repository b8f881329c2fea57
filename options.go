package dstsafe

import (
	"log/slog"
	"time"
)

// SchedulerOption configures NewScheduler.
type SchedulerOption func(*schedulerConfig)

type schedulerConfig struct {
	clock        Clock
	ledger       Ledger
	logger       *slog.Logger
	owner        string
	drainTimeout time.Duration
	wakeInterval time.Duration
}

// DefaultDrainTimeout is how long Run waits for in-flight jobs after its
// context is cancelled, unless WithDrainTimeout says otherwise.
const DefaultDrainTimeout = 30 * time.Second

// DefaultWakeInterval is the longest a Scheduler sleeps without looking at
// the clock again, unless WithWakeInterval says otherwise.
const DefaultWakeInterval = time.Minute

// WithClock sets the Scheduler's clock. Defaults to RealClock(). Pass a
// *clockwork.FakeClock to drive the scheduler in tests (see Simulate).
// A nil clock keeps the default.
func WithClock(c Clock) SchedulerOption {
	return func(cfg *schedulerConfig) {
		if c != nil {
			cfg.clock = c
		}
	}
}

// WithLedger sets the ledger runs are claimed in. Defaults to a new
// MemoryLedger on the scheduler's clock, which only guards one process:
// services that restart or run replicas need a shared, durable ledger
// (sqlledger, redisledger). A nil ledger keeps the default.
func WithLedger(l Ledger) SchedulerOption {
	return func(cfg *schedulerConfig) {
		if l != nil {
			cfg.ledger = l
		}
	}
}

// WithLogger sets the structured logger. Defaults to slog.Default().
// A nil logger keeps the default; use slog.New(slog.DiscardHandler) for none.
func WithLogger(l *slog.Logger) SchedulerOption {
	return func(cfg *schedulerConfig) {
		if l != nil {
			cfg.logger = l
		}
	}
}

// WithOwner names this scheduler in the ledger's records ("billing-7f9c").
// Defaults to "hostname:pid". An empty owner keeps the default.
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
// abandoned) and Run returns ErrDrainTimeout. Defaults to DefaultDrainTimeout;
// a negative value means do not wait at all.
func WithDrainTimeout(d time.Duration) SchedulerOption {
	return func(cfg *schedulerConfig) { cfg.drainTimeout = d }
}

// WithWakeInterval caps how long the scheduler sleeps before it reads the
// clock again. Go timers run on the monotonic clock, which stops while a VM
// is suspended; waking at least this often lets the scheduler notice a
// resumed VM or a stepped wall clock. Defaults to DefaultWakeInterval; zero
// or negative means sleep until the next occurrence. Simulate ignores it: a
// fake clock does not drift.
func WithWakeInterval(d time.Duration) SchedulerOption {
	return func(cfg *schedulerConfig) { cfg.wakeInterval = d }
}

// JobOption configures one job in Scheduler.Add.
type JobOption func(*jobConfig)

type jobConfig struct {
	periodKey    *PeriodKey
	fold         *FoldPolicy
	gap          *GapPolicy
	catchUp      CatchUpPolicy
	overlap      Overlap
	timeout      time.Duration
	retry        RetryPolicy
	retryBackoff time.Duration
	lease        time.Duration
	heartbeat    time.Duration
	misfire      time.Duration
	runDateZone  *time.Location
	scheduleZone *time.Location
}

// DefaultMisfireThreshold is how late a run may start and still count as on
// time, unless WithMisfireThreshold says otherwise.
const DefaultMisfireThreshold = time.Minute

// WithJobPeriodKey sets how runs are keyed in the ledger: ByWall (one run per
// scheduled wall reading, the default) or ByDate (one run per civil date of
// the scheduled reading, whatever the schedule says). For a *Cron it
// overrides the key the cron was parsed with.
func WithJobPeriodKey(k PeriodKey) JobOption {
	return func(c *jobConfig) { c.periodKey = &k }
}

// WithJobFold overrides the fold policy of a *Cron schedule for this
// job. Add fails with ErrUnsupportedOption for other schedules.
func WithJobFold(p FoldPolicy) JobOption {
	return func(c *jobConfig) { c.fold = &p }
}

// WithJobGap overrides the gap policy of a *Cron schedule for this job.
// Add fails with ErrUnsupportedOption for other schedules.
func WithJobGap(p GapPolicy) JobOption {
	return func(c *jobConfig) { c.gap = &p }
}

// WithCatchUp sets what the job does with periods it missed while the
// scheduler was down, suspended or stalled. Defaults to CatchUpLatest{}.
// A nil policy keeps the default.
func WithCatchUp(p CatchUpPolicy) JobOption {
	return func(c *jobConfig) {
		if p != nil {
			c.catchUp = p
		}
	}
}

// WithOverlap sets what happens when a period comes due while the job's
// previous run is still going. Defaults to OverlapSkip.
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
// money-moving job wants unless it is idempotent end to end.
func WithRetry(p RetryPolicy, backoff time.Duration) JobOption {
	return func(c *jobConfig) {
		c.retry = p
		c.retryBackoff = backoff
	}
}

// WithLease sets the claim's lease and how often a running job heartbeats.
// Defaults to DefaultLease and a third of the lease. A heartbeat that is
// zero, negative or not shorter than the lease is replaced by lease/3.
func WithLease(lease, heartbeat time.Duration) JobOption {
	return func(c *jobConfig) {
		c.lease = lease
		c.heartbeat = heartbeat
	}
}

// WithMisfireThreshold sets how late a run may start and still count as on
// time (Quartz's misfire threshold). Later periods are handled by the
// catch-up policy. Defaults to DefaultMisfireThreshold.
func WithMisfireThreshold(d time.Duration) JobOption {
	return func(c *jobConfig) { c.misfire = d }
}

// WithRunDateZone sets the zone in which Run.RunDate is derived: the civil
// date of the instant the run was due, in loc. By default, and when loc is
// the schedule's own zone, RunDate is the date of the scheduled wall
// reading instead, which differs only when a gap pushes a run past
// midnight (America/Nuuk, 2024-03-30 23:30 ran at 03-31 00:30 and is the
// 03-30 run). It panics if loc is nil.
func WithRunDateZone(loc *time.Location) JobOption {
	if loc == nil {
		panic("dstsafe: WithRunDateZone with nil location")
	}
	return func(c *jobConfig) { c.runDateZone = loc }
}

// WithScheduleZone sets the zone in which the instants of a plain Schedule
// (one that is not an OccurrenceSchedule, such as a robfig/cron schedule)
// are read to key their periods and derive their run dates. Without it they
// are read in the location the schedule returns them in, and robfig/cron
// returns them in the location of its argument, UTC here: its two 01:30s
// of a Chicago fold would then be two periods. Always set it for a plain
// schedule with a zone. It is ignored for an OccurrenceSchedule, which keys
// its own periods. It panics if loc is nil.
func WithScheduleZone(loc *time.Location) JobOption {
	if loc == nil {
		panic("dstsafe: WithScheduleZone with nil location")
	}
	return func(c *jobConfig) { c.scheduleZone = loc }
}

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

// Overlap says what happens when a period comes due while the same job's
// previous run has not finished.
type Overlap uint8

const (
	// OverlapSkip records the new period as skipped. The default.
	OverlapSkip Overlap = iota
	// OverlapQueue runs the new period after the running one finishes.
	OverlapQueue
	// OverlapAllow runs the new period at once, concurrently.
	OverlapAllow
)

// String returns "skip", "queue" or "allow".
func (o Overlap) String() string {
	switch o {
	case OverlapSkip:
		return "skip"
	case OverlapQueue:
		return "queue"
	case OverlapAllow:
		return "allow"
	}
	return "invalid"
}

package dstsaferiver

import (
	"context"
	"log/slog"
	"reflect"
	"sync"
	"time"

	"github.com/riverqueue/river"

	"github.com/dstsafe/dstsafe"
)

// Options configures NewPeriodicJob. A nil *Options is the zero value.
type Options struct {
	// Name is the job's name in the ledger and in the unique key of its
	// river jobs. Defaults to the Kind of the args type.
	Name string
	// Ledger is the ledger the job's workers claim periods in (NewWorker,
	// NewTxWorker): a new leader reads it to find the periods nobody
	// enqueued while no client led. It may be nil only with
	// dstsafe.CatchUpSkip{}.
	Ledger dstsafe.Ledger
	// CatchUp says which periods a client that becomes leader enqueues
	// late: dstsafe.CatchUpLatest{} (the default), dstsafe.CatchUpAll{Window,
	// Max} or dstsafe.CatchUpSkip{}. See NewPeriodicJob.
	CatchUp dstsafe.CatchUpPolicy
	// MisfireThreshold is how late a period may be at a leader's start and
	// still count as on time: enqueued whatever the catch-up policy.
	// Defaults to dstsafe.DefaultMisfireThreshold (one minute).
	MisfireThreshold time.Duration
	// Logger receives one line per leader start that enqueues periods late
	// ("catch-up") and the ledger errors that stop a catch-up. Defaults to
	// slog.Default().
	Logger *slog.Logger
}

// never is the instant river's own NeverSchedule returns: no next run.
var never = time.Unix(1<<63-62135596801, 999999999)

// NewPeriodicJob returns a river periodic job that inserts one job per
// occurrence of schedule, built by constructor for that occurrence, so each
// job carries its logical period: its args get a Period (PeriodOf) under
// ArgsKey, and the job is unique by (kind, Options.Name, period) in every
// job state for as long as its row lives in river_job. Uniqueness is by
// args, not by river's UniqueOpts.ByPeriod window (which is aligned to UTC,
// not to the schedule's zone: river#827), so a restart, a new leader or two
// clients never insert one period twice. The job is scheduled at the
// occurrence's instant (InsertOpts.ScheduledAt, unless the constructor sets
// it); UniqueOpts from the constructor are replaced.
//
// The occurrences are the schedule's, with its DST behaviour: with
// dstsafe.ParseCron, a fixed-time job fires once in a fold (its first
// reading) and once in a gap (shifted forward, Period still the scheduled
// wall reading); a periodic job fires at both readings of a fold, under two
// periods ("...T01:30:00" and "...T01:30:00;fold=1"), and not in a gap.
//
// When a client becomes leader, river asks the schedule for the first run
// after its "now"; NewPeriodicJob answers with the periods that came due
// while nobody enqueued, read from Options.Ledger, by Options.CatchUp.
// Missed are the periods due after the latest one in the ledger:
//
//   - on time (due at most MisfireThreshold before now): always enqueued;
//   - CatchUpLatest: also the most recent late one, if none is on time;
//   - CatchUpAll{Window, Max}: every late one due within Window of now,
//     the most recent Max of them (0: no limit);
//   - CatchUpSkip: no late one.
//
// River inserts them at once, oldest first, then follows the schedule. A
// period already in the ledger is never enqueued again; one still waiting
// in river's queue is refused as a duplicate. A job with no record in the
// ledger at all (looked for up to about 400 days back) is new and catches
// up nothing late. Periods left out get no ledger record (a river job may
// still hold them; recording them skipped could cancel queued work). The
// catch-up reads the ledger in river's periodic job enqueuer, once per
// leader start.
//
// Add the returned job to one client (Config.PeriodicJobs or
// Client.PeriodicJobs().Add) and build another for each other client: it
// remembers which occurrence river asked for last. schedule is usually a
// *dstsafe.Cron; it panics if schedule or constructor is nil, or if
// Options.Ledger is nil with a catch-up policy other than CatchUpSkip.
func NewPeriodicJob[T river.JobArgs](schedule dstsafe.OccurrenceSchedule, constructor func(dstsafe.Occurrence) (T, *river.InsertOpts), opts *Options) *river.PeriodicJob {
	p := newPeriodic(schedule, constructor, opts)
	return river.NewPeriodicJob(p, p.construct, nil)
}

// periodic is the state NewPeriodicJob shares between river's calls to the
// schedule (Next) and to the constructor: river calls the constructor for
// the instant Next returned last, then Next with that instant.
type periodic[T river.JobArgs] struct {
	sched   dstsafe.OccurrenceSchedule
	build   func(dstsafe.Occurrence) (T, *river.InsertOpts)
	name    string
	ledger  dstsafe.Ledger
	catchUp dstsafe.CatchUpPolicy
	misfire time.Duration
	log     *slog.Logger

	mu      sync.Mutex
	cur     dstsafe.Occurrence // the occurrence whose instant Next returned last
	hasCur  bool
	backlog []dstsafe.Occurrence // catch-up still to hand to river, oldest first
	resume  time.Time            // after the backlog, follow the schedule from here
}

func newPeriodic[T river.JobArgs](schedule dstsafe.OccurrenceSchedule, constructor func(dstsafe.Occurrence) (T, *river.InsertOpts), opts *Options) *periodic[T] {
	if schedule == nil || reflect.ValueOf(schedule).Kind() == reflect.Pointer && reflect.ValueOf(schedule).IsNil() {
		panic("dstsaferiver: NewPeriodicJob with nil schedule")
	}
	if constructor == nil {
		panic("dstsaferiver: NewPeriodicJob with nil constructor")
	}
	var o Options
	if opts != nil {
		o = *opts
	}
	if o.Name == "" {
		var zero T
		o.Name = zero.Kind()
	}
	if o.CatchUp == nil {
		o.CatchUp = dstsafe.CatchUpLatest{}
	}
	if _, skip := o.CatchUp.(dstsafe.CatchUpSkip); o.Ledger == nil && !skip {
		panic("dstsaferiver: NewPeriodicJob: Options.Ledger is required to catch up (or set CatchUp: dstsafe.CatchUpSkip{})")
	}
	if o.MisfireThreshold <= 0 {
		o.MisfireThreshold = dstsafe.DefaultMisfireThreshold
	}
	if o.Logger == nil {
		o.Logger = slog.Default()
	}
	return &periodic[T]{
		sched: schedule, build: constructor, name: o.Name, ledger: o.Ledger,
		catchUp: o.CatchUp, misfire: o.MisfireThreshold, log: o.Logger,
	}
}

// Next implements river.PeriodicSchedule. Called with the instant it
// returned last, it returns the next occurrence (or the next catch-up
// period). Called with anything else, it is river's enqueuer starting on a
// new leader at time t: it plans the catch-up from the ledger.
func (p *periodic[T]) Next(t time.Time) time.Time {
	p.mu.Lock()
	defer p.mu.Unlock()
	if !p.hasCur || !t.Equal(p.cur.At) {
		p.backlog = p.plan(context.Background(), t)
		p.resume = t
	}
	if len(p.backlog) > 0 {
		p.cur, p.hasCur = p.backlog[0], true
		p.backlog = p.backlog[1:]
		return p.cur.At
	}
	after := t
	if after.Before(p.resume) {
		after = p.resume
	}
	o, ok := p.sched.NextOccurrence(after)
	if !ok {
		p.hasCur = false
		return never
	}
	p.cur, p.hasCur = o, true
	return o.At
}

// construct is the river.PeriodicJobConstructor: the job for the
// occurrence Next returned last.
func (p *periodic[T]) construct() (river.JobArgs, *river.InsertOpts) {
	p.mu.Lock()
	o, ok := p.cur, p.hasCur
	p.mu.Unlock()
	if !ok {
		return nil, nil
	}
	args, opts := p.build(o)
	if v := reflect.ValueOf(args); !v.IsValid() || v.Kind() == reflect.Pointer && v.IsNil() {
		return nil, nil // the constructor inserts nothing for this period
	}
	return ForPeriod(p.name, o, args, opts)
}

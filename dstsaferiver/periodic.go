package dstsaferiver

import (
	"context"
	"log/slog"
	"reflect"
	"slices"
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
	// MisfireThreshold is how late a period may be and still count as on
	// time: it is the recovery window. A leader enqueues every period due
	// within it that has no record in the ledger, at its start and on
	// every pass, whatever the catch-up policy and wherever the latest
	// record is, so an outage or a dead leader up to this long loses no
	// period. Defaults to dstsafe.DefaultMisfireThreshold (one minute).
	MisfireThreshold time.Duration
	// RecheckAfter is the leader's pass interval: while a period of the
	// recovery window has no record, the leader lists the window in the
	// ledger every RecheckAfter and enqueues again the periods due at
	// least RecheckAfter before that are still without one (see
	// NewPeriodicJob: an insert lost to a database outage). Defaults to 10
	// seconds.
	RecheckAfter time.Duration
	// Logger receives one line per leader start that enqueues periods late
	// ("catch-up"), one per pass that enqueues periods again, and the
	// ledger errors that stop either. Defaults to slog.Default().
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
// clients never insert one period twice. River constructs a period at its
// due instant and inserts it available (not scheduled: only the leader's
// scheduler makes scheduled jobs available, and a leader killed just
// after the insert would hold the period until the next leader, 15 s or
// more), fetched by any client's producer from the due instant on, unless
// the constructor sets InsertOpts.ScheduledAt; UniqueOpts from the
// constructor are replaced.
//
// The occurrences are the schedule's, with its DST behaviour: with
// dstsafe.ParseCron, a fixed-time job fires once in a fold (its first
// reading) and once in a gap (shifted forward, Period still the scheduled
// wall reading); a periodic job fires at both readings of a fold, under two
// periods ("...T01:30:00" and "...T01:30:00;fold=1"), and not in a gap.
//
// The leader reconciles rather than remembers. When a client becomes
// leader, river asks the schedule for the first run after its "now";
// NewPeriodicJob lists the job's records in Options.Ledger and answers
// with the periods to enqueue first, oldest first:
//
//   - on time (due at most MisfireThreshold before now, the recovery
//     window) and without a record: always, wherever the latest record
//     is (an outage can leave a gap behind a period another client's
//     InsertDue inserted and ran);
//   - late and after the latest record, by Options.CatchUp:
//     CatchUpLatest the most recent one, if none is on time;
//     CatchUpAll{Window, Max} every one due within Window of now, the
//     most recent Max of them (0: no limit); CatchUpSkip none.
//
// While it leads, the leader passes over the periods since its start
// again every Options.RecheckAfter for as long as one of them has no
// record (waking river's enqueuer for it if no period is due sooner):
// one ledger List per pass, and each period without a record, due at
// least RecheckAfter before, is enqueued again (river's enqueuer drops a
// period whose insert fails, PostgreSQL down: "Error starting
// transaction"), on time always, late as the catch-up policy allows, each
// at most 3 times; one still waiting in river's queue is a refused
// duplicate. A period the policy leaves out is logged at ERROR with its
// period key. While the ledger cannot be read the pass waits and tries
// again. So a database outage of any length up to MisfireThreshold (or,
// with CatchUpAll, Window) loses no period, whether or not the leader
// changes during it; measured in TestPostgresOutage and docs/river.md.
//
// A period already in the ledger is never enqueued again. A job with no
// record in the ledger at all (looked for up to about 400 days back) is
// new and catches up nothing late. Periods left out get no ledger record
// (a river job may still hold them; recording them skipped could cancel
// queued work).
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

	recheck time.Duration

	mu      sync.Mutex
	cur     dstsafe.Occurrence // the occurrence whose instant Next returned last
	hasCur  bool
	probe   bool                 // cur is a reconcile wake-up, not a period (constructs nothing)
	backlog []dstsafe.Occurrence // catch-up or reconcile still to hand to river, oldest first
	resume  time.Time            // after the backlog, follow the schedule from here
	latest  time.Time            // the latest instant Next was called with: about now
	pass    time.Time            // the leader's last reconcile pass (or start)
	open    bool                 // a period after floor may still lack a record: pass again
	floor   time.Time            // every period due at or before it is settled for the passes
	offers  map[string]int       // times a pass handed a period to river
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
	if o.RecheckAfter <= 0 {
		o.RecheckAfter = 10 * time.Second
	}
	return &periodic[T]{
		sched: schedule, build: constructor, name: o.Name, ledger: o.Ledger,
		catchUp: o.CatchUp, misfire: o.MisfireThreshold, log: o.Logger, recheck: o.RecheckAfter,
		offers: map[string]int{},
	}
}

// Next implements river.PeriodicSchedule. Called with the instant it
// returned last, it returns the next occurrence (or the next catch-up
// period, or a period of the recovery window enqueued again, or a
// reconcile wake-up). Called with anything else, it is river's enqueuer
// starting on a new leader at time t: it plans the catch-up from the
// ledger.
func (p *periodic[T]) Next(t time.Time) time.Time {
	p.mu.Lock()
	defer p.mu.Unlock()
	if t.After(p.latest) {
		p.latest = t
	}
	if !p.hasCur || !t.Equal(p.cur.At) {
		p.backlog = p.plan(context.Background(), t)
		p.resume = t
		p.pass, p.open, p.floor = t, true, t.Add(-p.misfire)
		if len(p.backlog) > 0 {
			p.floor = minTime(p.floor, p.backlog[0].At.Add(-time.Nanosecond))
		}
		clear(p.offers)
	}
	if len(p.backlog) == 0 && p.ledger != nil && p.open && !p.latest.Before(p.pass.Add(p.recheck)) {
		p.backlog = p.reconcile(context.Background(), p.latest)
		p.pass = p.latest
	}
	if len(p.backlog) > 0 {
		p.handOut(p.backlog[0])
		p.backlog = p.backlog[1:]
		return p.cur.At
	}
	after := t
	if after.Before(p.resume) {
		after = p.resume
	}
	o, ok := p.sched.NextOccurrence(after)
	if p.ledger != nil && p.open {
		if wake := p.pass.Add(p.recheck); !ok || wake.Before(o.At) {
			// Nothing is due before the next pass: wake river's enqueuer
			// for it. The wake-up constructs no job.
			if wake.Before(p.latest) {
				wake = p.latest
			}
			p.cur, p.hasCur, p.probe = dstsafe.Occurrence{At: wake}, true, true
			p.resume = after
			return wake
		}
	}
	if !ok {
		p.hasCur = false
		return never
	}
	p.resume = after
	p.handOut(o)
	return o.At
}

// handOut makes o the occurrence river constructs next; the next pass
// looks for its record.
func (p *periodic[T]) handOut(o dstsafe.Occurrence) {
	p.cur, p.hasCur, p.probe = o, true, false
	p.open = true
}

// maxOffers bounds the times a pass hands one period to river: a period
// still without a record after that is queued (a refused duplicate: its
// worker fails and river retries it) or held by a job that will not run,
// and the passes stop looking at it.
const maxOffers = 3

// reconcile is the leader's pass (see NewPeriodicJob): it lists the job's
// records of the periods due after the floor (the oldest period the
// leader has not seen recorded, or the start of the recovery window at its
// start) and returns, oldest first, those without a record that are due
// at least RecheckAfter before now, on time (due at most MisfireThreshold
// before now) or late as the catch-up policy allows; river's unique insert
// refuses any still waiting in its queue. The floor moves past every
// period recorded, left out by the policy or offered maxOffers times, so
// the leader passes again (every RecheckAfter) only while a period is
// open. A ledger error leaves the floor: the next pass tries again.
func (p *periodic[T]) reconcile(ctx context.Context, now time.Time) []dstsafe.Occurrence {
	var window []dstsafe.Occurrence
	for o, ok := p.sched.NextOccurrence(p.floor); ok && !o.At.After(now); o, ok = p.sched.NextOccurrence(o.At) {
		if len(window) == maxCatchUp {
			window = append(window[:0], window[maxCatchUp/2:]...)
		}
		window = append(window, o)
	}
	if len(window) == 0 {
		p.open = false
		return nil
	}
	from := window[0].Period
	for _, o := range window {
		from = min(from, o.Period) // the second reading of a fold sorts before later first readings
	}
	recs, err := p.ledger.List(ctx, p.name, from, "")
	if err != nil {
		p.log.Warn("dstsaferiver reconcile: ledger list failed, trying again later", "job", p.name, "error", err)
		return nil
	}
	recorded := make(map[string]bool, len(recs))
	for _, r := range recs {
		recorded[r.Period] = true
	}
	onTimeFrom, settled := now.Add(-p.misfire), now.Add(-p.recheck)
	var late, onTime []dstsafe.Occurrence
	for _, o := range window {
		switch {
		case recorded[o.Period]:
			delete(p.offers, o.Period)
		case o.At.After(onTimeFrom):
			onTime = append(onTime, o)
		default:
			late = append(late, o)
		}
	}
	var run []dstsafe.Occurrence
	switch c := p.catchUp.(type) {
	case dstsafe.CatchUpAll:
		for _, o := range late {
			if !o.At.Before(now.Add(-c.Window)) {
				run = append(run, o)
			}
		}
	case dstsafe.CatchUpSkip:
	default: // CatchUpLatest: the latest, when none is on time
		if len(onTime) == 0 && len(late) > 0 {
			run = late[len(late)-1:]
		}
	}
	for _, o := range late {
		if !slices.ContainsFunc(run, func(r dstsafe.Occurrence) bool { return r.Period == o.Period }) {
			p.log.Error("dstsaferiver period not enqueued: late without a record and the catch-up policy leaves it out", "job", p.name,
				"period", o.Period, "due", o.At)
		}
	}
	for _, o := range onTime {
		if !o.At.After(settled) {
			run = append(run, o)
		}
	}
	// Hand each at most maxOffers times; the floor stays before the
	// oldest period still open.
	again := run[:0]
	p.floor = now
	for _, o := range run {
		p.offers[o.Period]++
		if p.offers[o.Period] > maxOffers {
			p.log.Info("dstsaferiver reconcile: period still without a record, assumed queued", "job", p.name, "period", o.Period, "offers", maxOffers)
			delete(p.offers, o.Period)
			continue
		}
		again = append(again, o)
		p.floor = minTime(p.floor, o.At.Add(-time.Nanosecond))
	}
	for _, o := range onTime {
		if o.At.After(settled) {
			p.floor = minTime(p.floor, o.At.Add(-time.Nanosecond))
		}
	}
	p.open = len(again) > 0 || p.floor.Before(now)
	if len(again) > 0 {
		p.log.Warn("dstsaferiver reconcile: periods without a record enqueued again", "job", p.name, "periods", len(again),
			"first", again[0].Period, "last", again[len(again)-1].Period)
	}
	return again
}

func minTime(a, b time.Time) time.Time {
	if b.Before(a) {
		return b
	}
	return a
}

// construct is the river.PeriodicJobConstructor: the job for the
// occurrence Next returned last.
func (p *periodic[T]) construct() (river.JobArgs, *river.InsertOpts) {
	p.mu.Lock()
	o, ok := p.cur, p.hasCur && !p.probe
	p.mu.Unlock()
	if !ok {
		return nil, nil
	}
	args, opts := p.build(o)
	if v := reflect.ValueOf(args); !v.IsValid() || v.Kind() == reflect.Pointer && v.IsNil() {
		return nil, nil // the constructor inserts nothing for this period
	}
	set := opts != nil && !opts.ScheduledAt.IsZero()
	pa, pio := ForPeriod(p.name, o, args, opts)
	if !set {
		// River constructs a period when it is due (within 100 ms): with
		// no ScheduledAt the job is inserted available, fetched by any
		// client's producer from its due instant on (river's enqueuer
		// sets scheduled_at to the instant Next returned), instead of
		// scheduled, which only the leader's scheduler makes available:
		// a leader killed just after the insert would hold it until the
		// next leader's (river's 15 s leader lease).
		pio.ScheduledAt = time.Time{}
	}
	return pa, pio
}

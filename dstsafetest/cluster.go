package dstsafetest

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"log/slog"
	"math"
	"sync"
	"sync/atomic"
	"time"

	"github.com/jonboulle/clockwork"

	"github.com/dstsafe/dstsafe"
	"github.com/dstsafe/dstsafe/event"
	"github.com/dstsafe/dstsafe/internal/simlink"
)

// Cluster describes a simulated cluster for SimulateCluster: replicas of
// one service, each a real *dstsafe.Scheduler running the user's own jobs
// on its own fake clock, all on one shared ledger, crashed and restarted
// at chosen points. Time moves on fake clocks only; a run is deterministic
// for a given Cluster (the simulator advances time only when every
// replica's goroutines are idle, as Simulate does for one scheduler).
type Cluster struct {
	// Start is the true instant the simulation starts at: the store's
	// clock. Required.
	Start time.Time
	// Replicas lists the replicas, at least one. Replica i is named
	// "r<i>" in the ledger unless it has a Name.
	Replicas []ReplicaSpec
	// Setup registers the jobs on a replica, with Replica.Add: the same
	// registration code the service runs at startup. It is called for
	// each replica when the simulation starts and again at each restart.
	// Required.
	Setup func(r *Replica) error
	// Ledger builds the ledger every replica shares, given the store's
	// clock (the true time line). Nil: a MemoryLedger on that clock.
	// Replicas see only its Ledger methods, not a ControlLedger's: pauses
	// and WithMaxRuns are not simulated.
	Ledger func(store dstsafe.Clock) (dstsafe.Ledger, error)
	// Crashes kills replicas (and restarts them) at chosen points.
	Crashes []Crash
	// Settle is the margin at each end of the window within which a
	// period need not run (it must still not run twice): a replica whose
	// clock is behind starts after periods its peers see due, and one
	// ahead fires the last periods after the end. Zero: the largest clock
	// error of any replica over the window plus one dstsafe.DefaultLease.
	Settle time.Duration
}

// ReplicaSpec is one replica of a Cluster.
type ReplicaSpec struct {
	// Name is the replica's owner name in the ledger; "r<i>" when empty. A
	// restarted replica is "<name>#<n>", as a new process with a new pid.
	Name string
	// Offset is how far the replica's clock is ahead of true time at
	// Start (negative: behind).
	Offset time.Duration
	// DriftPPM is how fast the replica's clock runs, in parts per million
	// of true time: 50 gains 50 µs every true second (4.32 s a day).
	// Values at or below -1e6 are refused (a clock must move forward).
	DriftPPM float64
	// Zones loads the replica's zone data: two replicas with loaders of
	// different tz trees (ZoneLoader) compute a zone's instants from
	// different rules. Nil: the pinned tzdata 2025b files (Zone).
	Zones func(name string) (*time.Location, error)
	// Options are given to dstsafe.NewScheduler after the simulator's own
	// (clock, ledger, owner, a discarding logger and its observer).
	Options []dstsafe.SchedulerOption
}

// CrashPoint says where a Crash kills its replica.
type CrashPoint uint8

const (
	// CrashAtInstant kills the replica at the true instant Crash.At.
	CrashAtInstant CrashPoint = iota + 1
	// CrashAtFire kills it as it finds a period due (event.Due),
	// before it claims it.
	CrashAtFire
	// CrashAfterClaim kills it right after it claimed a period
	// (event.Claimed): before the job starts and before the first
	// heartbeat, so the claim is left running until its lease lapses.
	CrashAfterClaim
	// CrashMidRun kills it while the job runs: after the job's function
	// did its work, before the outcome is recorded.
	CrashMidRun
)

func (p CrashPoint) String() string {
	switch p {
	case CrashAtInstant:
		return "at-instant"
	case CrashAtFire:
		return "at-fire"
	case CrashAfterClaim:
		return "after-claim"
	case CrashMidRun:
		return "mid-run"
	}
	return fmt.Sprintf("CrashPoint(%d)", uint8(p))
}

// Crash kills a replica the way a process dies: its ledger calls fail
// from that moment on (no heartbeat, no Finish: its running claims lapse
// to abandoned after their lease, judged by the store's clock), its jobs
// do no more work, and its Run is cancelled. It fires once.
type Crash struct {
	Replica int
	Point   CrashPoint
	// At is the instant of CrashAtInstant. For the other points the
	// crash happens at the first such point at or after At (true time;
	// zero: from the start).
	At time.Time
	// Job and Period, when set, narrow the other points to that job and
	// period.
	Job, Period string
	// RestartAfter is how long after the crash (true time) the replica
	// starts again, as a new process on the same clock with the same
	// Setup; negative: it stays down.
	RestartAfter time.Duration
}

// ErrCrashed is what a crashed replica's ledger calls and jobs return. It
// wraps dstsafe.ErrPermanent, so the crashed Scheduler's Run stops.
var ErrCrashed = fmt.Errorf("dstsafetest: replica crashed: %w", dstsafe.ErrPermanent)

// ErrInvalidCluster: SimulateCluster was given no replica, no Setup, a
// zero Start, a negative duration, a drift at or below -1e6 ppm or a
// Crash naming no replica or no point.
var ErrInvalidCluster = errors.New("dstsafetest: invalid cluster")

// StuckError is SimulateCluster's error when replicas were still running
// after the simulation stopped them and stayed busy until its context
// ended (a job waiting on something no clock drives, ignoring its
// context): it names them (Members) and says where the cluster was stuck
// (At, true time; Busy goroutines; the Wakes its sleepers wait for). It
// wraps the context's error.
type StuckError = simlink.StuckError

// Replica is one running process of a simulated replica, handed to
// Cluster.Setup.
type Replica struct {
	// Index is the replica's place in Cluster.Replicas.
	Index int
	// Owner is its owner name in the ledger ("r0", "r0#1" after a restart).
	Owner string
	// Restarts counts its restarts: 0 for the first process.
	Restarts int

	sched  *dstsafe.Scheduler
	clock  *clockwork.FakeClock
	zones  func(string) (*time.Location, error)
	sim    *clusterRun
	handle simlink.Handle
	// ready is closed once handle is set: the scheduler starts inside
	// drv.Start, and a job it runs at once (a takeover on restart) may
	// Sleep, or its observer crash it, before Start has returned.
	ready chan struct{}
	dead  atomic.Bool
	// crashedAt is the true instant of the crash that killed this
	// process (guarded by sim.mu): an interrupted run ends there.
	crashedAt time.Time
}

// Scheduler returns the replica's scheduler (Describe, Pause, RunNow...).
// Add jobs with Replica.Add, so the simulator sees their runs.
func (r *Replica) Scheduler() *dstsafe.Scheduler { return r.sched }

// Clock returns the replica's own clock: true time plus its offset and
// drift.
func (r *Replica) Clock() dstsafe.Clock { return r.clock }

// LoadLocation loads zone name from the replica's zone data
// (ReplicaSpec.Zones).
func (r *Replica) LoadLocation(name string) (*time.Location, error) { return r.zones(name) }

// Add adds a job to the replica's scheduler, as Scheduler.Add does, with
// fn wrapped so that the simulator records each of its runs and a crashed
// replica's job does no work. The expected periods of the job are walked
// from sched (a dstsafe.OccurrenceSchedule; another Schedule's periods are
// not checked for loss).
func (r *Replica) Add(name string, sched dstsafe.Schedule, fn func(context.Context, dstsafe.Run) error, opts ...dstsafe.JobOption) error {
	if fn == nil {
		return r.sched.Add(name, sched, nil, opts...) // the scheduler's own error
	}
	wrapped := func(ctx context.Context, run dstsafe.Run) error {
		if r.dead.Load() {
			return ErrCrashed
		}
		started := r.clock.Now()
		err := fn(ctx, run)
		r.sim.ran(r, run, started, err)
		if r.dead.Load() {
			return ErrCrashed
		}
		return err
	}
	if err := r.sched.Add(name, sched, wrapped, opts...); err != nil {
		return err
	}
	r.sim.registered(r, name, sched)
	return nil
}

// Sleep is the job's work taking d on the replica's clock: call it from
// a job function. It returns ctx's error if ctx ends first, ErrCrashed if
// the replica crashes first, else nil.
func (r *Replica) Sleep(ctx context.Context, d time.Duration) error {
	<-r.ready
	slept := r.handle.Sleep(ctx, d)
	// A crash stops the replica's goroutines from counting as busy, so the
	// driver may move its clock past d before this one sees the stop: when
	// both happened, the crash came first (it is what woke us, or it
	// happened while we slept), whichever select picked.
	if r.dead.Load() {
		return ErrCrashed
	}
	if slept {
		return nil
	}
	if err := ctx.Err(); err != nil {
		return err
	}
	return ErrCrashed
}

// ZoneLoader returns a loader of zones from the tz tree fsys (files
// named as in the tz database, the layout of ZoneinfoFS and of
// /usr/share/zoneinfo), for ReplicaSpec.Zones. Each name is loaded once
// per loader: the loader's locations are its replicas' zone data.
func ZoneLoader(fsys fs.FS) func(name string) (*time.Location, error) {
	var mu sync.Mutex
	cache := map[string]*time.Location{}
	return func(name string) (*time.Location, error) {
		mu.Lock()
		defer mu.Unlock()
		if loc, ok := cache[name]; ok {
			return loc, nil
		}
		data, err := fs.ReadFile(fsys, name)
		if err != nil {
			return nil, fmt.Errorf("dstsafetest: zone %q: %w", name, err)
		}
		loc, err := time.LoadLocationFromTZData(name, data)
		if err != nil {
			return nil, fmt.Errorf("dstsafetest: zone %q: %w", name, err)
		}
		cache[name] = loc
		return loc, nil
	}
}

// pinnedZone loads from the pinned files, sharing Zone's locations.
func pinnedZone(name string) (*time.Location, error) {
	var e fatalErr
	loc := zone(&e, name)
	if e.err != nil {
		return nil, e.err
	}
	return loc, nil
}

type fatalErr struct{ err error }

func (*fatalErr) Helper() {}
func (f *fatalErr) Fatalf(format string, args ...any) {
	f.err = fmt.Errorf(format, args...)
}

// SimulateCluster runs cluster c for d of true time and returns what
// happened: every run each replica started, every period with the runs
// that did its work, the crashes, the claims refused for clock skew or
// made under other zone data, and every violation of "each period of
// each job ran exactly once, none lost" (ClusterResult.Violations). Check
// it with RequireClusterOnce, or inspect the result.
//
// Replica i's clock reads Start+Offset_i when true time is Start and
// gains DriftPPM_i per million; its scheduler fires by it. The ledger is
// judged by the true clock (the store's). A job's expected periods are
// walked from its schedule with NextOccurrence, for each replica's own
// zone data, over the window less Settle at each end: never taken from
// what fired.
//
// It returns an error wrapping ErrInvalidCluster for a bad Cluster, the
// error of Setup or of the Ledger constructor, or an error wrapping ctx's
// that says how far true time got (with the result so far; a
// *StuckError among what it wraps when replicas stayed busy). A replica's Run failing for another reason than its
// crash is in ClusterResult.RunErrors.
func SimulateCluster(ctx context.Context, c Cluster, d time.Duration) (*ClusterResult, error) {
	if err := c.validate(d); err != nil {
		return nil, err
	}
	truth := clockwork.NewFakeClockAt(c.Start)
	var ledger dstsafe.Ledger = dstsafe.NewMemoryLedger(truth)
	if c.Ledger != nil {
		l, err := c.Ledger(truth)
		if err != nil {
			return nil, err
		}
		ledger = l
	}
	cr := &clusterRun{c: &c, truth: truth, ledger: ledger, end: c.Start.Add(d),
		drv: simlink.New[*dstsafe.Scheduler, dstsafe.Fire](truth), jobs: map[string]*jobSchedules{}}
	cr.replicas = make([]*replicaState, len(c.Replicas))
	for i, spec := range c.Replicas {
		rs := &replicaState{index: i, spec: spec, name: spec.Name}
		if rs.name == "" {
			rs.name = fmt.Sprintf("r%d", i)
		}
		if rs.spec.Zones == nil {
			rs.spec.Zones = pinnedZone
		}
		rs.clock = clockwork.NewFakeClockAt(rs.local(c.Start, c.Start))
		cr.replicas[i] = rs
	}
	for i := range c.Crashes {
		cr.crashes = append(cr.crashes, &crashState{Crash: c.Crashes[i]})
		if c.Crashes[i].Point == CrashAtInstant {
			cs := cr.crashes[i]
			cr.schedule(cs.At, func() { cr.crash(cs, cs.Replica) })
		}
	}
	for _, rs := range cr.replicas {
		if err := cr.start(rs); err != nil {
			cr.stopAll()
			return nil, err
		}
	}
	runErr := cr.drv.Run(ctx, cr.end, cr.nextMark, cr.at)
	cr.mu.Lock()
	hs := cr.handles
	cr.mu.Unlock()
	for _, r := range hs {
		if err := r.handle.Wait(); err != nil && !r.dead.Load() && !errors.Is(err, context.Canceled) {
			cr.runErrs = append(cr.runErrs, fmt.Errorf("dstsafetest: replica %s: %w", r.Owner, err))
		}
	}
	if err := cr.setupErr(); err != nil {
		return nil, err
	}
	res := cr.result()
	if runErr != nil {
		// Where it was stuck: a test bounding the simulation with a
		// context sees how far true time got and what had run.
		runErr = fmt.Errorf("dstsafetest: SimulateCluster stopped at %s (window %s to %s) after %d executions and %d crashes: %w",
			truth.Now().UTC().Format(time.RFC3339Nano), c.Start.UTC().Format(time.RFC3339), cr.end.UTC().Format(time.RFC3339),
			len(res.Executions), len(res.Crashes), runErr)
	}
	return res, runErr
}

func (c *Cluster) validate(d time.Duration) error {
	bad := func(format string, args ...any) error {
		return fmt.Errorf("%w: %s", ErrInvalidCluster, fmt.Sprintf(format, args...))
	}
	switch {
	case c.Start.IsZero():
		return bad("zero Start")
	case len(c.Replicas) == 0:
		return bad("no replica")
	case c.Setup == nil:
		return bad("nil Setup")
	case d < 0:
		return bad("negative duration %v", d)
	case c.Settle < 0:
		return bad("negative Settle %v", c.Settle)
	}
	for i, r := range c.Replicas {
		if r.DriftPPM <= -1e6 || math.IsNaN(r.DriftPPM) || math.IsInf(r.DriftPPM, 0) {
			return bad("replica %d: drift %v ppm", i, r.DriftPPM)
		}
	}
	for i, cr := range c.Crashes {
		if cr.Replica < 0 || cr.Replica >= len(c.Replicas) {
			return bad("crash %d: replica %d of %d", i, cr.Replica, len(c.Replicas))
		}
		if cr.Point < CrashAtInstant || cr.Point > CrashMidRun {
			return bad("crash %d: point %v", i, cr.Point)
		}
	}
	return nil
}

// replicaState is one replica across its restarts.
type replicaState struct {
	index int
	spec  ReplicaSpec
	name  string
	clock *clockwork.FakeClock
	gen   int
	cur   *Replica
}

// local is the replica's clock reading at true instant t, for a
// simulation that started at start.
func (rs *replicaState) local(start, t time.Time) time.Time {
	el := t.Sub(start)
	drift := time.Duration(math.Round(float64(el) * rs.spec.DriftPPM / 1e6))
	return t.Add(rs.spec.Offset + drift)
}

// trueAt is the earliest true instant at which the replica's clock reads
// at least local.
func (rs *replicaState) trueAt(start, local time.Time) time.Time {
	est := time.Duration(float64(local.Sub(start)-rs.spec.Offset) / (1 + rs.spec.DriftPPM/1e6))
	t := start.Add(est)
	for i := 0; rs.local(start, t).Before(local) && i < 64; i++ {
		t = t.Add(max(local.Sub(rs.local(start, t)), time.Nanosecond))
	}
	for i := 0; !rs.local(start, t.Add(-time.Nanosecond)).Before(local) && i < 64; i++ {
		t = t.Add(-time.Nanosecond)
	}
	return t
}

type crashState struct {
	Crash
	done bool
}

// jobSchedules is every schedule a job was registered with, one per
// replica (zone data may differ).
type jobSchedules struct {
	byReplica map[int]dstsafe.Schedule
}

type pending struct {
	at time.Time
	do func()
}

// clusterRun is one SimulateCluster call.
type clusterRun struct {
	c      *Cluster
	truth  *clockwork.FakeClock
	ledger dstsafe.Ledger
	end    time.Time
	drv    simlink.Driver[*dstsafe.Scheduler, dstsafe.Fire]

	replicas []*replicaState
	crashes  []*crashState

	mu       sync.Mutex
	actions  []pending
	jobs     map[string]*jobSchedules
	jobOrder []string
	fires    []ReplicaFire
	execs    []Execution
	crashLog []CrashRecord
	events   []ReplicaEvent
	runErrs  []error
	firstErr error
	handles  []*Replica
}

type periodKey struct{ job, period string }

func (cr *clusterRun) schedule(at time.Time, do func()) {
	cr.mu.Lock()
	cr.actions = append(cr.actions, pending{at: at, do: do})
	cr.mu.Unlock()
}

func (cr *clusterRun) nextMark(time.Time) time.Time {
	cr.mu.Lock()
	defer cr.mu.Unlock()
	var m time.Time
	for _, p := range cr.actions {
		if m.IsZero() || p.at.Before(m) {
			m = p.at
		}
	}
	return m
}

func (cr *clusterRun) at(now time.Time) {
	cr.mu.Lock()
	var due []pending
	kept := cr.actions[:0]
	for _, p := range cr.actions {
		if !p.at.After(now) {
			due = append(due, p)
		} else {
			kept = append(kept, p)
		}
	}
	cr.actions = kept
	cr.mu.Unlock()
	for _, p := range due {
		p.do()
	}
}

func (cr *clusterRun) setupErr() error {
	cr.mu.Lock()
	defer cr.mu.Unlock()
	return cr.firstErr
}

// start starts a new process of replica rs.
func (cr *clusterRun) start(rs *replicaState) error {
	owner := rs.name
	if rs.gen > 0 {
		owner = fmt.Sprintf("%s#%d", rs.name, rs.gen)
	}
	r := &Replica{Index: rs.index, Owner: owner, Restarts: rs.gen, clock: rs.clock, zones: rs.spec.Zones, sim: cr,
		ready: make(chan struct{})}
	opts := []dstsafe.SchedulerOption{
		dstsafe.WithClock(rs.clock),
		dstsafe.WithLedger(&replicaLedger{Ledger: cr.ledger, r: r, cr: cr}),
		dstsafe.WithOwner(owner),
		dstsafe.WithLogger(slog.New(slog.DiscardHandler)),
		dstsafe.WithObserver(&replicaObserver{r: r, cr: cr}),
	}
	r.sched = dstsafe.NewScheduler(append(opts, rs.spec.Options...)...)
	if err := cr.c.Setup(r); err != nil {
		return fmt.Errorf("dstsafetest: replica %s setup: %w", owner, err)
	}
	rs.cur = r
	cr.mu.Lock()
	cr.handles = append(cr.handles, r)
	cr.mu.Unlock()
	r.handle = cr.drv.Start(r.sched, simlink.Member[dstsafe.Fire]{
		Clock:  rs.clock,
		Local:  func(t time.Time) time.Time { return rs.local(cr.c.Start, t) },
		True:   func(l time.Time) time.Time { return rs.trueAt(cr.c.Start, l) },
		Record: func(f dstsafe.Fire) { cr.fired(r, f) },
	})
	close(r.ready)
	return nil
}

func (cr *clusterRun) stopAll() {
	cr.mu.Lock()
	hs := cr.handles
	cr.mu.Unlock()
	for _, r := range hs {
		if r.handle != nil {
			r.handle.Stop()
			_ = r.handle.Wait()
		}
	}
}

// crash kills replica i's current process, once, and schedules its
// restart.
func (cr *clusterRun) crash(cs *crashState, i int) {
	rs := cr.replicas[i]
	r := rs.cur
	if r == nil || r.dead.Swap(true) {
		return
	}
	now := cr.truth.Now()
	cr.mu.Lock()
	r.crashedAt = now
	cr.crashLog = append(cr.crashLog, CrashRecord{Replica: i, Owner: r.Owner, Point: cs.Point, At: now, Job: cs.Job, Period: cs.Period})
	cr.mu.Unlock()
	<-r.ready // a crash at an event point of a process still starting
	r.handle.Stop()
	if cs.RestartAfter >= 0 {
		cr.schedule(now.Add(cs.RestartAfter), func() {
			rs.gen++
			if err := cr.start(rs); err != nil {
				cr.mu.Lock()
				if cr.firstErr == nil {
					cr.firstErr = err
				}
				cr.mu.Unlock()
			}
		})
	}
}

// crashPoint crashes r if a pending Crash matches point p for job and
// period now; it reports whether it did.
func (cr *clusterRun) crashPoint(r *Replica, p CrashPoint, job, period string) bool {
	now := cr.truth.Now()
	var hit *crashState
	cr.mu.Lock()
	for _, cs := range cr.crashes {
		if cs.done || cs.Point != p || cs.Replica != r.Index || now.Before(cs.At) ||
			(cs.Job != "" && cs.Job != job) || (cs.Period != "" && cs.Period != period) {
			continue
		}
		cs.done = true
		hit = cs
		break
	}
	cr.mu.Unlock()
	if hit == nil {
		return false
	}
	cr.crash(hit, r.Index)
	return true
}

func (cr *clusterRun) registered(r *Replica, job string, sched dstsafe.Schedule) {
	cr.mu.Lock()
	defer cr.mu.Unlock()
	js := cr.jobs[job]
	if js == nil {
		js = &jobSchedules{byReplica: map[int]dstsafe.Schedule{}}
		cr.jobs[job] = js
		cr.jobOrder = append(cr.jobOrder, job)
	}
	if _, ok := js.byReplica[r.Index]; !ok {
		js.byReplica[r.Index] = sched
	}
}

// ran records a return of the job's function. A run the crash
// interrupted ends at the crash's instant: its goroutine returns from the
// work only after the crash stopped its replica, by when the driver may
// have moved time on (the replica no longer counts as busy), so the true
// clock then is not deterministic.
func (cr *clusterRun) ran(r *Replica, run dstsafe.Run, started time.Time, err error) {
	interrupted := cr.crashPoint(r, CrashMidRun, run.Job, run.Period) || r.dead.Load()
	cr.mu.Lock()
	at := cr.truth.Now()
	if interrupted && !r.crashedAt.IsZero() {
		at = r.crashedAt
	}
	cr.execs = append(cr.execs, Execution{Replica: r.Index, Owner: r.Owner, Run: run, Started: started,
		At: at, Err: err, Interrupted: interrupted})
	cr.mu.Unlock()
}

func (cr *clusterRun) fired(r *Replica, f dstsafe.Fire) {
	cr.mu.Lock()
	cr.fires = append(cr.fires, ReplicaFire{Replica: r.Index, Owner: r.Owner, Fire: f})
	cr.mu.Unlock()
}

// replicaLedger is the shared ledger as one process sees it: cut off when
// the process crashes.
type replicaLedger struct {
	dstsafe.Ledger
	r  *Replica
	cr *clusterRun
}

func (l *replicaLedger) Claim(ctx context.Context, req dstsafe.ClaimRequest) (dstsafe.Record, error) {
	if l.r.dead.Load() {
		return dstsafe.Record{}, ErrCrashed
	}
	return l.Ledger.Claim(ctx, req)
}

func (l *replicaLedger) Heartbeat(ctx context.Context, job, period string, token int64, lease time.Duration) (dstsafe.Record, error) {
	if l.r.dead.Load() {
		return dstsafe.Record{}, ErrCrashed
	}
	return l.Ledger.Heartbeat(ctx, job, period, token, lease)
}

func (l *replicaLedger) Finish(ctx context.Context, job, period string, token int64, state dstsafe.State, reason string) (dstsafe.Record, error) {
	if l.r.dead.Load() {
		return dstsafe.Record{}, ErrCrashed
	}
	return l.Ledger.Finish(ctx, job, period, token, state, reason)
}

func (l *replicaLedger) Get(ctx context.Context, job, period string) (dstsafe.Record, error) {
	if l.r.dead.Load() {
		return dstsafe.Record{}, ErrCrashed
	}
	return l.Ledger.Get(ctx, job, period)
}

func (l *replicaLedger) List(ctx context.Context, job, from, to string) ([]dstsafe.Record, error) {
	if l.r.dead.Load() {
		return nil, ErrCrashed
	}
	return l.Ledger.List(ctx, job, from, to)
}

// replicaObserver crashes its replica at the chosen points and keeps the
// events the result reports.
type replicaObserver struct {
	r  *Replica
	cr *clusterRun
}

func (o *replicaObserver) Observe(e dstsafe.Event) {
	if o.r.dead.Load() {
		return
	}
	switch e.Type {
	case event.Due:
		o.cr.crashPoint(o.r, CrashAtFire, e.Job, e.Period)
	case event.Claimed:
		o.cr.crashPoint(o.r, CrashAfterClaim, e.Job, e.Period)
	}
	if keepEvent(e.Type) {
		o.cr.mu.Lock()
		o.cr.events = append(o.cr.events, ReplicaEvent{Replica: o.r.Index, Owner: o.r.Owner, Event: e, trueAt: o.cr.truth.Now()})
		o.cr.mu.Unlock()
	}
}

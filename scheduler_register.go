package dstsafe

import (
	"errors"
	"fmt"
	"time"

	"github.com/dstsafe/dstsafe/internal/identlink"
)

// Registration: a Scheduler whose ledger is a JobRegistry registers each
// of its jobs there (schedule fingerprint, spec, period key kind, zone,
// zone data, owner, and its limits: WithMaxRuns and WithBounds, none
// when not given, so that `dstsafe exec` honours the same ones) before
// the job does anything else: every job when
// Run starts, before any of them plans or runs a period; a job added
// while Run runs in Add; a job updated while Run runs in Update, which
// takes the name over. A name the registry holds under another schedule
// (another spec, zone, fold or gap policy, or period key; not merely
// other zone data, which a replica with newer tz data has) is refused:
// Run returns, before anything runs, a *JobError wrapping the
// *JobConflictError (errors.Is ErrJobConflict), which names both
// schedules, and writes nothing: no period of the refused schedule is
// claimed, run or recorded as skipped. Add returns that error when Run
// runs. Taking a name over is explicit: Update, or WithTakeOver.
//
// A transient ledger error while registering is retried with backoff on
// the clock (1 s doubling), within the startup timeout
// (WithStartupTimeout) counted from Run's start: a ledger that goes away
// between Run's first call and the registration makes Run return an error
// wrapping ErrLedgerUnreachable, as one that never answered does, and
// nothing runs. For Add and Update while Run runs, the same wait is
// counted from the call.

// WithTakeOver lets the job take its name over in the ledger's job
// registry (see JobRegistry): Run and Add register the job's schedule
// even when the registry holds another one under its name, replacing it,
// instead of refusing to start. Use it for the deploy that changes a
// job's schedule on purpose (a new spec, another zone); without it such a
// deploy fails at Run with a *JobError wrapping ErrJobConflict naming
// both schedules, so that two services that picked one name by accident
// do not run each other's periods. Update always takes the name over.
// Restarting under the new schedule then follows the rule for schedule
// changes (see Scheduler.Update): the new schedule's periods before the
// restart never run.
func WithTakeOver() JobOption {
	return func(c *jobConfig) { c.takeOver = true }
}

// registration is what the Scheduler registers for job name under sp.
func (s *Scheduler) registration(name string, sp *jobSpec, takeOver bool) JobRegistration {
	fp := sp.fp()
	reg := JobRegistration{Job: name, Owner: s.owner, Schedule: fp, ZoneData: zoneDataOf(fp),
		TakeOver: takeOver || sp.cfg.takeOver,
		Limits:   &JobLimits{MaxRuns: sp.cfg.maxRuns, Start: sp.cfg.startOf(), End: sp.cfg.endOf()}}
	if st, ok := sp.sched.(fmt.Stringer); ok {
		reg.Spec = st.String()
	}
	if k, ok := sp.sched.(interface{ PeriodKey() PeriodKey }); ok {
		reg.PeriodKey = k.PeriodKey().String()
	}
	if l, ok := sp.sched.(interface{ Location() *time.Location }); ok {
		if loc := l.Location(); loc != nil {
			reg.Zone = loc.String()
		}
	} else if loc := sp.cfg.scheduleLoc; loc != nil {
		reg.Zone = loc.String()
	}
	return reg
}

// register registers reg in the ledger, when it is a JobRegistry,
// retrying a transient error with backoff on the clock until deadline.
// It returns nil when registered, when the ledger keeps no registry, or
// when env's context ended or Run stopped (nothing runs then anyway);
// else a *JobError wrapping the conflict, the permanent error, or
// ErrLedgerUnreachable with the last transient one.
func (s *Scheduler) register(env runEnv, reg JobRegistration, deadline time.Time) error {
	r, ok := s.ledger.(JobRegistry)
	if !ok {
		return nil
	}
	backoff := time.Second
	for {
		_, err := r.RegisterJob(env.ctx, reg)
		if err == nil {
			s.ledgerAnswered()
			return nil
		}
		if env.ctx.Err() != nil {
			return nil
		}
		if errors.Is(err, ErrJobConflict) || errors.Is(err, ErrInvalidArgument) {
			s.ledgerAnswered()
			s.log.Error("job registration refused", "job", reg.Job, "error", err)
			return &JobError{Job: reg.Job, Err: err}
		}
		s.ledgerFailed(reg.Job, err)
		if isPermanent(err) {
			s.log.Error("job registration failed: permanent ledger error", "job", reg.Job, "error", err)
			return &JobError{Job: reg.Job, Err: fmt.Errorf("dstsafe: ledger %s: %w", s.ledgerKind(), err)}
		}
		left := deadline.Sub(s.clock.Now())
		if left <= 0 {
			s.log.Error("job registration failed: ledger unreachable", "job", reg.Job, "error", err)
			return &JobError{Job: reg.Job, Err: fmt.Errorf("%w: %s did not answer within %v: %w",
				ErrLedgerUnreachable, s.ledgerKind(), s.health.startup, err)}
		}
		wait := min(backoff, left)
		s.log.Warn("job registration: ledger unreachable", "job", reg.Job, "error", err, "retry_in", wait)
		if !s.sleep(env, wait) {
			return nil
		}
		backoff = min(2*backoff, time.Minute)
	}
}

// regItem is a job Run registers at its start.
type regItem struct {
	name string
	spec *jobSpec
	seq  uint64
}

func (it regItem) order() uint64 { return it.seq }

// registerJobs is Run's registration stage, after the ledger answered and
// before any job plans: it registers every job Run is about to start,
// and returns the first refusal by Add order.
// started is when Run started: the stage ends by the startup timeout.
func (s *Scheduler) registerJobs(rs *runState, started time.Time) error {
	if _, ok := s.ledger.(JobRegistry); !ok {
		return nil
	}
	s.mu.Lock()
	var todo []regItem
	for _, j := range s.jobs {
		if !j.primed && !j.planning {
			todo = append(todo, regItem{j.name, j.spec, j.seq})
		}
	}
	s.mu.Unlock()
	if len(todo) == 0 {
		return nil
	}
	deadline := started.Add(s.health.startup)
	env := runEnv{ctx: rs.ctx, stopping: rs.stopping, sim: rs.sim}
	regs := make([]JobRegistration, len(todo))
	for i, it := range todo {
		regs[i] = s.registration(it.name, it.spec, false)
	}
	errs := make([]error, len(todo))
	// First look, then write: a conflict found by looking stops Run
	// before it registers any of its jobs, so a refused Scheduler leaves
	// no trace in the registry either (a race with another registrant is
	// still caught by RegisterJob, after the looks).
	r := s.ledger.(JobRegistry)
	s.inParallel(rs, len(todo), func(i int) {
		s.regMu.Lock()
		defer s.regMu.Unlock()
		if s.stale(todo[i]) {
			return
		}
		if info, err := r.LookupJob(env.ctx, regs[i].Job); err == nil && !s.stale(todo[i]) {
			if reg := regs[i]; reg.Schedule != "" && info.Schedule != "" && !reg.TakeOver && !sameSchedule(info.Schedule, reg.Schedule) {
				cerr := &JobConflictError{Registered: info, Schedule: reg.Schedule, Spec: reg.Spec}
				s.log.Error("job registration refused", "job", reg.Job, "error", cerr)
				errs[i] = &JobError{Job: reg.Job, Err: cerr}
			}
		}
	})
	if err := firstBySeq(errs, todo); err != nil {
		return err
	}
	s.inParallel(rs, len(todo), func(i int) {
		s.regMu.Lock()
		defer s.regMu.Unlock()
		if !s.stale(todo[i]) {
			if errs[i] = s.register(env, regs[i], deadline); errs[i] != nil && s.stale(todo[i]) {
				errs[i] = nil
			}
		}
	})
	return firstBySeq(errs, todo)
}

// stale reports whether the job it stands for was removed, or its spec
// replaced, since Run listed it: the Add or Update that did it registered
// the job itself (Run runs), so Run's registration of the old spec must
// neither refuse Run nor overwrite it.
func (s *Scheduler) stale(it regItem) bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	j := s.jobs[it.name]
	return j == nil || j.spec != it.spec
}

// firstBySeq returns the error of the first job by Add order, or nil.
func firstBySeq[T interface{ order() uint64 }](errs []error, items []T) error {
	var first error
	var firstSeq uint64
	for i, err := range errs {
		if err != nil && (first == nil || items[i].order() < firstSeq) {
			first, firstSeq = err, items[i].order()
		}
	}
	return first
}

// inParallel calls f(0) to f(n-1) in Run's goroutine, one after the
// other. (Run's goroutine counts as busy under Simulate and never parks
// here: parking it to wait for workers told Simulate and the tests'
// harness that Run had started.)
func (s *Scheduler) inParallel(_ *runState, n int, f func(i int)) {
	for i := range n {
		f(i)
	}
}

// registerLive registers job name under sp when Run runs (Add and Update
// call it before they change anything): nil when Run does not run, whose
// start registers the job then.
func (s *Scheduler) registerLive(name string, sp *jobSpec, takeOver bool) error {
	if _, ok := s.ledger.(JobRegistry); !ok {
		return nil
	}
	s.mu.Lock()
	rs := s.run
	s.mu.Unlock()
	if rs == nil {
		return nil
	}
	env := runEnv{ctx: rs.ctx, stopping: rs.stopping, sim: rs.sim}
	err := s.register(env, s.registration(name, sp, takeOver), s.clock.Now().Add(s.health.startup))
	var je *JobError
	if errors.As(err, &je) {
		return je.Err // Add and Update wrap it in their own *JobError
	}
	return err
}

// The fingerprint functions `dstsafe exec` and `dstsafe ledger` need to
// read and write the registry's schedules (see internal/identlink).
func init() {
	identlink.Set(identlink.Funcs{
		Fingerprint: func(c any) string {
			if cr, ok := c.(*Cron); ok && cr != nil {
				return fingerprint(cr)
			}
			return ""
		},
		Parse: func(fp string) (any, error) {
			sp := specOfFingerprint(fp, &jobSpec{})
			if sp == nil || sp.cron == nil {
				return nil, fmt.Errorf("%w: schedule fingerprint %q cannot be read back into a schedule", ErrInvalidArgument, fp)
			}
			return sp.cron, nil
		},
		Same: sameSchedule,
	})
}

// registerAdded is Add's registration: none for a name already added
// (Add refuses it), else registerLive.
func (s *Scheduler) registerAdded(name string, sp *jobSpec) error {
	s.mu.Lock()
	_, dup := s.jobs[name]
	s.mu.Unlock()
	if dup {
		return nil
	}
	return s.registerLive(name, sp, false)
}

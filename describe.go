package dstsafe

import (
	"context"
	"time"
)

// Description is what Describe reports about a job: its schedule and
// options, what comes next, what the ledger last recorded, and whether it
// is paused.
type Description struct {
	Job string
	// Schedule is the schedule in force (a *Cron prints its spec).
	Schedule Schedule
	// Next lists the next occurrences after the clock's now, in order,
	// with their Kind (a fold's reading, a gap's shifted one) and Period
	// key: what the job will run unless it is paused, within its bounds,
	// none once its runs are used.
	Next []Upcoming
	// Last is the job's latest record in the ledger by period (looked for
	// up to about 400 days back), nil when there is none.
	Last *Record
	// Pause is the job's pause state; the zero Pause on a Ledger that is
	// not a ControlLedger.
	Pause Pause
	// The job's options, as Add or Update set them.
	Overlap    Overlap
	CatchUp    CatchUpPolicy
	Jitter     time.Duration
	Start, End time.Time // WithBounds; zero: open
	MaxRuns    int       // WithMaxRuns; 0: no limit
	// Runs counts the runs WithMaxRuns has counted so far (succeeded run
	// slots); 0 without a limit.
	Runs int
	// ClockSkew is the Scheduler's latest claim refusal for clock skew
	// (an error wrapping ErrClockSkew, whose message gives both clocks and
	// the offset; see WithMaxClockOffset), of any of its jobs, while it
	// lasts: nil once a claim is accepted again, and before any refusal.
	// While it is set, this replica runs nothing.
	ClockSkew error
	// ZoneData is set when Last was claimed under this schedule with
	// other zone data (a replica deployed with another tz database): an
	// error that names both zone data ids and when
	// Last was claimed. Nil otherwise. See event.ZoneData.
	ZoneData error
	// Ledger names the Scheduler's ledger: "memory (not durable)" for the
	// default MemoryLedger (no WithLedger), else its type
	// ("*sqlledger.Ledger"; a MemoryLedger given explicitly is marked
	// "(not durable)" too).
	Ledger string
	// LedgerDownSince is when the Scheduler's ledger stopped answering
	// (the first failed call of an outage that has not ended; see
	// Healthy), and LedgerErr its latest error; zero and nil while it
	// answers.
	LedgerDownSince time.Time
	LedgerErr       error
	// AtRisk lists the job's periods (keys) that this running Scheduler
	// found due and that passed their deadline without succeeding, and
	// have not ended since (see event.AtRisk); empty when Run is not
	// running.
	AtRisk []string
	// Recovery lists the periods of the job's recovery window
	// (WithRecoveryWindow) due by now, oldest first, each with its status
	// in the ledger and the action the reconciler takes about it: the
	// classification of CheckPeriods, which the reconciler and `dstsafe
	// ledger audit` share.
	Recovery []PeriodCheck
}

// Upcoming is one coming occurrence of a job.
type Upcoming struct {
	Occurrence
	// Start is when the run is due to start: At plus the job's jitter.
	Start time.Time
}

// Describe returns job's schedule, its next n occurrences (each with its
// Kind, Period and jittered Start), its latest ledger record and its
// pause state, for operators and status pages. It reads the ledger (the
// latest record, the pause state and the run count) and runs nothing.
//
// Across the 2024-11-03 fold in America/Chicago a fixed-time 01:30 job
// lists one occurrence that night (Kind fold, the first 01:30), a FoldBoth
// one two, the second keyed "...;fold=1"; across the 2024-03-10 gap a
// 02:30 job lists the occurrence at 03:30 CDT with Kind gap and Period
// "2024-03-10T02:30:00". It returns a *JobError wrapping ErrUnknownJob
// for a job that was not added, or wrapping the ledger's error: then the
// Description is returned too, without what the ledger would have said
// (Last, Pause, Runs) and with LedgerErr set, so a status page can show
// the outage.
func (s *Scheduler) Describe(ctx context.Context, job string, n int) (Description, error) {
	s.mu.Lock()
	j := s.jobs[job]
	var spec *jobSpec
	if j != nil {
		spec = j.spec
	}
	s.mu.Unlock()
	if j == nil {
		return Description{}, &JobError{Job: job, Err: ErrUnknownJob}
	}
	cfg := &spec.cfg
	d := Description{Job: job, Schedule: spec.sched, Overlap: cfg.overlap, CatchUp: cfg.catchUp, Jitter: cfg.jitter,
		Start: cfg.startOf(), End: cfg.endOf(), MaxRuns: cfg.maxRuns, ClockSkew: s.skew.current(),
		Ledger: s.ledgerKind()}
	d.LedgerDownSince, d.LedgerErr = s.ledgerDown()
	d.AtRisk = s.atRiskOf(job)
	fail := func(err error) (Description, error) {
		// What needs no ledger, and the outage, for a status page that
		// shows the ledger is down.
		d.Last, d.Pause, d.Runs = nil, Pause{}, 0
		if d.LedgerErr == nil {
			d.LedgerErr = err
		}
		return d, &JobError{Job: job, Err: err}
	}
	now := s.clock.Now()
	if cfg.maxRuns > 0 {
		states, err := s.slotStates(runEnv{ctx: ctx}, job)
		if err != nil {
			return fail(err)
		}
		d.Runs = runsUsed(states, cfg.maxRuns)
	}
	if cfg.maxRuns == 0 || d.Runs < cfg.maxRuns {
		for o, ok := spec.nextAfter(now); ok && len(d.Next) < n; o, ok = spec.nextAfter(o.At) {
			d.Next = append(d.Next, Upcoming{Occurrence: o, Start: spec.taskOf(job, o).start})
		}
	}
	recs, err := s.latestRecords(ctx, job, now)
	if err != nil {
		return fail(err)
	}
	if len(recs) > 0 {
		last := recs[len(recs)-1]
		d.Last = &last
		d.ZoneData = zoneDataDiffers(job, last, spec.fp(), time.Time{})
	}
	if s.control != nil {
		if d.Pause, err = s.control.GetPause(ctx, job); err != nil {
			return fail(err)
		}
	}
	if d.Recovery, err = s.windowChecks(ctx, job, spec, now, d.Pause.Paused); err != nil {
		return fail(err)
	}
	return d, nil
}

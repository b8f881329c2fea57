package dstsafe

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"math"
	"slices"
	"sync"
	"time"
)

// BackfillOptions are the settings of one Scheduler.Backfill call. A nil
// *BackfillOptions, like the zero value, means every default.
type BackfillOptions struct {
	// Limit makes Backfill run at most Limit periods (the oldest it gets
	// to run); the periods after them are counted in BackfillResult.Left,
	// so calling Backfill again with the same range goes on where it
	// stopped. Defaults to no limit (zero or negative).
	Limit int
	// OnlyMissing makes Backfill run only the periods that have no record
	// at all: a failed or abandoned one is then taken over only as the
	// job's RetryPolicy or an operator's release (ControlLedger.Release,
	// dstsafe ledger retry) allows, as the schedule's own runs are. For a
	// job whose failed attempts need a person's look before they run
	// again. Defaults to false: failed and abandoned periods are taken
	// over as their next attempt.
	OnlyMissing bool
	// Concurrent runs the periods of this call all at once (at most Limit
	// of them). Defaults to false: one at a time, oldest first, each after
	// the previous one returned. The job's own overlap policy does not
	// apply either way: it keeps the runs of its schedule apart, and the
	// ledger keeps any two runs of one period apart.
	Concurrent bool
}

// takeOverAll is how Backfill claims: a period whose attempts failed or
// were abandoned has no succeeded record, so it is taken over, whatever
// the job's RetryPolicy and however many attempts it had.
var takeOverAll = RetryPolicy{MaxAttempts: math.MaxInt32, Failed: true, Abandoned: true}

// BackfillResult is what a Backfill did.
type BackfillResult struct {
	// Ran lists the periods this call claimed and ran, oldest first: the
	// Run the job was given, when it started, and what its last attempt
	// returned (Err; a failed run is recorded failed in the ledger).
	Ran []Fire
	// Recorded counts the periods of the range that already had a record
	// the claim did not take over: succeeded or skipped (final) or
	// running, and with OnlyMissing failed or abandoned beyond
	// what the job's RetryPolicy allows (an operator's
	// ControlLedger.Release allows one more).
	Recorded int
	// Left counts the periods of the range after Limit was reached, which
	// this call did not look at, up to 10,000: counting walks the
	// schedule, and a year of a per-second job has 31 million periods.
	// MoreLeft says there are more than Left.
	Left     int
	MoreLeft bool
}

// maxLeft caps BackfillResult.Left.
const maxLeft = 10000

// Backfill runs every period of job's schedule due in [from, to) that has
// no succeeded record, oldest first, through the same claim, lease,
// heartbeat and fencing path as a scheduled run: a period with no record,
// and one whose attempts failed or were abandoned (taken over as the next
// attempt, Run.Attempt > 1, whatever the job's RetryPolicy: the backfill
// is the operator's decision to run it; OnlyMissing leaves those
// to the RetryPolicy). Succeeded and skipped periods are final, whoever
// skipped them (a pause, an operator's "dstsafe ledger skip" for a period
// done by hand, a catch-up policy), and a running one belongs to its
// holder: a period another replica runs or ran is not run again, so a
// second Backfill of a range whose runs succeeded runs nothing (it is
// idempotent), and one that races the schedule runs each period once.
// Each period is claimed once per call: a run that fails is retried only
// as the job's RetryPolicy says (WithRetry), and the next Backfill takes
// it over again. Periods due after the clock's now are left to the
// schedule. It runs in the caller's goroutine, does not need Run to be
// running, and stops early when ctx ends (returning the result so far and
// ctx's error).
//
// The periods are the schedule's own, as its fold and gap policies make
// them: a fixed-time 01:30 job backfilled over 2024-11-03 in Chicago runs
// one period (the first 01:30), a FoldBoth one runs two
// ("2024-11-03T01:30:00" and "2024-11-03T01:30:00;fold=1"), and over
// 2024-03-10 a 02:30 job runs the period "2024-03-10T02:30:00" whose Due
// the gap shifted to 03:30 CDT, while a periodic "*/30" job has no 02:00
// or 02:30 period to run. The job's bounds and run limit hold (once the
// job has used its runs Backfill stops with an error wrapping ErrMaxRuns);
// its jitter, catch-up and overlap policies and a pause do not apply: a
// backfill is an operator's explicit request, like RunNow. Failed runs are
// in the result, not the error.
//
// The error is a *JobError wrapping ErrUnknownJob, an *ArgError (from >=
// to: ErrInvalidArgument), ErrMaxRuns, or the ledger's error
// that stopped it.
func (s *Scheduler) Backfill(ctx context.Context, job string, from, to time.Time, opts *BackfillOptions) (BackfillResult, error) {
	var res BackfillResult
	var cfg BackfillOptions
	if opts != nil {
		cfg = *opts
	}
	fail := func(err error) (BackfillResult, error) { return res, &JobError{Job: job, Err: err} }
	if !from.Before(to) {
		return fail(&ArgError{Func: "Backfill", Arg: "to", Err: fmt.Errorf("%w: [%s, %s) is empty",
			errInvalidRange, from.Format(time.RFC3339), to.Format(time.RFC3339))})
	}
	j, spec, sim := s.byHand(job)
	defer sim.end()
	if j == nil {
		return fail(ErrUnknownJob)
	}
	if now := s.clock.Now().Add(time.Nanosecond); now.Before(to) {
		to = now // not due yet: the schedule's
	}
	env := runEnv{ctx: ctx, sim: sim}
	if !cfg.OnlyMissing {
		env.takeOver = &takeOverAll
	}

	var tasks []task // OverlapAllow: the ones to run at once
	o, ok := spec.nextAfter(from.Add(-time.Nanosecond))
	for ; ok && o.At.Before(to); o, ok = spec.nextAfter(o.At) {
		if err := ctx.Err(); err != nil {
			return res, err
		}
		if cfg.Limit > 0 && len(res.Ran)+len(tasks) >= cfg.Limit {
			if res.Left == maxLeft {
				res.MoreLeft = true
				break
			}
			res.Left++
			continue
		}
		t := task{spec: spec, o: o}
		if cfg.Concurrent {
			if rec, err := s.ledger.Get(ctx, job, o.Period); err == nil && !env.claimPolicy(t).Allows(rec) {
				res.Recorded++ // final, or not ours to take over: no goroutine for it
				continue
			}
			tasks = append(tasks, t)
			continue
		}
		out := s.execute(env, j, t)
		if done, err := res.add(out); done {
			if err != nil {
				return fail(err)
			}
			return res, nil
		}
	}
	if len(tasks) == 0 {
		return res, nil
	}
	outs := make([]outcome, len(tasks))
	var wg sync.WaitGroup
	for i, t := range tasks {
		wg.Add(1)
		sim.begin()
		go func() {
			defer wg.Done()
			defer sim.end()
			outs[i] = s.execute(env, j, t)
		}()
	}
	wg.Wait()
	var stop error
	for _, out := range outs {
		if done, err := res.add(out); done && stop == nil {
			stop = err
		}
	}
	slices.SortFunc(res.Ran, func(a, b Fire) int { return cmp.Or(a.Due.Compare(b.Due), cmp.Compare(a.Period, b.Period)) })
	if stop != nil {
		return fail(stop)
	}
	return res, nil
}

// add counts out in r, and reports whether the backfill must stop, with
// the error that stops it (nil when ctx ended).
func (r *BackfillResult) add(out outcome) (stop bool, err error) {
	switch {
	case out.ran:
		r.Ran = append(r.Ran, out.fire)
	case errors.Is(out.ledgerErr, ErrAlreadyClaimed):
		r.Recorded++
	case out.ledgerErr != nil:
		return true, out.ledgerErr
	}
	return false, nil
}

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

// BackfillOption configures Scheduler.Backfill. A nil BackfillOption is
// ignored.
type BackfillOption func(*backfillConfig)

type backfillConfig struct {
	overlap     Overlap
	limit       int
	onlyMissing bool
	err         error
}

// takeOverAll is how Backfill claims: a period whose attempts failed or
// were abandoned has no succeeded record, so it is taken over, whatever
// the job's RetryPolicy and however many attempts it had.
var takeOverAll = RetryPolicy{MaxAttempts: math.MaxInt32, Failed: true, Abandoned: true}

// BackfillOnlyMissing makes Backfill run only the periods that have no
// record at all: a failed or abandoned one is then taken over only as
// the job's RetryPolicy or an operator's release (ControlLedger.Release,
// dstsafe ledger retry) allows, as the schedule's own runs are. For a job
// whose failed attempts need a person's look before they run again.
func BackfillOnlyMissing() BackfillOption {
	return func(c *backfillConfig) { c.onlyMissing = true }
}

// BackfillOverlap says how the periods of one Backfill run relative to
// each other: OverlapQueue (the default) one at a time, oldest first, each
// after the previous one returned; OverlapAllow all at once (at most
// BackfillLimit of them). The job's own overlap policy does not apply:
// it keeps the runs of its schedule apart, and the ledger keeps any two
// runs of one period apart. Any other value makes Backfill return a
// *JobError wrapping an *ArgError wrapping ErrInvalidArgument.
func BackfillOverlap(o Overlap) BackfillOption {
	return func(c *backfillConfig) {
		if o != OverlapQueue && o != OverlapAllow {
			c.err = &ArgError{Func: "BackfillOverlap", Arg: "o", Err: fmt.Errorf("%w: Overlap %s for a backfill: want queue or allow", errUnknownPolicy, o)}
			return
		}
		c.overlap = o
	}
}

// BackfillLimit makes Backfill run at most n periods (the oldest n it
// gets to run); the periods after them are counted in BackfillResult.Left,
// so calling Backfill again with the same range goes on where it stopped.
// Zero or negative means no limit (the default).
func BackfillLimit(n int) BackfillOption {
	return func(c *backfillConfig) { c.limit = max(n, 0) }
}

// BackfillResult is what a Backfill did.
type BackfillResult struct {
	// Ran lists the periods this call claimed and ran, oldest first: the
	// Run the job was given, when it started, and what its last attempt
	// returned (Err; a failed run is recorded failed in the ledger).
	Ran []Fire
	// Recorded counts the periods of the range that already had a record
	// the claim did not take over: succeeded or skipped (final) or
	// running, and with BackfillOnlyMissing failed or abandoned beyond
	// what the job's RetryPolicy allows (an operator's
	// ControlLedger.Release allows one more).
	Recorded int
	// Left counts the periods of the range after BackfillLimit was
	// reached, which this call did not look at.
	Left int
}

// Backfill runs every period of job's schedule due in [from, to) that has
// no succeeded record, oldest first, through the same claim, lease,
// heartbeat and fencing path as a scheduled run: a period with no record,
// and one whose attempts failed or were abandoned (taken over as the next
// attempt, Run.Attempt > 1, whatever the job's RetryPolicy: the backfill
// is the operator's decision to run it; BackfillOnlyMissing leaves those
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
// to: ErrInvalidArgument; a bad option), ErrMaxRuns, or the ledger's error
// that stopped it.
func (s *Scheduler) Backfill(ctx context.Context, job string, from, to time.Time, opts ...BackfillOption) (BackfillResult, error) {
	var res BackfillResult
	cfg := backfillConfig{overlap: OverlapQueue}
	for _, o := range opts {
		if o != nil {
			o(&cfg)
		}
	}
	fail := func(err error) (BackfillResult, error) { return res, &JobError{Job: job, Err: err} }
	if cfg.err != nil {
		return fail(cfg.err)
	}
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
	if !cfg.onlyMissing {
		env.takeOver = &takeOverAll
	}

	var tasks []task // OverlapAllow: the ones to run at once
	o, ok := spec.nextAfter(from.Add(-time.Nanosecond))
	for ; ok && o.At.Before(to); o, ok = spec.nextAfter(o.At) {
		if cfg.limit > 0 && len(res.Ran)+len(tasks) >= cfg.limit {
			res.Left++
			continue
		}
		if err := ctx.Err(); err != nil {
			return res, err
		}
		t := task{spec: spec, o: o}
		if cfg.overlap == OverlapAllow {
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

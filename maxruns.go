package dstsafe

import (
	"context"
	"errors"
	"fmt"
	"math"
	"strconv"
)

// ErrMaxRuns: the job has used the runs WithMaxRuns allows (or all of
// them are taken by runs in progress), so the period did not run.
var ErrMaxRuns = errors.New("dstsafe: job has used its runs")

// WithMaxRuns lets the job succeed in at most n periods in all, counted in
// the ledger, so the limit holds across replicas and restarts: once n
// periods have succeeded the job has nothing left to run (Describe lists
// no next occurrence, and RunNow and Backfill report ErrMaxRuns). Zero
// means no limit (the default); a negative n is an *ArgError wrapping
// ErrInvalidArgument. Folds and gaps change nothing: each of the two readings
// of a FoldBoth fold is a period and counts once, a period shifted out of
// a gap counts once.
//
// The count is strict even when replicas race for the last run: a run
// holds one of n numbered run slots, claimed in the ledger under the
// derived job key "<job>/max-runs" with periods "0000000001" to n (a
// claim, so of two replicas claiming the last free slot exactly one gets
// it), from before the job is called until its outcome is recorded; the
// slot is recorded succeeded before the period is, so a crash in between
// wastes a run rather than adding one. A period that finds every slot
// succeeded or held is recorded skipped ("max runs: the job has used its
// runs"); a failed run frees its slot. Runs are counted from the first
// one under WithMaxRuns: periods that succeeded before are not. The job
// name must leave room for the suffix (at most ledgerkit.MaxKeyLen-9 bytes), or Add
// returns a *JobError wrapping ErrInvalidArgument. Changing n with Update
// takes effect at once; slots above a lowered n stay counted.
func WithMaxRuns(n int) JobOption {
	return func(c *jobConfig) {
		if n < 0 {
			c.fail(&ArgError{Func: "WithMaxRuns", Arg: "n", Err: fmt.Errorf("%w: negative count %d", errInvalidRange, n)})
			return
		}
		c.maxRuns = n
	}
}

// maxRunsSuffix makes the job key of a job's run slots.
const maxRunsSuffix = "/max-runs"

func maxRunsJob(job string) string { return job + maxRunsSuffix }

func slotPeriod(i int) string {
	s := strconv.Itoa(i)
	for len(s) < 10 {
		s = "0" + s
	}
	return s
}

// slotRetry takes over a slot whose run failed or was abandoned, however
// often that happened before.
var slotRetry = RetryPolicy{MaxAttempts: math.MaxInt32, Failed: true, Abandoned: true}

// runSlot is a run slot held by one attempt.
type runSlot struct {
	job, period string
	token       int64
}

// slotStates returns the states of the job's run slots by period.
func (s *Scheduler) slotStates(env runEnv, job string) (map[string]State, error) {
	var recs []Record
	err := s.ledgerCall(env, job, "run slots: ledger list failed", func(ctx context.Context) error {
		var err error
		recs, err = s.ledger.List(ctx, maxRunsJob(job), "", "")
		return err
	})
	if err != nil {
		return nil, err
	}
	m := make(map[string]State, len(recs))
	for _, r := range recs {
		m[r.Period] = r.State
	}
	return m, nil
}

// runsUsed counts the job's succeeded run slots among the first n.
func runsUsed(states map[string]State, n int) int {
	used := 0
	for i := 1; i <= n; i++ {
		if states[slotPeriod(i)] == StateSucceeded {
			used++
		}
	}
	return used
}

// runsDone reports for a planner whether the job has used all its runs;
// ok is false when Run stops or the ledger fails for good.
func (s *Scheduler) runsDone(rs *runState, job string, spec *jobSpec) (done, ok bool) {
	states, err := s.slotStates(rs.planEnv(), job)
	if err != nil {
		return false, false
	}
	return runsUsed(states, spec.cfg.maxRuns) >= spec.cfg.maxRuns, true
}

// claimSlot claims a free run slot for t: one never claimed, or whose run
// failed or was abandoned. It returns an error wrapping ErrMaxRuns when
// every slot is succeeded or held.
func (s *Scheduler) claimSlot(env runEnv, j *job, t task) (*runSlot, error) {
	n := t.spec.cfg.maxRuns
	states, err := s.slotStates(env, j.name)
	if err != nil {
		return nil, err
	}
	key := maxRunsJob(j.name)
	for i := 1; i <= n; i++ {
		p := slotPeriod(i)
		if st := states[p]; st == StateSucceeded || st == StateRunning || st == StateSkipped {
			continue
		}
		var rec Record
		id := s.claimIDs.next()
		err := s.ledgerCall(env, j.name, "run slot claim failed", func(ctx context.Context) error {
			var err error
			rec, err = s.ledger.Claim(ctx, s.stamp(ClaimRequest{Job: key, Period: p, Owner: s.owner,
				Lease: t.spec.cfg.lease, Retry: slotRetry, ID: id}))
			return err
		})
		switch {
		case err == nil:
			return &runSlot{job: key, period: p, token: rec.Token}, nil
		case errors.Is(err, ErrAlreadyClaimed):
			continue // another run got it first
		default:
			return nil, err
		}
	}
	return nil, fmt.Errorf("%w: %d of %d", ErrMaxRuns, n, n)
}

// finishSlot records the slot's outcome.
func (s *Scheduler) finishSlot(env runEnv, job string, slot *runSlot, state State, reason string) error {
	return s.ledgerCall(env, job, "run slot finish failed", func(ctx context.Context) error {
		_, err := s.ledger.Finish(ctx, slot.job, slot.period, slot.token, state, reason)
		return err
	})
}

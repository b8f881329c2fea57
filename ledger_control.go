package dstsafe

import (
	"context"
	"slices"
	"sync"
	"time"
)

// A ControlLedger is a Ledger that also keeps what operators decide about
// jobs and periods, so that every replica sharing it obeys the same
// decision and a restart does not forget it: whether a job is paused, and
// which failed or abandoned period may be taken over once more.
//
// MemoryLedger, sqlledger and redisledger implement it;
// dstsafetest.RunLedgerTests checks it on every Ledger that does. The
// Scheduler's Pause, Resume and Paused, and the `dstsafe ledger` CLI, need
// one; on a plain Ledger they return an error wrapping ErrInvalidArgument.
//
// The preambles are those of Ledger: a bad job name, period or By gives a
// *KeyError wrapping ErrInvalidArgument before storage is touched, and a done
// ctx gives ctx.Err().
type ControlLedger interface {
	Ledger
	// SetPause records whether job is paused. When p.Paused differs from
	// the stored state, the ledger stores p with Since set to its own
	// clock's now (UTC, microseconds) and returns it; when it is the same,
	// nothing changes and the stored Pause is returned (pausing a paused
	// job keeps the first reason and Since). p.By is required (a
	// *KeyError for field "by" when empty); p.Reason is normalised like
	// Finish's reason. Since in p is ignored.
	SetPause(ctx context.Context, job string, p Pause) (Pause, error)
	// GetPause returns the pause state of job: the zero Pause (not paused,
	// never changed) for a job nobody paused. It is not an error to ask
	// about a job without records.
	GetPause(ctx context.Context, job string) (Pause, error)
	// Release allows the next Claim of a failed or abandoned period to take
	// it over once, whatever that claim's RetryPolicy says (MaxAttempts
	// included; see RetryPolicy.Allows): the explicit, recorded decision of
	// an operator (by, with reason) to run a period again. Nothing runs it
	// by itself: the period runs when a Scheduler next claims it
	// (Scheduler.RunNow, Backfill, or a catch-up). The record keeps its state and gets
	// Released, ReleasedBy and ReleaseReason; the takeover clears Released
	// and keeps the other two. ErrNotFound for a period without a record;
	// a *ClaimedError (ErrAlreadyClaimed) with the record for a period that
	// is running (lease not over), succeeded or skipped, which a release
	// never reopens.
	Release(ctx context.Context, job, period, by, reason string) (Record, error)
	// Jobs returns the names of the jobs the ledger knows: every job with
	// at least one record, a pause state (paused or resumed) or, in a
	// ledger that is also a JobRegistry, a registration, sorted by bytes,
	// each once. A job that was only ever paused, never run, is known (an
	// operator paused it before its first deploy), and so is a job a
	// Scheduler registered before its first period; a name no claim,
	// pause or registration ever used is not, which is how the CLI tells
	// a mistyped job from one with no periods yet. It is not a snapshot:
	// a job first claimed or registered while it runs may be missing.
	Jobs(ctx context.Context) ([]string, error)
}

// Pause is a job's pause state in a ControlLedger. The zero value is a job
// that was never paused.
type Pause struct {
	Paused bool
	// By says who changed the state: an owner, an operator's name.
	By string
	// Reason is why, as given.
	Reason string
	// Since is when the state last changed, by the ledger's clock; zero if
	// it never did.
	Since time.Time
}

var _ ControlLedger = (*MemoryLedger)(nil)

// memPauses holds a MemoryLedger's pause states.
type memPauses struct {
	mu   sync.Mutex
	jobs map[string]Pause
}

// SetPause implements ControlLedger.
func (m *MemoryLedger) SetPause(ctx context.Context, job string, p Pause) (Pause, error) {
	reason, err := checkSetPause(ctx, job, p.By, p.Reason)
	if err != nil {
		return Pause{}, err
	}
	m.pauses.mu.Lock()
	defer m.pauses.mu.Unlock()
	cur := m.pauses.jobs[job]
	if cur.Paused == p.Paused {
		return cur, nil
	}
	if m.pauses.jobs == nil {
		m.pauses.jobs = make(map[string]Pause)
	}
	cur = Pause{Paused: p.Paused, By: p.By, Reason: reason, Since: m.now()}
	m.pauses.jobs[job] = cur
	return cur, nil
}

// GetPause implements ControlLedger.
func (m *MemoryLedger) GetPause(ctx context.Context, job string) (Pause, error) {
	if err := checkJob(ctx, job); err != nil {
		return Pause{}, err
	}
	m.pauses.mu.Lock()
	defer m.pauses.mu.Unlock()
	return m.pauses.jobs[job], nil
}

// Release implements ControlLedger.
func (m *MemoryLedger) Release(ctx context.Context, job, period, by, reason string) (Record, error) {
	reason, err := checkRelease(ctx, job, period, by, reason)
	if err != nil {
		return Record{}, err
	}
	sh := m.shard(period)
	sh.mu.Lock()
	defer sh.mu.Unlock()
	r, cur, err := sh.lookup(job, period, m.now())
	if err != nil {
		return Record{}, err
	}
	if cur.State != StateFailed && cur.State != StateAbandoned {
		return Record{}, &ClaimedError{Existing: cur}
	}
	r.Released, r.ReleasedBy, r.ReleaseReason = true, by, reason
	cur.Released, cur.ReleasedBy, cur.ReleaseReason = true, by, reason
	return cur, nil
}

// Jobs implements ControlLedger.
func (m *MemoryLedger) Jobs(ctx context.Context) ([]string, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	seen := map[string]bool{}
	for i := range m.shards {
		sh := &m.shards[i]
		sh.mu.RLock()
		for job, periods := range sh.jobs {
			if len(periods) > 0 {
				seen[job] = true
			}
		}
		sh.mu.RUnlock()
	}
	m.pauses.mu.Lock()
	for job := range m.pauses.jobs {
		seen[job] = true
	}
	m.pauses.mu.Unlock()
	m.registry.mu.Lock()
	for job := range m.registry.jobs {
		seen[job] = true
	}
	m.registry.mu.Unlock()
	jobs := make([]string, 0, len(seen))
	for job := range seen {
		jobs = append(jobs, job)
	}
	slices.Sort(jobs)
	return jobs, nil
}

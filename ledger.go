package dstsafe

import (
	"context"
	"errors"
	"fmt"
	"hash/maphash"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/jonboulle/clockwork"
)

// A Ledger records which logical periods of which jobs have been claimed,
// so that a period runs once no matter how many times, from how many
// processes, or how late a scheduler asks to run it. It is the guard the
// 2024-11-03 billing incident lacked: runs are keyed by logical period
// ("billing", "2024-11-03") under a unique constraint, never guarded by
// elapsed time.
//
// A claim moves a period to StateRunning with a lease and a fencing token.
// The holder extends the lease with Heartbeat and ends the run with Finish.
// Both are compare-and-set on the token: once a period has been taken over,
// the old holder gets ErrLeaseLost and its late result is never written.
//
// Every method refuses a bad job name, period or owner (empty, longer than
// ledgerkit.MaxKeyLen bytes, not UTF-8, containing NUL) with a *KeyError wrapping
// ErrInvalidArgument before touching storage, and an out-of-range argument
// with an error wrapping ErrInvalidArgument. When ctx ends, the error
// wraps ctx.Err() (errors.Is(err, context.Canceled)).
//
// An error that retrying cannot fix (a table never migrated, a closed pool
// or client, refused credentials) wraps ErrPermanent; other failures of
// the storage are transient and wrap none of the sentinels.
//
// # Time
//
// Every decision two replicas must agree on is judged by one clock, the
// store's, never the claimer's: whether a lease is over (so a running
// claim reads as StateAbandoned and may be taken over), the instants
// recorded (StartedAt, LeaseUntil, FinishedAt, Pause.Since), pause and
// resume, and the run slots of WithMaxRuns. PostgreSQL's is
// clock_timestamp() (the server's time when the statement reads it, not
// now(), which is frozen at the start of a transaction), Redis's is TIME
// (of the node holding the job's keys), SQLite's the host's clock (its
// processes share one host), MemoryLedger's the Clock it was given. So a replica whose clock runs
// ahead of the holder's by more than the lease does not see a running
// claim as abandoned: only the store's clock can say it is. The SQL and
// Redis ledgers take a Clock instead (sqlledger.WithClock,
// redisledger.WithClock) for tests and simulation; production uses the
// store's clock.
//
// The claimer's clock still decides when it fires, so Claim also bounds
// how far it may be from the store's. A ClaimRequest with Now set (the
// Scheduler sets it from its Clock) is refused, before anything is
// written, when Now differs from the store's clock by more than
// MaxClockOffset (5 s when zero; a Scheduler sets it with
// WithMaxClockOffset): the error wraps ErrClockSkew and says
// both clocks, the offset and the bound, for first claims and takeovers
// alike, and the period stays claimable by a replica whose clock is
// right. This is CockroachDB's rule: a node beyond its maximum offset
// stops serving rather than serve wrong answers. Within the bound, a
// replica whose clock is fast by d fires up to d early, never more than
// MaxClockOffset: the earliest a period can start is its due instant
// minus MaxClockOffset, and the ledger still runs it once. See
// docs/replicas.md.
//
// Implementations: MemoryLedger here, sqlledger (SQLite, PostgreSQL) and
// redisledger. All of them pass dstsafetest.RunLedgerTests. To write one,
// see package ledgerkit: the checks above, the errors, and how to map a
// storage's failures onto them.
type Ledger interface {
	// Claim claims (req.Job, req.Period) for req.Owner. It fails with an
	// error wrapping ErrAlreadyClaimed (a *ClaimedError carrying the
	// existing record) when the period is running, succeeded or skipped, or
	// when it failed or was abandoned and req.Retry does not allow a takeover.
	// It fails with an error wrapping ErrClockSkew, and writes nothing, when
	// req.Now is set and further than the allowed offset from the store's
	// clock (see Time above).
	//
	// Any other error (the database went away mid-call) leaves it unknown
	// whether the claim was made, as with any remote commit whose answer
	// is lost. Claim again with the same Owner: a *ClaimedError whose
	// Existing.Owner is yours and Existing.StartedAt is from your first
	// try means the claim was yours.
	Claim(ctx context.Context, req ClaimRequest) (Record, error)
	// Heartbeat extends the lease of a running claim held with token to
	// now+lease. ErrLeaseLost if the token no longer holds the period.
	Heartbeat(ctx context.Context, job, period string, token int64, lease time.Duration) (Record, error)
	// Finish ends a running claim held with token in state (StateSucceeded,
	// StateFailed or StateSkipped), with reason kept for failures.
	// ErrLeaseLost if the token no longer holds the period.
	//
	// The token fences, not the clock: a holder whose lease ran out but whose
	// period nobody took over may still heartbeat or finish it.
	Finish(ctx context.Context, job, period string, token int64, state State, reason string) (Record, error)
	// Get returns the record of a period, ErrNotFound if it was never claimed.
	Get(ctx context.Context, job, period string) (Record, error)
	// List returns the records of job whose period keys p satisfy
	// from <= p < to (byte order; an empty bound is open), ordered by period.
	List(ctx context.Context, job, from, to string) ([]Record, error)
}

// State is the state of a claimed period.
type State uint8

const (
	// StateRunning: claimed, the holder is (or was) running it.
	StateRunning State = iota + 1
	// StateSucceeded: done. Terminal: never claimed again.
	StateSucceeded
	// StateFailed: the run returned an error. Taken over only when the
	// job's RetryPolicy allows it.
	StateFailed
	// StateAbandoned: running, but the holder stopped heartbeating and the
	// lease has expired. Never stored: reported for running records whose
	// lease is over, by the ledger's Clock.
	StateAbandoned
	// StateSkipped: deliberately not run (catch-up policy). Terminal.
	StateSkipped
)

// String returns the state's lower-case name ("running", ...).
func (s State) String() string {
	switch s {
	case StateRunning:
		return "running"
	case StateSucceeded:
		return "succeeded"
	case StateFailed:
		return "failed"
	case StateAbandoned:
		return "abandoned"
	case StateSkipped:
		return "skipped"
	}
	return "invalid"
}

// Record is a ledger's row for one (job, period).
// All instants are in UTC, truncated to microseconds (PostgreSQL's
// precision), so that every backend reports the same values.
type Record struct {
	Job, Period string
	State       State
	Owner       string
	// Token is the fencing token: it increases with every claim or takeover
	// of the period. Heartbeat and Finish must present the current one.
	Token int64
	// Attempt counts claims of the period, starting at 1.
	Attempt    int
	StartedAt  time.Time // when the current attempt was claimed
	FinishedAt time.Time // zero while running
	LeaseUntil time.Time // running claims: abandoned after this instant
	Reason     string    // why it failed or was skipped, as given to Finish
	// Released is true while an operator's release (ControlLedger.Release)
	// allows the next claim to take the failed or abandoned period over;
	// the takeover clears it. ReleasedBy and ReleaseReason say who released
	// it and why, and stay after the takeover, until the next release.
	Released                  bool
	ReleasedBy, ReleaseReason string
	// Schedule is the schedule fingerprint given to the claim that made
	// this attempt (ClaimRequest.Schedule): with the Scheduler, that of
	// the job's schedule in force when it claimed. Empty when the claimer
	// gave none.
	Schedule string
	// ClaimID is the ClaimRequest.ID of the claim that made this attempt;
	// empty when it gave none.
	ClaimID string
}

// ClaimRequest asks a Ledger for a period.
type ClaimRequest struct {
	Job, Period string
	Owner       string
	// Lease is how long the claim holds without a heartbeat.
	// Zero means DefaultLease.
	Lease time.Duration
	// Retry says whether a failed or abandoned period may be taken over.
	// The zero value never takes over: a money-moving job must opt in.
	Retry RetryPolicy
	// Schedule, optional, fingerprints a schedule (spec, zone, policies
	// and the zone data used). The ledger stores it opaquely with the
	// attempt and returns it in Record.Schedule. The Scheduler gives the
	// fingerprint of the job's schedule in force when it claims, which is
	// not always the one that computed Period: a period the old schedule
	// missed, caught up after an edit, or one planned before an Update and
	// claimed after it, records the new one. So a record says which
	// schedule was in force by the time it was claimed, and a scheduler
	// restarted under an edited schedule can tell whether, and since
	// when, the edit took effect (see CatchUpPolicy). At most ledgerkit.MaxKeyLen
	// bytes of UTF-8 without NUL.
	Schedule string
	// Now, optional, is the claimer's clock reading as it claims. When
	// set, the ledger compares it with the store's clock before writing
	// and refuses the claim with an error wrapping ErrClockSkew when they
	// differ by more than MaxClockOffset: a claimer whose clock is
	// wrong must not run the period (see Ledger). Zero: no check. The
	// Scheduler sets it from its Clock.
	Now time.Time
	// MaxClockOffset is the largest difference between Now and the
	// store's clock, either way, that the claim accepts. Zero means 5 s:
	// NTP keeps hosts within milliseconds of each other, and a clock 5 s
	// off is broken (a VM resumed without a time sync, a stopped NTP
	// daemon, a manual step); it is well under DefaultLease. Negative is
	// refused (ErrInvalidArgument). Ignored when Now is zero.
	// WithMaxClockOffset sets it for a Scheduler's claims.
	MaxClockOffset time.Duration
	// ID, optional, names this claim across retries of it: a claimer
	// whose Claim failed with a transient error (the store may have
	// committed and the answer been lost) claims again with the same
	// Owner and ID, and a ledger that finds the period's current attempt
	// made by them, still running or abandoned, returns that record (its
	// lease extended to now+Lease) instead of a *ClaimedError (see
	// ClaimRequest.Retries). Unique per claim, not per try: the Scheduler
	// makes one per period it claims. At most ledgerkit.MaxKeyLen bytes
	// of UTF-8 without NUL; empty: no such check.
	ID string
}

// DefaultLease is the lease of a claim that does not name one.
const DefaultLease = time.Minute

// defaultMaxClockOffset is the largest offset between a claimer's clock
// and the store's that a claim accepts unless ClaimRequest.MaxClockOffset
// (or the Scheduler's WithMaxClockOffset) says otherwise. NTP keeps hosts
// within milliseconds of each other; a clock 5 s off is broken (a VM
// resumed without a time sync, a stopped or misconfigured NTP daemon, a
// manual step), and a replica on it would fire up to 5 s early or late.
// It is well under DefaultLease, so a refused replica is noticed long
// before any lease decision could have been in doubt.
const defaultMaxClockOffset = 5 * time.Second

// RetryPolicy allows taking over a period whose earlier attempt failed or
// was abandoned. The zero value allows nothing.
type RetryPolicy struct {
	// MaxAttempts is the most attempts a period may have in all, the first
	// included. 0 or 1 means no takeover.
	MaxAttempts int
	// Failed allows taking over a period in StateFailed.
	Failed bool
	// Abandoned allows taking over a period in StateAbandoned.
	Abandoned bool
}

var (
	// ErrAlreadyClaimed: the period has been claimed before and may not be
	// claimed again. The error is a *ClaimedError with the existing record.
	ErrAlreadyClaimed = errors.New("dstsafe: period already claimed")
	// ErrLeaseLost: the token no longer holds the period (taken over, or
	// finished by someone else).
	ErrLeaseLost = errors.New("dstsafe: lease lost")
	// ErrNotFound: the period has no record.
	ErrNotFound = errors.New("dstsafe: no record")
	// ErrPermanent: the ledger cannot work until someone changes
	// something, and retrying will not help: its table was never migrated,
	// its pool or client was closed, its credentials were refused. Backends
	// wrap their error with it (errors.Is(err, ErrPermanent)); the
	// Scheduler stops retrying a job whose ledger returns it and reports
	// the job and the cause. Errors without it (a timeout, a dropped
	// connection, a database restarting) are transient.
	ErrPermanent = errors.New("dstsafe: permanent ledger error")
	// ErrClockSkew: a claim was refused because the claimer's clock
	// (ClaimRequest.Now) is further from the store's than the allowed
	// offset (ClaimRequest.MaxClockOffset). Nothing was written. The
	// message gives both clocks, the offset and the bound; a Scheduler
	// reports the offset in Event.Offset.
	ErrClockSkew = errors.New("dstsafe: clock skew")
)

// clockSkewError is the error of a claim refused because the claimer's
// clock is too far from the store's (ClaimRequest.Now, MaxClockOffset):
// nothing was written. It wraps ErrClockSkew. Every backend makes it
// through ledgerkit.CheckClockSkew, so the Scheduler finds the offset in
// it whichever backend refused.
type clockSkewError struct {
	Job, Period string
	// Offset is ClaimerNow minus StoreNow: positive when the claimer's
	// clock is ahead of the store's, negative when it is behind.
	Offset time.Duration
	// Max is the largest offset the claim accepted.
	Max time.Duration
	// StoreNow is the store's clock (UTC, microseconds), ClaimerNow the
	// claimer's reading, as given.
	StoreNow, ClaimerNow time.Time
}

func (e *clockSkewError) Error() string {
	dir := "ahead of"
	off := e.Offset
	if off < 0 {
		dir, off = "behind", -off
	}
	return fmt.Sprintf("dstsafe: clock skew: claim of job %q period %q refused: the claimer's clock (%s) is %v %s the ledger's (%s), more than the %v allowed",
		e.Job, e.Period, e.ClaimerNow.UTC().Format(time.RFC3339Nano), off, dir, e.StoreNow.UTC().Format(time.RFC3339Nano), e.Max)
}

// Unwrap returns ErrClockSkew.
func (e *clockSkewError) Unwrap() error { return ErrClockSkew }

// ClaimedError is returned by Claim when the period was claimed before.
// errors.Is(err, ErrAlreadyClaimed) reports true for it.
type ClaimedError struct {
	Existing Record
}

func (e *ClaimedError) Error() string {
	r := e.Existing
	return "dstsafe: period already claimed: job " + r.Job + " period " + r.Period +
		" is " + r.State.String() + " (owner " + r.Owner + ", started " + r.StartedAt.Format(time.RFC3339) + ")"
}

// Unwrap returns ErrAlreadyClaimed.
func (e *ClaimedError) Unwrap() error { return ErrAlreadyClaimed }

// Limits on what a ledger stores (exported as ledgerkit.ledgerkit.MaxKeyLen and
// ledgerkit.ledgerkit.MaxReasonLen). Every backend enforces them, so a key that one
// backend accepts is accepted by all.
const (
	// maxKeyLen is the longest job name, period, owner or schedule
	// fingerprint, in bytes.
	maxKeyLen = 255
	// maxReasonLen is the longest failure reason kept, in bytes; longer
	// reasons are cut at a rune boundary.
	maxReasonLen = 4096
)

// KeyError reports a job name, period, owner, schedule or List bound that
// a ledger refuses. errors.Is(err, ErrInvalidArgument) reports true for it.
type KeyError struct {
	Field  string // "job", "period", "owner", "schedule", "from" or "to"
	Value  string // the value as given (possibly not UTF-8)
	Reason string // "empty", "longer than 255 bytes", ...
}

func (e *KeyError) Error() string {
	return fmt.Sprintf("dstsafe: invalid ledger key: %s %q: %s", e.Field, e.Value, e.Reason)
}

// Unwrap returns ErrInvalidArgument.
func (e *KeyError) Unwrap() error { return errInvalidKey }

// StateAt returns the state of r at instant now: StateAbandoned for a
// running record whose lease ended before now, r.State otherwise.
// Backends store StateRunning and report StateAbandoned through it.
func (r Record) StateAt(now time.Time) State {
	if r.State == StateRunning && now.After(r.LeaseUntil) {
		return StateAbandoned
	}
	return r.State
}

// Allows reports whether a new claim under p may take over existing,
// whose State is already derived (see Record.StateAt): it must be failed
// with p.Failed or abandoned with p.Abandoned, and have used fewer than
// p.MaxAttempts attempts — or be failed or abandoned and released by an
// operator (Record.Released, ControlLedger.Release), whatever p says.
// Running, succeeded and skipped periods are never taken over. Every
// backend decides takeovers by it, or by its equivalent in the backend's
// query language.
func (p RetryPolicy) Allows(existing Record) bool {
	if existing.Released && (existing.State == StateFailed || existing.State == StateAbandoned) {
		return true
	}
	switch existing.State {
	case StateFailed:
		if !p.Failed {
			return false
		}
	case StateAbandoned:
		if !p.Abandoned {
			return false
		}
	default:
		return false
	}
	return existing.Attempt < p.MaxAttempts
}

// MemoryLedger is a Ledger held in memory: for tests, examples and
// single-process services. Its records live as long as it does. It is safe
// for concurrent use; claims of one period are serialised, so of many
// concurrent claims exactly one wins. Its Clock is the store's clock (see
// Ledger): leases are measured by it, so a *clockwork.FakeClock makes a
// claim abandoned by Advance, and ClaimRequest.Now is compared with it.
//
// The zero value is not usable: call NewMemoryLedger.
type MemoryLedger struct {
	clock    Clock
	seed     maphash.Seed
	shards   [memShards]memShard
	pauses   memPauses
	registry memJobs
}

// memShards spreads periods over locks, so that workers claiming different
// periods rarely wait for each other.
const memShards = 64

type memShard struct {
	mu   sync.RWMutex
	jobs map[string]map[string]*Record // job -> period -> record
	_    [32]byte                      // keep shards' locks on separate cache lines
}

var _ Ledger = (*MemoryLedger)(nil)

// NewMemoryLedger returns an empty MemoryLedger that reads time from clock,
// or from RealClock when clock is nil.
func NewMemoryLedger(clock Clock) *MemoryLedger {
	if clock == nil {
		clock = clockwork.NewRealClock()
	}
	m := &MemoryLedger{clock: clock, seed: maphash.MakeSeed()}
	for i := range m.shards {
		m.shards[i].jobs = make(map[string]map[string]*Record)
	}
	return m
}

func (m *MemoryLedger) now() time.Time { return ledgerTime(m.clock.Now()) }

func (m *MemoryLedger) shard(period string) *memShard {
	return &m.shards[maphash.String(m.seed, period)%memShards]
}

// Claim implements Ledger. A failed or abandoned period is taken over only
// when req.Retry allows it (RetryPolicy.Allows); the takeover bumps Token and
// Attempt, so the previous holder's Heartbeat and Finish get ErrLeaseLost.
// ctx is only checked on entry: a memory claim does not block.
func (m *MemoryLedger) Claim(ctx context.Context, req ClaimRequest) (Record, error) {
	lease, err := checkClaim(ctx, req)
	if err != nil {
		return Record{}, err
	}
	sh := m.shard(req.Period)
	sh.mu.Lock()
	defer sh.mu.Unlock()
	now := m.now()
	if err := checkClockSkew(req, now); err != nil {
		return Record{}, err
	}
	periods := sh.jobs[req.Job]
	if periods == nil {
		periods = make(map[string]*Record)
		sh.jobs[req.Job] = periods
	}
	r := periods[req.Period]
	if r == nil {
		r = &Record{Job: req.Job, Period: req.Period}
		periods[req.Period] = r
	} else {
		cur := *r
		cur.State = cur.StateAt(now)
		if req.Retries(cur) {
			// This claim's own attempt, its first answer lost.
			r.LeaseUntil = now.Add(lease)
			return *r, nil
		}
		if !req.Retry.Allows(cur) {
			return Record{}, &ClaimedError{Existing: cur}
		}
	}
	r.State = StateRunning
	r.Owner = req.Owner
	r.Token++
	r.Attempt++
	r.StartedAt = now
	r.FinishedAt = time.Time{}
	r.LeaseUntil = now.Add(lease)
	r.Reason = ""
	r.Released = false
	r.Schedule = req.Schedule
	r.ClaimID = req.ID
	return *r, nil
}

// held applies change to the stored record of a period held with token,
// under its shard's lock: the compare-and-set of Heartbeat and Finish.
func (m *MemoryLedger) held(job, period string, token int64, change func(r *Record, now time.Time)) (Record, error) {
	sh := m.shard(period)
	sh.mu.Lock()
	defer sh.mu.Unlock()
	now := m.now()
	r, cur, err := sh.lookup(job, period, now)
	if err != nil {
		return Record{}, err
	}
	if r.Token != token || r.State != StateRunning {
		return Record{}, leaseLost(cur, token)
	}
	change(r, now)
	return *r, nil
}

// lookup returns the stored record of a period and a copy of it with its
// State as of now (Record.StateAt), or the ErrNotFound error. The caller
// holds sh.mu.
func (sh *memShard) lookup(job, period string, now time.Time) (*Record, Record, error) {
	r := sh.jobs[job][period]
	if r == nil {
		return nil, Record{}, notFound(job, period)
	}
	cur := *r
	cur.State = cur.StateAt(now)
	return r, cur, nil
}

// Heartbeat implements Ledger. A zero lease means DefaultLease.
func (m *MemoryLedger) Heartbeat(ctx context.Context, job, period string, token int64, lease time.Duration) (Record, error) {
	lease, err := checkHeartbeat(ctx, job, period, lease)
	if err != nil {
		return Record{}, err
	}
	return m.held(job, period, token, func(r *Record, now time.Time) {
		r.LeaseUntil = now.Add(lease)
	})
}

// Finish implements Ledger. The reason is stored as valid UTF-8 without
// NUL bytes, cut to ledgerkit.MaxReasonLen bytes (ledgerkit.NormalizeReason).
func (m *MemoryLedger) Finish(ctx context.Context, job, period string, token int64, state State, reason string) (Record, error) {
	reason, err := checkFinish(ctx, job, period, state, reason)
	if err != nil {
		return Record{}, err
	}
	return m.held(job, period, token, func(r *Record, now time.Time) {
		r.State = state
		r.FinishedAt = now
		r.Reason = reason
	})
}

// Get implements Ledger.
func (m *MemoryLedger) Get(ctx context.Context, job, period string) (Record, error) {
	if err := checkKeys(ctx, job, period); err != nil {
		return Record{}, err
	}
	sh := m.shard(period)
	sh.mu.RLock()
	defer sh.mu.RUnlock()
	_, cur, err := sh.lookup(job, period, m.now())
	return cur, err
}

// List implements Ledger. It returns an empty slice, not an error, for a
// job without records or a range without periods. It is not a snapshot:
// records claimed while it runs may be missing.
func (m *MemoryLedger) List(ctx context.Context, job, from, to string) ([]Record, error) {
	if err := checkList(ctx, job, from, to); err != nil {
		return nil, err
	}
	now := m.now()
	out := []Record{}
	for i := range m.shards {
		sh := &m.shards[i]
		sh.mu.RLock()
		for p, r := range sh.jobs[job] {
			if (from != "" && p < from) || (to != "" && p >= to) {
				continue
			}
			cur := *r
			cur.State = cur.StateAt(now)
			out = append(out, cur)
		}
		sh.mu.RUnlock()
	}
	slices.SortFunc(out, func(a, b Record) int { return strings.Compare(a.Period, b.Period) })
	return out, nil
}

package dstsafe

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strconv"
	"sync"
	"time"
)

// A JobRegistry is a Ledger that also knows each job's identity: the
// schedule it runs on (fingerprint and spec as written), its period key
// kind, its zone and zone data, its limits (WithMaxRuns, WithBounds),
// when it was first and last seen, and the owners that registered it.
// One job is one identity wherever it runs: the Scheduler registers
// every job on Run, Add and Update, `dstsafe exec` registers and reads
// it (and honours its limits), and `dstsafe ledger` and `dstsafe ui` read
// it, so none of them needs the schedule retyped.
//
// Another schedule under a registered name is refused: RegisterJob returns
// a *JobConflictError (errors.Is ErrJobConflict) naming both schedules
// and stores nothing, unless the registration takes the name over
// (JobRegistration.TakeOver: Scheduler.Update, or the Scheduler option
// that says so). Two schedules are the same when their fingerprints differ
// only in the zone data (see ClaimRequest.Schedule): a replica deployed
// with newer tz data is the same job.
//
// MemoryLedger, sqlledger and redisledger implement it;
// dstsafetest.RunLedgerTests checks it on every Ledger that does.
type JobRegistry interface {
	Ledger
	// RegisterJob records reg, by the store's clock: a new job gets
	// FirstSeen, Changed and LastSeen now; a known one with the same
	// schedule gets LastSeen now, reg's Owner added to Owners, and reg's
	// zone data (a replica with newer tz data updates it). A known job
	// under another schedule is a *JobConflictError unless reg.TakeOver,
	// which replaces the schedule and sets Changed. An empty reg.Schedule
	// (a plain Schedule, which has no fingerprint) never conflicts and
	// never replaces a known one. reg.Limits, when set, replace the
	// job's limits (never on a conflict); nil keeps them. It returns what
	// is stored. Every backend decides by JobRegistration.Merge.
	RegisterJob(ctx context.Context, reg JobRegistration) (JobInfo, error)
	// LookupJob returns job's registration, or an error wrapping
	// ErrNotFound when the job was never registered.
	LookupJob(ctx context.Context, job string) (JobInfo, error)
}

// maxJobOwners is how many owners a JobInfo keeps, the most recent first.
const maxJobOwners = 16

// JobRegistration is what a registrant says of a job.
type JobRegistration struct {
	Job   string
	Owner string // who registers: a Scheduler's owner, "dstsafe exec@host"
	// Schedule is the schedule's fingerprint (ClaimRequest.Schedule);
	// empty for a schedule without one.
	Schedule string
	// Spec is the schedule as written ("CRON_TZ=America/Chicago 30 1 * * *"),
	// for people and for `dstsafe exec`; empty when unknown.
	Spec string
	// PeriodKey is the period key kind: "wall" or "date" (PeriodKey's
	// String); empty when unknown.
	PeriodKey string
	// Zone is the schedule's zone name, ZoneData the id of the zone data
	// it was computed with.
	Zone, ZoneData string
	// TakeOver replaces a registered schedule instead of refusing it.
	TakeOver bool
	// Limits are the job's limits (WithMaxRuns, WithBounds), which every
	// runner of the job honours. Nil: the registrant does not say (`dstsafe
	// exec`, a release from before limits were registered), and the
	// stored limits stay. Non-nil: they replace the stored ones, the zero
	// JobLimits clearing them. The Scheduler always says.
	Limits *JobLimits
}

// JobLimits are the limits a job runs under, stored in the job registry so
// that every runner of the job honours the same ones: each Scheduler
// replica by its own options, `dstsafe exec` by the registry. The zero
// value is no limit.
type JobLimits struct {
	// MaxRuns is how many periods the job may succeed in, in all, as
	// WithMaxRuns counts them: in the ledger's run slots, job key
	// "<job>/max-runs", periods "0000000001" to MaxRuns, shared by every
	// runner. Zero is no limit; negative is refused.
	MaxRuns int
	// Start and End bound the periods the job runs, as WithBounds does: a
	// period runs only when its instant (Occurrence.At, as the schedule's
	// fold and gap policies give it, never its wall reading) is at or
	// after Start and at or before End, both included; a period outside
	// is neither run nor recorded. A zero Start or End leaves that side
	// open; an End before Start is refused. Stored in UTC, to the
	// nanosecond.
	Start, End time.Time
}

// check validates l: MaxRuns not negative, End not before Start, years
// from 1 to 9999 (an instant every store can write as RFC 3339).
func (l JobLimits) check() error {
	if l.MaxRuns < 0 {
		return &ArgError{Func: "RegisterJob", Arg: "Limits.MaxRuns",
			Err: fmt.Errorf("%w: negative count %d", errInvalidRange, l.MaxRuns)}
	}
	for _, b := range []struct {
		name string
		t    time.Time
	}{{"Limits.Start", l.Start}, {"Limits.End", l.End}} {
		if y := b.t.UTC().Year(); !b.t.IsZero() && (y < 1 || y > 9999) {
			return &ArgError{Func: "RegisterJob", Arg: b.name,
				Err: fmt.Errorf("%w: year %d outside 1-9999", errInvalidRange, y)}
		}
	}
	if !l.Start.IsZero() && !l.End.IsZero() && l.End.Before(l.Start) {
		return &ArgError{Func: "RegisterJob", Arg: "Limits.End", Err: fmt.Errorf("%w: end %s before start %s",
			errInvalidRange, l.End.Format(time.RFC3339Nano), l.Start.Format(time.RFC3339Nano))}
	}
	return nil
}

// stored is l as a JobRegistry keeps it: bounds in UTC, without a
// monotonic clock reading, zero ones zero.
func (l JobLimits) stored() JobLimits {
	for _, t := range []*time.Time{&l.Start, &l.End} {
		if t.IsZero() {
			*t = time.Time{}
		} else {
			*t = t.UTC()
		}
	}
	return l
}

// JobInfo is a job's registration in a JobRegistry.
type JobInfo struct {
	Job                                       string
	Schedule, Spec, PeriodKey, Zone, ZoneData string
	// FirstSeen is the first registration, LastSeen the latest, Changed
	// when Schedule was last set (the first registration or a takeover);
	// by the store's clock, UTC, microseconds.
	FirstSeen, LastSeen, Changed time.Time
	// Owners are the owners that registered the job, the most recent
	// first, each once, at most 16.
	Owners []string
	// Limits are the job's limits, as the latest registration that said
	// them stored them (JobRegistration.Limits); zero when none did.
	Limits JobLimits
}

// ErrJobConflict: a job was registered under a name another schedule
// already has. The error is a *JobConflictError naming both.
var ErrJobConflict = errors.New("dstsafe: job registered with another schedule")

// JobConflictError is RegisterJob's error for a name registered with
// another schedule: Registered is what the registry holds, Schedule and
// Spec what was refused.
type JobConflictError struct {
	Registered     JobInfo
	Schedule, Spec string
}

func (e *JobConflictError) Error() string {
	have, want := e.Registered.Spec, e.Spec
	if have == "" {
		have = e.Registered.Schedule
	}
	if want == "" {
		want = e.Schedule
	}
	return "dstsafe: job " + strconv.Quote(e.Registered.Job) + " is registered with schedule " + strconv.Quote(have) +
		" (since " + e.Registered.Changed.Format(time.RFC3339) + "), not " + strconv.Quote(want) +
		": take the name over explicitly (Scheduler.Update, WithTakeOver) or use another name"
}

// Unwrap returns ErrJobConflict.
func (e *JobConflictError) Unwrap() error { return ErrJobConflict }

// Check validates reg the way every JobRegistry does before touching
// storage: ctx, the job and owner keys, and Schedule when set. Spec,
// PeriodKey, Zone and ZoneData are stored as given, each at most
// ledgerkit.MaxKeyLen bytes of UTF-8 without NUL when set. Limits, when
// set, are an *ArgError wrapping ErrInvalidArgument for a negative
// MaxRuns, an End before Start, or a bound outside the years 1 to 9999.
func (reg JobRegistration) Check(ctx context.Context) error {
	if err := checkJob(ctx, reg.Job); err != nil {
		return err
	}
	if err := validateKey("owner", reg.Owner); err != nil {
		return err
	}
	for _, f := range []struct{ name, v string }{{"schedule", reg.Schedule}, {"spec", reg.Spec},
		{"period key", reg.PeriodKey}, {"zone", reg.Zone}, {"zone data", reg.ZoneData}} {
		if f.v != "" {
			if err := validateKey(f.name, f.v); err != nil {
				return err
			}
		}
	}
	if reg.Limits != nil {
		return reg.Limits.check()
	}
	return nil
}

// Merge returns what a JobRegistry stores when reg is registered at now
// (the store's clock) over existing (nil for a job never registered), or
// the *JobConflictError it returns instead. Every backend calls it inside
// its transaction (or with its optimistic lock), so that all of them
// decide alike. reg's Limits, when set, are stored in UTC whenever the
// registration is: for a new job, the same schedule, a takeover or a
// plain schedule; never on a conflict.
func (reg JobRegistration) Merge(existing *JobInfo, now time.Time) (JobInfo, error) {
	now = ledgerTime(now)
	if existing == nil {
		info := JobInfo{Job: reg.Job, Schedule: reg.Schedule, Spec: reg.Spec, PeriodKey: reg.PeriodKey,
			Zone: reg.Zone, ZoneData: reg.ZoneData, FirstSeen: now, LastSeen: now, Changed: now,
			Owners: []string{reg.Owner}}
		if reg.Limits != nil {
			info.Limits = reg.Limits.stored()
		}
		return info, nil
	}
	info := *existing
	info.Owners = slices.Clone(existing.Owners)
	switch {
	case reg.Schedule == "":
		// A plain schedule: nothing to compare, nothing to replace.
	case info.Schedule == "" || sameSchedule(info.Schedule, reg.Schedule):
		if info.Schedule == "" {
			info.Changed = now
		}
		info.Schedule, info.ZoneData = reg.Schedule, reg.ZoneData
		if reg.Spec != "" {
			info.Spec = reg.Spec
		}
		if reg.PeriodKey != "" {
			info.PeriodKey = reg.PeriodKey
		}
		if reg.Zone != "" {
			info.Zone = reg.Zone
		}
	case reg.TakeOver:
		info.Schedule, info.Spec, info.PeriodKey, info.Zone, info.ZoneData =
			reg.Schedule, reg.Spec, reg.PeriodKey, reg.Zone, reg.ZoneData
		info.Changed = now
	default:
		return JobInfo{}, &JobConflictError{Registered: *existing, Schedule: reg.Schedule, Spec: reg.Spec}
	}
	if reg.Limits != nil {
		info.Limits = reg.Limits.stored()
	}
	info.LastSeen = now
	info.Owners = slices.DeleteFunc(info.Owners, func(o string) bool { return o == reg.Owner })
	info.Owners = append([]string{reg.Owner}, info.Owners...)
	if len(info.Owners) > maxJobOwners {
		info.Owners = info.Owners[:maxJobOwners]
	}
	return info, nil
}

// Retries reports whether existing, a period's record, is the attempt an
// earlier try of this same claim made: a Claim whose answer was lost (the
// store committed, the reply never came) and that is tried again with the
// same Owner and ID finds its own attempt, still running (or abandoned,
// its lease over while the claimer retried), and takes it as its answer
// rather than as a *ClaimedError. False when req.ID is empty. Every
// backend decides by it.
func (req ClaimRequest) Retries(existing Record) bool {
	return req.ID != "" && existing.ClaimID == req.ID && existing.Owner == req.Owner &&
		(existing.State == StateRunning || existing.State == StateAbandoned)
}

// jobNotFound is LookupJob's error for a job never registered, in every
// backend (ledgerkit.JobNotFound).
func jobNotFound(job string) error {
	return fmt.Errorf("%w: job %q is not registered", ErrNotFound, job)
}

var _ JobRegistry = (*MemoryLedger)(nil)

// memJobs holds a MemoryLedger's job registrations.
type memJobs struct {
	mu   sync.Mutex
	jobs map[string]JobInfo
}

// RegisterJob implements JobRegistry.
func (m *MemoryLedger) RegisterJob(ctx context.Context, reg JobRegistration) (JobInfo, error) {
	if err := reg.Check(ctx); err != nil {
		return JobInfo{}, err
	}
	m.registry.mu.Lock()
	defer m.registry.mu.Unlock()
	var existing *JobInfo
	if cur, ok := m.registry.jobs[reg.Job]; ok {
		existing = &cur
	}
	info, err := reg.Merge(existing, m.now())
	if err != nil {
		return JobInfo{}, err
	}
	if m.registry.jobs == nil {
		m.registry.jobs = make(map[string]JobInfo)
	}
	m.registry.jobs[reg.Job] = info
	info.Owners = slices.Clone(info.Owners)
	return info, nil
}

// LookupJob implements JobRegistry.
func (m *MemoryLedger) LookupJob(ctx context.Context, job string) (JobInfo, error) {
	if err := checkJob(ctx, job); err != nil {
		return JobInfo{}, err
	}
	m.registry.mu.Lock()
	defer m.registry.mu.Unlock()
	info, ok := m.registry.jobs[job]
	if !ok {
		return JobInfo{}, jobNotFound(job)
	}
	info.Owners = slices.Clone(info.Owners)
	return info, nil
}

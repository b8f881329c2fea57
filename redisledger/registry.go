package redisledger

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/dstsafe/dstsafe"
	"github.com/dstsafe/dstsafe/ledgerkit"
)

// The job registry (dstsafe.JobRegistry) is one JSON string key per job,
// in the job's hash tag next to its records:
//
//	dstsafe:{7:billing}:job
//	  {"schedule":"cron1;America/Chicago;...","spec":"CRON_TZ=America/Chicago 30 1 * * *",
//	   "period_key":"wall","zone":"America/Chicago","zone_data":"2025b",
//	   "first_seen":"...","last_seen":"...","changed":"...","owners":["billing-2","billing-1"],
//	   "max_runs":2,"bounds_start":"2024-11-03T07:00:00Z","bounds_end":"2024-12-31T23:59:59.999999999Z"}
//
// The limits (dstsafe.JobLimits) are left out when none: a registration
// written by a release from before them reads as no limits. A release
// from before them that registers a job again rewrites the value without
// them, and so clears them: upgrade every replica before relying on
// limits (the next registration of an upgraded replica writes them
// back).
//
// A registration reads the key and Redis TIME (on the node of the job's
// slot), decides with dstsafe.JobRegistration.Merge, and writes with the
// compare-and-set of the pause state (setScript): against the bytes it
// read, or against none for a new job. A write that lost to a concurrent
// registration is decided again on the value that won, so of two
// registrations of one name with different schedules exactly one is
// stored and the other gets the *dstsafe.JobConflictError naming it.

var _ dstsafe.JobRegistry = (*Ledger)(nil)

// storedJob is a job's registration as kept in Redis.
type storedJob struct {
	Schedule  string    `json:"schedule"`
	Spec      string    `json:"spec,omitempty"`
	PeriodKey string    `json:"period_key,omitempty"`
	Zone      string    `json:"zone,omitempty"`
	ZoneData  string    `json:"zone_data,omitempty"`
	FirstSeen time.Time `json:"first_seen"`
	LastSeen  time.Time `json:"last_seen"`
	Changed   time.Time `json:"changed"`
	Owners    []string  `json:"owners"`
	// The limits, each left out when none (time.Time's zero marshals).
	MaxRuns     int       `json:"max_runs,omitempty"`
	BoundsStart time.Time `json:"bounds_start,omitzero"`
	BoundsEnd   time.Time `json:"bounds_end,omitzero"`
}

// jobKey is the key of job's registration.
func (l *Ledger) jobKey(job string) string {
	return l.jobPrefix(job) + ":job"
}

// RegisterJob implements dstsafe.JobRegistry, by Redis TIME (or
// WithClock's Clock). A registered job is in Jobs.
func (l *Ledger) RegisterJob(ctx context.Context, reg dstsafe.JobRegistration) (dstsafe.JobInfo, error) {
	if err := ledgerkit.CheckRegisterJob(ctx, reg); err != nil {
		return dstsafe.JobInfo{}, err
	}
	if err := l.addJob(ctx, "register", reg.Job); err != nil {
		return dstsafe.JobInfo{}, err
	}
	key := l.jobKey(reg.Job)
	raw, existing, err := l.readJob(ctx, "register", reg.Job)
	if err != nil {
		return dstsafe.JobInfo{}, err
	}
	for range maxSwaps {
		now, err := l.now(ctx, key)
		if err != nil {
			return dstsafe.JobInfo{}, l.wrapJob("register", reg.Job, err)
		}
		info, err := reg.Merge(existing, now)
		if err != nil {
			return dstsafe.JobInfo{}, err
		}
		next, err := json.Marshal(storedJob{Schedule: info.Schedule, Spec: info.Spec, PeriodKey: info.PeriodKey,
			Zone: info.Zone, ZoneData: info.ZoneData, FirstSeen: info.FirstSeen, LastSeen: info.LastSeen,
			Changed: info.Changed, Owners: info.Owners, MaxRuns: info.Limits.MaxRuns,
			BoundsStart: info.Limits.Start, BoundsEnd: info.Limits.End})
		if err != nil {
			return dstsafe.JobInfo{}, fmt.Errorf("redisledger: register %q: %w", reg.Job, err)
		}
		res, err := setScript.Run(ctx, l.client, []string{key}, raw, string(next)).Slice()
		if err != nil {
			return dstsafe.JobInfo{}, l.wrapJob("register", reg.Job, err)
		}
		if n, ok := res[0].(int64); ok && n == 1 {
			return info, nil
		}
		// Another registration won in between: decide again on its value.
		raw, existing = "", nil
		if len(res) > 1 {
			s, ok := res[1].(string)
			if !ok {
				return dstsafe.JobInfo{}, &CorruptRecordError{Key: key, Err: fmt.Errorf("script replied %T", res[1])}
			}
			info, err := decodeJob(key, reg.Job, s)
			if err != nil {
				return dstsafe.JobInfo{}, err
			}
			raw, existing = s, &info
		}
	}
	return dstsafe.JobInfo{}, l.contended("register", reg.Job, "")
}

// LookupJob implements dstsafe.JobRegistry.
func (l *Ledger) LookupJob(ctx context.Context, job string) (dstsafe.JobInfo, error) {
	if err := ledgerkit.CheckLookupJob(ctx, job); err != nil {
		return dstsafe.JobInfo{}, err
	}
	_, info, err := l.readJob(ctx, "lookup", job)
	if err != nil {
		return dstsafe.JobInfo{}, err
	}
	if info == nil {
		return dstsafe.JobInfo{}, ledgerkit.JobNotFound(job)
	}
	return *info, nil
}

// readJob reads job's registration: the stored bytes and the decoded
// value, "" and nil when there is none.
func (l *Ledger) readJob(ctx context.Context, op, job string) (string, *dstsafe.JobInfo, error) {
	key := l.jobKey(job)
	raw, err := l.client.Get(ctx, key).Result()
	if errors.Is(err, redis.Nil) {
		return "", nil, nil
	}
	if err != nil {
		return "", nil, l.wrapJob(op, job, err)
	}
	info, err := decodeJob(key, job, raw)
	if err != nil {
		return "", nil, err
	}
	return raw, &info, nil
}

func decodeJob(key, job, raw string) (dstsafe.JobInfo, error) {
	var s storedJob
	if err := json.Unmarshal([]byte(raw), &s); err != nil {
		return dstsafe.JobInfo{}, &CorruptRecordError{Key: key, Err: err}
	}
	if len(s.Owners) == 0 || s.FirstSeen.IsZero() {
		return dstsafe.JobInfo{}, &CorruptRecordError{Key: key, Err: errors.New("a job registration without owners or first_seen")}
	}
	info := dstsafe.JobInfo{Job: job, Schedule: s.Schedule, Spec: s.Spec, PeriodKey: s.PeriodKey, Zone: s.Zone,
		ZoneData: s.ZoneData, FirstSeen: s.FirstSeen.UTC(), LastSeen: s.LastSeen.UTC(), Changed: s.Changed.UTC(),
		Owners: s.Owners, Limits: dstsafe.JobLimits{MaxRuns: s.MaxRuns}}
	if !s.BoundsStart.IsZero() {
		info.Limits.Start = s.BoundsStart.UTC()
	}
	if !s.BoundsEnd.IsZero() {
		info.Limits.End = s.BoundsEnd.UTC()
	}
	return info, nil
}

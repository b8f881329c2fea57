package sqlledger

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"time"

	"github.com/dstsafe/dstsafe"
	"github.com/dstsafe/dstsafe/ledgerkit"
)

// The job registry (dstsafe.JobRegistry) is one row per job in
// "<table>_jobs" (schema version 3; the limits since version 4):
//
//	job_name                       primary key
//	schedule, spec, period_key, zone, zone_data
//	first_seen, last_seen, changed the database's clock
//	owners                         JSON array, the most recent first
//	max_runs                       dstsafe.JobLimits.MaxRuns, 0 for none
//	bounds_start, bounds_end       RFC 3339 in UTC to the nanosecond, '' open
//	revision                       bumped by every write
//
// A registration reads the row and the database's clock in one statement,
// decides with dstsafe.JobRegistration.Merge, and writes with a
// compare-and-set: an INSERT ... ON CONFLICT DO NOTHING for a new job, an
// UPDATE matching the revision read for a known one. A write that matched
// nothing lost to a concurrent registration, and the registration is
// decided again on the row that won, so of two registrations of one name
// with different schedules exactly one is stored and the other gets the
// *dstsafe.JobConflictError naming it. It needs no transaction of its
// own, so it works the same through WithTx: the registration then commits
// or rolls back with the caller's transaction.

var _ dstsafe.JobRegistry = (*Ledger)(nil)

// registerPasses bounds the compare-and-set rounds of one RegisterJob:
// each lost round is another registration of the same job that won, and
// replicas register a job once per start.
const registerPasses = 100

// RegisterJob implements dstsafe.JobRegistry, by the database's clock
// (PostgreSQL's clock_timestamp(), read in the statement that reads the
// row; SQLite's host clock; WithClock's Clock).
func (l *Ledger) RegisterJob(ctx context.Context, reg dstsafe.JobRegistration) (dstsafe.JobInfo, error) {
	if err := ledgerkit.CheckRegisterJob(ctx, reg); err != nil {
		return dstsafe.JobInfo{}, err
	}
	for range registerPasses {
		now, existing, rev, err := l.readJob(ctx, reg.Job)
		if err != nil {
			return dstsafe.JobInfo{}, mapErr("register", reg.Job, "", err)
		}
		info, err := reg.Merge(existing, now)
		if err != nil {
			return dstsafe.JobInfo{}, err
		}
		owners, err := json.Marshal(info.Owners)
		if err != nil {
			return dstsafe.JobInfo{}, fmt.Errorf("sqlledger: register job %q: %w", reg.Job, err)
		}
		args := []any{info.Job, info.Schedule, info.Spec, info.PeriodKey, info.Zone, info.ZoneData,
			l.timeArg(info.FirstSeen), l.timeArg(info.LastSeen), l.timeArg(info.Changed), string(owners),
			int64(info.Limits.MaxRuns), boundText(info.Limits.Start), boundText(info.Limits.End)}
		q := l.sql.insertJob
		if existing != nil {
			q, args = l.sql.updateJob, append(args, rev)
		}
		err = l.row(ctx, q, args, func(s scanner) error {
			var got int64
			return s.Scan(&got)
		})
		if err == nil {
			return info, nil
		}
		if !errors.Is(err, sql.ErrNoRows) {
			return dstsafe.JobInfo{}, mapErr("register", reg.Job, "", err)
		}
		// Another registration of the job won in between: decide again.
	}
	return dstsafe.JobInfo{}, fmt.Errorf("sqlledger: register job %q: the registration changed %d times during the call; try again", reg.Job, registerPasses)
}

// LookupJob implements dstsafe.JobRegistry.
func (l *Ledger) LookupJob(ctx context.Context, job string) (dstsafe.JobInfo, error) {
	if err := ledgerkit.CheckLookupJob(ctx, job); err != nil {
		return dstsafe.JobInfo{}, err
	}
	_, info, _, err := l.readJob(ctx, job)
	if err != nil {
		return dstsafe.JobInfo{}, mapErr("lookup", job, "", err)
	}
	if info == nil {
		return dstsafe.JobInfo{}, ledgerkit.JobNotFound(job)
	}
	return *info, nil
}

// readJob reads job's registration (nil if none) and its revision, with
// the database's clock.
func (l *Ledger) readJob(ctx context.Context, job string) (now time.Time, info *dstsafe.JobInfo, rev int64, err error) {
	var (
		pgNow                                    sql.NullTime
		liteNow                                  int64
		name, sched, spec, key, zone, data, owns sql.NullString
		maxRuns, revision                        sql.NullInt64
		bounds                                   [2]sql.NullString // start, end
		pgSeen                                   [3]sql.NullTime   // first, last, changed
		liteSeen                                 [3]sql.NullInt64  // the same, in microseconds
	)
	dest := []any{&pgNow, &name, &sched, &spec, &key, &zone, &data, &pgSeen[0], &pgSeen[1], &pgSeen[2], &owns,
		&maxRuns, &bounds[0], &bounds[1], &revision}
	if l.dialect == SQLite {
		dest[0], dest[7], dest[8], dest[9] = &liteNow, &liteSeen[0], &liteSeen[1], &liteSeen[2]
	}
	var row *sql.Row
	if st, ok := l.prepared(ctx, l.sql.getJob); ok {
		row = st.QueryRowContext(ctx, job)
	} else {
		row = l.q.QueryRowContext(ctx, l.sql.getJob, job)
	}
	if err := row.Scan(dest...); err != nil {
		return time.Time{}, nil, 0, err
	}
	if l.clock != nil {
		now = ledgerkit.LedgerTime(l.clock.Now())
	} else {
		now = ledgerkit.LedgerTime(pgNow.Time)
	}
	if !name.Valid {
		return now, nil, 0, nil
	}
	info = &dstsafe.JobInfo{Job: name.String, Schedule: sched.String, Spec: spec.String, PeriodKey: key.String,
		Zone: zone.String, ZoneData: data.String}
	for i, t := range []*time.Time{&info.FirstSeen, &info.LastSeen, &info.Changed} {
		if l.dialect == SQLite {
			*t = time.UnixMicro(liteSeen[i].Int64).UTC()
		} else {
			*t = ledgerkit.LedgerTime(pgSeen[i].Time)
		}
	}
	if err := json.Unmarshal([]byte(owns.String), &info.Owners); err != nil {
		return time.Time{}, nil, 0, fmt.Errorf("sqlledger: owners of job %q in %s_jobs: %w", job, l.table, err)
	}
	info.Limits.MaxRuns = int(maxRuns.Int64)
	for i, t := range []*time.Time{&info.Limits.Start, &info.Limits.End} {
		if *t, err = parseBound(bounds[i].String); err != nil {
			return time.Time{}, nil, 0, fmt.Errorf("sqlledger: limits of job %q in %s_jobs: %w", job, l.table, err)
		}
	}
	return now, info, revision.Int64, nil
}

// boundText is a job limit's bound as stored: RFC 3339 in UTC to the
// nanosecond, "" for an open side (a zero t).
func boundText(t time.Time) string {
	if t.IsZero() {
		return ""
	}
	return t.UTC().Format(time.RFC3339Nano)
}

// parseBound reads boundText's text back.
func parseBound(s string) (time.Time, error) {
	if s == "" {
		return time.Time{}, nil
	}
	t, err := time.Parse(time.RFC3339Nano, s)
	return t.UTC(), err
}

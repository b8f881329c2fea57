package sqlledger

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"slices"
	"time"

	"github.com/dstsafe/dstsafe"
	"github.com/dstsafe/dstsafe/ledgerkit"
)

// What operators decide (dstsafe.ControlLedger) lives in the database
// with the records, so every replica on it obeys it and a restart keeps
// it: a release is three columns of the period's row, the pause state a
// row per job in "<table>_pauses". Both need schema version 2 (Migrate).

// controlPasses bounds the rounds of a Release or SetPause whose write
// matched nothing because another writer changed the row in between.
const controlPasses = 8

// Release implements dstsafe.ControlLedger: one UPDATE that marks the
// period's row released if it is failed, or running with its lease over
// (abandoned) by the Ledger's clock. The next claim of the period takes
// it over whatever its RetryPolicy, and clears the mark in the same
// compare-and-set that bumps the token.
func (l *Ledger) Release(ctx context.Context, job, period, by, reason string) (dstsafe.Record, error) {
	reason, err := ledgerkit.CheckRelease(ctx, job, period, by, reason)
	if err != nil {
		return dstsafe.Record{}, err
	}
	for range controlPasses {
		now, err := l.now(ctx)
		if err != nil {
			return dstsafe.Record{}, mapErr("release", job, period, err)
		}
		r, err := l.one(ctx, l.sql.release, []any{job, period, by, reason, l.timeArg(now)})
		if err == nil {
			r.State = r.StateAt(now)
			return r, nil
		}
		if !errors.Is(err, sql.ErrNoRows) {
			return dstsafe.Record{}, mapErr("release", job, period, err)
		}
		cur, err := l.current(ctx, "release", job, period)
		if err != nil {
			return dstsafe.Record{}, err
		}
		if cur.State != dstsafe.StateFailed && cur.State != dstsafe.StateAbandoned {
			return dstsafe.Record{}, &dstsafe.ClaimedError{Existing: cur}
		}
		// Failed or abandoned by now, after all: it changed between the
		// two statements (its lease just ran out, or a takeover failed).
	}
	return dstsafe.Record{}, fmt.Errorf("sqlledger: release job %q period %q: the record kept changing; try again", job, period)
}

// SetPause implements dstsafe.ControlLedger. A pause is an INSERT ... ON
// CONFLICT DO UPDATE that only updates a resumed row, a resume an UPDATE
// of a paused row: when the state is already the one asked for, nothing
// is written and the stored state is returned.
func (l *Ledger) SetPause(ctx context.Context, job string, p dstsafe.Pause) (dstsafe.Pause, error) {
	reason, err := ledgerkit.CheckSetPause(ctx, job, p)
	if err != nil {
		return dstsafe.Pause{}, err
	}
	q := l.sql.resume
	if p.Paused {
		q = l.sql.pause
	}
	for range controlPasses {
		now, err := l.now(ctx)
		if err != nil {
			return dstsafe.Pause{}, mapErr("set pause", job, "", err)
		}
		got, err := l.pauseRow(ctx, q, job, p.By, reason, l.timeArg(now))
		if err == nil {
			return got, nil
		}
		if !errors.Is(err, sql.ErrNoRows) {
			return dstsafe.Pause{}, mapErr("set pause", job, "", err)
		}
		cur, err := l.GetPause(ctx, job)
		if err != nil || cur.Paused == p.Paused {
			return cur, err
		}
		// Flipped by someone else between the two statements: again.
	}
	return dstsafe.Pause{}, fmt.Errorf("sqlledger: set pause of job %q: the state kept changing; try again", job)
}

// GetPause implements dstsafe.ControlLedger.
func (l *Ledger) GetPause(ctx context.Context, job string) (dstsafe.Pause, error) {
	if err := ledgerkit.CheckGetPause(ctx, job); err != nil {
		return dstsafe.Pause{}, err
	}
	p, err := l.pauseRow(ctx, l.sql.getPause, job)
	if errors.Is(err, sql.ErrNoRows) {
		return dstsafe.Pause{}, nil
	}
	if err != nil {
		return dstsafe.Pause{}, mapErr("get pause", job, "", err)
	}
	return p, nil
}

// Jobs implements dstsafe.ControlLedger: one statement over the records'
// primary key and the pause rows (see queries.go).
func (l *Ledger) Jobs(ctx context.Context) ([]string, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	rows, err := l.q.QueryContext(ctx, l.sql.jobs)
	if err != nil {
		return nil, mapErr("jobs", "", "", err)
	}
	defer rows.Close()
	jobs := []string{}
	for rows.Next() {
		var job string
		if err := rows.Scan(&job); err != nil {
			return nil, mapErr("jobs", "", "", err)
		}
		jobs = append(jobs, job)
	}
	if err := rows.Err(); err != nil {
		return nil, mapErr("jobs", "", "", err)
	}
	// By bytes, whatever the database's collation (SQLite's BINARY and
	// PostgreSQL's "C" agree already).
	slices.Sort(jobs)
	return slices.Compact(jobs), nil
}

// pauseRow runs a statement returning at most one row of pauseCols.
func (l *Ledger) pauseRow(ctx context.Context, query string, args ...any) (p dstsafe.Pause, err error) {
	err = l.row(ctx, query, args, func(s scanner) error {
		if l.dialect == SQLite {
			var since int64
			err := s.Scan(&p.Paused, &p.By, &p.Reason, &since)
			p.Since = time.UnixMicro(since).UTC()
			return err
		}
		err := s.Scan(&p.Paused, &p.By, &p.Reason, &p.Since)
		p.Since = ledgerkit.LedgerTime(p.Since)
		return err
	})
	if err != nil {
		return dstsafe.Pause{}, err
	}
	return p, nil
}

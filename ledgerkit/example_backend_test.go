package ledgerkit_test

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/jonboulle/clockwork"

	"github.com/dstsafe/dstsafe"
	"github.com/dstsafe/dstsafe/ledgerkit"
)

// store stands for a backend's storage: rows behind a lock, and a Close
// after which every call fails, as a closed connection pool does.
type store struct {
	mu     sync.Mutex
	closed bool
	rows   map[[2]string]dstsafe.Record // (job, period) -> record as stored
	jobs   map[string]dstsafe.JobInfo   // job -> registration as stored
}

var errStoreClosed = errors.New("store: closed")

func (s *store) Close() {
	s.mu.Lock()
	s.closed = true
	s.mu.Unlock()
}

// tableLedger is a dstsafe.Ledger on a store, written with the kit.
type tableLedger struct {
	clock dstsafe.Clock
	db    *store
}

var _ dstsafe.JobRegistry = (*tableLedger)(nil)

func newTableLedger(clock dstsafe.Clock) *tableLedger {
	return &tableLedger{clock: clock, db: &store{rows: map[[2]string]dstsafe.Record{}, jobs: map[string]dstsafe.JobInfo{}}}
}

// now is the Clock's instant as ledgers store it.
func (l *tableLedger) now() time.Time { return ledgerkit.LedgerTime(l.clock.Now()) }

// interpretError is the one place where the backend decides what a storage
// error means: a closed store cannot work until someone reopens it.
func interpretError(op, job, period string, err error) error {
	if errors.Is(err, errStoreClosed) {
		err = ledgerkit.Permanent(err)
	}
	return fmt.Errorf("tableledger: %s job %q period %q: %w", op, job, period, err)
}

// tx runs f on the rows, atomically, as a storage transaction would. The
// ledger's own conditions (f's errors) pass through; storage errors are
// interpreted.
func (l *tableLedger) tx(op, job, period string, f func(rows map[[2]string]dstsafe.Record) error) error {
	l.db.mu.Lock()
	defer l.db.mu.Unlock()
	if l.db.closed {
		return interpretError(op, job, period, errStoreClosed)
	}
	return f(l.db.rows)
}

func (l *tableLedger) Claim(ctx context.Context, req dstsafe.ClaimRequest) (dstsafe.Record, error) {
	lease, err := ledgerkit.CheckClaim(ctx, req)
	if err != nil {
		return dstsafe.Record{}, err
	}
	var out dstsafe.Record
	err = l.tx("claim", req.Job, req.Period, func(rows map[[2]string]dstsafe.Record) error {
		now := l.now()
		// The claimer's clock against the store's, before anything is
		// written, first claims and takeovers alike.
		if err := ledgerkit.CheckClockSkew(req, now); err != nil {
			return err
		}
		prev, ok := rows[[2]string{req.Job, req.Period}]
		if ok {
			prev.State = prev.StateAt(now)
			if req.Retries(prev) {
				// This claim's own attempt: an earlier try committed
				// it and its answer was lost. Hand it back, its lease
				// counted from now.
				r := rows[[2]string{req.Job, req.Period}]
				r.LeaseUntil = now.Add(lease)
				rows[[2]string{req.Job, req.Period}] = r
				out = r
				return nil
			}
			if !req.Retry.Allows(prev) {
				return &dstsafe.ClaimedError{Existing: prev}
			}
		}
		out = dstsafe.Record{
			Job: req.Job, Period: req.Period, State: dstsafe.StateRunning, Owner: req.Owner,
			Token: prev.Token + 1, Attempt: prev.Attempt + 1, // a takeover fences the previous holder
			StartedAt: now, LeaseUntil: now.Add(lease), Schedule: req.Schedule, ClaimID: req.ID,
		}
		rows[[2]string{req.Job, req.Period}] = out
		return nil
	})
	return out, err
}

// held applies change to the running record of (job, period) held with
// token: the compare-and-set of Heartbeat and Finish.
func (l *tableLedger) held(op, job, period string, token int64, change func(r *dstsafe.Record, now time.Time)) (dstsafe.Record, error) {
	var out dstsafe.Record
	err := l.tx(op, job, period, func(rows map[[2]string]dstsafe.Record) error {
		r, ok := rows[[2]string{job, period}]
		if !ok {
			return ledgerkit.NotFound(job, period)
		}
		now := l.now()
		if r.Token != token || r.State != dstsafe.StateRunning {
			r.State = r.StateAt(now)
			return ledgerkit.LeaseLost(r, token)
		}
		change(&r, now)
		rows[[2]string{job, period}] = r
		out = r
		return nil
	})
	return out, err
}

func (l *tableLedger) Heartbeat(ctx context.Context, job, period string, token int64, lease time.Duration) (dstsafe.Record, error) {
	lease, err := ledgerkit.CheckHeartbeat(ctx, job, period, lease)
	if err != nil {
		return dstsafe.Record{}, err
	}
	return l.held("heartbeat", job, period, token, func(r *dstsafe.Record, now time.Time) {
		r.LeaseUntil = now.Add(lease)
	})
}

func (l *tableLedger) Finish(ctx context.Context, job, period string, token int64, state dstsafe.State, reason string) (dstsafe.Record, error) {
	reason, err := ledgerkit.CheckFinish(ctx, job, period, state, reason)
	if err != nil {
		return dstsafe.Record{}, err
	}
	return l.held("finish", job, period, token, func(r *dstsafe.Record, now time.Time) {
		r.State, r.FinishedAt, r.Reason = state, now, reason
	})
}

func (l *tableLedger) Get(ctx context.Context, job, period string) (dstsafe.Record, error) {
	if err := ledgerkit.CheckGet(ctx, job, period); err != nil {
		return dstsafe.Record{}, err
	}
	var out dstsafe.Record
	err := l.tx("get", job, period, func(rows map[[2]string]dstsafe.Record) error {
		r, ok := rows[[2]string{job, period}]
		if !ok {
			return ledgerkit.NotFound(job, period)
		}
		r.State = r.StateAt(l.now())
		out = r
		return nil
	})
	return out, err
}

func (l *tableLedger) List(ctx context.Context, job, from, to string) ([]dstsafe.Record, error) {
	if err := ledgerkit.CheckList(ctx, job, from, to); err != nil {
		return nil, err
	}
	out := []dstsafe.Record{}
	err := l.tx("list", job, from+".."+to, func(rows map[[2]string]dstsafe.Record) error {
		now := l.now()
		for k, r := range rows {
			if k[0] == job && (from == "" || k[1] >= from) && (to == "" || k[1] < to) {
				r.State = r.StateAt(now)
				out = append(out, r)
			}
		}
		return nil
	})
	slices.SortFunc(out, func(a, b dstsafe.Record) int { return strings.Compare(a.Period, b.Period) })
	return out, err
}

// RegisterJob reads the stored registration and the clock, lets Merge
// decide, and writes in the same transaction: of concurrent registrations
// under two schedules, exactly one is stored. (A backend without
// transactions writes with a compare-and-set of what it read, and on a
// lost write reads and decides again.)
func (l *tableLedger) RegisterJob(ctx context.Context, reg dstsafe.JobRegistration) (dstsafe.JobInfo, error) {
	if err := ledgerkit.CheckRegisterJob(ctx, reg); err != nil {
		return dstsafe.JobInfo{}, err
	}
	var out dstsafe.JobInfo
	err := l.tx("register", reg.Job, "", func(map[[2]string]dstsafe.Record) error {
		var existing *dstsafe.JobInfo
		if cur, ok := l.db.jobs[reg.Job]; ok {
			existing = &cur
		}
		info, err := reg.Merge(existing, l.now())
		if err != nil {
			return err // a *dstsafe.JobConflictError: nothing written
		}
		l.db.jobs[reg.Job] = info
		out = info
		return nil
	})
	return out, err
}

func (l *tableLedger) LookupJob(ctx context.Context, job string) (dstsafe.JobInfo, error) {
	if err := ledgerkit.CheckLookupJob(ctx, job); err != nil {
		return dstsafe.JobInfo{}, err
	}
	var out dstsafe.JobInfo
	err := l.tx("lookup", job, "", func(map[[2]string]dstsafe.Record) error {
		info, ok := l.db.jobs[job]
		if !ok {
			return ledgerkit.JobNotFound(job)
		}
		out = info
		return nil
	})
	return out, err
}

// A backend built on the kit: every method starts with its check, the
// ledger's conditions are the kit's errors, and storage errors are
// interpreted in one place. (TestTableLedger runs dstsafetest's suite on it.)
func Example() {
	// 01:30 CDT on 2024-11-03, the first of the night's two 01:30s.
	clock := clockwork.NewFakeClockAt(time.Date(2024, 11, 3, 6, 30, 0, 0, time.UTC))
	l := newTableLedger(clock)
	ctx := context.Background()

	r, _ := l.Claim(ctx, dstsafe.ClaimRequest{Job: "billing", Period: "2024-11-03", Owner: "host-a"})
	fmt.Println(r.State, r.Token, r.LeaseUntil.Format("15:04 MST"))

	clock.Advance(time.Hour) // 01:30 CST: the wall clock reads the same
	_, err := l.Claim(ctx, dstsafe.ClaimRequest{Job: "billing", Period: "2024-11-03", Owner: "host-b"})
	var ce *dstsafe.ClaimedError
	fmt.Println(errors.As(err, &ce), ce.Existing.State)

	_, err = l.Claim(ctx, dstsafe.ClaimRequest{Job: "billing", Period: "2024-11-03", Owner: "host-b", Lease: -time.Minute})
	fmt.Println(err)

	// The replica's claim of the next day committed, but the connection
	// dropped before the answer came: it claims again with the same ID
	// and gets its own attempt back.
	req := dstsafe.ClaimRequest{Job: "billing", Period: "2024-11-04", Owner: "host-a", ID: "host-a/2024-11-04/1"}
	_, _ = l.Claim(ctx, req) // answer lost
	again, err := l.Claim(ctx, req)
	fmt.Println(again.Owner, again.Attempt, err)

	// Another service registers "billing" at 02:00: refused, naming both.
	_, _ = l.RegisterJob(ctx, dstsafe.JobRegistration{Job: "billing", Owner: "host-a",
		Schedule: "cron1;America/Chicago;2025b;first;shift;date;0;0;30 1 * * *", Spec: "CRON_TZ=America/Chicago 30 1 * * *"})
	_, err = l.RegisterJob(ctx, dstsafe.JobRegistration{Job: "billing", Owner: "invoices",
		Schedule: "cron1;America/Chicago;2025b;first;shift;date;0;0;0 2 * * *", Spec: "CRON_TZ=America/Chicago 0 2 * * *"})
	fmt.Println(errors.Is(err, dstsafe.ErrJobConflict))

	l.db.Close()
	_, err = l.Get(ctx, "billing", "2024-11-03")
	fmt.Println(errors.Is(err, dstsafe.ErrPermanent), err)
	// Output:
	// running 1 06:31 UTC
	// true abandoned
	// dstsafe: invalid ledger request: negative lease -1m0s
	// host-a 1 <nil>
	// true
	// true tableledger: get job "billing" period "2024-11-03": dstsafe: permanent ledger error: store: closed
}

package sqlledger

import (
	"cmp"
	"context"
	"errors"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/dstsafe/dstsafe"
	"github.com/dstsafe/dstsafe/ledgerkit"
)

// A durable commit costs a WAL flush, for PostgreSQL and for SQLite with
// synchronous FULL; SQLite also has one writer at a time. When several
// goroutines claim through one Ledger at once, the first to get the group
// lock commits everyone's waiting claims together (group commit), one
// flush for the group:
//
//   - PostgreSQL: one statement, a multi-row INSERT ... ON CONFLICT DO
//     NOTHING RETURNING of the group's periods in key order (so that
//     groups of different processes lock rows in the same order and never
//     deadlock). Its winners are answered at once; then one SELECT reads
//     the periods it did not insert, for all the claims that lost them.
//   - SQLite: one transaction running each claim's statements.
//
// A claim of a period whose claim is being committed (every replica's
// goroutines claim the same period at the same instant) does not queue:
// it waits for that claim, and if that one won it loses to it (its record
// is the one the database would have shown), without a round trip or a
// turn of the group lock.
//
// Each claim gets its own answer, after the commit. A claim the group did
// not settle (it may take the existing record over, the row was committed
// by another transaction while the statement waited, or the group failed
// and wrote nothing) runs again on its own, so one claim's error never
// becomes another's.

// claimKey is a period of a job.
type claimKey struct{ job, period string }

// claimQueue holds the claims waiting for the group lock.
type claimQueue struct {
	mu       sync.Mutex
	waiting  []*queuedClaim
	inflight map[claimKey]*queuedClaim // the first claim of each period in the group being committed
}

type queuedClaim struct {
	ctx context.Context
	req dstsafe.ClaimRequest
	key claimKey
	// Set by the group that settles it, before done is closed.
	rec    dstsafe.Record
	err    error
	alone  bool          // not settled by the group: claim on your own
	tried  time.Time     // a failed group statement inserted us with this StartedAt
	done   chan struct{} // closed when rec, err and alone are set
	closed bool          // done is closed (by the goroutine committing the group)
}

// answer closes c.done once; only the goroutine committing c's group calls
// it.
func (c *queuedClaim) answer() {
	if !c.closed {
		c.closed = true
		close(c.done)
	}
}

// maxGroup bounds a group, so that its statement or transaction stays
// short.
const maxGroup = 64

func newClaimQueue() *claimQueue {
	return &claimQueue{inflight: map[claimKey]*queuedClaim{}}
}

func (l *Ledger) claimGrouped(ctx context.Context, req dstsafe.ClaimRequest) (dstsafe.Record, error) {
	q := l.batch
	key := claimKey{req.Job, req.Period}
	var waited *queuedClaim
	q.mu.Lock()
	for {
		f := q.inflight[key]
		if f == nil || f == waited {
			break
		}
		// The period is being committed: its claim was sent to the
		// database before we were asked, so its answer is ours too if
		// it won.
		q.mu.Unlock()
		select {
		case <-f.done:
		case <-ctx.Done():
			return dstsafe.Record{}, ctx.Err()
		}
		if f.err == nil && !f.alone {
			if now, err := l.now(ctx); err == nil {
				if err := ledgerkit.CheckClockSkew(req, now); err != nil {
					return dstsafe.Record{}, err
				}
				r := f.rec
				r.State = r.StateAt(now)
				if !req.Retries(r) && !req.Retry.Allows(r) {
					return dstsafe.Record{}, &dstsafe.ClaimedError{Existing: r}
				}
			}
		}
		waited = f // lost, failed, or ours to take over: ask the database
		q.mu.Lock()
	}
	c := &queuedClaim{ctx: ctx, req: req, key: key, done: make(chan struct{})}
	q.waiting = append(q.waiting, c)
	q.mu.Unlock()

	if err := l.groupMu.lock(ctx); err != nil {
		// Left in the queue: whoever takes it finds ctx done and skips it.
		return dstsafe.Record{}, err
	}
	for !answered(c) {
		q.mu.Lock()
		n := min(len(q.waiting), maxGroup)
		group := slices.Clone(q.waiting[:n])
		q.waiting = q.waiting[n:]
		live := group[:0:0]
		for _, g := range group {
			if g.err = g.ctx.Err(); g.err != nil {
				g.answer() // abandoned by its caller: not claimed
				continue
			}
			live = append(live, g)
			if q.inflight[g.key] == nil {
				q.inflight[g.key] = g
			}
		}
		q.mu.Unlock()
		if len(live) > 0 {
			l.commitGroup(live)
		}
		q.mu.Lock()
		for _, g := range live {
			if q.inflight[g.key] == g {
				delete(q.inflight, g.key)
			}
		}
		q.mu.Unlock()
	}
	l.groupMu.unlock()
	if !c.alone {
		return c.rec, c.err
	}
	r, err := l.claim(ctx, req)
	l.committed(1)
	var ce *dstsafe.ClaimedError
	if !c.tried.IsZero() && errors.As(err, &ce) && ce.Existing.Owner == req.Owner &&
		ce.Existing.Token == 1 && ce.Existing.StartedAt.Equal(c.tried) &&
		(ce.Existing.State == dstsafe.StateRunning || ce.Existing.State == dstsafe.StateAbandoned) {
		// The group's statement failed after its commit (the connection
		// dropped, or the goroutine running it gave up): the row it wrote
		// for us is ours, to the microsecond.
		return ce.Existing, nil
	}
	return r, err
}

func answered(c *queuedClaim) bool {
	select {
	case <-c.done:
		return true
	default:
		return false
	}
}

// commitGroup settles what it can of group, marks the rest alone, and
// closes every member's done.
func (l *Ledger) commitGroup(group []*queuedClaim) {
	defer func() {
		for _, c := range group {
			c.answer()
		}
	}()
	// The group's statements run under its first member's context: if
	// that ends, the others claim on their own.
	ctx := group[0].ctx
	if len(group) == 1 {
		// Nobody to group with: claim now, holding the lock.
		alone := *l
		alone.writeMu, alone.batch = nil, nil
		c := group[0]
		c.rec, c.err = alone.claim(c.ctx, c.req)
		l.committed(1)
		return
	}
	slices.SortFunc(group, func(a, b *queuedClaim) int {
		return cmp.Or(strings.Compare(a.req.Job, b.req.Job), strings.Compare(a.req.Period, b.req.Period))
	})
	if l.dialect == PostgreSQL {
		l.insertGroup(ctx, group)
	} else {
		l.claimInTx(group)
	}
}

// committed reports a commit of n claims to the test hook.
func (l *Ledger) committed(n int) {
	if l.onCommit != nil {
		l.onCommit(n)
	}
}

// insertGroup inserts the group's new periods in one PostgreSQL
// statement and answers the claims it inserted at once; then it reads the
// periods it did not insert, in one more statement, and answers the
// claims that lose to them.
func (l *Ledger) insertGroup(ctx context.Context, group []*queuedClaim) {
	var (
		jobs, periods, owners, schedules, ids []string
		leases                                []time.Time
		first                                 = map[claimKey]*queuedClaim{}
	)
	now, err := l.now(ctx)
	if err != nil {
		for _, c := range group {
			c.alone = true // each claim reads the clock again, and reports its failure
		}
		return
	}
	for _, c := range group {
		if c.err = ledgerkit.CheckClockSkew(c.req, now); c.err != nil {
			continue // refused before anything is written; answered below
		}
		if first[c.key] != nil {
			continue // answered with the period's first claim
		}
		first[c.key] = c
		lease, _ := ledgerkit.EffectiveLease(c.req.Lease)
		jobs, periods, owners = append(jobs, c.req.Job), append(periods, c.req.Period), append(owners, c.req.Owner)
		schedules, leases = append(schedules, c.req.Schedule), append(leases, now.Add(lease))
		ids = append(ids, c.req.ID)
	}
	if len(first) == 0 {
		return // every claim refused for its clock
	}
	// A claim refused for its clock has its answer (c.err) already; the
	// others have none yet.
	fail := func() {
		for _, c := range first {
			c.tried = now // nothing committed or, if the answer was lost, the owners find their rows
		}
		for _, c := range group {
			c.alone = c.err == nil
		}
	}
	inserted, err := l.records(ctx, l.sql.insertMany, jobs, periods, owners, now, leases, schedules, ids)
	if err != nil {
		fail()
		return
	}
	l.committed(len(group))
	var lostJobs, lostPeriods []string
	for k, c := range first {
		if r, ok := inserted[k]; ok {
			c.rec = r
			c.answer() // a winner does not wait for the losers' read
		} else {
			lostJobs, lostPeriods = append(lostJobs, k.job), append(lostPeriods, k.period)
		}
	}
	var existing map[claimKey]dstsafe.Record
	if len(lostJobs) > 0 {
		existing, err = l.records(ctx, l.sql.getMany, lostJobs, lostPeriods)
	}
	for _, c := range group {
		switch r, ok := inserted[c.key]; {
		case c.err != nil: // refused for its clock
		case ok && first[c.key] == c:
		case ok:
			l.lose(c, r, now)
		case err != nil:
			c.alone = true
		default:
			if r, ok := existing[c.key]; ok {
				l.lose(c, r, now)
			} else {
				c.alone = true // gone since (a rival's transaction rolled back): claim again
			}
		}
	}
}

// records runs a statement returning records and returns them by period,
// with an error unless it ran to the end (for a write: committed).
func (l *Ledger) records(ctx context.Context, query string, args ...any) (map[claimKey]dstsafe.Record, error) {
	rows, err := l.db.QueryContext(ctx, query, args...)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	out := map[claimKey]dstsafe.Record{}
	for rows.Next() {
		r, err := l.scan(rows)
		if err != nil {
			return nil, err
		}
		out[claimKey{r.Job, r.Period}] = r
	}
	if err := rows.Err(); err != nil {
		return nil, err
	}
	return out, rows.Close()
}

// lose answers c with a refusal by r, the period's record as stored,
// unless r is c's own attempt (an earlier try of c whose answer was lost)
// or c's retry policy may take r over: then c claims on its own.
func (l *Ledger) lose(c *queuedClaim, r dstsafe.Record, now time.Time) {
	r.State = r.StateAt(now)
	if c.req.Retries(r) || c.req.Retry.Allows(r) {
		c.alone = true
		return
	}
	c.err = &dstsafe.ClaimedError{Existing: r}
}

// claimInTx runs the group's claims in one SQLite transaction and
// answers them if it commits.
func (l *Ledger) claimInTx(group []*queuedClaim) {
	fail := func() {
		for _, c := range group {
			c.rec, c.err, c.alone = dstsafe.Record{}, nil, true
		}
	}
	tx, err := l.db.BeginTx(context.Background(), nil)
	if err != nil {
		fail()
		return
	}
	v := *l.WithTx(tx)
	v.stmts, v.txStmts = l.stmts, true
	for _, c := range group {
		c.rec, c.err = v.claim(c.ctx, c.req)
		if c.err != nil && !errors.Is(c.err, dstsafe.ErrAlreadyClaimed) && !errors.Is(c.err, dstsafe.ErrClockSkew) {
			tx.Rollback()
			fail()
			return
		}
	}
	if tx.Commit() != nil {
		fail()
		return
	}
	l.committed(len(group))
}

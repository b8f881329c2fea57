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

// A durable commit costs a WAL flush: about 2.7 ms on this project's test
// machine (pg_test_fsync), for PostgreSQL and for SQLite with synchronous
// FULL; SQLite also has one writer at a time. When several goroutines
// claim through one Ledger at once, the first to get the group lock
// commits everyone's waiting claims together (group commit), one flush
// for the group:
//
//   - PostgreSQL: one multi-row INSERT ... ON CONFLICT DO NOTHING
//     RETURNING of the group's new periods, in key order, so that groups
//     of different processes lock rows in the same order and never
//     deadlock;
//   - SQLite: one transaction running each claim's statements.
//
// Each claim gets its own answer, after the commit. A claim the group did
// not settle (its period existed, or the group failed and wrote nothing)
// runs again on its own, so one claim's error never becomes another's.

// claimQueue holds the claims waiting for the group lock.
type claimQueue struct {
	mu      sync.Mutex
	waiting []*queuedClaim
}

type queuedClaim struct {
	ctx context.Context
	req dstsafe.ClaimRequest
	// Set under the group lock by the goroutine committing the group.
	rec   dstsafe.Record
	err   error
	done  bool      // answered by rec and err
	alone bool      // not settled by the group: claim on your own
	tried time.Time // a failed group statement inserted us with this StartedAt
}

// maxGroup bounds a group, so that its statement or transaction stays short.
const maxGroup = 64

func (l *Ledger) claimGrouped(ctx context.Context, req dstsafe.ClaimRequest) (dstsafe.Record, error) {
	c := &queuedClaim{ctx: ctx, req: req}
	q := l.batch
	q.mu.Lock()
	q.waiting = append(q.waiting, c)
	q.mu.Unlock()

	if err := l.groupMu.lock(ctx); err != nil {
		// Left in the queue: whoever takes it finds ctx done and skips it.
		return dstsafe.Record{}, err
	}
	for !c.done && !c.alone {
		q.mu.Lock()
		n := min(len(q.waiting), maxGroup)
		group := slices.Clone(q.waiting[:n])
		q.waiting = q.waiting[n:]
		q.mu.Unlock()
		l.commitGroup(ctx, group)
	}
	l.groupMu.unlock()
	if !c.alone {
		return c.rec, c.err
	}
	r, err := l.claim(ctx, req)
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

// commitGroup settles what it can of group, under the group lock, and
// marks the rest alone.
func (l *Ledger) commitGroup(ctx context.Context, group []*queuedClaim) {
	live := group[:0:0]
	for _, c := range group {
		if c.err = c.ctx.Err(); c.err != nil {
			c.done = true // abandoned by its caller: not claimed
			continue
		}
		live = append(live, c)
	}
	switch {
	case len(live) == 1:
		// Nobody to group with: claim now, holding the lock.
		alone := *l
		alone.writeMu, alone.batch = nil, nil
		c := live[0]
		c.rec, c.err = alone.claim(c.ctx, c.req)
		c.done = true
	case len(live) > 1:
		slices.SortFunc(live, func(a, b *queuedClaim) int {
			return cmp.Or(strings.Compare(a.req.Job, b.req.Job), strings.Compare(a.req.Period, b.req.Period))
		})
		if l.dialect == PostgreSQL {
			l.insertGroup(ctx, live)
		} else {
			l.claimInTx(live)
		}
	}
	for _, c := range live {
		if !c.done {
			c.alone = true
		}
	}
}

// insertGroup inserts the group's periods in one PostgreSQL statement and
// answers the claims whose rows it inserted.
func (l *Ledger) insertGroup(ctx context.Context, group []*queuedClaim) {
	var (
		jobs, periods, owners []string
		leases                []time.Time
		first                 = map[[2]string]*queuedClaim{}
	)
	now := l.now()
	for _, c := range group {
		k := [2]string{c.req.Job, c.req.Period}
		if first[k] != nil {
			continue // a second claim of the period in the group loses on its own
		}
		first[k] = c
		lease, _ := ledgerkit.EffectiveLease(c.req.Lease)
		jobs, periods, owners = append(jobs, c.req.Job), append(periods, c.req.Period), append(owners, c.req.Owner)
		leases = append(leases, now.Add(lease))
	}
	for _, c := range first {
		c.tried = now // cleared if the statement answers
	}
	rows, err := l.db.QueryContext(ctx, l.sql.insertMany, jobs, periods, owners, now, leases)
	if err != nil {
		return // nothing committed (or, if the answer was lost, the owners find their rows)
	}
	defer rows.Close()
	var got []*queuedClaim
	for rows.Next() {
		r, err := l.scan(rows)
		if err != nil {
			return
		}
		c := first[[2]string{r.Job, r.Period}]
		if c == nil {
			return
		}
		c.rec = r
		got = append(got, c)
	}
	// Only a statement that ran to the end committed.
	if rows.Err() != nil || rows.Close() != nil {
		return
	}
	for _, c := range first {
		c.tried = time.Time{} // the statement answered: rows it did not return are not ours
	}
	for _, c := range got {
		c.done = true
	}
}

// claimInTx runs the group's claims in one SQLite transaction and
// answers them if it commits.
func (l *Ledger) claimInTx(group []*queuedClaim) {
	tx, err := l.db.BeginTx(context.Background(), nil)
	if err != nil {
		return
	}
	v := *l.WithTx(tx)
	v.stmts, v.txStmts = l.stmts, true
	for _, c := range group {
		c.rec, c.err = v.claim(c.ctx, c.req)
		if c.err != nil && !errors.Is(c.err, dstsafe.ErrAlreadyClaimed) {
			tx.Rollback()
			return
		}
	}
	if tx.Commit() != nil {
		return
	}
	for _, c := range group {
		c.done = true
	}
}

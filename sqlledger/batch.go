package sqlledger

import (
	"context"
	"errors"
	"sync"

	"github.com/dstsafe/dstsafe"
)

// SQLite has one writer at a time and, with synchronous FULL, one fsync
// per commit. When several goroutines of a process claim at once, the
// first to get the Ledger's write lock commits everyone's waiting claims
// in one transaction (group commit): one WAL write and one fsync for the
// group. Each claim still runs its own statements and gets its own
// answer, after the commit; if anything in the group fails, the group is
// rolled back and each claim runs again on its own, so one claim's error
// never becomes another's.

// claimQueue holds the claims waiting for the write lock.
type claimQueue struct {
	mu      sync.Mutex
	waiting []*queuedClaim
}

type queuedClaim struct {
	ctx  context.Context
	req  dstsafe.ClaimRequest
	rec  dstsafe.Record
	err  error
	done bool // answered; guarded by the write lock
}

// maxGroup bounds a group, so that its transaction stays short.
const maxGroup = 64

func (l *Ledger) claimGrouped(ctx context.Context, req dstsafe.ClaimRequest) (dstsafe.Record, error) {
	c := &queuedClaim{ctx: ctx, req: req}
	q := l.batch
	q.mu.Lock()
	q.waiting = append(q.waiting, c)
	q.mu.Unlock()

	l.writeMu.Lock()
	defer l.writeMu.Unlock()
	for !c.done {
		q.mu.Lock()
		n := min(len(q.waiting), maxGroup)
		group := q.waiting[:n:n]
		q.waiting = q.waiting[n:]
		q.mu.Unlock()
		l.commitGroup(group)
	}
	return c.rec, c.err
}

// commitGroup answers every claim of group, under the write lock.
func (l *Ledger) commitGroup(group []*queuedClaim) {
	alone := *l // runs statements without taking the write lock we hold
	alone.writeMu = nil
	alone.batch = nil
	defer func() {
		for _, c := range group {
			c.done = true
		}
	}()
	if len(group) == 1 || !l.claimTogether(group) {
		for _, c := range group {
			if c.err = c.ctx.Err(); c.err == nil {
				c.rec, c.err = alone.claim(c.ctx, c.req)
			}
		}
	}
}

// claimTogether runs group's claims in one transaction and reports
// whether it committed; if not, nothing of it was written.
func (l *Ledger) claimTogether(group []*queuedClaim) bool {
	tx, err := l.db.BeginTx(context.Background(), nil)
	if err != nil {
		return false
	}
	v := *l.WithTx(tx)
	v.stmts, v.txStmts = l.stmts, true
	for _, c := range group {
		if c.err = c.ctx.Err(); c.err != nil {
			continue // abandoned by its caller: not claimed
		}
		c.rec, c.err = v.claim(c.ctx, c.req)
		if c.err != nil && !errors.Is(c.err, dstsafe.ErrAlreadyClaimed) {
			tx.Rollback()
			return false
		}
	}
	return tx.Commit() == nil
}

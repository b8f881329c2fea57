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
// goroutines claim through one Ledger at once, their claims are committed
// in groups, one flush for a group:
//
//   - PostgreSQL: one statement, a multi-row INSERT ... ON CONFLICT DO
//     NOTHING RETURNING of the group's periods in key order (so that
//     groups of different processes lock rows in the same order and never
//     deadlock), which also returns the rows that existed already: a claim
//     that loses costs its group nothing, and needs no statement of its
//     own. Up to pgGroups groups are committed at once, so that a group
//     stuck behind another transaction's row lock holds up only its own
//     members, and commits of several groups share PostgreSQL's flushes.
//   - SQLite: one transaction running each claim's statements, one group
//     at a time (the Ledger's write lock).
//
// A claim of a period whose claim is already being committed (every
// replica's goroutines claim the same period at the same instant) does not
// queue: it waits for that claim, and if that one won it loses to it (its
// record is the one the database would have shown), without a round trip.
//
// Each claim gets its own answer, after the commit. A claim the group did
// not settle (it may take the existing record over, the row was committed
// by another transaction while the statement waited, or the group failed
// and wrote nothing) runs again on its own, so one claim's error never
// becomes another's.

// claimKey is a period of a job.
type claimKey struct{ job, period string }

// claimQueue holds the claims waiting to be committed in a group.
type claimQueue struct {
	mu       sync.Mutex
	waiting  []*queuedClaim
	inflight map[claimKey]*queuedClaim // the first claim of each period in a group being committed
	running  int                       // groups being committed
	slots    int                       // at most this many at once
}

type queuedClaim struct {
	ctx context.Context
	req dstsafe.ClaimRequest
	key claimKey
	// Set by the group that settles it, before done is closed.
	rec   dstsafe.Record
	err   error
	alone bool          // not settled by the group: claim on your own
	tried time.Time     // a failed group statement inserted us with this StartedAt
	done  chan struct{} // closed when rec, err and alone are set
}

const (
	// maxGroup bounds a group, so that its statement or transaction stays
	// short.
	maxGroup = 64
	// pgGroups groups are committed at once on PostgreSQL.
	pgGroups = 4
)

func newClaimQueue(d Dialect) *claimQueue {
	q := &claimQueue{inflight: map[claimKey]*queuedClaim{}, slots: pgGroups}
	if d == SQLite {
		q.slots = 1
	}
	return q
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
			r := f.rec
			r.State = r.StateAt(l.now())
			if !req.Retry.Allows(r) {
				return dstsafe.Record{}, &dstsafe.ClaimedError{Existing: r}
			}
		}
		waited = f // lost, failed, or ours to take over: ask the database
		q.mu.Lock()
	}
	c := &queuedClaim{ctx: ctx, req: req, key: key, done: make(chan struct{})}
	q.waiting = append(q.waiting, c)
	lead := q.running < q.slots
	if lead {
		q.running++
	}
	q.mu.Unlock()
	if lead {
		l.commitQueued(c)
	}
	select {
	case <-c.done:
	case <-ctx.Done():
		// Not yet taken: whoever takes it finds ctx done and skips it.
		return dstsafe.Record{}, ctx.Err()
	}
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

// commitQueued commits groups of waiting claims, holding one of the
// queue's slots, until the queue is empty. Once own (the caller's claim)
// is answered, a goroutine takes over the rest, so that the caller returns
// as soon as its answer is there.
func (l *Ledger) commitQueued(own *queuedClaim) {
	q := l.batch
	for {
		q.mu.Lock()
		if len(q.waiting) == 0 {
			q.running--
			q.mu.Unlock()
			return
		}
		if own != nil && answered(own) {
			q.mu.Unlock()
			go l.commitQueued(nil)
			return
		}
		n := min(len(q.waiting), maxGroup)
		group := slices.Clone(q.waiting[:n])
		q.waiting = q.waiting[n:]
		live := group[:0:0]
		for _, c := range group {
			if c.err = c.ctx.Err(); c.err != nil {
				close(c.done) // abandoned by its caller: not claimed
				continue
			}
			live = append(live, c)
			if q.inflight[c.key] == nil {
				q.inflight[c.key] = c
			}
		}
		q.mu.Unlock()
		if len(live) > 0 {
			l.commitGroup(live)
		}
		q.mu.Lock()
		for _, c := range live {
			if q.inflight[c.key] == c {
				delete(q.inflight, c.key)
			}
		}
		q.mu.Unlock()
	}
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
			close(c.done)
		}
	}()
	// The group's statements run under its first member's context: if
	// that ends, the others claim on their own.
	ctx := group[0].ctx
	if l.writeMu != nil {
		if err := l.writeMu.lock(ctx); err != nil {
			for _, c := range group {
				c.alone = true
			}
			return
		}
		defer l.writeMu.unlock()
	}
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

// insertGroup claims the group's periods in one PostgreSQL statement,
// which inserts the new ones and returns them and the ones that existed.
func (l *Ledger) insertGroup(ctx context.Context, group []*queuedClaim) {
	var (
		jobs, periods, owners []string
		leases                []time.Time
		first                 = map[claimKey]*queuedClaim{}
	)
	now := l.now()
	for _, c := range group {
		if first[c.key] != nil {
			continue // answered with the period's first claim
		}
		first[c.key] = c
		lease, _ := ledgerkit.EffectiveLease(c.req.Lease)
		jobs, periods, owners = append(jobs, c.req.Job), append(periods, c.req.Period), append(owners, c.req.Owner)
		leases = append(leases, now.Add(lease))
	}
	fail := func() {
		for _, c := range first {
			c.tried = now // nothing committed or, if the answer was lost, the owners find their rows
		}
		for _, c := range group {
			c.alone = true
		}
	}
	rows, err := l.db.QueryContext(ctx, l.sql.claimMany, jobs, periods, owners, now, leases)
	if err != nil {
		fail()
		return
	}
	defer rows.Close()
	inserted := map[claimKey]dstsafe.Record{}
	existing := map[claimKey]dstsafe.Record{}
	for rows.Next() {
		var ins bool
		r, err := l.scan(rows, &ins)
		if err != nil {
			fail()
			return
		}
		if ins {
			inserted[claimKey{r.Job, r.Period}] = r
		} else {
			existing[claimKey{r.Job, r.Period}] = r
		}
	}
	// Only a statement that ran to the end committed.
	if rows.Err() != nil || rows.Close() != nil {
		fail()
		return
	}
	l.committed(len(group))
	for _, c := range group {
		if r, ok := inserted[c.key]; ok {
			if first[c.key] == c {
				c.rec = r
				continue
			}
			l.lose(c, r, now)
			continue
		}
		if r, ok := existing[c.key]; ok {
			l.lose(c, r, now)
			continue
		}
		// Neither: a transaction that began after our statement's
		// snapshot inserted the period and committed while we waited for
		// its row lock. Read it anew.
		c.alone = true
	}
}

// lose answers c with a refusal by r, the period's record as stored,
// unless c's retry policy may take r over: then c claims on its own.
func (l *Ledger) lose(c *queuedClaim, r dstsafe.Record, now time.Time) {
	r.State = r.StateAt(now)
	if c.req.Retry.Allows(r) {
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
		if c.err != nil && !errors.Is(c.err, dstsafe.ErrAlreadyClaimed) {
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

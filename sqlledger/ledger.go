// Package sqlledger is a dstsafe.Ledger on database/sql, for PostgreSQL
// (tested with pgx's database/sql driver; lib/pq works too) and SQLite.
// New takes a *sql.DB you opened; this module requires no driver (pgx only
// for its tests). The embedded SQLite ledger, with modernc.org/sqlite and
// the connection settings a ledger needs, is sqlite.OpenSQLite in the
// module github.com/dstsafe/dstsafe/sqlledger/sqlite, so that a PostgreSQL
// service never links SQLite.
//
// # Table
//
// One row per (job, period), the primary key, in the shape of the job_runs
// table of the 2024-11-03 billing postmortem:
//
//	job_name, period     primary key
//	status               running | succeeded | failed | skipped
//	owner, token, attempt
//	started_at, finished_at, lease_until
//	reason
//	schedule             the claim's schedule fingerprint (ClaimRequest.Schedule)
//	released, released_by, release_reason   an operator's release (Release)
//	claim_id             the claim's ClaimRequest.ID: a retry finds its own attempt
//
// one row per job ever paused in "<table>_pauses" (job_name, paused,
// changed_by, reason, since), and one per job registered in
// "<table>_jobs" (dstsafe.JobRegistry, see jobs.go). Migrate creates them
// (and a "<table>_schema" table recording the schema version), or
// upgrades a database of an older version in place. A claim is one INSERT ... ON CONFLICT DO NOTHING RETURNING: the
// primary key, not a read-then-write, decides who wins. Takeovers,
// heartbeats and finishes are compare-and-set UPDATEs on the token (and, for
// a takeover, on the state and lease read), so a zombie holder's late write
// matches no row and gets dstsafe.ErrLeaseLost.
//
// # Throughput and sharing
//
// A durable commit waits for a disk flush. Concurrent claims through one
// Ledger are therefore committed in groups, one flush per group: on
// PostgreSQL as one statement (up to 4 groups at once), on SQLite as one
// transaction; each claim still gets its own answer after the commit. A
// claim of a period that the Ledger is committing for another goroutine
// (every replica's scheduler wakes for the same period at the same
// instant) waits for that claim and, if it won, loses to it without a
// round trip, so a losing claim never holds up the winners. SQLite writes
// of one Ledger also queue on a Go lock rather than in SQLite's busy
// handler, which sleeps. One Ledger per process is safe and the fastest
// setup: share it between every job and goroutine of the process.
//
// # Start-up
//
// Migrate is safe from every replica at once on a database nobody has
// migrated yet; see its doc.
//
// # Transactions
//
// WithTx returns a view of the Ledger that runs in the caller's *sql.Tx, so
// a claim commits, or rolls back, together with the business rows of the
// run (the postmortem's "state advanced in the same transaction"). Under
// PostgreSQL's READ COMMITTED, a racing claim of the same period blocks
// until that transaction ends, then fails with dstsafe.ErrAlreadyClaimed if
// it committed, or wins if it rolled back.
//
// # Time
//
// Every decision replicas must agree on is judged by the database's clock
// (see dstsafe.Ledger): on PostgreSQL, clock_timestamp() read by the call
// before it decides or writes (not now(), which stands still for a whole
// transaction, such as a caller's WithTx); on SQLite, whose processes
// share one host, that host's clock. So whether a lease is over does not
// depend on the clock of the replica that asks. A claim whose
// ClaimRequest.Now is further from that clock than its MaxClockOffset is
// refused with an error wrapping dstsafe.ErrClockSkew before anything is
// written.
// WithClock replaces the database's clock with a Clock, for tests and
// simulation. Instants are stored in UTC to the microsecond: TIMESTAMPTZ
// in PostgreSQL, INTEGER microseconds since 1970 in SQLite.
package sqlledger

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"reflect"
	"regexp"
	"strings"
	"sync"
	"time"

	"github.com/dstsafe/dstsafe"
	"github.com/dstsafe/dstsafe/ledgerkit"
	"github.com/dstsafe/dstsafe/sqlledger/internal/config"
	"github.com/jonboulle/clockwork"
)

// Ledger is a dstsafe.ControlLedger stored in SQL tables. It is safe for
// concurrent use, and so are many Ledgers, in many processes, on one
// database: the database's primary key serialises claims, and pause
// state and releases are shared by every Ledger on the database.
type Ledger struct {
	db      *sql.DB
	q       querier // db, or the caller's tx for a WithTx view
	dialect Dialect
	clock   dstsafe.Clock // WithClock's, or the host's for SQLite; nil: PostgreSQL's clock_timestamp()
	table   string        // validated, unquoted
	owned   bool          // Close closes db (sqlite.OpenSQLite)
	upTo    int           // the version Migrate brings the database to
	sql     *queries
	writeMu sem         // SQLite outside a caller's transaction: see one
	stmts   *stmtCache  // SQLite, outside a caller's transaction
	txStmts bool        // q is a batch's transaction: use stmts through it
	batch   *claimQueue // outside a caller's transaction: see batch.go
	groupMu sem         // held by the goroutine committing a group
	// onCommit, if set (by package ledgertest), hears of every commit
	// of claims and how many claims it answered.
	onCommit func(claims int)
}

var _ dstsafe.ControlLedger = (*Ledger)(nil)

// querier is what *sql.DB, *sql.Tx and *sql.Conn have in common.
type querier interface {
	ExecContext(ctx context.Context, query string, args ...any) (sql.Result, error)
	QueryContext(ctx context.Context, query string, args ...any) (*sql.Rows, error)
	QueryRowContext(ctx context.Context, query string, args ...any) *sql.Row
}

var identRE = regexp.MustCompile(`^[A-Za-z_][A-Za-z0-9_]*$`)

// maxIdent leaves room for the "_schema" suffix in PostgreSQL's 63 bytes.
const maxIdent = 63 - len("_schema")

// New returns a Ledger on db. The dialect is detected from db's driver
// unless WithDialect sets it. New does not touch the database: call
// Migrate once before use (it is idempotent). Close does not close db,
// which stays the caller's. Bad options give a *ConfigError, and so do
// package sqlite's connection options, which only OpenSQLite can apply; a
// nil db is a programmer error and panics.
func New(db *sql.DB, opts ...Option) (*Ledger, error) {
	if db == nil {
		panic("sqlledger: New with nil *sql.DB")
	}
	c := config.Config{Table: DefaultTable}
	for _, o := range opts {
		o.apply(&c)
	}
	if !c.Opened {
		if c.Synchronous != nil {
			return nil, &ConfigError{Option: "sqlite.WithSynchronous", Value: fmt.Sprint(*c.Synchronous), Reason: "only sqlite.OpenSQLite sets pragmas; set them in your DSN"}
		}
		if c.BusyTimeout != nil {
			return nil, &ConfigError{Option: "sqlite.WithBusyTimeout", Value: c.BusyTimeout.String(), Reason: "only sqlite.OpenSQLite sets pragmas; set them in your DSN"}
		}
	}
	if err := validTable(c.Table); err != nil {
		return nil, err
	}
	d := Dialect(c.Dialect)
	switch d {
	case DetectDialect:
		var err error
		if d, err = detect(db); err != nil {
			return nil, err
		}
	case SQLite, PostgreSQL:
	default:
		return nil, &ConfigError{Option: "WithDialect", Value: fmt.Sprint(int(d)), Reason: "unknown dialect"}
	}
	if c.Clock == nil && d == SQLite {
		c.Clock = clockwork.NewRealClock() // one host: its clock is the database's
	}
	l := &Ledger{db: db, q: db, dialect: d, clock: c.Clock, table: c.Table, owned: c.CloseDB, upTo: SchemaVersion}
	if c.MigrateTo > 0 && c.MigrateTo < SchemaVersion {
		l.upTo = c.MigrateTo
	}
	l.sql = buildQueries(d, c.Table)
	l.batch = newClaimQueue()
	l.groupMu = make(sem, 1)
	l.onCommit = c.OnCommit
	if d == SQLite {
		l.writeMu = l.groupMu // a group holds SQLite's one write lock
		l.stmts = &stmtCache{m: map[string]*sql.Stmt{}}
	}
	return l, nil
}

func validTable(name string) error {
	parts := strings.Split(name, ".")
	if len(parts) > 2 {
		return &ConfigError{Option: "WithTable", Value: name, Reason: "more than one schema qualifier"}
	}
	for _, p := range parts {
		if !identRE.MatchString(p) {
			return &ConfigError{Option: "WithTable", Value: name, Reason: "not an identifier of letters, digits and underscores"}
		}
		if len(p) > maxIdent {
			return &ConfigError{Option: "WithTable", Value: name, Reason: fmt.Sprintf("identifier longer than %d bytes", maxIdent)}
		}
	}
	return nil
}

// detect names the dialect of db's driver by its package path, so that
// this package needs neither driver to be linked in for the other.
func detect(db *sql.DB) (Dialect, error) {
	t := reflect.TypeOf(db.Driver())
	for t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	path := t.PkgPath()
	switch {
	case strings.Contains(path, "sqlite"):
		return SQLite, nil
	case strings.Contains(path, "pgx"), strings.Contains(path, "lib/pq"):
		return PostgreSQL, nil
	}
	return 0, &ConfigError{Option: "WithDialect", Value: path, Reason: "cannot detect the dialect of this driver; set WithDialect"}
}

// Dialect returns the dialect the Ledger speaks.
func (l *Ledger) Dialect() Dialect { return l.dialect }

// Table returns the ledger's table name.
func (l *Ledger) Table() string { return l.table }

// DB returns the database the Ledger uses.
func (l *Ledger) DB() *sql.DB { return l.db }

// Close closes the database if sqlite.OpenSQLite opened it, and does not
// close the *sql.DB of a Ledger from New, which belongs to the caller.
func (l *Ledger) Close() error {
	if l.stmts != nil {
		l.stmts.mu.Lock()
		for q, st := range l.stmts.m {
			st.Close()
			delete(l.stmts.m, q)
		}
		l.stmts.mu.Unlock()
	}
	if l.owned {
		return l.db.Close()
	}
	return nil
}

// WithTx returns a view of l whose methods run in tx, a transaction on the
// same database: a claim made through it commits or rolls back with tx,
// together with the rows the run writes. The view is only valid while tx
// is; it must not be used concurrently (neither may tx). Migrate on the
// view still uses l's *sql.DB.
//
// With SQLite, begin tx as an immediate transaction (sqlite.OpenSQLite's
// DSN has _txlock=immediate) so that it takes the write lock at BEGIN and cannot
// fail with SQLITE_BUSY_SNAPSHOT on its first write.
func (l *Ledger) WithTx(tx *sql.Tx) *Ledger {
	if tx == nil {
		panic("sqlledger: WithTx with nil *sql.Tx")
	}
	v := *l
	v.q = tx
	v.owned = false
	v.writeMu = nil // tx holds SQLite's write lock already
	v.stmts = nil
	v.batch = nil
	v.onCommit = nil
	return &v
}

// now is the ledger's clock: WithClock's Clock (or the host's, for
// SQLite), else PostgreSQL's clock_timestamp(), read through l.q (in a
// caller's transaction, if any).
func (l *Ledger) now(ctx context.Context) (time.Time, error) {
	return l.nowOn(ctx, l.q)
}

// nowOn is now, read through q.
func (l *Ledger) nowOn(ctx context.Context, q querier) (time.Time, error) {
	if l.clock != nil {
		return ledgerkit.LedgerTime(l.clock.Now()), nil
	}
	var t time.Time
	if err := q.QueryRowContext(ctx, `SELECT clock_timestamp()`).Scan(&t); err != nil {
		return time.Time{}, err
	}
	return ledgerkit.LedgerTime(t), nil
}

// Claim implements dstsafe.Ledger. A new period is claimed by an
// INSERT ... ON CONFLICT DO NOTHING RETURNING: the primary key decides who
// wins. A period that exists is read and, if req.Retry allows it, taken
// over by an UPDATE that only matches the version read. Inside a
// PostgreSQL transaction, a claim of a period another open transaction
// just claimed blocks until that one ends.
//
// Outside a caller's transaction, concurrent claims through one Ledger
// are committed in groups (see batch.go): each still gets its own answer,
// only after the commit that made it durable.
func (l *Ledger) Claim(ctx context.Context, req dstsafe.ClaimRequest) (dstsafe.Record, error) {
	if _, err := ledgerkit.CheckClaim(ctx, req); err != nil {
		return dstsafe.Record{}, err
	}
	if l.batch != nil {
		return l.claimGrouped(ctx, req)
	}
	return l.claim(ctx, req)
}

// claim runs a validated claim on l.q.
func (l *Ledger) claim(ctx context.Context, req dstsafe.ClaimRequest) (dstsafe.Record, error) {
	lease, _ := ledgerkit.EffectiveLease(req.Lease)
	// A pass ends the claim unless another writer changed the row between
	// our statements (a rival takeover, or a winner that rolled back); the
	// next pass then sees the new row. Eight passes without an answer take
	// a livelock of rivals.
	var last dstsafe.Record
	for range 8 {
		// The database's clock, read before anything is written: it
		// stamps the claim, judges the lease of the record found, and
		// the claimer's clock is checked against it.
		now, err := l.now(ctx)
		if err != nil {
			return dstsafe.Record{}, mapErr("claim", req.Job, req.Period, err)
		}
		if err := ledgerkit.CheckClockSkew(req, now); err != nil {
			return dstsafe.Record{}, err
		}
		r, inserted, err := l.insertOrGet(ctx, req, lease, now)
		if err != nil {
			return dstsafe.Record{}, mapErr("claim", req.Job, req.Period, err)
		}
		if inserted {
			return r, nil
		}
		if r.Job == "" {
			continue // the winner's transaction rolled back: insert again
		}
		stored := r.State
		r.State = r.StateAt(now)
		last = r
		if req.Retries(r) {
			// This claim's own attempt, committed by an earlier try
			// whose answer was lost: its answer, with the lease a
			// claim gets now. A takeover in between changed the token:
			// the next pass sees the taker's record.
			r, err = l.one(ctx, l.sql.heartbeat, []any{req.Job, req.Period, r.Token, l.timeArg(now.Add(lease))})
			if err == nil {
				return r, nil
			}
			if !errors.Is(err, sql.ErrNoRows) {
				return dstsafe.Record{}, mapErr("claim", req.Job, req.Period, err)
			}
			continue
		}
		if !req.Retry.Allows(r) {
			return dstsafe.Record{}, &dstsafe.ClaimedError{Existing: r}
		}
		r, err = l.one(ctx, l.sql.takeover, []any{
			req.Job, req.Period, req.Owner, l.timeArg(now), l.timeArg(now.Add(lease)),
			r.Token, statusText(stored), l.timeArg(r.LeaseUntil), req.Schedule, req.ID})
		if err == nil {
			return r, nil
		}
		if !errors.Is(err, sql.ErrNoRows) {
			return dstsafe.Record{}, mapErr("claim", req.Job, req.Period, err)
		}
	}
	if last.Job == "" {
		return dstsafe.Record{}, fmt.Errorf("sqlledger: claim job %q period %q: its row kept appearing and vanishing (rolled-back rivals); try again", req.Job, req.Period)
	}
	// Others kept taking the period over between our read and our write:
	// it is theirs.
	return dstsafe.Record{}, &dstsafe.ClaimedError{Existing: last}
}

// insertOrGet inserts a new running record for req, or returns the stored
// record that prevented it (State as stored), or a zero Record if there is
// none after all (a conflicting insert rolled back).
func (l *Ledger) insertOrGet(ctx context.Context, req dstsafe.ClaimRequest, lease time.Duration, now time.Time) (r dstsafe.Record, inserted bool, err error) {
	args := []any{req.Job, req.Period, req.Owner, l.timeArg(now), l.timeArg(now.Add(lease)), req.Schedule, req.ID}
	if l.dialect == PostgreSQL {
		// One round trip: the CTE inserts, the other branch reads a row
		// that existed before the statement. Both are empty when the
		// statement waited for a rival transaction that then committed
		// (its row is not in this statement's snapshot): read it anew.
		r, err = l.one(ctx, l.sql.insertOrGet, args, &inserted)
	} else {
		// SQLite has no data-modifying CTEs: insert, then read on conflict.
		// (Reading first would spare the losers of a race the write lock,
		// but costs every new claim a second transaction: measured, new
		// claims got twice as slow.)
		r, err = l.one(ctx, l.sql.insert, args)
		inserted = err == nil
	}
	if errors.Is(err, sql.ErrNoRows) {
		r, err = l.one(ctx, l.sql.get, []any{req.Job, req.Period})
		if errors.Is(err, sql.ErrNoRows) {
			return dstsafe.Record{}, false, nil
		}
	}
	return r, inserted, err
}

// Heartbeat implements dstsafe.Ledger. A zero lease means
// dstsafe.DefaultLease.
func (l *Ledger) Heartbeat(ctx context.Context, job, period string, token int64, lease time.Duration) (dstsafe.Record, error) {
	lease, err := ledgerkit.CheckHeartbeat(ctx, job, period, lease)
	if err != nil {
		return dstsafe.Record{}, err
	}
	now, err := l.now(ctx)
	if err != nil {
		return dstsafe.Record{}, mapErr("heartbeat", job, period, err)
	}
	r, err := l.one(ctx, l.sql.heartbeat, []any{job, period, token, l.timeArg(now.Add(lease))})
	if errors.Is(err, sql.ErrNoRows) {
		return dstsafe.Record{}, l.lost(ctx, "heartbeat", job, period, token)
	}
	if err != nil {
		return dstsafe.Record{}, mapErr("heartbeat", job, period, err)
	}
	return r, nil
}

// Finish implements dstsafe.Ledger. The reason is stored as
// ledgerkit.NormalizeReason(reason).
func (l *Ledger) Finish(ctx context.Context, job, period string, token int64, state dstsafe.State, reason string) (dstsafe.Record, error) {
	reason, err := ledgerkit.CheckFinish(ctx, job, period, state, reason)
	if err != nil {
		return dstsafe.Record{}, err
	}
	now, err := l.now(ctx)
	if err != nil {
		return dstsafe.Record{}, mapErr("finish", job, period, err)
	}
	r, err := l.one(ctx, l.sql.finish, []any{job, period, token,
		statusText(state), l.timeArg(now), reason})
	if errors.Is(err, sql.ErrNoRows) {
		return dstsafe.Record{}, l.lost(ctx, "finish", job, period, token)
	}
	if err != nil {
		return dstsafe.Record{}, mapErr("finish", job, period, err)
	}
	return r, nil
}

// lost explains why a compare-and-set on token matched no row.
func (l *Ledger) lost(ctx context.Context, op, job, period string, token int64) error {
	cur, err := l.Get(ctx, job, period)
	if err != nil {
		return err
	}
	return ledgerkit.LeaseLost(cur, token)
}

// Get implements dstsafe.Ledger.
func (l *Ledger) Get(ctx context.Context, job, period string) (dstsafe.Record, error) {
	if err := ledgerkit.CheckGet(ctx, job, period); err != nil {
		return dstsafe.Record{}, err
	}
	return l.current(ctx, "get", job, period)
}

// current reads a period's record with its State as of now (the Ledger's
// clock), or the ErrNotFound error; op names the operation in other
// errors. Get and Release's recheck share it.
func (l *Ledger) current(ctx context.Context, op, job, period string) (dstsafe.Record, error) {
	now, err := l.now(ctx)
	if err != nil {
		return dstsafe.Record{}, mapErr(op, job, period, err)
	}
	r, err := l.one(ctx, l.sql.get, []any{job, period})
	if errors.Is(err, sql.ErrNoRows) {
		return dstsafe.Record{}, ledgerkit.NotFound(job, period)
	}
	if err != nil {
		return dstsafe.Record{}, mapErr(op, job, period, err)
	}
	r.State = r.StateAt(now)
	return r, nil
}

// List implements dstsafe.Ledger: periods compare as bytes (PostgreSQL
// columns are COLLATE "C", SQLite's are BINARY), whatever the database's
// locale. It returns an empty slice for a range without records.
func (l *Ledger) List(ctx context.Context, job, from, to string) ([]dstsafe.Record, error) {
	if err := ledgerkit.CheckList(ctx, job, from, to); err != nil {
		return nil, err
	}
	args := []any{job}
	q := l.sql.list[0]
	switch {
	case from != "" && to != "":
		q, args = l.sql.list[3], append(args, from, to)
	case from != "":
		q, args = l.sql.list[1], append(args, from)
	case to != "":
		q, args = l.sql.list[2], append(args, to)
	}
	now, err := l.now(ctx)
	if err != nil {
		return nil, mapErr("list", job, from+".."+to, err)
	}
	var rows *sql.Rows
	if st, ok := l.prepared(ctx, q); ok {
		rows, err = st.QueryContext(ctx, args...)
	} else {
		rows, err = l.q.QueryContext(ctx, q, args...)
	}
	if err != nil {
		return nil, mapErr("list", job, from+".."+to, err)
	}
	defer rows.Close()
	out := []dstsafe.Record{}
	for rows.Next() {
		r, err := l.scan(rows)
		if err != nil {
			return nil, mapErr("list", job, from+".."+to, err)
		}
		r.State = r.StateAt(now)
		out = append(out, r)
	}
	if err := rows.Err(); err != nil {
		return nil, mapErr("list", job, from+".."+to, err)
	}
	return out, nil
}

func statusText(s dstsafe.State) string { return s.String() }

func parseStatus(s string) (dstsafe.State, error) {
	switch s {
	case "running":
		return dstsafe.StateRunning, nil
	case "succeeded":
		return dstsafe.StateSucceeded, nil
	case "failed":
		return dstsafe.StateFailed, nil
	case "skipped":
		return dstsafe.StateSkipped, nil
	}
	return 0, fmt.Errorf("sqlledger: unknown status %q in the ledger table", s)
}

// timeArg encodes an instant for the dialect's column type.
func (l *Ledger) timeArg(t time.Time) any {
	if l.dialect == SQLite {
		return t.UnixMicro()
	}
	return t
}

type scanner interface{ Scan(dest ...any) error }

// one runs a statement returning at most one record and scans it (after
// the destinations in first); sql.ErrNoRows if it returned none.
//
// On SQLite, statements are prepared once per connection, and writes
// outside a caller's transaction take the Ledger's write lock first:
// SQLite has one writer at a time, and a connection that finds the
// database locked sleeps in its busy handler (1 ms, 2 ms, 5 ms, ...)
// rather than queueing. Waiting on a Go mutex instead keeps this process's
// writers in line; other processes are still kept off by busy_timeout.
func (l *Ledger) one(ctx context.Context, query string, args []any, first ...any) (r dstsafe.Record, err error) {
	err = l.row(ctx, query, args, func(s scanner) error {
		r, err = l.scan(s, first...)
		return err
	})
	return r, err
}

// row runs a statement returning at most one row and hands it to scan, as
// one describes.
func (l *Ledger) row(ctx context.Context, query string, args []any, scan func(scanner) error) error {
	if l.writeMu != nil && query != l.sql.get && query != l.sql.getPause {
		if err := l.writeMu.lock(ctx); err != nil {
			return err
		}
		defer l.writeMu.unlock()
	}
	if st, ok := l.prepared(ctx, query); ok {
		if tx, ok := l.q.(*sql.Tx); ok && l.txStmts {
			// The statement as prepared on the transaction's connection.
			st = tx.StmtContext(ctx, st)
		}
		return scan(st.QueryRowContext(ctx, args...))
	}
	return scan(l.q.QueryRowContext(ctx, query, args...))
}

// prepared returns query prepared on l.db, for SQLite outside a caller's
// transaction; false when it should run unprepared. Preparing fails
// before Migrate (no table): the unprepared run then reports why.
func (l *Ledger) prepared(ctx context.Context, query string) (*sql.Stmt, bool) {
	if l.stmts == nil {
		return nil, false
	}
	l.stmts.mu.Lock()
	defer l.stmts.mu.Unlock()
	if st, ok := l.stmts.m[query]; ok {
		return st, true
	}
	st, err := l.db.PrepareContext(ctx, query)
	if err != nil {
		return nil, false
	}
	l.stmts.m[query] = st
	return st, true
}

// sem is a lock whose waiters give up when their context ends.
type sem chan struct{}

func (s sem) lock(ctx context.Context) error {
	select {
	case s <- struct{}{}:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}

func (s sem) unlock() { <-s }

// stmtCache holds a Ledger's prepared statements, shared by its copies.
type stmtCache struct {
	mu sync.Mutex
	m  map[string]*sql.Stmt
}

// scan reads the columns of queries.cols, after the destinations in
// first, into a Record, as stored (a running record is not yet checked
// against its lease).
func (l *Ledger) scan(s scanner, first ...any) (dstsafe.Record, error) {
	var (
		r      dstsafe.Record
		status string
		err    error
	)
	if l.dialect == SQLite {
		var started, leaseUntil int64
		var finished sql.NullInt64
		err = s.Scan(append(first, &r.Job, &r.Period, &status, &r.Owner, &r.Token, &r.Attempt, &started, &finished, &leaseUntil, &r.Reason,
			&r.Schedule, &r.Released, &r.ReleasedBy, &r.ReleaseReason, &r.ClaimID)...)
		r.StartedAt = time.UnixMicro(started).UTC()
		r.LeaseUntil = time.UnixMicro(leaseUntil).UTC()
		if finished.Valid {
			r.FinishedAt = time.UnixMicro(finished.Int64).UTC()
		}
	} else {
		var finished sql.NullTime
		err = s.Scan(append(first, &r.Job, &r.Period, &status, &r.Owner, &r.Token, &r.Attempt, &r.StartedAt, &finished, &r.LeaseUntil, &r.Reason,
			&r.Schedule, &r.Released, &r.ReleasedBy, &r.ReleaseReason, &r.ClaimID)...)
		r.StartedAt = ledgerkit.LedgerTime(r.StartedAt)
		r.LeaseUntil = ledgerkit.LedgerTime(r.LeaseUntil)
		if finished.Valid {
			r.FinishedAt = ledgerkit.LedgerTime(finished.Time)
		}
	}
	if err != nil {
		return dstsafe.Record{}, err
	}
	if r.State, err = parseStatus(status); err != nil {
		return dstsafe.Record{}, err
	}
	return r, nil
}

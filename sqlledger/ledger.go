// Package sqlledger is a dstsafe.Ledger on database/sql, for SQLite (the
// embedded default, modernc.org/sqlite, no cgo) and PostgreSQL (pgx's
// database/sql driver).
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
//
// Migrate creates it (and a "<table>_schema" table recording the schema
// version). A claim is one INSERT ... ON CONFLICT DO NOTHING RETURNING: the
// primary key, not a read-then-write, decides who wins. Takeovers,
// heartbeats and finishes are compare-and-set UPDATEs on the token (and, for
// a takeover, on the state and lease read), so a zombie holder's late write
// matches no row and gets dstsafe.ErrLeaseLost.
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
// Instants come from the Clock (WithClock), never from the database's
// clock, and are stored in UTC to the microsecond: TIMESTAMPTZ in
// PostgreSQL, INTEGER microseconds since 1970 in SQLite.
package sqlledger

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"reflect"
	"regexp"
	"strings"
	"time"

	"github.com/dstsafe/dstsafe"
)

// Ledger is a dstsafe.Ledger stored in an SQL table. It is safe for
// concurrent use, and so are many Ledgers, in many processes, on one
// database: the database's primary key serialises claims.
type Ledger struct {
	db      *sql.DB
	q       querier // db, or the caller's tx for a WithTx view
	dialect Dialect
	clock   dstsafe.Clock
	table   string // validated, unquoted
	owned   bool   // Close closes db (OpenSQLite)
	sql     *queries
}

var _ dstsafe.Ledger = (*Ledger)(nil)

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
// Migrate once before use (it is idempotent). Bad options give a
// *ConfigError; a nil db is a programmer error and panics.
func New(db *sql.DB, opts ...Option) (*Ledger, error) {
	if db == nil {
		panic("sqlledger: New with nil *sql.DB")
	}
	c := config{table: DefaultTable}
	for _, o := range opts {
		o(&c)
	}
	if c.sync != nil {
		return nil, &ConfigError{Option: "WithSynchronous", Value: fmt.Sprint(*c.sync), Reason: "only OpenSQLite sets pragmas; set them in your DSN"}
	}
	if c.busyTimeout != nil {
		return nil, &ConfigError{Option: "WithBusyTimeout", Value: c.busyTimeout.String(), Reason: "only OpenSQLite sets pragmas; set them in your DSN"}
	}
	return newLedger(db, c)
}

func newLedger(db *sql.DB, c config) (*Ledger, error) {
	if err := validTable(c.table); err != nil {
		return nil, err
	}
	d := c.dialect
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
	if c.clock == nil {
		c.clock = dstsafe.RealClock()
	}
	l := &Ledger{db: db, q: db, dialect: d, clock: c.clock, table: c.table}
	l.sql = buildQueries(d, c.table)
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

// Close closes the database if OpenSQLite opened it, and does nothing for
// a Ledger from New, whose *sql.DB belongs to the caller.
func (l *Ledger) Close() error {
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
// With SQLite, begin tx as an immediate transaction (OpenSQLite's DSN has
// _txlock=immediate) so that it takes the write lock at BEGIN and cannot
// fail with SQLITE_BUSY_SNAPSHOT on its first write.
func (l *Ledger) WithTx(tx *sql.Tx) *Ledger {
	if tx == nil {
		panic("sqlledger: WithTx with nil *sql.Tx")
	}
	v := *l
	v.q = tx
	v.owned = false
	return &v
}

func (l *Ledger) now() time.Time { return dstsafe.LedgerTime(l.clock.Now()) }

// Claim implements dstsafe.Ledger. A new period is claimed by a single
// INSERT ... ON CONFLICT DO NOTHING RETURNING; a period that exists is read
// and, if req.Retry allows it, taken over by an UPDATE that only matches
// the version read. Inside a PostgreSQL transaction a claim of a period
// another open transaction just claimed blocks until that one ends.
func (l *Ledger) Claim(ctx context.Context, req dstsafe.ClaimRequest) (dstsafe.Record, error) {
	if err := req.Validate(); err != nil {
		return dstsafe.Record{}, err
	}
	lease, _ := dstsafe.EffectiveLease(req.Lease)
	// Each pass ends unless another writer changed the row between our
	// statements (a takeover raced us, or the winner rolled back); then the
	// next pass sees the new row. Three passes cover every interleaving of
	// one insert and one takeover; more would mean a livelock.
	var last dstsafe.Record
	for range 8 {
		now := l.now()
		r, err := l.scanOne(l.q.QueryRowContext(ctx, l.sql.insert,
			req.Job, req.Period, req.Owner, l.timeArg(now), l.timeArg(now.Add(lease))))
		if err == nil {
			return r, nil
		}
		if !errors.Is(err, sql.ErrNoRows) {
			return dstsafe.Record{}, mapErr("claim", req.Job, req.Period, err)
		}
		cur, err := l.scanOne(l.q.QueryRowContext(ctx, l.sql.get, req.Job, req.Period))
		if errors.Is(err, sql.ErrNoRows) {
			continue // the winner's transaction rolled back: insert again
		}
		if err != nil {
			return dstsafe.Record{}, mapErr("claim", req.Job, req.Period, err)
		}
		stored := cur.State
		cur.State = cur.StateAt(l.now())
		last = cur
		if !req.Retry.Allows(cur) {
			return dstsafe.Record{}, &dstsafe.ClaimedError{Existing: cur}
		}
		now = l.now()
		r, err = l.scanOne(l.q.QueryRowContext(ctx, l.sql.takeover,
			req.Job, req.Period, req.Owner, l.timeArg(now), l.timeArg(now.Add(lease)),
			cur.Token, statusText(stored), l.timeArg(cur.LeaseUntil)))
		if err == nil {
			return r, nil
		}
		if !errors.Is(err, sql.ErrNoRows) {
			return dstsafe.Record{}, mapErr("claim", req.Job, req.Period, err)
		}
	}
	return dstsafe.Record{}, &dstsafe.ClaimedError{Existing: last}
}

// Heartbeat implements dstsafe.Ledger. A zero lease means
// dstsafe.DefaultLease.
func (l *Ledger) Heartbeat(ctx context.Context, job, period string, token int64, lease time.Duration) (dstsafe.Record, error) {
	if err := dstsafe.ValidateKeys(job, period); err != nil {
		return dstsafe.Record{}, err
	}
	lease, err := dstsafe.EffectiveLease(lease)
	if err != nil {
		return dstsafe.Record{}, err
	}
	r, err := l.scanOne(l.q.QueryRowContext(ctx, l.sql.heartbeat, job, period, token, l.timeArg(l.now().Add(lease))))
	if errors.Is(err, sql.ErrNoRows) {
		return dstsafe.Record{}, l.lost(ctx, "heartbeat", job, period, token)
	}
	if err != nil {
		return dstsafe.Record{}, mapErr("heartbeat", job, period, err)
	}
	return r, nil
}

// Finish implements dstsafe.Ledger. The reason is stored as
// dstsafe.NormalizeReason(reason).
func (l *Ledger) Finish(ctx context.Context, job, period string, token int64, state dstsafe.State, reason string) (dstsafe.Record, error) {
	if err := dstsafe.ValidateKeys(job, period); err != nil {
		return dstsafe.Record{}, err
	}
	if err := dstsafe.ValidateFinishState(state); err != nil {
		return dstsafe.Record{}, err
	}
	r, err := l.scanOne(l.q.QueryRowContext(ctx, l.sql.finish, job, period, token,
		statusText(state), l.timeArg(l.now()), dstsafe.NormalizeReason(reason)))
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
	return dstsafe.LeaseLost(cur, token)
}

// Get implements dstsafe.Ledger.
func (l *Ledger) Get(ctx context.Context, job, period string) (dstsafe.Record, error) {
	if err := dstsafe.ValidateKeys(job, period); err != nil {
		return dstsafe.Record{}, err
	}
	r, err := l.scanOne(l.q.QueryRowContext(ctx, l.sql.get, job, period))
	if errors.Is(err, sql.ErrNoRows) {
		return dstsafe.Record{}, dstsafe.NotFound(job, period)
	}
	if err != nil {
		return dstsafe.Record{}, mapErr("get", job, period, err)
	}
	r.State = r.StateAt(l.now())
	return r, nil
}

// List implements dstsafe.Ledger: periods compare as bytes (PostgreSQL
// columns are COLLATE "C", SQLite's are BINARY), whatever the database's
// locale. It returns an empty slice for a range without records.
func (l *Ledger) List(ctx context.Context, job, from, to string) ([]dstsafe.Record, error) {
	if err := dstsafe.ValidateKey("job", job); err != nil {
		return nil, err
	}
	if err := dstsafe.ValidateBound("from", from); err != nil {
		return nil, err
	}
	if err := dstsafe.ValidateBound("to", to); err != nil {
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
	rows, err := l.q.QueryContext(ctx, q, args...)
	if err != nil {
		return nil, mapErr("list", job, from+".."+to, err)
	}
	defer rows.Close()
	now := l.now()
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

func (l *Ledger) scanOne(row *sql.Row) (dstsafe.Record, error) { return l.scan(row) }

// scan reads the columns of queries.cols into a Record, as stored (a
// running record is not yet checked against its lease).
func (l *Ledger) scan(s scanner) (dstsafe.Record, error) {
	var (
		r      dstsafe.Record
		status string
		err    error
	)
	if l.dialect == SQLite {
		var started, leaseUntil int64
		var finished sql.NullInt64
		err = s.Scan(&r.Job, &r.Period, &status, &r.Owner, &r.Token, &r.Attempt, &started, &finished, &leaseUntil, &r.Reason)
		r.StartedAt = time.UnixMicro(started).UTC()
		r.LeaseUntil = time.UnixMicro(leaseUntil).UTC()
		if finished.Valid {
			r.FinishedAt = time.UnixMicro(finished.Int64).UTC()
		}
	} else {
		var finished sql.NullTime
		err = s.Scan(&r.Job, &r.Period, &status, &r.Owner, &r.Token, &r.Attempt, &r.StartedAt, &finished, &r.LeaseUntil, &r.Reason)
		r.StartedAt = dstsafe.LedgerTime(r.StartedAt)
		r.LeaseUntil = dstsafe.LedgerTime(r.LeaseUntil)
		if finished.Valid {
			r.FinishedAt = dstsafe.LedgerTime(finished.Time)
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

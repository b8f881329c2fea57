package redisledger

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/dstsafe/dstsafe"
	"github.com/dstsafe/dstsafe/ledgerkit"
)

// Ledger is a dstsafe.ControlLedger kept in Redis (see the package doc for
// the key layout and the durability it needs). It is safe for concurrent use by
// any number of goroutines and processes sharing the Redis database.
// Succeeded records never expire unless WithFinishedTTL says so.
// The zero value is not usable: call New.
type Ledger struct {
	client      commander
	raw         redis.UniversalClient // for SCAN on every node of a cluster
	clock       dstsafe.Clock         // WithClock's; nil: Redis TIME
	prefix      string
	finishedTTL time.Duration
	known       sync.Map // job -> struct{}: in the jobs set already (jobs.go)
}

var _ dstsafe.ControlLedger = (*Ledger)(nil)

// New returns a Ledger that keeps its records in client's database. An
// option it cannot use (a key prefix with '{' or '}', a negative
// WithFinishedTTL, WithAutoPipeline on a client without AutoPipeline) is
// a *ConfigError wrapping ErrInvalidConfig and dstsafe.ErrInvalidArgument,
// as sqlledger.New's are; New does not talk to Redis. A nil client is a
// programmer's error and panics, as a nil *sql.DB does in sqlledger.New.
func New(client redis.UniversalClient, opts ...Option) (*Ledger, error) {
	if client == nil {
		panic("redisledger: New(nil client)")
	}
	c := config{prefix: DefaultKeyPrefix}
	for _, o := range opts {
		if o != nil {
			o(&c)
		}
	}
	switch {
	case strings.ContainsAny(c.prefix, "{}"):
		return nil, &ConfigError{Option: "WithKeyPrefix", Value: c.prefix, Reason: "must not contain '{' or '}': the Ledger puts each job's keys in a hash tag after the prefix"}
	case c.finishedTTL < 0:
		return nil, &ConfigError{Option: "WithFinishedTTL", Value: c.finishedTTL.String(), Reason: "must not be negative (zero keeps records forever)"}
	}
	l := &Ledger{client: client, raw: client, clock: c.clock, prefix: c.prefix, finishedTTL: c.finishedTTL}
	if c.autoPipeline {
		ap, err := client.AutoPipeline()
		if err != nil {
			return nil, &ConfigError{Option: "WithAutoPipeline", Value: fmt.Sprintf("%T", client), Reason: err.Error()}
		}
		l.client = ap
	}
	return l, nil
}

// ErrInvalidConfig: New got an option it cannot use. The error is a
// *ConfigError.
var ErrInvalidConfig = errors.New("redisledger: invalid configuration")

// ConfigError reports an option New cannot use. errors.Is(err,
// ErrInvalidConfig) and errors.Is(err, dstsafe.ErrInvalidArgument) report
// true for it.
type ConfigError struct {
	Option string // "WithKeyPrefix", "WithFinishedTTL", "WithAutoPipeline"
	Value  string
	Reason string
}

func (e *ConfigError) Error() string {
	return fmt.Sprintf("redisledger: invalid configuration: %s %q: %s", e.Option, e.Value, e.Reason)
}

// Unwrap returns ErrInvalidConfig.
func (e *ConfigError) Unwrap() error { return ErrInvalidConfig }

// Is reports dstsafe.ErrInvalidArgument as a match: a bad option is a bad
// argument, as in every dstsafe constructor.
func (e *ConfigError) Is(target error) bool { return target == dstsafe.ErrInvalidArgument }

// commander is what the Ledger needs of a client: *redis.Client,
// *redis.ClusterClient, *redis.Ring and *redis.AutoPipeliner all have it.
type commander interface {
	redis.Scripter
	Get(ctx context.Context, key string) *redis.StringCmd
	MGet(ctx context.Context, keys ...string) *redis.SliceCmd
	ZRangeByLex(ctx context.Context, key string, opt *redis.ZRangeBy) *redis.StringSliceCmd
	SAdd(ctx context.Context, key string, members ...any) *redis.IntCmd
	SMembers(ctx context.Context, key string) *redis.StringSliceCmd
	Exists(ctx context.Context, keys ...string) *redis.IntCmd
	Set(ctx context.Context, key string, value any, expiration time.Duration) *redis.StatusCmd
}

// maxSwaps bounds the compare-and-set rounds of one call. Each lost round
// means another caller changed the record in between, and a record changes
// a handful of times in its life, so only a pathological storm of
// heartbeats on one period can exhaust it (ErrContended).
const maxSwaps = 100

// ErrContended: a call lost its compare-and-set maxSwaps times in a row
// because other callers kept changing the record. Nothing was written; the
// call may be retried.
var ErrContended = errors.New("redisledger: record contended")

// Claim claims (req.Job, req.Period) as dstsafe.Ledger describes: SET NX of
// a running record for a new period; for a failed or abandoned one, a
// takeover when req.Retry allows it (dstsafe.RetryPolicy.Allows),
// compare-and-set on the record it decided on. Otherwise an error wrapping
// dstsafe.ErrAlreadyClaimed, a *dstsafe.ClaimedError with the record as of
// the Clock's now. Bad keys wrap dstsafe.ErrInvalidArgument, a negative lease or
// MaxAttempts dstsafe.ErrInvalidArgument.
//
// When Redis fails (or ctx ends) the error wraps the client's, and the claim
// may or may not have been recorded: a later Claim tells which
// (ErrAlreadyClaimed with this owner). A claim is never recorded twice, and
// a client-side retry of a claim whose reply was lost recognises its own
// write (each claim carries a random id) instead of locking itself out;
// so does a Claim called again with the same Owner and a non-empty
// req.ID (dstsafe.ClaimRequest.Retries), which gets its attempt back with
// the lease extended to now plus its lease.
func (l *Ledger) Claim(ctx context.Context, req dstsafe.ClaimRequest) (dstsafe.Record, error) {
	lease, err := ledgerkit.CheckClaim(ctx, req)
	if err != nil {
		return dstsafe.Record{}, err
	}
	if err := l.addJob(ctx, "claim", req.Job); err != nil {
		return dstsafe.Record{}, err
	}
	key, idx := l.recordKey(req.Job, req.Period), l.indexKey(req.Job)
	var cur *entry // nil: no record (yet)
	for range maxSwaps {
		// Redis's clock, read before anything is written: it stamps the
		// claim, judges the lease of the record found, and the
		// claimer's clock is checked against it.
		now, err := l.now(ctx, key)
		if err != nil {
			return dstsafe.Record{}, l.wrap("claim", req.Job, req.Period, err)
		}
		if err := ledgerkit.CheckClockSkew(req, now); err != nil {
			return dstsafe.Record{}, err
		}
		next := dstsafe.Record{
			Job: req.Job, Period: req.Period, State: dstsafe.StateRunning, Owner: req.Owner,
			Token: 1, Attempt: 1, StartedAt: now, LeaseUntil: now.Add(lease), Schedule: req.Schedule,
			ClaimID: req.ID,
		}
		var ok bool
		if cur == nil {
			ok, cur, err = l.create(ctx, key, idx, next)
		} else {
			existing := cur.rec
			existing.State = existing.StateAt(now)
			if req.Retries(existing) {
				// This claim's own attempt, written by an earlier try
				// whose reply was lost: its answer, with the lease a
				// claim gets now (compare-and-set, as a heartbeat).
				own := cur.rec
				own.LeaseUntil = now.Add(lease)
				ok, cur, err = l.swap(ctx, "claim", key, idx, cur.raw, own, cur.claim)
				if err != nil {
					return dstsafe.Record{}, err
				}
				if ok {
					return own, nil
				}
				continue
			}
			if !req.Retry.Allows(existing) {
				return dstsafe.Record{}, &dstsafe.ClaimedError{Existing: existing}
			}
			next.Token, next.Attempt = cur.rec.Token+1, cur.rec.Attempt+1
			// A takeover uses an operator's release up, keeping who
			// made it and why.
			next.ReleasedBy, next.ReleaseReason = cur.rec.ReleasedBy, cur.rec.ReleaseReason
			// A nil cur after a lost swap: the record vanished under us
			// (its finished TTL ran out): the next round creates it.
			ok, cur, err = l.swap(ctx, "claim", key, idx, cur.raw, next, newClaimID())
		}
		if err != nil {
			return dstsafe.Record{}, err
		}
		if ok {
			return next, nil
		}
	}
	return dstsafe.Record{}, l.contended("claim", req.Job, req.Period)
}

// Heartbeat extends the lease of the running claim held with token to the
// Clock's now plus lease (dstsafe.DefaultLease if lease is zero). The token
// fences, not the clock: a holder whose lease ran out may still heartbeat
// as long as nobody took the period over. It fails with dstsafe.ErrLeaseLost
// if token no longer holds the period or the period is no longer running,
// with dstsafe.ErrNotFound if it was never claimed.
func (l *Ledger) Heartbeat(ctx context.Context, job, period string, token int64, lease time.Duration) (dstsafe.Record, error) {
	lease, err := ledgerkit.CheckHeartbeat(ctx, job, period, lease)
	if err != nil {
		return dstsafe.Record{}, err
	}
	return l.transition(ctx, "heartbeat", job, period, token, func(r dstsafe.Record, now time.Time) dstsafe.Record {
		r.LeaseUntil = now.Add(lease)
		return r
	})
}

// Finish ends the running claim held with token in state, which must be
// dstsafe.StateSucceeded, StateFailed or StateSkipped (else
// dstsafe.ErrInvalidArgument); reason is stored as
// ledgerkit.NormalizeReason(reason). It fails with dstsafe.ErrLeaseLost if
// token no longer holds the period, and then writes nothing. With
// WithFinishedTTL the record starts to expire here.
func (l *Ledger) Finish(ctx context.Context, job, period string, token int64, state dstsafe.State, reason string) (dstsafe.Record, error) {
	reason, err := ledgerkit.CheckFinish(ctx, job, period, state, reason)
	if err != nil {
		return dstsafe.Record{}, err
	}
	return l.transition(ctx, "finish", job, period, token, func(r dstsafe.Record, now time.Time) dstsafe.Record {
		r.State = state
		r.FinishedAt = now
		r.Reason = reason
		return r
	})
}

// transition applies change to the running record held with token,
// compare-and-set on the record it read, until it wins or the record is no
// longer the holder's.
func (l *Ledger) transition(ctx context.Context, op, job, period string, token int64, change func(dstsafe.Record, time.Time) dstsafe.Record) (dstsafe.Record, error) {
	key, idx := l.recordKey(job, period), l.indexKey(job)
	e, err := l.get(ctx, op, key, job, period)
	if err != nil {
		return dstsafe.Record{}, err
	}
	cur := &e
	for range maxSwaps {
		if cur == nil {
			// The record vanished between our read and our write: its
			// finished TTL ran out, so it was not running with our token.
			return dstsafe.Record{}, ledgerkit.NotFound(job, period)
		}
		now, err := l.now(ctx, key)
		if err != nil {
			return dstsafe.Record{}, l.wrap(op, job, period, err)
		}
		if cur.rec.Token != token || cur.rec.State != dstsafe.StateRunning {
			lost := cur.rec
			lost.State = lost.StateAt(now)
			return dstsafe.Record{}, ledgerkit.LeaseLost(lost, token)
		}
		next := change(cur.rec, now)
		ok, again, err := l.swap(ctx, op, key, idx, cur.raw, next, cur.claim)
		if err != nil {
			return dstsafe.Record{}, err
		}
		if ok {
			return next, nil
		}
		cur = again
	}
	return dstsafe.Record{}, l.contended(op, job, period)
}

// Get returns the record of (job, period) as of the Clock's now: a running
// record whose lease is over reads as dstsafe.StateAbandoned. It fails with
// dstsafe.ErrNotFound if the period was never claimed (or its record
// expired, see WithFinishedTTL).
func (l *Ledger) Get(ctx context.Context, job, period string) (dstsafe.Record, error) {
	if err := ledgerkit.CheckGet(ctx, job, period); err != nil {
		return dstsafe.Record{}, err
	}
	key := l.recordKey(job, period)
	now, err := l.now(ctx, key)
	if err != nil {
		return dstsafe.Record{}, l.wrap("get", job, period, err)
	}
	e, err := l.get(ctx, "get", key, job, period)
	if err != nil {
		return dstsafe.Record{}, err
	}
	r := e.rec
	r.State = r.StateAt(now)
	return r, nil
}

// listPage is how many periods List reads per round trip.
const listPage = 500

// List returns the records of job whose periods p satisfy from <= p < to in
// byte order (an empty bound is open), ordered by period, as of the Clock's
// now (running records past their lease read as dstsafe.StateAbandoned).
// A job or range without records gives an empty slice and no error.
//
// It reads the job's index with ZRANGEBYLEX and the records with MGET, a
// page at a time: not one snapshot, so a period claimed while List runs may
// or may not be in it. Periods whose record expired (WithFinishedTTL) are
// left out and dropped from the index.
func (l *Ledger) List(ctx context.Context, job, from, to string) ([]dstsafe.Record, error) {
	if err := ledgerkit.CheckList(ctx, job, from, to); err != nil {
		return nil, err
	}
	out := []dstsafe.Record{}
	if to != "" && from >= to {
		return out, nil
	}
	idx := l.indexKey(job)
	lo, hi := "-", "+"
	if from != "" {
		lo = "[" + from
	}
	if to != "" {
		hi = "(" + to
	}
	var gone []string // periods whose record is gone
	for {
		periods, err := l.client.ZRangeByLex(ctx, idx, &redis.ZRangeBy{Min: lo, Max: hi, Count: listPage}).Result()
		if err != nil {
			return nil, l.wrap("list", job, "", err)
		}
		if len(periods) == 0 {
			break
		}
		keys := make([]string, len(periods))
		for i, p := range periods {
			keys[i] = l.recordKey(job, p)
		}
		now, err := l.now(ctx, idx)
		if err != nil {
			return nil, l.wrap("list", job, "", err)
		}
		vals, err := l.client.MGet(ctx, keys...).Result()
		if err != nil {
			return nil, l.wrap("list", job, "", err)
		}
		for i, v := range vals {
			raw, ok := v.(string)
			if !ok {
				gone = append(gone, periods[i])
				continue
			}
			e, err := decode(keys[i], raw)
			if err != nil {
				return nil, err
			}
			r := e.rec
			r.State = r.StateAt(now)
			out = append(out, r)
		}
		if len(periods) < listPage {
			break
		}
		lo = "(" + periods[len(periods)-1]
	}
	if len(gone) > 0 {
		// Best effort: a failure only leaves index entries that the next
		// List skips again.
		keys := make([]string, 0, len(gone)+1)
		args := make([]any, len(gone))
		keys = append(keys, idx)
		for i, p := range gone {
			keys = append(keys, l.recordKey(job, p))
			args[i] = p
		}
		_ = pruneScript.Run(ctx, l.client, keys, args...).Err()
	}
	return out, nil
}

// now is the ledger's clock: WithClock's Clock, else Redis TIME on the
// node that holds key (in a Redis Cluster, the node of the job's slot).
func (l *Ledger) now(ctx context.Context, key string) (time.Time, error) {
	if l.clock != nil {
		return ledgerkit.LedgerTime(l.clock.Now()), nil
	}
	res, err := timeScript.Run(ctx, l.client, []string{key}).Int64Slice()
	if err != nil {
		return time.Time{}, err
	}
	if len(res) != 2 {
		return time.Time{}, fmt.Errorf("redisledger: TIME returned %d fields, want 2", len(res))
	}
	return ledgerkit.LedgerTime(time.Unix(res[0], res[1]*int64(time.Microsecond))), nil
}

// recordKey is the key of the record of (job, period).
func (l *Ledger) recordKey(job, period string) string {
	return l.jobPrefix(job) + ":run:" + period
}

// indexKey is the key of the sorted set of job's periods.
func (l *Ledger) indexKey(job string) string {
	return l.jobPrefix(job) + ":periods"
}

// jobPrefix is prefix{len:job}. The length keeps keys unambiguous whatever
// the job and period contain (job "a}:run:b" with period "c" against job
// "a" with period "b}:run:c"), and the braces are a Redis Cluster hash tag,
// never empty thanks to the length, so that a job's record and index keys
// share one slot and a script may touch both.
func (l *Ledger) jobPrefix(job string) string {
	return l.prefix + "{" + strconv.Itoa(len(job)) + ":" + job + "}"
}

// get reads and decodes the record at key.
func (l *Ledger) get(ctx context.Context, op, key, job, period string) (entry, error) {
	raw, err := l.client.Get(ctx, key).Result()
	if errors.Is(err, redis.Nil) {
		return entry{}, ledgerkit.NotFound(job, period)
	}
	if err != nil {
		return entry{}, l.wrap(op, job, period, err)
	}
	return decode(key, raw)
}

// create stores rec, a new claim, with SET NX. It reports whether it did,
// and if not, the record that is there.
func (l *Ledger) create(ctx context.Context, key, idx string, rec dstsafe.Record) (bool, *entry, error) {
	raw, err := encode(rec, newClaimID())
	if err != nil {
		return false, nil, err
	}
	res, err := claimScript.Run(ctx, l.client, []string{key, idx}, raw, rec.Period).Slice()
	if err != nil {
		return false, nil, l.wrap("claim", rec.Job, rec.Period, err)
	}
	return l.outcome(key, res)
}

// swap replaces the record at key with rec, written by claim, if the
// stored one is still raw. It reports whether it did, and if not, the
// record that is there now (nil if none). Finished records get the
// finished TTL, if one is set.
func (l *Ledger) swap(ctx context.Context, op, key, idx, raw string, rec dstsafe.Record, claim string) (bool, *entry, error) {
	next, err := encode(rec, claim)
	if err != nil {
		return false, nil, err
	}
	ttl := int64(0)
	if l.finishedTTL > 0 && rec.State != dstsafe.StateRunning {
		ttl = max(l.finishedTTL.Milliseconds(), 1)
	}
	res, err := swapScript.Run(ctx, l.client, []string{key, idx}, raw, next, rec.Period, ttl).Slice()
	if err != nil {
		return false, nil, l.wrap(op, rec.Job, rec.Period, err)
	}
	return l.outcome(key, res)
}

// outcome reads a script's reply: {1} done, {0, record} lost to record,
// {0} lost to a deleted record.
func (l *Ledger) outcome(key string, res []any) (bool, *entry, error) {
	if len(res) == 0 {
		return false, nil, &CorruptRecordError{Key: key, Err: errors.New("empty script reply")}
	}
	if n, ok := res[0].(int64); ok && n == 1 {
		return true, nil, nil
	}
	if len(res) < 2 {
		return false, nil, nil
	}
	raw, ok := res[1].(string)
	if !ok {
		return false, nil, &CorruptRecordError{Key: key, Err: fmt.Errorf("script replied %T", res[1])}
	}
	e, err := decode(key, raw)
	if err != nil {
		return false, nil, err
	}
	return false, &e, nil
}

// newClaimID returns a random id for one claim (attempt).
func newClaimID() string {
	var b [8]byte
	_, _ = rand.Read(b[:]) // crypto/rand.Read never returns an error
	return hex.EncodeToString(b[:])
}

// wrap reports a failure of Redis itself or of ctx. It is none of the
// ledger's conditions: the caller cannot know whether a write happened.
// It is the one place where the package decides what a client error
// means: see interpretError.
func (l *Ledger) wrap(op, job, period string, err error) error {
	return fmt.Errorf("redisledger: %s %q %q: %w", op, job, period, interpretError(err))
}

// interpretError marks the client errors that retrying cannot fix with
// dstsafe.ErrPermanent: a closed client, credentials the server refused
// (NOAUTH, WRONGPASS) or an ACL that forbids the ledger's commands
// (NOPERM), and a ledger key holding another type than the ledger writes
// (WRONGTYPE: something else wrote there). Connection errors, timeouts,
// LOADING and ctx are transient: the next call may work.
func interpretError(err error) error {
	var reply redis.Error
	switch {
	case errors.Is(err, redis.ErrClosed), redis.IsAuthError(err), redis.IsPermissionError(err):
		return ledgerkit.Permanent(err)
	case errors.As(err, &reply) && strings.Contains(reply.Error(), "WRONGTYPE"):
		// Inside a script, older servers prefix the reply ("ERR Error
		// running script ...: WRONGTYPE ..."), so look for it anywhere.
		return ledgerkit.Permanent(err)
	}
	return err
}

func (l *Ledger) contended(op, job, period string) error {
	return fmt.Errorf("redisledger: %s %q %q: record changed %d times during the call: %w", op, job, period, maxSwaps, ErrContended)
}

package redisledger

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/dstsafe/dstsafe"
	"github.com/dstsafe/dstsafe/ledgerkit"
)

// What operators decide (dstsafe.ControlLedger) is kept in Redis with the
// records, so every replica on the database obeys it and a restart keeps
// it: a release is three fields of the period's record, a job's pause
// state one JSON string key next to its records,
//
//	dstsafe:{7:billing}:pause
//	  {"paused":true,"by":"ops@bastion","reason":"incident 42","since":"2024-11-03T06:30:00Z"}
//
// in the job's hash tag. Like the record's transitions, both are decided
// in Go with the ledger's Clock and written by a Lua compare-and-set.

// storedPause is a job's pause state as kept in Redis.
type storedPause struct {
	Paused bool      `json:"paused"`
	By     string    `json:"by"`
	Reason string    `json:"reason,omitempty"`
	Since  time.Time `json:"since"`
}

// pauseKey is the key of job's pause state.
func (l *Ledger) pauseKey(job string) string {
	return l.jobPrefix(job) + ":pause"
}

// Release implements dstsafe.ControlLedger: the record must be failed, or
// running with its lease over by the Clock (abandoned); the release is
// written by the compare-and-set of every transition, so one racing a
// takeover or a heartbeat is decided again on the record that won. The
// next Claim takes the period over whatever its RetryPolicy, and clears
// Released in the same compare-and-set that bumps the token. With
// WithFinishedTTL, a released failed record's time to live starts again.
func (l *Ledger) Release(ctx context.Context, job, period, by, reason string) (dstsafe.Record, error) {
	reason, err := ledgerkit.CheckRelease(ctx, job, period, by, reason)
	if err != nil {
		return dstsafe.Record{}, err
	}
	key, idx := l.recordKey(job, period), l.indexKey(job)
	e, err := l.get(ctx, "release", key, job, period)
	if err != nil {
		return dstsafe.Record{}, err
	}
	cur := &e
	for range maxSwaps {
		if cur == nil {
			return dstsafe.Record{}, ledgerkit.NotFound(job, period) // expired (finished TTL) under us
		}
		now, err := l.now(ctx, key)
		if err != nil {
			return dstsafe.Record{}, l.wrap("release", job, period, err)
		}
		existing := cur.rec
		existing.State = existing.StateAt(now)
		if existing.State != dstsafe.StateFailed && existing.State != dstsafe.StateAbandoned {
			return dstsafe.Record{}, &dstsafe.ClaimedError{Existing: existing}
		}
		next := cur.rec
		next.Released, next.ReleasedBy, next.ReleaseReason = true, by, reason
		ok, again, err := l.swap(ctx, "release", key, idx, cur.raw, next, cur.claim)
		if err != nil {
			return dstsafe.Record{}, err
		}
		if ok {
			next.State = next.StateAt(now)
			return next, nil
		}
		cur = again
	}
	return dstsafe.Record{}, l.contended("release", job, period)
}

// SetPause implements dstsafe.ControlLedger: when the stored state is
// already the one asked for it writes nothing and returns it; otherwise a
// compare-and-set on the value read writes the new state, stamped with
// the Clock, and a lost race is decided again on the state that won.
func (l *Ledger) SetPause(ctx context.Context, job string, p dstsafe.Pause) (dstsafe.Pause, error) {
	reason, err := ledgerkit.CheckSetPause(ctx, job, p)
	if err != nil {
		return dstsafe.Pause{}, err
	}
	if err := l.addJob(ctx, "set pause", job); err != nil {
		return dstsafe.Pause{}, err
	}
	key := l.pauseKey(job)
	raw, cur, err := l.getPause(ctx, "set pause", key, job)
	if err != nil {
		return dstsafe.Pause{}, err
	}
	for range maxSwaps {
		if cur.Paused == p.Paused {
			return cur, nil
		}
		now, err := l.now(ctx, key)
		if err != nil {
			return dstsafe.Pause{}, l.wrapJob("set pause", job, err)
		}
		next := dstsafe.Pause{Paused: p.Paused, By: p.By, Reason: reason, Since: now}
		b, err := json.Marshal(storedPause{Paused: next.Paused, By: next.By, Reason: next.Reason, Since: next.Since})
		if err != nil {
			return dstsafe.Pause{}, fmt.Errorf("redisledger: encoding pause of %q: %w", job, err)
		}
		res, err := setScript.Run(ctx, l.client, []string{key}, raw, string(b)).Slice()
		if err != nil {
			return dstsafe.Pause{}, l.wrapJob("set pause", job, err)
		}
		if len(res) == 0 {
			return dstsafe.Pause{}, &CorruptRecordError{Key: key, Err: errors.New("empty script reply")}
		}
		if n, ok := res[0].(int64); ok && n == 1 {
			return next, nil
		}
		raw, cur = "", dstsafe.Pause{} // deleted under us
		if len(res) > 1 {
			s, ok := res[1].(string)
			if !ok {
				return dstsafe.Pause{}, &CorruptRecordError{Key: key, Err: fmt.Errorf("script replied %T", res[1])}
			}
			if cur, err = decodePause(key, s); err != nil {
				return dstsafe.Pause{}, err
			}
			raw = s
		}
	}
	return dstsafe.Pause{}, fmt.Errorf("redisledger: set pause %q: state changed %d times during the call: %w", job, maxSwaps, ErrContended)
}

// GetPause implements dstsafe.ControlLedger.
func (l *Ledger) GetPause(ctx context.Context, job string) (dstsafe.Pause, error) {
	if err := ledgerkit.CheckGetPause(ctx, job); err != nil {
		return dstsafe.Pause{}, err
	}
	_, p, err := l.getPause(ctx, "get pause", l.pauseKey(job), job)
	return p, err
}

// getPause reads the pause state at key: "" and the zero Pause if there
// is none.
func (l *Ledger) getPause(ctx context.Context, op, key, job string) (string, dstsafe.Pause, error) {
	raw, err := l.client.Get(ctx, key).Result()
	if errors.Is(err, redis.Nil) {
		return "", dstsafe.Pause{}, nil
	}
	if err != nil {
		return "", dstsafe.Pause{}, l.wrapJob(op, job, err)
	}
	p, err := decodePause(key, raw)
	return raw, p, err
}

func decodePause(key, raw string) (dstsafe.Pause, error) {
	var s storedPause
	if err := json.Unmarshal([]byte(raw), &s); err != nil {
		return dstsafe.Pause{}, &CorruptRecordError{Key: key, Err: err}
	}
	if s.By == "" || s.Since.IsZero() {
		return dstsafe.Pause{}, &CorruptRecordError{Key: key, Err: errors.New("pause state without by or since")}
	}
	return dstsafe.Pause{Paused: s.Paused, By: s.By, Reason: s.Reason, Since: s.Since.UTC()}, nil
}

// wrapJob is wrap for an operation on a job.
func (l *Ledger) wrapJob(op, job string, err error) error {
	return fmt.Errorf("redisledger: %s %q: %w", op, job, interpretError(err))
}

package redisledger

import (
	"context"
	"fmt"
	"slices"
	"strconv"
	"strings"

	"github.com/redis/go-redis/v9"
)

// The jobs a ledger knows (dstsafe.ControlLedger.Jobs) are a set,
//
//	dstsafe:jobs           SET: billing, report, ...
//	dstsafe:jobs:scanned   "1" once the set holds every job of the keys
//
// outside every job's hash tag, so it is written by a command of its own
// before a job's first claim, pause or registration, not inside their
// scripts (a script touches one slot). A Ledger adds each job once in its life: one SADD
// per job and process, never one per claim. A job added whose claim then
// failed is known without records, which is what an operator expects of
// a job that tried to run.
//
// Migration: a ledger written by a dstsafe before the set existed has
// jobs only in its keys. The first Jobs call on it (no "jobs:scanned")
// SCANs the prefix's keys once (on every master of a cluster), adds the
// jobs it finds and sets the marker; services need no downtime, and
// jobs that newer services claim are added by them anyway. A replica
// still running the old dstsafe after that scan adds nothing: a job
// only such a replica claimed appears once a newer one claims it (so
// finish a rolling deploy before trusting a first `dstsafe ledger jobs`),
// or after deleting the marker, which makes the next Jobs scan again.
// With WithFinishedTTL a job stays known after its records expired.

// jobsKey is the key of the set of job names.
func (l *Ledger) jobsKey() string { return l.prefix + "jobs" }

// scannedKey marks the jobs set as complete for keys written before it.
func (l *Ledger) scannedKey() string { return l.prefix + "jobs:scanned" }

// addJob puts job in the jobs set, once per Ledger.
func (l *Ledger) addJob(ctx context.Context, op, job string) error {
	if _, ok := l.known.Load(job); ok {
		return nil
	}
	if err := l.client.SAdd(ctx, l.jobsKey(), job).Err(); err != nil {
		return l.wrapJob(op, job, err)
	}
	l.known.Store(job, struct{}{})
	return nil
}

// Jobs implements dstsafe.ControlLedger: the jobs set, after a one-time
// SCAN on a ledger written before the set existed (see above).
func (l *Ledger) Jobs(ctx context.Context) ([]string, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	n, err := l.client.Exists(ctx, l.scannedKey()).Result()
	if err != nil {
		return nil, l.wrapAll("jobs", err)
	}
	if n == 0 {
		if err := l.scanJobs(ctx); err != nil {
			return nil, err
		}
	}
	jobs, err := l.client.SMembers(ctx, l.jobsKey()).Result()
	if err != nil {
		return nil, l.wrapAll("jobs", err)
	}
	slices.Sort(jobs)
	return jobs, nil
}

// scanJobs adds the job of every ledger key under the prefix to the
// jobs set and marks it complete.
func (l *Ledger) scanJobs(ctx context.Context) error {
	match := globEscape(l.prefix) + "{*"
	scan := func(ctx context.Context, c redis.UniversalClient) error {
		var cursor uint64
		for {
			keys, next, err := c.Scan(ctx, cursor, match, 1000).Result()
			if err != nil {
				return err
			}
			var jobs []any
			for _, k := range keys {
				if job, ok := l.jobOfKey(k); ok {
					jobs = append(jobs, job)
				}
			}
			if len(jobs) > 0 {
				if err := l.client.SAdd(ctx, l.jobsKey(), jobs...).Err(); err != nil {
					return err
				}
			}
			if cursor = next; cursor == 0 {
				return nil
			}
		}
	}
	var err error
	if cc, ok := l.raw.(*redis.ClusterClient); ok {
		err = cc.ForEachMaster(ctx, func(ctx context.Context, c *redis.Client) error { return scan(ctx, c) })
	} else {
		err = scan(ctx, l.raw)
	}
	if err == nil {
		err = l.client.Set(ctx, l.scannedKey(), "1", 0).Err()
	}
	if err != nil {
		return l.wrapAll("jobs (scanning the keys of a ledger written before the jobs set)", err)
	}
	return nil
}

// jobOfKey returns the job of a ledger key, prefix{len:job}:..., and
// false for a key that is not a record, index or pause key.
func (l *Ledger) jobOfKey(key string) (string, bool) {
	rest, ok := strings.CutPrefix(key, l.prefix+"{")
	if !ok {
		return "", false
	}
	num, rest, ok := strings.Cut(rest, ":")
	n, err := strconv.Atoi(num)
	if !ok || err != nil || n <= 0 || n+1 > len(rest) || rest[n] != '}' {
		return "", false
	}
	job, tail := rest[:n], rest[n+1:]
	if tail != ":periods" && tail != ":pause" && tail != ":job" && !strings.HasPrefix(tail, ":run:") {
		return "", false
	}
	return job, true
}

// globEscape escapes the pattern characters of SCAN MATCH in s.
func globEscape(s string) string {
	var b strings.Builder
	for _, r := range s {
		if strings.ContainsRune(`*?[]\`, r) {
			b.WriteByte('\\')
		}
		b.WriteRune(r)
	}
	return b.String()
}

// wrapAll reports a failure of Redis in an operation on the whole ledger.
func (l *Ledger) wrapAll(op string, err error) error {
	return fmt.Errorf("redisledger: %s: %w", op, interpretError(err))
}

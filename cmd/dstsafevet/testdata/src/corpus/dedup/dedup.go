// Package dedup holds corpus cases of the second incident's shape: a
// dedup key made of the local date, kept for 24 hours.
package dedup

import (
	"context"
	"fmt"
	"time"

	"github.com/dstsafe/dstsafe"
	"github.com/jonboulle/clockwork"
	"github.com/redis/go-redis/v9"
)

func charge() {}

//corpus:case redis-setnx-local-date
// SETNX with a day's TTL on "billing:<local date>".

func ChargeOnce(ctx context.Context, rdb *redis.Client, loc *time.Location) error {
	key := "billing:" + time.Now().In(loc).Format("2006-01-02") // want `localdate: a business date`
	ok, err := rdb.SetNX(ctx, key, 1, 24*time.Hour).Result()    // want `localdate: a dedup key of the local date kept for 24 hours`
	if err != nil || !ok {
		return err
	}
	charge()
	return nil
}

//corpus:case redis-do-set-nx-ex
// The raw command with EX 86400.

func ChargeRaw(ctx context.Context, rdb *redis.Client, loc *time.Location) error {
	day := time.Now().In(loc).Format(time.DateOnly)                                       // want `localdate: a business date`
	if err := rdb.Do(ctx, "SET", "charge:"+day, 1, "NX", "EX", 86400).Err(); err != nil { // want `localdate: a dedup key of the local date kept for 24 hours`
		return err
	}
	charge()
	return nil
}

//corpus:case redis-setargs
// SetArgs with Mode NX and a TTL.

func ChargeArgs(ctx context.Context, rdb *redis.Client, clock clockwork.Clock, loc *time.Location) error {
	key := fmt.Sprintf("invoice:%s", dstsafe.DateOf(clock.Now(), loc))                    // want `localdate: a business date`
	return rdb.SetArgs(ctx, key, 1, redis.SetArgs{Mode: "NX", TTL: 24 * time.Hour}).Err() // want `localdate: a dedup key`
}

//corpus:case map-expiry
// An in-process map of keys with their expiry.

type Dedup struct {
	loc  *time.Location
	seen map[string]time.Time
}

func (d *Dedup) First(now time.Time) bool {
	day := now.In(d.loc).Format("2006-01-02") // want `localdate: a business date`
	if exp, ok := d.seen[day]; ok && now.Before(exp) {
		return false
	}
	d.seen[day] = now.Add(24 * time.Hour) // want `localdate: a dedup key`
	return true
}

//corpus:case cache-ymd-key
// A cache interface, the key from Date().

type Cache interface {
	Add(key string, v any, ttl time.Duration) error
}

func Once(c Cache, clock clockwork.Clock, loc *time.Location) error {
	y, m, d := clock.Now().In(loc).Date()                                      // want `localdate: a business date`
	return c.Add(fmt.Sprintf("run:%d-%02d-%02d", y, m, d), true, 24*time.Hour) // want `localdate: a dedup key`
}

//corpus:case utc-date-key
// A UTC date: days are 24 hours.

func ChargeUTC(ctx context.Context, rdb *redis.Client) error {
	key := "billing:" + time.Now().UTC().Format("2006-01-02")
	return rdb.SetNX(ctx, key, 1, 24*time.Hour).Err()
}

//corpus:case period-key
// The key is the scheduled period, as dstsafe hands it to the job.

func ChargeRun(ctx context.Context, rdb *redis.Client, run dstsafe.Run) error {
	return rdb.SetNX(ctx, "billing:"+run.Period, 1, 24*time.Hour).Err()
}

//corpus:case lock-with-day-ttl
// A lock with a day's TTL and no date in its key.

func Lock(ctx context.Context, rdb *redis.Client) (bool, error) {
	return rdb.SetNX(ctx, "lock:billing", 1, 24*time.Hour).Result()
}

//corpus:case rate-limit-hourly
// A per-hour counter in UTC with an hour's TTL.

func Count(ctx context.Context, rdb *redis.Client) error {
	key := "hits:" + time.Now().UTC().Format("2006010215")
	return rdb.Set(ctx, key, 1, time.Hour).Err()
}

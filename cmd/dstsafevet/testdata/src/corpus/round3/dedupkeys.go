package round3

import (
	"context"
	"fmt"
	"strconv"
	"time"

	"github.com/redis/go-redis/v9"
)

const dedupTTL = 86400 * time.Second

func sendDigest(context.Context) error { return nil }

//corpus:case yearday-key-const-ttl
// The digest sender keys its run by year and day of year and keeps the key
// for a day (the constant spelled in seconds, as the Redis docs do).

func SendDigestOnce(ctx context.Context, rdb *redis.Client, loc *time.Location) error {
	local := time.Now().In(loc)
	key := fmt.Sprintf("digest:%d:%03d", local.Year(), local.YearDay())
	ok, err := rdb.SetNX(ctx, key, 1, dedupTTL).Result() // want `localdate: a dedup key of the local date kept for 24 hours`
	if err != nil || !ok {
		return err
	}
	return sendDigest(ctx)
}

//corpus:case ymd-key-config-ttl
// Year, month and day joined by hand; the TTL comes from the service's
// configuration, set to a day where the service is built.

type DigestConfig struct {
	Zone     *time.Location
	DedupTTL time.Duration
}

type Digester struct {
	cfg DigestConfig
	rdb *redis.Client
}

func NewDigester(rdb *redis.Client, zone *time.Location) *Digester {
	return &Digester{rdb: rdb, cfg: DigestConfig{Zone: zone, DedupTTL: 24 * time.Hour}}
}

func (d *Digester) Run(ctx context.Context, now time.Time) error {
	local := now.In(d.cfg.Zone)
	key := "digest:" + strconv.Itoa(local.Year()) + "-" + strconv.Itoa(int(local.Month())) + "-" + strconv.Itoa(local.Day())
	ok, err := d.rdb.SetNX(ctx, key, 1, d.cfg.DedupTTL).Result() // want `localdate: a dedup key of the local date kept for 24 hours`
	if err != nil || !ok {
		return err
	}
	return sendDigest(ctx)
}

//corpus:case separate-expire
// SETNX without a TTL, then EXPIRE for a day, as older Redis clients did.

func ReserveDay(ctx context.Context, rdb *redis.Client, loc *time.Location) (bool, error) {
	now := time.Now().In(loc)
	key := fmt.Sprintf("reserve:%04d%02d%02d", now.Year(), now.Month(), now.Day())
	ok, err := rdb.SetNX(ctx, key, 1, 0).Result()
	if err != nil || !ok {
		return false, err
	}
	return true, rdb.Expire(ctx, key, 24*time.Hour).Err() // want `localdate: a dedup key of the local date kept for 24 hours`
}

//corpus:case yearday-key-two-days
// The same key kept for two days outlives any local day.

func SendDigestTwoDays(ctx context.Context, rdb *redis.Client, loc *time.Location) error {
	local := time.Now().In(loc)
	key := fmt.Sprintf("digest:%d:%03d", local.Year(), local.YearDay())
	ok, err := rdb.SetNX(ctx, key, 1, 2*dedupTTL).Result()
	if err != nil || !ok {
		return err
	}
	return sendDigest(ctx)
}

//corpus:case yearday-key-utc
// A UTC day lasts 24 hours.

func SendDigestUTC(ctx context.Context, rdb *redis.Client) error {
	now := time.Now().UTC()
	key := fmt.Sprintf("digest:%d:%03d", now.Year(), now.YearDay())
	ok, err := rdb.SetNX(ctx, key, 1, dedupTTL).Result()
	if err != nil || !ok {
		return err
	}
	return sendDigest(ctx)
}

//corpus:case hourly-key-day-ttl
// An hourly key (the hour is in it) kept for a day: a bucket of an hour,
// not of a date.

func CountRequests(ctx context.Context, rdb *redis.Client, loc *time.Location) error {
	now := time.Now().In(loc)
	key := fmt.Sprintf("req:%d:%d:%02d", now.YearDay(), now.Hour(), now.Minute()/15)
	return rdb.Expire(ctx, key, 24*time.Hour).Err()
}

//corpus:case month-key-config-ttl
// A monthly quota key: the month lasts far longer than the TTL's day, and
// the key is not a date.

func (d *Digester) Quota(ctx context.Context, now time.Time) error {
	local := now.In(d.cfg.Zone)
	key := fmt.Sprintf("quota:%d-%02d", local.Year(), local.Month())
	return d.rdb.SetNX(ctx, key, 0, d.cfg.DedupTTL).Err()
}

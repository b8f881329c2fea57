package round3

import (
	"context"
	"fmt"
	"time"

	"github.com/go-co-op/gocron/v2"
	"github.com/redis/go-redis/v9"
)

func mustLocation(name string) *time.Location {
	loc, err := time.LoadLocation(name)
	if err != nil {
		panic(err)
	}
	return loc
}

//corpus:case must-utc
// UTC loaded through a must helper, as services do at start-up.

var serverZone = mustLocation("UTC")

func DueCleanup(now time.Time) bool {
	n := now.In(serverZone)
	return n.Hour() == 3 && n.Minute() == 0
}

//corpus:case must-chicago
// The same helper with Chicago: the match is a wall-clock match.

var billingZone = mustLocation("America/Chicago")

func DueBilling(now time.Time) bool {
	n := now.In(billingZone)
	return n.Hour() == 1 && n.Minute() == 30 // want `wallclock:`
}

//corpus:case day-key-helper
// The key built by a small helper from calendar fields.

func dayKey(job string, t time.Time, loc *time.Location) string {
	l := t.In(loc)
	return fmt.Sprintf("%s:%d:%03d", job, l.Year(), l.YearDay())
}

func RunOncePerDay(ctx context.Context, rdb *redis.Client, loc *time.Location, job string, fn func(context.Context) error) error {
	ok, err := rdb.SetNX(ctx, dayKey(job, time.Now(), loc), 1, dedupTTL).Result() // want `localdate: a dedup key of the local date kept for 24 hours`
	if err != nil || !ok {
		return err
	}
	return fn(ctx)
}

//corpus:case havana-cron-sunday
// gocron v2 CronJob on Sundays at 00:15 in Havana.

func StartHavanaCron() error {
	s, err := gocron.NewScheduler(gocron.WithLocation(mustLocation("America/Havana")))
	if err != nil {
		return err
	}
	_, err = s.NewJob(gocron.CronJob("15 0 * * 0", false), gocron.NewTask(weeklyReport)) // want `cronspec: "15 0 \* \* 0" in America/Havana: 00:15 does not exist on 2026-03-08`
	if err != nil {
		return err
	}
	s.Start()
	return nil
}

//corpus:case havana-cron-weekdays
// The same job on weekdays: Havana changes its clocks on Sundays.

func StartHavanaWeekdays() error {
	s, err := gocron.NewScheduler(gocron.WithLocation(mustLocation("America/Havana")))
	if err != nil {
		return err
	}
	_, err = s.NewJob(gocron.CronJob("15 0 * * 1-5", false), gocron.NewTask(weeklyReport))
	if err != nil {
		return err
	}
	s.Start()
	return nil
}

// Package variants holds corpus cases of the issue-24 shapes as they show
// up one step removed: a scheduler kept in a struct, a run time returned by
// a helper, a local time in a field, a TTL in a variable.
package variants

import (
	"context"
	"time"

	gocron "github.com/go-co-op/gocron/v2"
	"github.com/redis/go-redis/v9"
	"github.com/robfig/cron/v3"
)

func run() {}

//corpus:case robfig-scheduler-in-struct
// The scheduler is built in a constructor and kept in a field.

type Service struct {
	cron *cron.Cron
}

func NewService() (*Service, error) {
	loc, err := time.LoadLocation("America/Chicago")
	if err != nil {
		return nil, err
	}
	c := cron.New(cron.WithLocation(loc))
	return &Service{cron: c}, nil
}

func (s *Service) Register() error {
	_, err := s.cron.AddFunc("30 1 * * *", run) // want `cronspec: "30 1 \* \* \*" in America/Chicago`
	return err
}

//corpus:case gocron-scheduler-in-struct
// A gocron scheduler in a field, the zone from configuration.

type Worker struct {
	s gocron.Scheduler
}

func NewWorker(zone string) (*Worker, error) {
	loc, err := time.LoadLocation(zone)
	if err != nil {
		return nil, err
	}
	s, err := gocron.NewScheduler(gocron.WithLocation(loc))
	if err != nil {
		return nil, err
	}
	return &Worker{s: s}, nil
}

func (w *Worker) Start() error {
	_, err := w.s.NewJob(gocron.DailyJob(1, gocron.NewAtTimes(gocron.NewAtTime(2, 30, 0))), gocron.NewTask(run)) // want `cronspec: this job runs at 02:30`
	return err
}

//corpus:case next-from-helper-plus-day
// The first run comes from a helper; each next one is 24 hours later.

func firstRun(loc *time.Location) time.Time {
	now := time.Now().In(loc)
	return time.Date(now.Year(), now.Month(), now.Day(), 3, 0, 0, 0, loc) // want `localdate: time.Date picks`
}

func Loop(loc *time.Location) {
	next := firstRun(loc)
	for {
		time.Sleep(time.Until(next))
		run()
		next = next.Add(24 * time.Hour) // want `localdate: adding 24 hours`
	}
}

//corpus:case field-plus-day
// The next run in a field, set from a local time.

type Job struct {
	loc  *time.Location
	next time.Time
}

func (j *Job) Init() { j.next = time.Now().In(j.loc) }

func (j *Job) Advance() { j.next = j.next.Add(24 * time.Hour) } // want `localdate: adding 24 hours`

//corpus:case parsed-run-time-helper
// A helper parses the day's run time; the caller sleeps until it.

func runTime(day string, loc *time.Location) (time.Time, error) {
	return time.ParseInLocation("2006-01-02 15:04", day+" 01:30", loc) // want `localdate: a run time parsed`
}

func RunDay(day string, loc *time.Location) error {
	at, err := runTime(day, loc)
	if err != nil {
		return err
	}
	time.Sleep(time.Until(at))
	run()
	return nil
}

//corpus:case ttl-variable
// The TTL in a variable, the key built with Sprintf.

func Claim(ctx context.Context, rdb *redis.Client, loc *time.Location, customer string) (bool, error) {
	ttl := 24 * time.Hour
	key := customer + ":" + time.Now().In(loc).Format("20060102") // want `localdate: a business date`
	return rdb.SetNX(ctx, key, 1, ttl).Result()                   // want `localdate: a dedup key`
}

//corpus:case utc-field-plus-day
// A field holding UTC times: 24-hour days.

type UTCJob struct{ next time.Time }

func (j *UTCJob) Init()    { j.next = time.Now().UTC() }
func (j *UTCJob) Advance() { j.next = j.next.Add(24 * time.Hour) }

//corpus:case ttl-variable-two-days
// Two days cover any local day.

func ClaimTwoDays(ctx context.Context, rdb *redis.Client, customer string) (bool, error) {
	ttl := 48 * time.Hour
	key := customer + ":" + time.Now().UTC().Format("20060102")
	return rdb.SetNX(ctx, key, 1, ttl).Result()
}

//corpus:case robfig-struct-utc
// A scheduler in a field, in UTC.

type UTCService struct{ c *cron.Cron }

func NewUTCService() *UTCService { return &UTCService{c: cron.New(cron.WithLocation(time.UTC))} }

func (s *UTCService) Register() { s.c.AddFunc("30 1 * * *", run) }

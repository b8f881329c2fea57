// Package jobs holds corpus negatives generated from robfig/cron and
// gocron jobs written as their READMEs write them, made right for DST.
// corpus_test.go writes this file (go test -run TestCorpusJobsGenerated
// -update); it carries no "generated" header on purpose, since the
// analyzers skip generated files and the point is that they read these.
package jobs

import (
	"log"
	"time"

	gocron "github.com/go-co-op/gocron/v2"
	"github.com/robfig/cron/v3"
)

var lastSync time.Time

//corpus:case robfig-utc-prefix
func RobfigUtcPrefix() {
	c := cron.New()
	_, _ = c.AddFunc("CRON_TZ=UTC 30 7 * * *", func() { log.Printf("sync at %s", time.Now().UTC().Format(time.RFC3339)) })
	c.Start()
}

//corpus:case robfig-utc-location
func RobfigUtcLocation() {
	c := cron.New(cron.WithLocation(time.UTC))
	_, _ = c.AddFunc("30 7 * * *", func() {
		start := time.Now()
		defer func() { log.Printf("took %v", time.Since(start)) }()
	})
	c.Start()
}

//corpus:case robfig-chained-location
func RobfigChainedLocation() {
	_, _ = cron.New(cron.WithLocation(time.UTC)).AddFunc("0 0 * * *", func() {
		if time.Since(lastSync) < time.Minute {
			return
		}
		lastSync = time.Now()
	})
}

//corpus:case robfig-noon-new-york
func RobfigNoonNewYork() {
	c := cron.New()
	_, _ = c.AddFunc("CRON_TZ=America/New_York 0 12 * * 1-5", func() { log.Printf("report for %s", time.Now().UTC().Format("2006-01-02")) })
	c.Start()
}

//corpus:case robfig-every
func RobfigEvery() {
	c := cron.New()
	_, _ = c.AddFunc("@every 10m", func() { log.Printf("sync at %s", time.Now().UTC().Format(time.RFC3339)) })
	c.Start()
}

//corpus:case robfig-periodic-chicago
func RobfigPeriodicChicago() {
	c := cron.New()
	_, _ = c.AddFunc("CRON_TZ=America/Chicago */15 * * * *", func() {
		start := time.Now()
		defer func() { log.Printf("took %v", time.Since(start)) }()
	})
	c.Start()
}

//corpus:case robfig-seconds-utc
func RobfigSecondsUtc() {
	c := cron.New(cron.WithSeconds(), cron.WithLocation(time.UTC))
	_, _ = c.AddFunc("0 30 7 * * *", func() {
		if time.Since(lastSync) < time.Minute {
			return
		}
		lastSync = time.Now()
	})
	c.Start()
}

//corpus:case robfig-job-berlin
func RobfigJobBerlin() {
	c := cron.New()
	_, _ = c.AddJob("CRON_TZ=Europe/Berlin 0 9 * * *", cron.FuncJob(func() { log.Printf("report for %s", time.Now().UTC().Format("2006-01-02")) }))
	c.Start()
}

//corpus:case robfig-schedule-every
func RobfigScheduleEvery() {
	c := cron.New()
	_ = c.Schedule(cron.Every(5*time.Minute), cron.FuncJob(func() { log.Printf("sync at %s", time.Now().UTC().Format(time.RFC3339)) }))
	c.Start()
}

//corpus:case gocron-utc-scheduler
func GocronUtcScheduler() error {
	s, err := gocron.NewScheduler(gocron.WithLocation(time.UTC))
	if err != nil {
		return err
	}
	if _, err := s.NewJob(gocron.CronJob("30 7 * * *", false), gocron.NewTask(func() {
		start := time.Now()
		defer func() { log.Printf("took %v", time.Since(start)) }()
	})); err != nil {
		return err
	}
	s.Start()
	return nil
}

//corpus:case gocron-utc-prefix
func GocronUtcPrefix() error {
	s, err := gocron.NewScheduler()
	if err != nil {
		return err
	}
	if _, err := s.NewJob(gocron.CronJob("CRON_TZ=UTC 30 7 * * *", false), gocron.NewTask(func() {
		if time.Since(lastSync) < time.Minute {
			return
		}
		lastSync = time.Now()
	})); err != nil {
		return err
	}
	s.Start()
	return nil
}

//corpus:case gocron-duration
func GocronDuration() error {
	s, err := gocron.NewScheduler()
	if err != nil {
		return err
	}
	if _, err := s.NewJob(gocron.DurationJob(10*time.Minute), gocron.NewTask(func() { log.Printf("report for %s", time.Now().UTC().Format("2006-01-02")) })); err != nil {
		return err
	}
	s.Start()
	return nil
}

//corpus:case gocron-daily-utc
func GocronDailyUtc() error {
	s, err := gocron.NewScheduler(gocron.WithLocation(time.UTC))
	if err != nil {
		return err
	}
	if _, err := s.NewJob(gocron.DailyJob(1, gocron.NewAtTimes(gocron.NewAtTime(7, 30, 0))), gocron.NewTask(func() { log.Printf("sync at %s", time.Now().UTC().Format(time.RFC3339)) })); err != nil {
		return err
	}
	s.Start()
	return nil
}

//corpus:case gocron-periodic-london
func GocronPeriodicLondon() error {
	s, err := gocron.NewScheduler()
	if err != nil {
		return err
	}
	if _, err := s.NewJob(gocron.CronJob("CRON_TZ=Europe/London */5 * * * *", false), gocron.NewTask(func() {
		start := time.Now()
		defer func() { log.Printf("took %v", time.Since(start)) }()
	})); err != nil {
		return err
	}
	s.Start()
	return nil
}

//corpus:case gocron-seconds-utc
func GocronSecondsUtc() error {
	s, err := gocron.NewScheduler()
	if err != nil {
		return err
	}
	if _, err := s.NewJob(gocron.CronJob("CRON_TZ=UTC 0 30 7 * * *", true), gocron.NewTask(func() {
		if time.Since(lastSync) < time.Minute {
			return
		}
		lastSync = time.Now()
	})); err != nil {
		return err
	}
	s.Start()
	return nil
}

//corpus:case gocron-named-sydney-noon
func GocronNamedSydneyNoon() error {
	s, err := gocron.NewScheduler()
	if err != nil {
		return err
	}
	if _, err := s.NewJob(gocron.CronJob("CRON_TZ=Australia/Sydney 0 12 * * *", false), gocron.NewTask(func() { log.Printf("report for %s", time.Now().UTC().Format("2006-01-02")) }), gocron.WithName("report")); err != nil {
		return err
	}
	s.Start()
	return nil
}

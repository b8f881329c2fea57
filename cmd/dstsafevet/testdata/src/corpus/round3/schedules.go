package round3

import (
	"log"
	"time"

	gocronv1 "github.com/go-co-op/gocron"
	"github.com/go-co-op/gocron/v2"
	"github.com/robfig/cron/v3"
)

func weeklyReport() { log.Print("weekly report") }
func closeBooks()   { log.Print("books closed") }

//corpus:case havana-monday-0030
// Havana changes its clocks at midnight, on Sundays: a Monday job at 00:30
// is never touched.

func StartHavanaWeekly() {
	havana, _ := time.LoadLocation("America/Havana")
	s := gocronv1.NewScheduler(havana)
	s.Every(1).Monday().At("00:30").Do(weeklyReport)
	s.StartAsync()
}

//corpus:case havana-sunday-0030
// The same job on Sundays: 00:30 is skipped on 2026-03-08 and repeated on
// 2026-11-01.

func StartHavanaSunday() {
	havana, _ := time.LoadLocation("America/Havana")
	s := gocronv1.NewScheduler(havana)
	s.Every(1).Sunday().At("00:30").Do(weeklyReport) // want `cronspec: .*00:30.*America/Havana.*2026-03-08.*2026-11-01`
	s.StartAsync()
}

//corpus:case havana-weekly-v2-tuesday
// gocron v2's weekly job on Tuesdays in Havana.

func StartHavanaV2() error {
	havana, err := time.LoadLocation("America/Havana")
	if err != nil {
		return err
	}
	s, err := gocron.NewScheduler(gocron.WithLocation(havana))
	if err != nil {
		return err
	}
	_, err = s.NewJob(
		gocron.WeeklyJob(1, gocron.NewWeekdays(time.Tuesday), gocron.NewAtTimes(gocron.NewAtTime(0, 30, 0))),
		gocron.NewTask(weeklyReport),
	)
	if err != nil {
		return err
	}
	s.Start()
	return nil
}

//corpus:case chicago-monthly-first
// Month-end close on the 1st at 01:30: 2026-11-01 is a first of the month
// and the fall-back day in Chicago.

func StartMonthlyClose() error {
	chicago, err := time.LoadLocation("America/Chicago")
	if err != nil {
		return err
	}
	s, err := gocron.NewScheduler(gocron.WithLocation(chicago))
	if err != nil {
		return err
	}
	_, err = s.NewJob(
		gocron.MonthlyJob(1, gocron.NewDaysOfTheMonth(1), gocron.NewAtTimes(gocron.NewAtTime(1, 30, 0))), // want `cronspec: .*01:30.*America/Chicago.*occurs twice on 2026-11-01`
		gocron.NewTask(closeBooks),
	)
	if err != nil {
		return err
	}
	s.Start()
	return nil
}

//corpus:case chicago-monthly-fifteenth
// On the 15th at 01:30: never a transition day in Chicago (the second
// Sunday of March and the first of November).

func StartMidMonth() error {
	chicago, err := time.LoadLocation("America/Chicago")
	if err != nil {
		return err
	}
	s, err := gocron.NewScheduler(gocron.WithLocation(chicago))
	if err != nil {
		return err
	}
	_, err = s.NewJob(
		gocron.MonthlyJob(1, gocron.NewDaysOfTheMonth(15), gocron.NewAtTimes(gocron.NewAtTime(1, 30, 0))),
		gocron.NewTask(closeBooks),
	)
	if err != nil {
		return err
	}
	s.Start()
	return nil
}

//corpus:case santiago-daily
// @daily in Santiago: midnight is skipped in September, never repeated
// (the April fall-back repeats 23:00-24:00 of the Saturday).

func StartSantiagoDaily() *cron.Cron {
	loc, _ := time.LoadLocation("America/Santiago")
	c := cron.New(cron.WithLocation(loc))
	c.AddFunc("@daily", closeBooks) // want `^cronspec: "@daily" in America/Santiago: 00:00 does not exist on 2026-09-06 \(00:00-01:00 skipped\), so the skipped time runs an hour late or not at all, depending on the library; move it outside`
	c.Start()
	return c
}

//corpus:case local-map-table
// A table of jobs by spec, added in a loop, under the machine's zone.

var nightly = map[string]func(){
	"0 2 * * *":    closeBooks, // want `cronspec: "0 2 \* \* \*" runs at 02:00 in a zone this check cannot name`
	"*/10 * * * *": weeklyReport,
}

func StartNightly() *cron.Cron {
	c := cron.New(cron.WithLocation(time.Local))
	for spec, fn := range nightly {
		if _, err := c.AddFunc(spec, fn); err != nil {
			log.Printf("cron %q: %v", spec, err)
		}
	}
	c.Start()
	return c
}

//corpus:case berlin-struct-table
// A slice of named jobs in Berlin: 02:30 is skipped in March and
// repeated in October.

type cronJob struct {
	name string
	spec string
	run  func()
}

var berlinJobs = []cronJob{
	{name: "reindex", spec: "30 2 * * *", run: weeklyReport}, // want `cronspec: "30 2 \* \* \*" in Europe/Berlin: 02:30 does not exist on 2026-03-29.*occurs twice on 2026-10-25`
	{name: "report", spec: "0 7 * * 1-5", run: closeBooks},
}

func StartBerlin() (*cron.Cron, error) {
	c := cron.New(cron.WithLocation(berlin))
	for _, j := range berlinJobs {
		if _, err := c.AddFunc(j.spec, j.run); err != nil {
			return nil, err
		}
	}
	c.Start()
	return c, nil
}

//corpus:case utc-map-table
// The map table under a UTC scheduler loaded by name.

var utcJobs = map[string]func(){
	"0 2 * * *":  closeBooks,
	"30 1 * * *": weeklyReport,
}

func StartUTC() (*cron.Cron, error) {
	loc, err := time.LoadLocation("Etc/UTC")
	if err != nil {
		return nil, err
	}
	c := cron.New(cron.WithLocation(loc))
	for spec, fn := range utcJobs {
		if _, err := c.AddFunc(spec, fn); err != nil {
			return nil, err
		}
	}
	c.Start()
	return c, nil
}

// Package zoned holds corpus cases of schedulers configured with a zone
// (robfig/cron WithLocation, gocron WithLocation and NewScheduler(loc))
// and of schedules that are not cron strings (gocron at-time builders), as
// teams write them: the zone from a literal, from time.Local, or from
// configuration.
package zoned

import (
	"context"
	"log"
	"time"

	"github.com/dstsafe/dstsafe"
	gocronv1 "github.com/go-co-op/gocron"
	gocron "github.com/go-co-op/gocron/v2"
	"github.com/jonboulle/clockwork"
	"github.com/robfig/cron/v3"
)

func bill()   {}
func report() {}

// Config is how services name their zone.
type Config struct {
	Zone     string
	Schedule string
}

func mustLoad(name string) *time.Location {
	loc, err := time.LoadLocation(name)
	if err != nil {
		panic(err)
	}
	return loc
}

var chicago = mustLoad("America/Chicago")

//corpus:case robfig-location-chicago
// The most common shape: a robfig scheduler in the business's zone, a
// nightly job at 01:30.

func StartBilling() (*cron.Cron, error) {
	loc, err := time.LoadLocation("America/Chicago")
	if err != nil {
		return nil, err
	}
	c := cron.New(cron.WithLocation(loc))
	if _, err := c.AddFunc("30 1 * * *", bill); err != nil { // want `cronspec: "30 1 \* \* \*" in America/Chicago: 01:30 occurs twice on 2026-11-01 \(01:00-02:00 repeated\), so the repeated time runs twice, an hour apart`
		return nil, err
	}
	c.Start()
	return c, nil
}

//corpus:case robfig-seconds-location
// WithSeconds beside WithLocation, a six-field spec, a package zone.

func StartSeconds() *cron.Cron {
	c := cron.New(cron.WithSeconds(), cron.WithLocation(chicago))
	c.AddFunc("0 30 1 * * *", bill) // want `cronspec: "0 30 1 \* \* \*" in America/Chicago: 01:30 occurs twice`
	c.Start()
	return c
}

//corpus:case robfig-chained-new-york-gap
// A chained constructor; 02:30 is skipped in New York in March.

func StartNewYork() {
	ny, _ := time.LoadLocation("America/New_York")
	cron.New(cron.WithLocation(ny)).AddFunc("30 2 * * *", report) // want `cronspec: "30 2 \* \* \*" in America/New_York: 02:30 does not exist on 2026-03-08 \(02:00-03:00 skipped\), so the skipped time runs an hour late or not at all`
}

//corpus:case robfig-time-local
// time.Local: whatever zone the machine has.

func StartLocal() {
	c := cron.New(cron.WithLocation(time.Local))
	c.AddFunc("0 2 * * *", report) // want `cronspec: "0 2 \* \* \*" runs at 02:00 in a zone this check cannot name`
	c.Start()
}

//corpus:case robfig-zone-from-config
// The zone comes from configuration.

func StartFromConfig(cfg Config) error {
	loc, err := time.LoadLocation(cfg.Zone)
	if err != nil {
		return err
	}
	c := cron.New(cron.WithLocation(loc))
	_, err = c.AddFunc("15 2 * * *", bill) // want `cronspec: "15 2 \* \* \*" runs at 02:15 in a zone this check cannot name`
	c.Start()
	return err
}

//corpus:case robfig-lord-howe-half-hour
// Lord Howe moves its clocks by 30 minutes.

func StartLordHowe() {
	c := cron.New(cron.WithLocation(mustLoad("Australia/Lord_Howe")))
	c.AddFunc("45 1 * * *", report) // want `cronspec: "45 1 \* \* \*" in Australia/Lord_Howe: 01:45 occurs twice on 2026-04-05 \(01:30-02:00 repeated\), so the repeated time runs twice, 30 minutes apart`
}

//corpus:case gocron-location-chicago
// gocron v2 with WithLocation and a six-field CronJob.

func StartGocron() error {
	s, err := gocron.NewScheduler(gocron.WithLocation(chicago))
	if err != nil {
		return err
	}
	if _, err := s.NewJob(gocron.CronJob("0 30 1 * * *", true), gocron.NewTask(bill)); err != nil { // want `cronspec: "0 30 1 \* \* \*" in America/Chicago`
		return err
	}
	s.Start()
	return nil
}

//corpus:case gocron-location-local
// gocron v2 in the machine's zone, named.

func StartGocronLocal() error {
	s, err := gocron.NewScheduler(gocron.WithLocation(time.Local))
	if err != nil {
		return err
	}
	_, err = s.NewJob(gocron.CronJob("30 2 * * *", false), gocron.NewTask(report)) // want `cronspec: "30 2 \* \* \*" runs at 02:30 in a zone this check cannot name`
	return err
}

//corpus:case gocron-v1-cron-chicago
// gocron v1 takes the zone in NewScheduler.

func StartV1Cron() {
	s := gocronv1.NewScheduler(chicago)
	s.Cron("30 1 * * *").Do(bill) // want `cronspec: "30 1 \* \* \*" in America/Chicago`
	s.StartAsync()
}

//corpus:case gocron-daily-at-chicago
// A DailyJob at 01:30 in Chicago: not a cron string.

func StartDaily() error {
	s, err := gocron.NewScheduler(gocron.WithLocation(chicago))
	if err != nil {
		return err
	}
	_, err = s.NewJob(
		gocron.DailyJob(1, gocron.NewAtTimes(gocron.NewAtTime(1, 30, 0))), // want `cronspec: the daily time 01:30 in America/Chicago: 01:30 occurs twice on 2026-11-01`
		gocron.NewTask(bill),
	)
	return err
}

//corpus:case gocron-daily-machine-zone
// A DailyJob on a scheduler without WithLocation runs in the machine's
// zone.

func StartDailyMachine() error {
	s, err := gocron.NewScheduler()
	if err != nil {
		return err
	}
	_, err = s.NewJob(gocron.DailyJob(1, gocron.NewAtTimes(gocron.NewAtTime(2, 0, 0))), gocron.NewTask(report)) // want `cronspec: this job runs at 02:00 in a zone this check cannot name`
	return err
}

//corpus:case gocron-weekly-local
// A weekly job on Sundays, when American transitions happen.

func StartWeekly() error {
	s, err := gocron.NewScheduler(gocron.WithLocation(time.Local))
	if err != nil {
		return err
	}
	_, err = s.NewJob(
		gocron.WeeklyJob(1, gocron.NewWeekdays(time.Sunday), gocron.NewAtTimes(gocron.NewAtTime(2, 30, 0))), // want `cronspec: this job runs at 02:30`
		gocron.NewTask(report),
	)
	return err
}

//corpus:case gocron-monthly-config-two-times
// A monthly job at 00:30 and 12:00 in a configured zone: only 00:30 is at
// risk.

func StartMonthly(cfg Config) error {
	loc, err := time.LoadLocation(cfg.Zone)
	if err != nil {
		return err
	}
	s, err := gocron.NewScheduler(gocron.WithLocation(loc))
	if err != nil {
		return err
	}
	_, err = s.NewJob(
		gocron.MonthlyJob(1, gocron.NewDaysOfTheMonth(1),
			gocron.NewAtTimes(
				gocron.NewAtTime(0, 30, 0), // want `cronspec: this job runs at 00:30`
				gocron.NewAtTime(12, 0, 0),
			)),
		gocron.NewTask(bill),
	)
	return err
}

//corpus:case gocron-v1-every-day-at
// gocron v1's fluent form.

func StartV1Daily() {
	s := gocronv1.NewScheduler(chicago)
	s.Every(1).Day().At("01:30").Do(bill) // want `cronspec: the daily time 01:30 in America/Chicago`
	s.StartAsync()
}

//corpus:case gocron-v1-at-local-list
// Two times, one of them at risk, in the machine's zone.

func StartV1Local() {
	s := gocronv1.NewScheduler(time.Local)
	s.Every(1).Day().At("02:15;14:15").Do(report) // want `cronspec: this job runs at 02:15`
	s.StartBlocking()
}

//corpus:case robfig-utc-loadlocation
// UTC by name: no transitions.

func StartUTCByName() {
	loc, _ := time.LoadLocation("UTC")
	c := cron.New(cron.WithLocation(loc))
	c.AddFunc("30 1 * * *", bill)
	c.Start()
}

//corpus:case robfig-etc-utc-seconds
// Etc/UTC with seconds.

func StartEtcUTC() {
	c := cron.New(cron.WithSeconds(), cron.WithLocation(mustLoad("Etc/UTC")))
	c.AddFunc("0 30 1 * * *", bill)
}

//corpus:case robfig-chicago-nine
// 09:00 in Chicago: outside every window of the zone.

func StartMorning() {
	c := cron.New(cron.WithLocation(chicago))
	c.AddFunc("0 9 * * 1-5", report)
	c.Start()
}

//corpus:case robfig-local-nine
// 09:00 in the machine's zone: no zone changes its clocks then.

func StartLocalMorning() {
	c := cron.New(cron.WithLocation(time.Local))
	c.AddFunc("0 9 * * *", report)
	c.Start()
}

//corpus:case robfig-config-periodic
// An interval spec in a configured zone follows real time.

func StartPeriodic(cfg Config) {
	loc, _ := time.LoadLocation(cfg.Zone)
	c := cron.New(cron.WithLocation(loc))
	c.AddFunc("*/5 * * * *", report)
	c.AddFunc("@every 1h", report)
	c.Start()
}

//corpus:case robfig-fixed-zone
// A fixed offset never changes.

func StartFixed() {
	c := cron.New(cron.WithLocation(time.FixedZone("CST", -6*60*60)))
	c.AddFunc("30 1 * * *", bill)
}

//corpus:case gocron-tokyo-no-dst
// Tokyo has no DST.

func StartTokyo() error {
	s, err := gocron.NewScheduler(gocron.WithLocation(mustLoad("Asia/Tokyo")))
	if err != nil {
		return err
	}
	_, err = s.NewJob(gocron.CronJob("30 1 * * *", false), gocron.NewTask(bill))
	return err
}

//corpus:case gocron-daily-chicago-morning
// A DailyJob at 07:30 in Chicago.

func StartDailyMorning() error {
	s, err := gocron.NewScheduler(gocron.WithLocation(chicago))
	if err != nil {
		return err
	}
	_, err = s.NewJob(gocron.DailyJob(1, gocron.NewAtTimes(gocron.NewAtTime(7, 30, 0))), gocron.NewTask(report))
	return err
}

//corpus:case gocron-daily-machine-noon
// Noon in the machine's zone.

func StartDailyNoon() error {
	s, err := gocron.NewScheduler()
	if err != nil {
		return err
	}
	_, err = s.NewJob(gocron.DailyJob(1, gocron.NewAtTimes(gocron.NewAtTime(12, 0, 0))), gocron.NewTask(report))
	return err
}

//corpus:case gocron-v1-utc-at
// gocron v1 in UTC at 01:30.

func StartV1UTC() {
	s := gocronv1.NewScheduler(time.UTC)
	s.Every(1).Day().At("01:30").Do(bill)
	s.StartAsync()
}

//corpus:case gocron-v1-chicago-day-times
// gocron v1 in Chicago at 10:30 and 18:00.

func StartV1Day() {
	s := gocronv1.NewScheduler(chicago)
	s.Every(1).Day().At("10:30;18:00").Do(report)
}

//corpus:case dstsafe-own-advice
// dstsafe's own advice: a zoned spec run by the dstsafe Scheduler, which
// runs a fold's time once and a gap's time at the gap's end and claims
// each period.

func RunDstsafe(ctx context.Context) error {
	sched, err := dstsafe.ParseCron("CRON_TZ=America/Chicago 30 1 * * *")
	if err != nil {
		return err
	}
	s := dstsafe.NewScheduler(dstsafe.WithLedger(dstsafe.NewMemoryLedger(clockwork.NewRealClock())))
	if err := s.Add("billing", sched, func(ctx context.Context, run dstsafe.Run) error {
		log.Printf("billing %v", run)
		return nil
	}); err != nil {
		return err
	}
	return s.Run(ctx)
}

//corpus:case robfig-local-every-six-hours
// Every six hours in the machine's zone: an interval in all but name.

func StartSixHourly() {
	c := cron.New(cron.WithLocation(time.Local))
	c.AddFunc("0 */6 * * *", report)
	c.Start()
}

//corpus:case gocron-gap-policy-spring
// gocron's DST policy decides what 02:30 does on the spring-forward day:
// the team chose.

func StartWithGapPolicy() error {
	s, err := gocron.NewScheduler(gocron.WithLocation(chicago))
	if err != nil {
		return err
	}
	_, err = s.NewJob(gocron.CronJob("30 2 * * *", false), gocron.NewTask(report),
		gocron.WithDaylightSavingsTimePolicy(gocron.DaylightSavingsTimeRunAfterTransition))
	return err
}

//corpus:case gocron-gap-policy-fold
// The policy is about gaps: 01:30 still runs twice when the clocks go
// back.

func StartWithGapPolicyFold() error {
	s, err := gocron.NewScheduler(gocron.WithLocation(chicago))
	if err != nil {
		return err
	}
	_, err = s.NewJob(gocron.DailyJob(1, gocron.NewAtTimes(gocron.NewAtTime(1, 30, 0))), gocron.NewTask(bill), // want `cronspec: the daily time 01:30 in America/Chicago: 01:30 occurs twice`
		gocron.WithDaylightSavingsTimePolicy(gocron.DaylightSavingsTimeSkip))
	return err
}

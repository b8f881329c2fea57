// Package config holds corpus cases where the time of day and the cron
// spec come from configuration: structs decoded from YAML, job tables,
// package variables and functions.
package config

import (
	"fmt"
	"slices"
	"time"

	"github.com/dstsafe/dstsafe"
	gocron "github.com/go-co-op/gocron/v2"
	"github.com/jonboulle/clockwork"
	"github.com/robfig/cron/v3"
)

func bill() {}

type Config struct {
	At          string        `yaml:"at"` // "01:30"
	Zone        string        `yaml:"zone"`
	Hours       []int         `yaml:"hours"`
	MinInterval time.Duration `yaml:"min_interval"`
	Spec        string        `yaml:"spec"`
	Location    *time.Location
}

//corpus:case formatted-reading-vs-config
// The formatted local reading compared with the configured "01:30".

func DueFormatted(cfg Config, clock clockwork.Clock) bool {
	now := clock.Now().In(cfg.Location)
	return now.Format("15:04") == cfg.At // want `wallclock:`
}

//corpus:case parsed-time-of-day
// The configured time of day parsed with time.Parse("15:04", ...): its
// Hour() is a setting.

func DueParsed(cfg Config, clock clockwork.Clock) (bool, error) {
	at, err := time.Parse("15:04", cfg.At)
	if err != nil {
		return false, err
	}
	local := clock.Now().In(cfg.Location)
	return local.Hour() == at.Hour() && local.Minute() == at.Minute(), nil // want `wallclock:`
}

//corpus:case jobs-keyed-by-time
// Jobs in a map keyed by "HH:MM", looked up with the current reading.

var byTime = map[string]func(){"01:30": bill, "02:15": bill}

func RunDue(clock clockwork.Clock, loc *time.Location) {
	if job, ok := byTime[clock.Now().In(loc).Format("15:04")]; ok { // want `wallclock:`
		job()
	}
}

//corpus:case hours-list
// slices.Contains over the configured hours.

func DueHour(cfg Config, clock clockwork.Clock) bool {
	return slices.Contains(cfg.Hours, clock.Now().In(cfg.Location).Hour()) // want `wallclock:`
}

//corpus:case spec-in-job-table
// Zone-less specs in a package-level job table, registered in a loop.

type JobConfig struct {
	Name string
	Spec string
}

var defaultJobs = []JobConfig{
	{Name: "billing", Spec: "30 1 * * *"}, // want `cronspec: without a zone prefix`
	{Name: "cleanup", Spec: "CRON_TZ=UTC 0 4 * * *"},
}

func Register(c *cron.Cron) error {
	for _, j := range defaultJobs {
		if _, err := c.AddFunc(j.Spec, bill); err != nil {
			return err
		}
	}
	return nil
}

//corpus:case zoned-spec-map
// A map of zoned specs parsed by dstsafe; one is a fixed time inside
// Chicago's window, which the dstsafe Scheduler runs once (its own advice).

func ParseAll() ([]*dstsafe.Cron, error) {
	specs := map[string]string{
		"billing": "CRON_TZ=America/Chicago 30 1 * * *",
		"sync":    "CRON_TZ=America/Chicago */15 * * * *",
	}
	var out []*dstsafe.Cron
	for _, s := range specs {
		c, err := dstsafe.ParseCron(s)
		if err != nil {
			return nil, err
		}
		out = append(out, c)
	}
	return out, nil
}

//corpus:case setting-from-method
// The hour comes from a method of the configuration.

type Billing struct{ hour int }

func (b Billing) BillingHour() int { return b.hour }

func (b Billing) Due(clock clockwork.Clock, loc *time.Location) bool {
	return clock.Now().In(loc).Hour() == b.BillingHour() // want `wallclock:`
}

//corpus:case package-var-settings
// Package-level variables hold the time.

var runHour, runMinute = 2, 30

func DueVars(loc *time.Location) bool {
	t := time.Now().In(loc)
	return t.Hour() == runHour && t.Minute() == runMinute // want `wallclock:`
}

//corpus:case config-interval-guard
// A configured minimum interval guards a configured hour.

type State struct{ LastRun time.Time }

func Tick(cfg Config, st *State, clock clockwork.Clock) {
	local := clock.Now().In(cfg.Location)
	if local.Hour() != 1 { // want `wallclock:`
		return
	}
	if clock.Since(st.LastRun) < cfg.MinInterval { // want `elapsedguard:`
		return
	}
	st.LastRun = clock.Now()
	bill()
}

//corpus:case spec-from-function
// The spec is the result of a function of the package.

func billingSpec() string { return "TZ=Europe/London 30 1 * * *" } // want `cronspec: .* in Europe/London: 01:30 does not exist on 2026-03-29 \(01:00-02:00 skipped\) and 01:30 occurs twice on 2026-10-25`

func Schedule(s gocron.Scheduler) error {
	_, err := s.NewJob(gocron.CronJob(billingSpec(), false), gocron.NewTask(bill))
	return err
}

//corpus:case gocron-zone-less
// gocron reads a zone-less spec in the scheduler's zone: time.Local unless
// WithLocation says otherwise.

func GocronLocal() error {
	s, err := gocron.NewScheduler()
	if err != nil {
		return err
	}
	_, err = s.NewJob(gocron.CronJob("0 2 * * *", false), gocron.NewTask(bill)) // want `cronspec: without a zone prefix`
	return err
}

//corpus:case utc-spec-through-field
// A spec in UTC, through a configuration field.

type Cfg2 struct{ Spec string }

var prod = Cfg2{Spec: "CRON_TZ=UTC 30 7 * * *"}

func ParseProd() (*dstsafe.Cron, error) { return dstsafe.ParseCron(prod.Spec) }

//corpus:case periodic-local-spec
// A periodic spec in a local zone follows real time.

var syncEvery = JobConfig{Name: "sync", Spec: "CRON_TZ=America/Chicago */10 * * * *"}

func ParseSync() (*dstsafe.Cron, error) { return dstsafe.ParseCron(syncEvery.Spec) }

//corpus:case parsed-time-resolved
// The configured time of day, resolved to an instant with dstsafe.Resolve.

func NextAt(cfg Config, clock clockwork.Clock) (time.Time, error) {
	at, err := time.Parse("15:04", cfg.At)
	if err != nil {
		return time.Time{}, err
	}
	y, m, d := clock.Now().In(cfg.Location).AddDate(0, 0, 1).Date()
	return dstsafe.Resolve(dstsafe.Wall{Year: y, Month: m, Day: d, Hour: at.Hour(), Minute: at.Minute()}, cfg.Location, dstsafe.Compatible)
}

//corpus:case configured-window
// Configured hours used as a maintenance window, with ordering.

type Window struct{ From, To int }

func (w Window) Open(clock clockwork.Clock, loc *time.Location) bool {
	h := clock.Now().In(loc).Hour()
	return h >= w.From && h < w.To
}

//corpus:case status-line
// The local time formatted for a status page.

func StatusLine(cfg Config, clock clockwork.Clock) string {
	return fmt.Sprintf("local time %s", clock.Now().In(cfg.Location).Format("15:04"))
}

//corpus:case hour-histogram
// Counting events by local hour.

func Histogram(events []time.Time, clock clockwork.Clock, loc *time.Location) map[int]int {
	counts := map[int]int{}
	counts[clock.Now().In(loc).Hour()]++
	return counts
}

//corpus:case spec-with-location-option
// A zone-less spec with an explicit location option.

var nightly = JobConfig{Name: "nightly", Spec: "30 1 * * *"}

func ParseNightly(loc *time.Location) (*dstsafe.Cron, error) {
	return dstsafe.ParseCron(nightly.Spec, dstsafe.WithLocation(loc))
}

//corpus:case robfig-utc-location
// A robfig scheduler in UTC reads zone-less specs from the table in UTC.

var utcJobs = []JobConfig{{Name: "report", Spec: "0 6 * * *"}}

func RegisterUTC() error {
	c := cron.New(cron.WithLocation(time.UTC))
	for _, j := range utcJobs {
		if _, err := c.AddFunc(j.Spec, bill); err != nil {
			return err
		}
	}
	return nil
}

//corpus:case gocron-with-location
// A gocron scheduler with an explicit location.

func GocronUTC() error {
	s, err := gocron.NewScheduler(gocron.WithLocation(time.UTC))
	if err != nil {
		return err
	}
	_, err = s.NewJob(gocron.CronJob("0 2 * * *", false), gocron.NewTask(bill))
	return err
}

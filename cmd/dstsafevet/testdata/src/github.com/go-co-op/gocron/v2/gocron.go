// Package gocron is a stub of go-co-op/gocron/v2 for analyzer tests.
package gocron

import "time"

type JobDefinition interface{}

func CronJob(crontab string, withSeconds bool) JobDefinition { return nil }
func DurationJob(d time.Duration) JobDefinition              { return nil }
func DailyJob(interval uint, at AtTimes) JobDefinition       { return nil }

type AtTime func() time.Time
type AtTimes func() []AtTime

func NewAtTime(hours, minutes, seconds uint) AtTime { return nil }
func NewAtTimes(at AtTime, ats ...AtTime) AtTimes   { return nil }

type Task func() (any, []any)

func NewTask(function any, parameters ...any) Task { return nil }

type Job interface{ NextRun() (time.Time, error) }

type JobOption func() error

func WithName(name string) JobOption { return nil }

type SchedulerOption func() error

func WithLocation(loc *time.Location) SchedulerOption { return nil }

type Scheduler interface {
	NewJob(JobDefinition, Task, ...JobOption) (Job, error)
	Start()
	Shutdown() error
}

func NewScheduler(options ...SchedulerOption) (Scheduler, error) { return nil, nil }

type Weekdays func() []time.Weekday

func NewWeekdays(d time.Weekday, ds ...time.Weekday) Weekdays { return nil }

type DaysOfTheMonth func() []int

func NewDaysOfTheMonth(d int, ds ...int) DaysOfTheMonth { return nil }

func WeeklyJob(interval uint, days Weekdays, at AtTimes) JobDefinition        { return nil }
func MonthlyJob(interval uint, days DaysOfTheMonth, at AtTimes) JobDefinition { return nil }

type DaylightSavingsTimePolicy int

const (
	DaylightSavingsTimeDefault DaylightSavingsTimePolicy = iota
	DaylightSavingsTimeSkip
	DaylightSavingsTimeRunAfterTransition
)

func WithDaylightSavingsTimePolicy(policy DaylightSavingsTimePolicy) JobOption { return nil }

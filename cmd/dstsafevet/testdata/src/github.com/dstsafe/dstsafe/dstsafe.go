// Package dstsafe is a stub of the real package's API for analyzer tests.
package dstsafe

import (
	"context"
	"time"

	"github.com/jonboulle/clockwork"
)

type Clock interface {
	Now() time.Time
	NewTimer(d time.Duration) Timer
}

type Timer = clockwork.Timer

func RealClock() Clock { return nil }

type Wall struct {
	Year                                  int
	Month                                 time.Month
	Day, Hour, Minute, Second, Nanosecond int
}

type Disambiguation int

const Compatible Disambiguation = 0

func Resolve(w Wall, loc *time.Location, d Disambiguation) (time.Time, error) {
	return time.Time{}, nil
}

type Kind uint8

const (
	Unique Kind = iota + 1
	Fold
	Gap
)

type Occurrence struct {
	At     time.Time
	Wall   Wall
	Kind   Kind
	Period string
}

type Date struct {
	Year  int
	Month time.Month
	Day   int
}

func (d Date) String() string { return "" }

func DateOf(t time.Time, loc *time.Location) Date { return Date{} }

type Schedule interface {
	Next(after time.Time) time.Time
}

type Cron struct{}

func (c *Cron) Next(after time.Time) time.Time                    { return after }
func (c *Cron) NextOccurrence(after time.Time) (Occurrence, bool) { return Occurrence{}, true }

type CronOption func()

func WithLocation(loc *time.Location) CronOption { return nil }

func ParseCron(spec string, opts ...CronOption) (*Cron, error) { return &Cron{}, nil }

type Ledger interface{}

func NewMemoryLedger(c Clock) Ledger { return nil }

type Run struct {
	Job, Period string
	Wall        Wall
	Kind        Kind
	Due         time.Time
	RunDate     Date
	Attempt     int
}

type SchedulerOption func()

func WithClock(c Clock) SchedulerOption   { return nil }
func WithLedger(l Ledger) SchedulerOption { return nil }

type JobOption func()

type Scheduler struct{}

func NewScheduler(opts ...SchedulerOption) *Scheduler { return &Scheduler{} }

func (s *Scheduler) Add(name string, sched Schedule, fn func(ctx context.Context, run Run) error, opts ...JobOption) error {
	return nil
}

func (s *Scheduler) Run(ctx context.Context) error { return nil }

func SimulateTicks(start, end time.Time, step time.Duration, tick func(now time.Time)) {}

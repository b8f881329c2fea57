// Package dstsafe is a stub of the real package's API for analyzer tests.
package dstsafe

import (
	"context"
	"time"
)

type Clock interface{ Now() time.Time }

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

type Occurrence struct {
	At     time.Time
	Wall   Wall
	Period string
}

type Cron struct{}

func (c *Cron) Next(after time.Time) time.Time { return after }

type CronOption func()

func WithLocation(loc *time.Location) CronOption { return nil }

func ParseCron(spec string, opts ...CronOption) (*Cron, error) { return &Cron{}, nil }

type Ledger interface{}

func NewMemoryLedger() Ledger { return nil }

type Job func(ctx context.Context, o Occurrence) error

type Scheduler struct{}

func NewScheduler(c Clock, l Ledger) *Scheduler { return &Scheduler{} }

func (s *Scheduler) Add(name string, c *Cron, j Job) error { return nil }

func (s *Scheduler) Run(ctx context.Context) error { return nil }

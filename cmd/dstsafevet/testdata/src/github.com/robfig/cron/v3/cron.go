// Package cron is a stub of robfig/cron/v3 for analyzer tests.
package cron

import "time"

type Schedule interface{ Next(time.Time) time.Time }

type Job interface{ Run() }

type FuncJob func()

func (f FuncJob) Run() { f() }

type EntryID int

type Cron struct{}

func New(opts ...Option) *Cron { return &Cron{} }

func (c *Cron) AddFunc(spec string, cmd func()) (EntryID, error) { return 0, nil }
func (c *Cron) AddJob(spec string, cmd Job) (EntryID, error)     { return 0, nil }
func (c *Cron) Schedule(s Schedule, cmd Job) EntryID             { return 0 }
func (c *Cron) Start()                                           {}
func (c *Cron) Stop()                                            {}

func ParseStandard(spec string) (Schedule, error) { return nil, nil }

type Parser struct{}

func (p Parser) Parse(spec string) (Schedule, error) { return nil, nil }

type Option func(*Cron)

func WithLocation(loc *time.Location) Option { return nil }
func WithSeconds() Option                    { return nil }

func Every(d time.Duration) Schedule { return nil }

// Package cron is a stub of robfig/cron/v3 for analyzer tests.
package cron

import "time"

type Schedule interface{}

type Cron struct{}

func New(opts ...Option) *Cron { return &Cron{} }

func (c *Cron) AddFunc(spec string, cmd func()) (int, error) { return 0, nil }

func ParseStandard(spec string) (Schedule, error) { return nil, nil }

type Parser struct{}

func (p Parser) Parse(spec string) (Schedule, error) { return nil, nil }

type Option func(*Cron)

func WithLocation(loc *time.Location) Option { return nil }

// Package gocron is a stub of go-co-op/gocron (v1) for analyzer tests.
package gocron

import "time"

type Job struct{}

type Scheduler struct{}

func NewScheduler(loc *time.Location) *Scheduler { return &Scheduler{} }

func (s *Scheduler) Every(interval any) *Scheduler           { return s }
func (s *Scheduler) Day() *Scheduler                         { return s }
func (s *Scheduler) Days() *Scheduler                        { return s }
func (s *Scheduler) Monday() *Scheduler                      { return s }
func (s *Scheduler) Sunday() *Scheduler                      { return s }
func (s *Scheduler) Saturday() *Scheduler                    { return s }
func (s *Scheduler) Weekday(d time.Weekday) *Scheduler       { return s }
func (s *Scheduler) Minutes() *Scheduler                     { return s }
func (s *Scheduler) At(i any) *Scheduler                     { return s }
func (s *Scheduler) Cron(expr string) *Scheduler             { return s }
func (s *Scheduler) Tag(t ...string) *Scheduler              { return s }
func (s *Scheduler) Do(job any, params ...any) (*Job, error) { return nil, nil }
func (s *Scheduler) StartAsync()                             {}
func (s *Scheduler) StartBlocking()                          {}

// Package gocron is a stub of go-co-op/gocron/v2 for analyzer tests.
package gocron

type JobDefinition interface{}

func CronJob(crontab string, withSeconds bool) JobDefinition { return nil }

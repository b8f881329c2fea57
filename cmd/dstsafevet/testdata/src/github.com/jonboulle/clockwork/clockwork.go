// Package clockwork is a stub of jonboulle/clockwork for analyzer tests.
package clockwork

import "time"

type Timer interface {
	Chan() <-chan time.Time
	Stop() bool
	Reset(d time.Duration) bool
}

type Ticker interface {
	Chan() <-chan time.Time
	Stop()
}

type Clock interface {
	After(d time.Duration) <-chan time.Time
	Sleep(d time.Duration)
	Now() time.Time
	Since(t time.Time) time.Duration
	Until(t time.Time) time.Duration
	NewTicker(d time.Duration) Ticker
	NewTimer(d time.Duration) Timer
}

func NewRealClock() Clock { return nil }

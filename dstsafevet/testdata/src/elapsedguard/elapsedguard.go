package elapsedguard

import (
	"sync"
	"time"
)

func run() {}

type worker struct {
	mu        sync.Mutex
	lastRun   time.Time
	startedAt time.Time
}

// A method called on every tick.
func (w *worker) tick(now time.Time) {
	if now.Sub(w.lastRun) < 10*time.Minute { // want `elapsedguard:`
		return
	}
	w.lastRun = now
	run()
}

// The "enough time has passed" form that records the run.
func (w *worker) maybeRun() {
	if time.Since(w.startedAt) >= time.Hour { // want `elapsedguard:`
		w.startedAt = time.Now()
		run()
	}
}

// The Add/After spelling, in a loop.
func loop() {
	var lastFired time.Time
	for {
		now := time.Now()
		if lastFired.Add(10 * time.Minute).After(now) { // want `elapsedguard:`
			continue
		}
		lastFired = now
		run()
	}
}

// --- not reported ---

type claim struct {
	heartbeat time.Time
	lease     time.Duration
}

// A lease check on a heartbeat is liveness, not a run guard.
func (c *claim) held(now time.Time) bool {
	if now.Sub(c.heartbeat) < c.lease {
		return true
	}
	c.heartbeat = now
	return false
}

// Measuring a run's duration does not guard anything.
func timed() time.Duration {
	runStart := time.Now()
	run()
	if d := time.Since(runStart); d > time.Minute {
		return d
	}
	return 0
}

// A throttle on log lines is not a job run.
var lastLog time.Time

func logf() {
	if time.Since(lastLog) < time.Second {
		return
	}
	lastLog = time.Now()
}

package elapsedguard

import (
	"time"
)

func run() {}

type worker struct {
	loc       *time.Location
	lastRun   time.Time
	startedAt time.Time
}

// A method called on every tick: a daily 01:30 job guarded by elapsed time.
func (w *worker) tick(now time.Time) {
	now = now.In(w.loc)
	if now.Hour() != 1 || now.Minute() != 30 { // want `wallclock:`
		return
	}
	if now.Sub(w.lastRun) < 10*time.Minute { // want `elapsedguard: an elapsed-time guard`
		return
	}
	w.lastRun = now
	run()
}

// A monthly job on the 1st, with the "enough time has passed" form.
func (w *worker) maybeRun() {
	now := time.Now().In(w.loc)
	if now.Day() == 1 && time.Since(w.startedAt) >= 24*time.Hour { // want `elapsedguard:`
		w.startedAt = time.Now()
		run()
	}
}

// The Add/After spelling, in a goroutine loop.
func loop(loc *time.Location) {
	go func() {
		var lastFired time.Time
		for now := range time.Tick(20 * time.Second) {
			if now.In(loc).Format("15:04") != "01:30" { // want `wallclock:`
				continue
			}
			if lastFired.Add(10 * time.Minute).After(now) { // want `elapsedguard:`
				continue
			}
			lastFired = now
			run()
		}
	}()
}

// --- not reported ---

// An interval loop measures real time, which is what elapsed time is for.
func interval() {
	var lastRun time.Time
	for {
		if time.Since(lastRun) < 10*time.Minute {
			time.Sleep(time.Second)
			continue
		}
		lastRun = time.Now()
		run()
	}
}

type claim struct {
	heartbeat time.Time
	lease     time.Duration
}

// A lease check on a heartbeat is liveness, not a run guard, even in a
// function that looks at the hour.
func (c *claim) held(now time.Time) bool {
	if now.Hour() == 3 { // want `wallclock:`
		return true
	}
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
	if d := time.Since(runStart); d > time.Minute && runStart.Hour() == 1 { // want `wallclock:`
		return d
	}
	return 0
}

func lastStart() *time.Time { return nil }

// The run mark read back from the database, as the postmortem's worker did.
func fromDB(now time.Time, loc *time.Location, guard time.Duration) {
	local := now.In(loc)
	if local.Hour() == 1 && local.Minute() == 30 { // want `wallclock:`
		last := lastStart()
		if last == nil || now.Sub(time.Time(*last)) >= guard { // want `elapsedguard:`
			run()
		}
	}
}

// Package closures holds corpus cases written with function literals,
// function values, callbacks and goroutine loops.
package closures

import (
	"context"
	"log"
	"time"

	"github.com/dstsafe/dstsafe"
)

func bill() {}

//corpus:case goroutine-ticker-captured-mark
// A goroutine ranges over a ticker; the closure keeps the last fire in a
// captured variable.

func StartBilling(loc *time.Location, at string) {
	tk := time.NewTicker(20 * time.Second)
	go func() {
		var last time.Time
		for t := range tk.C {
			local := t.In(loc)
			if local.Format("15:04") != at { // want `wallclock:`
				continue
			}
			if local.Sub(last) < time.Hour { // want `elapsedguard:`
				continue
			}
			last = local
			bill()
		}
	}()
}

//corpus:case predicate-func-value
// The match is a function value called with the current time.

func PollWithPredicate(ctx context.Context, loc *time.Location, hour, minute int) {
	check := func(t time.Time) bool {
		return t.Hour() == hour && t.Minute() == minute // want `wallclock:`
	}
	for ctx.Err() == nil {
		if check(time.Now().In(loc)) {
			bill()
		}
		time.Sleep(20 * time.Second)
	}
}

//corpus:case callback-through-helper
// A helper calls its callback with each tick; the callback matches it.

func every(d time.Duration, fn func(time.Time)) {
	for t := range time.Tick(d) {
		fn(t)
	}
}

func StartEvery(loc *time.Location) {
	every(20*time.Second, func(t time.Time) {
		if t.In(loc).Hour() == 1 { // want `wallclock:`
			bill()
		}
	})
}

//corpus:case func-field-clock
// An injected func() time.Time field, defaulting to time.Now.

type Worker struct {
	Now  func() time.Time
	Loc  *time.Location
	Hour int
}

func NewWorker(loc *time.Location) *Worker { return &Worker{Now: time.Now, Loc: loc, Hour: 2} }

func (w *Worker) Due() bool {
	n := w.Now().In(w.Loc)
	return n.Hour() == w.Hour // want `wallclock:`
}

//corpus:case select-ticker
// A select loop over a ticker channel.

func SelectLoop(ctx context.Context, loc *time.Location) {
	tk := time.NewTicker(time.Minute)
	defer tk.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case t := <-tk.C:
			lt := t.In(loc)
			if lt.Hour() == 2 && lt.Minute() == 30 { // want `wallclock:`
				bill()
			}
		}
	}
}

//corpus:case simulate-ticks-dry-run
// A dry-run command replays a night with dstsafe.SimulateTicks: the
// callback gets the simulated current time.

func DryRun(start, end time.Time, chicago *time.Location) int {
	fires := 0
	dstsafe.SimulateTicks(start, end, 20*time.Second, func(at time.Time) {
		if at.In(chicago).Format("15:04") == "01:30" { // want `wallclock:`
			fires++
		}
	})
	return fires
}

//corpus:case closure-debounce
// A handler closure debounces with a captured last-run time.

func Handler(loc *time.Location) func(time.Time) {
	var lastRun time.Time
	return func(now time.Time) {
		local := now.In(loc)
		if local.Hour() != 1 { // want `wallclock:`
			return
		}
		if lastRun.Add(10 * time.Minute).After(now) { // want `elapsedguard:`
			return
		}
		lastRun = now
		bill()
	}
}

//corpus:case afterfunc-midnight
// Re-arming a timer for local midnight built with time.Date.

func ArmMidnight(loc *time.Location) *time.Timer {
	now := time.Now().In(loc)
	next := time.Date(now.Year(), now.Month(), now.Day()+1, 0, 0, 0, 0, loc) // want `localdate: time.Date picks`
	return time.AfterFunc(time.Until(next), bill)
}

//corpus:case interval-goroutine
// A goroutine doing interval work measures real time.

func Interval(ctx context.Context, every time.Duration) {
	go func() {
		var last time.Time
		for t := range time.Tick(time.Second) {
			if t.Sub(last) >= every {
				last = t
				bill()
			}
		}
	}()
}

//corpus:case deferred-metrics
// Measuring a run's duration in a deferred closure.

func observe(d time.Duration) {}

func Timed() {
	defer func(start time.Time) { observe(time.Since(start)) }(time.Now())
	bill()
}

//corpus:case timestamp-func
// A clock function used only for RFC 3339 timestamps.

func Stamper(now func() time.Time) func() string {
	return func() string { return now().UTC().Format(time.RFC3339) }
}

//corpus:case select-timeout
// A timeout on a select is not a schedule.

func WithTimeout(done <-chan struct{}) bool {
	select {
	case <-done:
		return true
	case <-time.After(5 * time.Second):
		return false
	}
}

//corpus:case dstsafe-scheduler-in-goroutine
// The fix, in a goroutine: a zoned cron spec on the dstsafe Scheduler.

func StartScheduler(ctx context.Context, clock dstsafe.Clock) error {
	spec, err := dstsafe.ParseCron("CRON_TZ=UTC 30 7 * * *")
	if err != nil {
		return err
	}
	s := dstsafe.NewScheduler(dstsafe.WithClock(clock), dstsafe.WithLedger(dstsafe.NewMemoryLedger(clock)))
	if err := s.Add("billing", spec, func(ctx context.Context, run dstsafe.Run) error {
		log.Printf("billing %s", run.RunDate)
		return nil
	}); err != nil {
		return err
	}
	go func() { _ = s.Run(ctx) }()
	return nil
}

//corpus:case run-date-from-occurrence
// The run date taken from the scheduled instant, in a job closure.

func JobBody(chicago *time.Location, charge func(string) error) func(context.Context, dstsafe.Run) error {
	return func(ctx context.Context, run dstsafe.Run) error {
		return charge(run.Due.In(chicago).Format("2006-01-02"))
	}
}

//corpus:case callback-gets-computed-instants
// A callback that receives computed occurrences, not the current time.

func forEachNext(c *dstsafe.Cron, from time.Time, n int, fn func(time.Time)) {
	t := from
	for i := 0; i < n; i++ {
		t = c.Next(t)
		fn(t)
	}
}

func CountAtOne(c *dstsafe.Cron, from time.Time, loc *time.Location) int {
	count := 0
	forEachNext(c, from, 100, func(t time.Time) {
		if t.In(loc).Hour() == 1 {
			count++
		}
	})
	return count
}

//corpus:case retry-backoff-loop
// A retry loop's backoff is real time.

func Retry(fn func() error, backoff time.Duration) error {
	var err error
	for attempt := 0; attempt < 5; attempt++ {
		attemptStart := time.Now()
		if err = fn(); err == nil {
			return nil
		}
		if time.Since(attemptStart) < backoff {
			time.Sleep(backoff - time.Since(attemptStart))
		}
	}
	return err
}

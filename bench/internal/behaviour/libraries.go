package behaviour

import (
	"errors"
	"fmt"
	"sync"
	"sync/atomic"
	"time"

	"github.com/dstsafe/dstsafe"
	"github.com/go-co-op/gocron/v2"
	"github.com/jonboulle/clockwork"
	"github.com/robfig/cron/v3"
)

// maxFires bounds how many fires one library may report in a window, so a
// schedule that never leaves the window cannot loop here.
const maxFires = 64

// Library computes the fires of a case's job, the way the library's own
// scheduler would chain them.
type Library struct {
	// Name is the column heading.
	Name string
	// fires returns the fires at instants in [from, to), in order. It
	// calls call with the name of each library function before calling it
	// ("Next", "NewJob"), so that a hang can be reported where it happens.
	fires func(c Case, loc *time.Location, from, to time.Time, call func(name string)) ([]time.Time, error)
}

// Dstsafe is dstsafe's ParseCron with default policies: each fire is
// (*Cron).Next of the previous one.
var Dstsafe = Library{Name: "dstsafe", fires: dstsafeFires}

// Peers are the libraries dstsafe is compared with.
var Peers = []Library{
	// robfig/cron v3: its runner sets an entry's next run to
	// Schedule.Next(now) when the entry fires, so chaining Next is what it does.
	{Name: "robfig/cron v3", fires: robfigFires},
	// gocron v2's real Scheduler on a fake clock: the job's first run and
	// Job.NextRuns go through the same internal next() the scheduler
	// reschedules with, including its fold de-duplication. gocron takes the
	// zone either in the spec or from the scheduler; its fold check compares
	// wall readings in the scheduler's location, so the two differ.
	{Name: "gocron v2, `CRON_TZ=` in spec (scheduler in UTC)", fires: gocronFires(true, gocron.DaylightSavingsTimeDefault)},
	{Name: "gocron v2, `WithLocation`", fires: gocronFires(false, gocron.DaylightSavingsTimeDefault)},
	// gocron's opt-in fix for gaps.
	{Name: "gocron v2, `WithLocation` + `RunAfterTransition`", fires: gocronFires(false, gocron.DaylightSavingsTimeRunAfterTransition)},
}

// errNotIncreasing reports a schedule whose next fire is not after the
// previous one; callers would fire in a loop or stall.
var errNotIncreasing = errors.New("behaviour: next fire not after the previous one")

func chain(next func(time.Time) time.Time, from, to time.Time, call func(string)) ([]time.Time, error) {
	var out []time.Time
	prev := from
	for len(out) < maxFires {
		call("Next")
		t := next(prev)
		if t.IsZero() || !t.Before(to) {
			return out, nil
		}
		if !t.After(prev) {
			return out, fmt.Errorf("%w: %s then %s", errNotIncreasing, prev, t)
		}
		out = append(out, t)
		prev = t
	}
	return out, nil
}

func dstsafeFires(c Case, _ *time.Location, from, to time.Time, call func(string)) ([]time.Time, error) {
	call("ParseCron")
	s, err := dstsafe.ParseCron("CRON_TZ=" + c.Zone + " " + c.Spec)
	if err != nil {
		return nil, err
	}
	return chain(s.Next, from, to, call)
}

func robfigFires(c Case, _ *time.Location, from, to time.Time, call func(string)) ([]time.Time, error) {
	call("ParseStandard")
	s, err := cron.ParseStandard("CRON_TZ=" + c.Zone + " " + c.Spec)
	if err != nil {
		return nil, err
	}
	return chain(s.Next, from, to, call)
}

// gocronFires runs a real gocron Scheduler whose clock is stopped at from.
// With zoneInSpec the spec carries CRON_TZ= and the scheduler runs in UTC
// (a server's usual local zone); otherwise the scheduler is in the job's
// zone (WithLocation) and the spec has no prefix.
func gocronFires(zoneInSpec bool, policy gocron.DaylightSavingsTimePolicy) func(Case, *time.Location, time.Time, time.Time, func(string)) ([]time.Time, error) {
	return func(c Case, loc *time.Location, from, to time.Time, call func(string)) ([]time.Time, error) {
		spec, schedLoc := c.Spec, loc
		if zoneInSpec {
			spec, schedLoc = "CRON_TZ="+c.Zone+" "+c.Spec, time.UTC
		}
		call("NewScheduler")
		s, err := gocron.NewScheduler(
			gocron.WithClock(clockwork.NewFakeClockAt(from)),
			gocron.WithLocation(schedLoc),
		)
		if err != nil {
			return nil, err
		}
		defer func() { _ = s.Shutdown() }()
		call("NewJob")
		j, err := s.NewJob(gocron.CronJob(spec, false), gocron.NewTask(func() {}),
			gocron.WithDaylightSavingsTimePolicy(policy))
		if err != nil {
			return nil, err
		}
		call("Start")
		s.Start()
		// NextRuns(n) recomputes from the first scheduled run each time, so
		// ask for one more until the window is passed.
		for n := 1; n <= maxFires; n++ {
			call("NextRuns")
			runs, err := j.NextRuns(n)
			if err != nil {
				return nil, err
			}
			if len(runs) < n || !runs[n-1].Before(to) {
				return before(runs, to), nil
			}
		}
		return j.NextRuns(maxFires)
	}
}

func before(ts []time.Time, to time.Time) []time.Time {
	for i, t := range ts {
		if !t.Before(to) {
			return ts[:i]
		}
	}
	return ts
}

// Outcome is what one library did with one case.
type Outcome struct {
	// Fires are the fire instants in the window, in the case's zone.
	Fires []time.Time
	// Hung is set when the library did not answer within the timeout;
	// HungIn names the library function that did not return ("Next").
	Hung   bool
	HungIn string
	// Err is a parse or scheduler error, or a panic inside the library.
	Err error
}

// Run asks lib for c's fires, giving up after timeout: a library that
// loops forever is reported as Hung (its goroutine keeps running until
// the process exits; nothing can stop it).
func Run(lib Library, c Case, timeout time.Duration) Outcome {
	loc, err := time.LoadLocation(c.Zone)
	if err != nil {
		return Outcome{Err: err}
	}
	from, to, err := c.Window(loc)
	if err != nil {
		return Outcome{Err: err}
	}
	done := make(chan Outcome, 1)
	var current atomic.Value // the library function being called
	current.Store("")
	call := func(name string) { current.Store(name) }
	go func() {
		defer func() {
			if r := recover(); r != nil {
				done <- Outcome{Err: fmt.Errorf("behaviour: %s panicked: %v", lib.Name, r)}
			}
		}()
		fires, err := lib.fires(c, loc, from, to, call)
		for i := range fires {
			fires[i] = fires[i].In(loc)
		}
		done <- Outcome{Fires: fires, Err: err}
	}()
	select {
	case o := <-done:
		return o
	case <-time.After(timeout):
		return Outcome{Hung: true, HungIn: current.Load().(string)}
	}
}

// RunAll runs each library on c concurrently, so that several hanging
// libraries cost one timeout, not one each. Outcomes are in libs' order.
func RunAll(libs []Library, c Case, timeout time.Duration) []Outcome {
	out := make([]Outcome, len(libs))
	var wg sync.WaitGroup
	for i, l := range libs {
		wg.Go(func() { out[i] = Run(l, c, timeout) })
	}
	wg.Wait()
	return out
}

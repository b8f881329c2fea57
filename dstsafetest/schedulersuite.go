package dstsafetest

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/jonboulle/clockwork"

	"github.com/dstsafe/dstsafe"
)

// RunSchedulerTests runs the Scheduler's operating features on ledgers
// from newLedger, through Simulate across the 2024-11-03 and 2024-03-10
// America/Chicago nights: a pause across the fold (periods skipped as
// "paused" in the ledger, a second Scheduler obeying it, no burst on
// resume), WithPauseOnFailure, a backfill across the gap (run once,
// idempotent), a backfill by a second Scheduler taking over a failed
// period as attempt 2, WithMaxRuns with two Schedulers racing for the last run
// (exactly n succeed), jitter that keeps every period key, and Describe's
// latest record. RunLedgerTests checks the ledger's own contract; this
// checks that the runner's use of it holds on the backend. The pause
// subtests need a dstsafe.ControlLedger and skip, naming it, without one.
//
// Expectations come from the time package: the half-hourly Chicago job
// fires at every half hour of real time (Chicago's offsets are whole
// hours), its period the wall reading there, with ";fold=1" for the
// second reading of a repeated one.
func RunSchedulerTests(t *testing.T, newLedger NewLedgerFunc) {
	t.Helper()
	s := schedSuite{newLedger: newLedger}
	for _, tt := range []struct {
		name string
		fn   func(t *testing.T)
	}{
		{"PauseAcrossFold", s.testPauseAcrossFold},
		{"PauseOnFailure", s.testPauseOnFailure},
		{"BackfillAcrossGap", s.testBackfillAcrossGap},
		{"BackfillTakesOverFailed", s.testBackfillTakesOverFailed},
		{"MaxRunsRace", s.testMaxRunsRace},
		{"JitterKeepsPeriods", s.testJitterKeepsPeriods},
		{"Describe", s.testDescribe},
		{"AtRiskClaimedElsewhere", s.testAtRiskClaimedElsewhere},
	} {
		t.Run(tt.name, tt.fn)
	}
}

type schedSuite struct{ newLedger NewLedgerFunc }

// setup returns a ledger and a Scheduler named owner on one fake clock at
// start.
func (s schedSuite) setup(t *testing.T, start time.Time, owner string) (dstsafe.Ledger, *clockwork.FakeClock, *dstsafe.Scheduler) {
	t.Helper()
	clock := clockwork.NewFakeClockAt(start)
	l := s.newLedger(t, clock)
	must.NotNil(t, l, "newLedger returned nil")
	return l, clock, newScheduler(clock, l, owner)
}

func newScheduler(clock *clockwork.FakeClock, l dstsafe.Ledger, owner string, opts ...dstsafe.SchedulerOption) *dstsafe.Scheduler {
	return dstsafe.NewScheduler(append([]dstsafe.SchedulerOption{dstsafe.WithClock(clock), dstsafe.WithLedger(l),
		dstsafe.WithLogger(slog.New(slog.DiscardHandler)), dstsafe.WithOwner(owner)}, opts...)...)
}

// halfHours lists, from the time package, the periods of "*/30 * * * *"
// in Chicago due in [from, to): every half hour of real time.
func halfHours(chicago *time.Location, from, to time.Time) (periods []string, due []time.Time) {
	for at := from.Truncate(30 * time.Minute); at.Before(to); at = at.Add(30 * time.Minute) {
		if at.Before(from) {
			continue
		}
		w := at.In(chicago).Format("2006-01-02T15:04:05")
		if at.Add(-time.Hour).In(chicago).Format("2006-01-02T15:04:05") == w {
			w += ";fold=1" // the wall read an hour earlier too: the second reading
		}
		periods, due = append(periods, w), append(due, at)
	}
	return periods, due
}

func (s schedSuite) records(t *testing.T, l dstsafe.Ledger, job string) map[string]dstsafe.Record {
	t.Helper()
	recs, err := l.List(context.Background(), job, "", "")
	must.NoError(t, err, "List")
	m := map[string]dstsafe.Record{}
	for _, r := range recs {
		m[r.Period] = r
	}
	return m
}

func needControl(t *testing.T, l dstsafe.Ledger) dstsafe.ControlLedger {
	t.Helper()
	cl, ok := l.(dstsafe.ControlLedger)
	if !ok {
		t.Skipf("%T is not a dstsafe.ControlLedger: pause state pending", l)
	}
	return cl
}

// Paused from 00:10 CDT to 03:10 CST on 2024-11-03 (in the ledger, by
// Scheduler a), the half-hourly job of Scheduler b skips the eight periods
// between them, both readings of 01:00 and 01:30 included, as "paused",
// runs the others on time, and runs nothing at once when resumed.
func (s schedSuite) testPauseAcrossFold(t *testing.T) {
	chicago := Zone(t, "America/Chicago")
	start := time.Date(2024, 11, 3, 4, 0, 0, 0, time.UTC) // 23:00 CDT
	l, clock, a := s.setup(t, start, "a")
	needControl(t, l)
	sched, err := dstsafe.ParseCron("*/30 * * * *", dstsafe.WithLocation(chicago))
	must.NoError(t, err, "ParseCron")
	nop := func(context.Context, dstsafe.Run) error { return nil }
	must.NoError(t, a.Add("sync", sched, nop), "Add")
	b := newScheduler(clock, l, "b")
	must.NoError(t, b.Add("sync", sched, nop), "Add")
	pause, resume := time.Date(2024, 11, 3, 5, 10, 0, 0, time.UTC), time.Date(2024, 11, 3, 9, 10, 0, 0, time.UTC)

	fires, err := dstsafe.Simulate(context.Background(), b, pause.Sub(start))
	must.NoError(t, err, "Simulate")
	must.NoError(t, a.Pause(context.Background(), "sync", "upstream down"), "Pause")
	more, err := dstsafe.Simulate(context.Background(), b, resume.Sub(pause))
	must.NoError(t, err, "Simulate")
	fires = append(fires, more...)
	must.NoError(t, a.Resume(context.Background(), "sync"), "Resume")
	more, err = dstsafe.Simulate(context.Background(), b, 2*time.Hour)
	must.NoError(t, err, "Simulate")
	fires = append(fires, more...)

	periods, due := halfHours(chicago, start, resume.Add(2*time.Hour+time.Nanosecond))
	recs := s.records(t, l, "sync")
	must.Len(t, recs, len(periods), "one record per period")
	var ran []string
	paused := 0
	for i, p := range periods {
		r := recs[p]
		if !due[i].Before(pause) && due[i].Before(resume) {
			must.Equal(t, dstsafe.StateSkipped, r.State, p)
			must.Equal(t, "paused", r.Reason, p)
			paused++
			continue
		}
		must.Equal(t, dstsafe.StateSucceeded, r.State, p)
		ran = append(ran, p)
	}
	must.Equal(t, 8, paused, "00:30, 01:00, 01:30, 01:00 and 01:30 again, 02:00, 02:30, 03:00")
	var got []string
	for _, f := range fires {
		must.True(t, f.Started.Equal(f.Due), "no burst: %v started late", f)
		got = append(got, f.Period)
	}
	must.Equal(t, ran, got, "the periods run")
}

// WithPauseOnFailure(2) pauses the job in the ledger after two failed
// periods; the next one is skipped as paused.
func (s schedSuite) testPauseOnFailure(t *testing.T) {
	start := time.Date(2024, 6, 1, 0, 0, 0, 0, time.UTC)
	l, _, a := s.setup(t, start, "a")
	cl := needControl(t, l)
	hourly, err := dstsafe.ParseCron("CRON_TZ=UTC 0 * * * *")
	must.NoError(t, err, "ParseCron")
	must.NoError(t, a.Add("sync", hourly, func(context.Context, dstsafe.Run) error { return errors.New("503") },
		dstsafe.WithPauseOnFailure(2)), "Add")
	_, err = dstsafe.Simulate(context.Background(), a, 2*time.Hour)
	must.NoError(t, err, "Simulate")
	p, err := cl.GetPause(context.Background(), "sync")
	must.NoError(t, err, "GetPause")
	must.True(t, p.Paused, "paused after two failures: %+v", p)
	must.Equal(t, "a", p.By)
	recs := s.records(t, l, "sync")
	must.Equal(t, dstsafe.StateFailed, recs["2024-06-01T01:00:00"].State)
	must.Equal(t, dstsafe.StateSkipped, recs["2024-06-01T02:00:00"].State)
}

// A backfill of 2024-03-09..11 runs the 02:30 job's two periods, the one
// of 03-10 due at 03:30 CDT (02:30 never happened: 02:30 CST pushed
// forward by the gap is 08:30Z); a second one runs nothing.
func (s schedSuite) testBackfillAcrossGap(t *testing.T) {
	chicago := Zone(t, "America/Chicago")
	l, _, a := s.setup(t, time.Date(2024, 3, 12, 0, 0, 0, 0, time.UTC), "a")
	sched, err := dstsafe.ParseCron("30 2 * * *", dstsafe.WithLocation(chicago))
	must.NoError(t, err, "ParseCron")
	must.NoError(t, a.Add("billing", sched, func(context.Context, dstsafe.Run) error { return nil }), "Add")
	from, to := time.Date(2024, 3, 9, 6, 0, 0, 0, time.UTC), time.Date(2024, 3, 11, 6, 0, 0, 0, time.UTC)
	res, err := a.Backfill(context.Background(), "billing", from, to, nil)
	must.NoError(t, err, "Backfill")
	must.Len(t, res.Ran, 2)
	must.Equal(t, "2024-03-09T02:30:00", res.Ran[0].Period)
	must.Equal(t, "2024-03-10T02:30:00", res.Ran[1].Period)
	must.True(t, res.Ran[1].Due.Equal(time.Date(2024, 3, 10, 8, 30, 0, 0, time.UTC)), "gap period due %v", res.Ran[1].Due)
	must.Equal(t, dstsafe.Gap, res.Ran[1].Kind)
	again, err := a.Backfill(context.Background(), "billing", from, to, nil)
	must.NoError(t, err, "Backfill")
	must.Len(t, again.Ran, 0)
	must.Equal(t, 2, again.Recorded)
	for _, r := range s.records(t, l, "billing") {
		must.Equal(t, dstsafe.StateSucceeded, r.State, r.Period)
		must.Equal(t, 1, r.Attempt, r.Period)
	}
}

// A period whose run failed has no succeeded record: a second Scheduler's
// backfill takes it over in the ledger as attempt 2 (the job has no
// retry policy), leaves the succeeded one alone, and a third backfill
// runs nothing.
func (s schedSuite) testBackfillTakesOverFailed(t *testing.T) {
	start := time.Date(2024, 11, 5, 0, 0, 0, 0, time.UTC)
	l, clock, a := s.setup(t, start, "a")
	b := newScheduler(clock, l, "b")
	daily, err := dstsafe.ParseCron("CRON_TZ=UTC 0 6 * * *")
	must.NoError(t, err, "ParseCron")
	var failed atomic.Bool
	failOnce := func(_ context.Context, r dstsafe.Run) error {
		if r.Period == "2024-11-03T06:00:00" && failed.CompareAndSwap(false, true) {
			return errors.New("upstream down")
		}
		return nil
	}
	must.NoError(t, a.Add("report", daily, failOnce), "Add")
	must.NoError(t, b.Add("report", daily, failOnce), "Add")
	from, to := time.Date(2024, 11, 3, 0, 0, 0, 0, time.UTC), time.Date(2024, 11, 5, 0, 0, 0, 0, time.UTC)
	res, err := a.Backfill(context.Background(), "report", from, to, nil)
	must.NoError(t, err, "Backfill")
	must.Len(t, res.Ran, 2)
	must.True(t, res.Ran[0].Err != nil, "the first run of 11-03 fails")
	must.Equal(t, dstsafe.StateFailed, s.records(t, l, "report")["2024-11-03T06:00:00"].State)

	res, err = b.Backfill(context.Background(), "report", from, to, nil)
	must.NoError(t, err, "Backfill")
	must.Len(t, res.Ran, 1)
	must.Equal(t, "2024-11-03T06:00:00", res.Ran[0].Period)
	must.Equal(t, 2, res.Ran[0].Attempt)
	must.NoError(t, res.Ran[0].Err, "the takeover's run")
	must.Equal(t, 1, res.Recorded)
	for _, r := range s.records(t, l, "report") {
		must.Equal(t, dstsafe.StateSucceeded, r.State, r.Period)
	}
	res, err = a.Backfill(context.Background(), "report", from, to, nil)
	must.NoError(t, err, "Backfill")
	must.Len(t, res.Ran, 0)
}

// The race of issue 12: two Schedulers sharing a ledger at n-1 runs each
// start a different period at once. Each run waits until the other
// Scheduler has either started its run too or refused it; exactly one
// runs and the other returns ErrMaxRuns, so n periods succeed, never n+1,
// and the refused period is recorded skipped. 50 rounds, each on a fresh
// ledger.
func (s schedSuite) testMaxRunsRace(t *testing.T) {
	const n = 2
	daily, err := dstsafe.ParseCron("CRON_TZ=UTC 0 6 * * *")
	must.NoError(t, err, "ParseCron")
	for round := range 50 {
		l, clock, a := s.setup(t, time.Date(2024, 6, 10, 0, 0, 0, 0, time.UTC), "a")
		b := newScheduler(clock, l, "b")
		started, refused, release := make(chan string, 2), make(chan error, 2), make(chan struct{})
		job := func(_ context.Context, r dstsafe.Run) error {
			if r.RunDate.Day > 1 {
				started <- r.Period
				select {
				case <-release:
				case <-wallClock.After(30 * time.Second): // a watchdog in real time
					return errors.New("never released")
				}
			}
			return nil
		}
		for _, sc := range []*dstsafe.Scheduler{a, b} {
			must.NoError(t, sc.Add("sync", daily, job, dstsafe.WithMaxRuns(n)), "Add")
		}
		must.NoError(t, a.RunNow(context.Background(), "sync", "2024-06-01T06:00:00"), "RunNow")
		var wg sync.WaitGroup
		for i, sc := range []*dstsafe.Scheduler{a, b} {
			wg.Add(1)
			go func() {
				defer wg.Done()
				if err := sc.RunNow(context.Background(), "sync", fmt.Sprintf("2024-06-0%dT06:00:00", 2+i)); err != nil {
					refused <- err
				}
			}()
		}
		runs := 0
		var errs []error
		for range 2 {
			select {
			case <-started:
				runs++
			case err := <-refused:
				errs = append(errs, err)
			case <-wallClock.After(30 * time.Second): // a watchdog in real time
				t.Fatalf("round %d: neither started nor refused", round)
			}
		}
		close(release)
		waitGroup(t, &wg, "round %d: the RunNow calls of both schedulers", round)
		must.Equal(t, 1, runs, "round %d: runs of the last slot", round)
		must.Len(t, errs, 1)
		must.ErrorIs(t, errs[0], dstsafe.ErrMaxRuns, "round %d", round)
		ok, skipped := 0, 0
		for _, r := range s.records(t, l, "sync") {
			switch r.State {
			case dstsafe.StateSucceeded:
				ok++
			case dstsafe.StateSkipped:
				must.Equal(t, "max runs: the job has used its runs", r.Reason)
				skipped++
			}
		}
		must.Equal(t, n, ok, "round %d: succeeded periods", round)
		must.Equal(t, 1, skipped, "round %d: the refused period has its record", round)
	}
}

// A half-hourly job with a 10-minute jitter fires every period of the
// fold night, with its key, each started less than 10 minutes after due.
func (s schedSuite) testJitterKeepsPeriods(t *testing.T) {
	chicago := Zone(t, "America/Chicago")
	start := time.Date(2024, 11, 3, 4, 0, 0, 0, time.UTC)
	_, _, a := s.setup(t, start, "a")
	sched, err := dstsafe.ParseCron("*/30 * * * *", dstsafe.WithLocation(chicago))
	must.NoError(t, err, "ParseCron")
	must.NoError(t, a.Add("sync", sched, func(context.Context, dstsafe.Run) error { return nil },
		dstsafe.WithJitter(10*time.Minute)), "Add")
	fires, err := dstsafe.Simulate(context.Background(), a, 7*time.Hour)
	must.NoError(t, err, "Simulate")
	periods, due := halfHours(chicago, start, start.Add(7*time.Hour-10*time.Minute))
	must.True(t, len(fires) >= len(periods), "fires %d, want at least %d", len(fires), len(periods))
	for i, p := range periods {
		f := fires[i]
		must.Equal(t, p, f.Period)
		must.True(t, f.Due.Equal(due[i]), "%v due, want %v", f, due[i])
		d := f.Started.Sub(f.Due)
		must.True(t, d >= 0 && d < 10*time.Minute, "%v started %v after due", f, d)
	}
}

// Describe reads the latest record and the pause state from the ledger.
func (s schedSuite) testDescribe(t *testing.T) {
	start := time.Date(2024, 6, 1, 0, 0, 0, 0, time.UTC)
	l, _, a := s.setup(t, start, "a")
	hourly, err := dstsafe.ParseCron("CRON_TZ=UTC 0 * * * *")
	must.NoError(t, err, "ParseCron")
	must.NoError(t, a.Add("sync", hourly, func(context.Context, dstsafe.Run) error { return nil }), "Add")
	_, err = dstsafe.Simulate(context.Background(), a, 3*time.Hour)
	must.NoError(t, err, "Simulate")
	d, err := a.Describe(context.Background(), "sync", 2)
	must.NoError(t, err, "Describe")
	must.NotNil(t, d.Last, "the latest record")
	must.Equal(t, "2024-06-01T03:00:00", d.Last.Period)
	must.Equal(t, dstsafe.StateSucceeded, d.Last.State)
	must.Len(t, d.Next, 2)
	must.Equal(t, "2024-06-01T04:00:00", d.Next[0].Period)
	if _, ok := l.(dstsafe.ControlLedger); ok {
		must.NoError(t, a.Pause(context.Background(), "sync", "audit"), "Pause")
		d, err = a.Describe(context.Background(), "sync", 0)
		must.NoError(t, err, "Describe")
		must.True(t, d.Pause.Paused, "paused: %+v", d.Pause)
		must.Equal(t, "audit", d.Pause.Reason)
	}
}

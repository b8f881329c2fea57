// Package incidents holds corpus cases in the shapes of the two
// postmortems: the first one's polling scheduler written the ways Go code
// writes it, and the second one's "midnight tonight" and business dates.
package incidents

import (
	"context"
	"fmt"
	"log"
	"time"

	"github.com/dstsafe/dstsafe"
	"github.com/jonboulle/clockwork"
)

func run(name string) {}

//corpus:case seed-struct-jobs-before-guard
// Job times as structs; the guard spelled with Before.

var jobs = map[string]struct{ h, m int }{"billing": {1, 30}}

var lastStart = map[string]time.Time{}

func tick(nowLocal time.Time) {
	for name, at := range jobs {
		if nowLocal.Hour() != at.h || nowLocal.Minute() != at.m { // want `wallclock:`
			continue
		}
		if nowLocal.Before(lastStart[name].Add(10 * time.Minute)) { // want `elapsedguard:`
			continue
		}
		lastStart[name] = nowLocal
		run(name)
	}
}

func Loop(chicago *time.Location) {
	for {
		tick(time.Now().In(chicago))
		time.Sleep(20 * time.Second)
	}
}

//corpus:case seed-comma-ok-guard
// Python's `name in last_start and ...` as a comma-ok lookup.

type Runner struct {
	at    map[string][2]int
	start map[string]time.Time
}

func (r *Runner) Tick(ctx context.Context, t time.Time) {
	for name, hm := range r.at {
		if t.Hour() == hm[0] && t.Minute() == hm[1] { // want `wallclock:`
			last, ok := r.start[name]
			if ok && t.Sub(last) < 10*time.Minute { // want `elapsedguard:`
				continue
			}
			r.start[name] = t
			run(name)
		}
	}
}

func (r *Runner) Run(ctx context.Context, clock clockwork.Clock, loc *time.Location) {
	for ctx.Err() == nil {
		r.Tick(ctx, clock.Now().In(loc))
		clock.Sleep(20 * time.Second)
	}
}

//corpus:case seed-format-after-guard
// The match on a formatted reading; the guard spelled with After.

type Cron struct {
	spec  map[string]string // job -> "01:30"
	last  map[string]time.Time
	clock clockwork.Clock
	loc   *time.Location
}

func (c *Cron) Poll() {
	t := c.clock.Now().In(c.loc)
	for name, at := range c.spec {
		if t.Format("15:04") == at && !c.last[name].Add(10*time.Minute).After(t) { // want `wallclock:` `elapsedguard:`
			c.last[name] = t
			run(name)
		}
	}
}

//corpus:case seed-stale-form
// "Enough time has passed": now.After(last.Add(d)).

func (c *Cron) PollStale(t time.Time) {
	local := t.In(c.loc)
	if local.Hour() == 1 && local.Minute() == 30 { // want `wallclock:`
		if local.After(c.last["billing"].Add(10 * time.Minute)) { // want `elapsedguard:`
			c.last["billing"] = local
			run("billing")
		}
	}
}

func (c *Cron) Loop() {
	for t := range time.Tick(time.Minute) {
		c.PollStale(t)
	}
}

//corpus:case seed-shifted-now
// last.After(now.Add(-d)): the duration on the side of the current time.

type Single struct {
	loc     *time.Location
	started time.Time
}

func (s *Single) Tick(now time.Time) {
	local := now.In(s.loc)
	if local.Hour() == 1 && local.Minute() == 30 { // want `wallclock:`
		if s.started.After(now.Add(-10 * time.Minute)) { // want `elapsedguard:`
			return
		}
		s.started = now
		run("billing")
	}
}

//corpus:case seed-minutes-float
// The guard in minutes, as a float.

func (s *Single) TickMinutes(now time.Time) {
	local := now.In(s.loc)
	if local.Format("15:04") != "01:30" { // want `wallclock:`
		return
	}
	if now.Sub(s.started).Minutes() < 10 { // want `elapsedguard:`
		return
	}
	s.started = now
	run("billing")
}

//corpus:case seed-elapsed-variable
// The elapsed time kept in a variable first.

type Multi struct {
	last  map[string]time.Time
	guard time.Duration
	loc   *time.Location
}

func (m *Multi) Tick(now time.Time, name string, hour, minute int) {
	local := now.In(m.loc)
	if local.Hour() != hour || local.Minute() != minute { // want `wallclock:`
		return
	}
	elapsed := now.Sub(m.last[name])
	if elapsed < m.guard { // want `elapsedguard:`
		return
	}
	m.last[name] = now
	run(name)
}

//corpus:case midnight-tonight-scheduled
// The second postmortem: "midnight tonight" in the customer's zone, handed
// to a task scheduler.

type Customer struct {
	ID   int
	Zone *time.Location
}

func scheduleTask(at time.Time, fn func(int), id int) {}

func chargeCustomer(id int) {}

func ScheduleBilling(c Customer) {
	now := time.Now().In(c.Zone)
	billingTime := time.Date(now.Year(), now.Month(), now.Day(), 0, 0, 0, 0, c.Zone) // want `localdate: time.Date picks`
	if now.Hour() >= 1 {
		billingTime = billingTime.AddDate(0, 0, 1)
	}
	scheduleTask(billingTime, chargeCustomer, c.ID)
}

//corpus:case run-date-from-now-format
// "today" from the current time in Chicago, used to select due rows.

type DB struct{}

func (DB) DueOn(ctx context.Context, day string) ([]int, error) { return nil, nil }

func BillToday(ctx context.Context, db DB, chicago *time.Location) error {
	runDate := time.Now().In(chicago).Format("2006-01-02") // want `localdate: a business date`
	subs, err := db.DueOn(ctx, runDate)
	if err != nil {
		return err
	}
	log.Printf("due %d", len(subs))
	return nil
}

//corpus:case run-date-from-now-date
// The date of the current time, formatted into a claim key.

type Claimer struct {
	clock clockwork.Clock
	loc   *time.Location
}

func (c Claimer) claim(key string) error { return nil }

func (c Claimer) Run() error {
	y, m, d := c.clock.Now().In(c.loc).Date() // want `localdate: a business date`
	key := fmt.Sprintf("billing-%04d-%02d-%02d", y, m, d)
	return c.claim(key)
}

//corpus:case truncate-then-in
// Truncate(24*time.Hour) is midnight UTC, shown in the local zone.

func StartOfDay(loc *time.Location) time.Time {
	return time.Now().Truncate(24 * time.Hour).In(loc) // want `localdate: Truncate and Round`
}

//corpus:case truncate-in-zone
// Truncating a local reading by a day still works on absolute time.

func DayBucket(clock clockwork.Clock, loc *time.Location) time.Time {
	return clock.Now().In(loc).Truncate(24 * time.Hour) // want `localdate: Truncate and Round`
}

//corpus:case dateof-now
// dstsafe.DateOf of the current time, in a job body.

type Biller struct {
	clock clockwork.Clock
	zone  *time.Location
}

func (b Biller) billDue(ctx context.Context, d dstsafe.Date) error { return nil }

func (b Biller) Job(ctx context.Context) error {
	due := dstsafe.DateOf(b.clock.Now(), b.zone) // want `localdate: a business date`
	return b.billDue(ctx, due)
}

//corpus:case today-helper
// A helper that returns today's local date.

func today(loc *time.Location) string {
	return time.Now().In(loc).Format(time.DateOnly) // want `localdate: a business date`
}

func Report(loc *time.Location) string { return "report-" + today(loc) }

//corpus:case conversion-called-with-now
// A conversion helper is fine; calling it with the current time is not.

var chicago, _ = time.LoadLocation("America/Chicago")

func localDay(t time.Time) string { return t.In(chicago).Format("2006-01-02") }

func ClaimToday(c Claimer) error {
	key := localDay(time.Now()) // want `localdate: a business date`
	return c.claim("billing/" + key)
}

//corpus:case ran-today-guard
// A "ran today" guard on the local date of the current time.

type Daily struct {
	lastDate string
	loc      *time.Location
}

func (d *Daily) Tick(now time.Time) {
	today := now.In(d.loc).Format("2006-01-02") // want `localdate: a business date`
	if d.lastDate == today {
		return
	}
	d.lastDate = today
	run("daily")
}

//corpus:case fixed-worker
// The fix: 07:30 UTC, a ledger claim, the run date from the scheduled
// instant.

func Fixed(ctx context.Context, clock dstsafe.Clock, chicago *time.Location, bill func(dstsafe.Date) error) error {
	spec, err := dstsafe.ParseCron("CRON_TZ=UTC 30 7 * * *")
	if err != nil {
		return err
	}
	s := dstsafe.NewScheduler(dstsafe.WithClock(clock), dstsafe.WithLedger(dstsafe.NewMemoryLedger(clock)))
	if err := s.Add("billing", spec, func(ctx context.Context, run dstsafe.Run) error {
		return bill(dstsafe.DateOf(run.Due, chicago))
	}); err != nil {
		return err
	}
	return s.Run(ctx)
}

//corpus:case next-midnight-resolved
// The second postmortem's fix: tomorrow's date from now, local midnight
// resolved explicitly.

func NextMidnight(clock clockwork.Clock, loc *time.Location) (time.Time, error) {
	y, m, d := clock.Now().In(loc).AddDate(0, 0, 1).Date()
	return dstsafe.Resolve(dstsafe.Wall{Year: y, Month: m, Day: d}, loc, dstsafe.Compatible)
}

//corpus:case dateof-utc-now
// The UTC date of the current time.

func UTCDay(clock clockwork.Clock) dstsafe.Date { return dstsafe.DateOf(clock.Now(), time.UTC) }

func UseUTCDay(c Claimer, clock clockwork.Clock) error { return c.claim(UTCDay(clock).String()) }

//corpus:case log-local-date
// Printing today's local date.

func LogDay(loc *time.Location) {
	log.Printf("billing day %s", time.Now().In(loc).Format("2006-01-02"))
}

//corpus:case utc-time-date
// time.Date in UTC as an instant never moves.

func WaitUTC() time.Duration {
	now := time.Now().UTC()
	return time.Until(time.Date(now.Year(), now.Month(), now.Day()+1, 7, 30, 0, 0, time.UTC))
}

//corpus:case label-time-date
// time.Date in a local zone for a label.

func Label(loc *time.Location) string {
	return time.Date(2024, 11, 3, 0, 0, 0, 0, loc).Format("Mon Jan 2")
}

//corpus:case utc-truncate
// Truncating a UTC time by a day is midnight UTC, as meant.

func UTCMidnight(clock clockwork.Clock) time.Time { return clock.Now().UTC().Truncate(24 * time.Hour) }

//corpus:case conversion-with-occurrence
// A conversion helper called with the scheduled instant.

func runDate(at time.Time) dstsafe.Date { return dstsafe.DateOf(at, chicago) }

func Charge(ctx context.Context, b Biller, run dstsafe.Run) error {
	return b.billDue(ctx, runDate(run.Due))
}

//corpus:case health-check
// An alert on a stale last success, in an untriggered health check.

type Health struct{ lastSuccess time.Time }

func (h Health) Stale(clock clockwork.Clock) bool {
	return clock.Since(h.lastSuccess) > 26*time.Hour
}

//corpus:case cache-ttl
// A cache's time to live.

type entry struct {
	fetched time.Time
	value   string
}

func Get(c map[string]entry, k string) (string, bool) {
	e, ok := c[k]
	if !ok || time.Since(e.fetched) >= 10*time.Minute {
		return "", false
	}
	return e.value, true
}

//corpus:case weekend-label
// A calendar reading for a label, no schedule.

func DayKind(clock clockwork.Clock, loc *time.Location) string {
	if clock.Now().In(loc).Weekday() == time.Saturday {
		return "weekend"
	}
	return "weekday"
}

//corpus:case weekday-job-lease
// A weekday job that checks its lease's heartbeat: liveness, not a guard.

type Lease struct {
	renewedAt time.Time
	ttl       time.Duration
}

func (l *Lease) Step(now time.Time, loc *time.Location) bool {
	if now.In(loc).Weekday() == time.Sunday {
		return false
	}
	return now.Sub(l.renewedAt) < l.ttl
}

//corpus:case display-hhmm
// HH:MM built for display, not compared.

func Clock(loc *time.Location) string {
	t := time.Now().In(loc)
	return fmt.Sprintf("%02d:%02d", t.Hour(), t.Minute())
}

//corpus:case assert-computed
// Checking a computed instant's hour.

func assertAt(t time.Time, h, m int) error {
	if t.Hour() != h || t.Minute() != m {
		return fmt.Errorf("got %v, want %02d:%02d", t, h, m)
	}
	return nil
}

func CheckNext(c *dstsafe.Cron, from time.Time) error { return assertAt(c.Next(from), 3, 30) }

//corpus:case recorded-start-dates
// The local dates of recorded starts, for a report: when runs happened.

type RunLog struct{ starts []time.Time }

func (r *RunLog) Record(clock clockwork.Clock) { r.starts = append(r.starts, clock.Now()) }

func (r *RunLog) Days(loc *time.Location) map[dstsafe.Date]int {
	days := map[dstsafe.Date]int{}
	for _, s := range r.starts {
		days[dstsafe.DateOf(s, loc)]++
	}
	return days
}

//corpus:case sample-on-second
// Sampling on the second of the minute.

func Sample(clock clockwork.Clock) bool { return clock.Now().Second() == 0 }

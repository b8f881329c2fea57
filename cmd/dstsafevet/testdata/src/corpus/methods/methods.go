// Package methods holds corpus cases written as scheduler types with
// methods: the current time reaches the match through receivers, fields
// and parameters, whatever their names. Each //corpus:case line starts a
// case; a case with a want comment is a positive, one without a negative.
package methods

import (
	"context"
	"log"
	"time"

	"github.com/dstsafe/dstsafe"
	"github.com/jonboulle/clockwork"
)

func bill(ctx context.Context) error { return nil }

//corpus:case poller-tick-method
// A poller whose Tick gets the instant from its Run loop, converted to the
// configured zone, and guards with the time since the last run.

type PollerConfig struct {
	Hour, Minute int
	Guard        time.Duration
	Zone         *time.Location
}

type Poller struct {
	cfg     PollerConfig
	clock   dstsafe.Clock
	lastRun time.Time
}

func (p *Poller) Run(ctx context.Context) {
	for ctx.Err() == nil {
		p.Tick(ctx, p.clock.Now().In(p.cfg.Zone))
		time.Sleep(20 * time.Second)
	}
}

func (p *Poller) Tick(ctx context.Context, t time.Time) {
	if t.Hour() != p.cfg.Hour || t.Minute() != p.cfg.Minute { // want `wallclock:`
		return
	}
	if t.Sub(p.lastRun) < p.cfg.Guard { // want `elapsedguard:`
		return
	}
	p.lastRun = t
	_ = bill(ctx)
}

//corpus:case field-holds-now
// The loop stores the current time in a field; another method matches it.

type Nightly struct {
	loc     *time.Location
	clock   dstsafe.Clock
	current time.Time
}

func (n *Nightly) refresh() { n.current = n.clock.Now().In(n.loc) }

func (n *Nightly) due() bool {
	return n.current.Hour() == 2 && n.current.Minute() == 0 // want `wallclock:`
}

func (n *Nightly) Loop(ctx context.Context) {
	for ctx.Err() == nil {
		n.refresh()
		if n.due() {
			_ = bill(ctx)
		}
		time.Sleep(time.Minute)
	}
}

//corpus:case struct-of-readings
// The reading is built into a struct and compared with the job's.

type HM struct{ H, M int }

type Job struct {
	Name string
	At   HM
	Zone *time.Location
}

func (j Job) dueAt(at time.Time) bool {
	return HM{at.Hour(), at.Minute()} == j.At // want `wallclock:`
}

func (j Job) Loop(ctx context.Context) {
	for ctx.Err() == nil {
		if j.dueAt(time.Now().In(j.Zone)) {
			_ = bill(ctx)
		}
		time.Sleep(30 * time.Second)
	}
}

//corpus:case guard-in-helper-method
// The elapsed guard sits in a helper the due tick calls.

type Sched struct {
	started map[string]time.Time
	jobs    map[string]HM
}

func (s *Sched) recentlyStarted(name string, at time.Time) bool {
	return at.Sub(s.started[name]) < 10*time.Minute // want `elapsedguard:`
}

func (s *Sched) tick(ctx context.Context, at time.Time) {
	for name, hm := range s.jobs {
		if at.Hour() == hm.H && at.Minute() == hm.M && !s.recentlyStarted(name, at) { // want `wallclock:`
			s.started[name] = at
			_ = bill(ctx)
		}
	}
}

func (s *Sched) Start(ctx context.Context, loc *time.Location) {
	for t := range time.Tick(20 * time.Second) {
		s.tick(ctx, t.In(loc))
	}
}

//corpus:case minutes-of-day
// Minutes since midnight computed from the reading.

type Daily struct {
	MinuteOfDay int
	Loc         *time.Location
}

func (d Daily) Check(ctx context.Context, clock dstsafe.Clock) {
	local := clock.Now().In(d.Loc)
	mod := local.Hour()*60 + local.Minute()
	if mod == d.MinuteOfDay { // want `wallclock:`
		_ = bill(ctx)
	}
}

//corpus:case clock-tuple-from-ticker
// The hour and minute come from Clock() on a ticker's tick in a zone.

type Ticker struct {
	Hour, Minute int
}

func (k Ticker) handle(ctx context.Context, t time.Time) {
	h, m, _ := t.Clock()
	if h == k.Hour && m == k.Minute { // want `wallclock:`
		_ = bill(ctx)
	}
}

func (k Ticker) Run(ctx context.Context, loc *time.Location) {
	tk := time.NewTicker(20 * time.Second)
	defer tk.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case t := <-tk.C:
			k.handle(ctx, t.In(loc))
		}
	}
}

//corpus:case weekly-report
// A weekly job: the weekday and the hour of the local reading.

type Weekly struct{ Loc *time.Location }

func (w Weekly) due(clock dstsafe.Clock) bool {
	t := clock.Now().In(w.Loc)
	return t.Weekday() == time.Monday && t.Hour() == 1 // want `wallclock:`
}

//corpus:case monthly-with-guard
// A monthly job on the 1st at midnight, guarded by a day of elapsed time.

type Monthly struct {
	loc         *time.Location
	lastMonthly time.Time
}

func (m *Monthly) Tick(ctx context.Context, at time.Time) {
	local := at.In(m.loc)
	if local.Day() == 1 && local.Hour() == 0 { // want `wallclock:`
		if time.Since(m.lastMonthly) > 24*time.Hour { // want `elapsedguard:`
			m.lastMonthly = at
			_ = bill(ctx)
		}
	}
}

func (m *Monthly) Loop(ctx context.Context) {
	for t := range time.Tick(time.Minute) {
		m.Tick(ctx, t)
	}
}

//corpus:case switch-on-hour
// A switch on the hour of a parameter that receives the current time.

type Maintenance struct{ loc *time.Location }

func (m Maintenance) step(ctx context.Context, when time.Time) {
	switch when.Hour() { // want `wallclock:`
	case 1:
		_ = bill(ctx)
	case 3:
		log.Print("vacuum")
	}
}

func (m Maintenance) Loop(ctx context.Context) {
	for ctx.Err() == nil {
		m.step(ctx, time.Now().In(m.loc))
		time.Sleep(time.Minute)
	}
}

//corpus:case timer-on-cron-next
// The fix: a timer on the next occurrence of a zoned cron schedule.

type CronWaiter struct {
	sched *dstsafe.Cron
	clock clockwork.Clock
}

func (c *CronWaiter) Wait(ctx context.Context) error {
	next := c.sched.Next(c.clock.Now())
	select {
	case <-ctx.Done():
		return ctx.Err()
	case <-time.After(c.clock.Until(next)):
		return bill(ctx)
	}
}

//corpus:case check-computed-occurrence
// Validating a computed occurrence's wall reading is not deciding a job is
// due.

type Plan struct {
	sched *dstsafe.Cron
}

func (p Plan) Validate(from time.Time) bool {
	o, ok := p.sched.NextOccurrence(from)
	if !ok {
		return false
	}
	return o.At.Hour() == o.Wall.Hour && o.At.Minute() == o.Wall.Minute
}

//corpus:case log-local-time
// Printing the local time of the current instant is fine.

type Status struct{ loc *time.Location }

func (s Status) Log(clock dstsafe.Clock) {
	log.Printf("local time %s", clock.Now().In(s.loc).Format("15:04"))
}

//corpus:case rate-limiter
// A rate limiter measures real time: elapsed time is right for it.

type Limiter struct {
	every time.Duration
	last  time.Time
}

func (l *Limiter) Allow(at time.Time) bool {
	if at.Sub(l.last) < l.every {
		return false
	}
	l.last = at
	return true
}

//corpus:case lease-check
// A lease check on a heartbeat is liveness.

type Claim struct {
	heartbeatAt time.Time
	lease       time.Duration
}

func (c *Claim) Expired(clock clockwork.Clock) bool {
	return clock.Since(c.heartbeatAt) > c.lease
}

//corpus:case utc-match
// Matching 07:30 UTC: UTC never repeats or skips a reading.

type UTCJob struct{ clock dstsafe.Clock }

func (u UTCJob) Due() bool {
	t := u.clock.Now().UTC()
	return t.Hour() == 7 && t.Minute() == 30
}

//corpus:case hour-change-detector
// Comparing two readings (the hour changed since the last tick) is not
// matching a setting.

type HourRoller struct {
	lastHour int
	loc      *time.Location
}

func (h *HourRoller) Tick(at time.Time) bool {
	cur := at.In(h.loc).Hour()
	if cur != h.lastHour {
		h.lastHour = cur
		return true
	}
	return false
}

//corpus:case hourly-on-minute
// An hourly job matched on the minute alone follows real time, as a
// periodic cron spec does.

type Hourly struct {
	loc  *time.Location
	last time.Time
}

func (h *Hourly) Tick(ctx context.Context, at time.Time) {
	if at.In(h.loc).Minute() == 0 && at.Sub(h.last) > 50*time.Minute {
		h.last = at
		_ = bill(ctx)
	}
}

//corpus:case business-hours
// Business hours compare with ordering: a window, not a trigger.

type Support struct{ loc *time.Location }

func (s Support) Open(clock dstsafe.Clock) bool {
	h := clock.Now().In(s.loc).Hour()
	return h >= 9 && h < 17
}

//corpus:case measure-run-in-utc-job
// A UTC job that measures its own run time.

type Export struct{ clock clockwork.Clock }

func (e Export) Tick(ctx context.Context) {
	t := e.clock.Now().UTC()
	if t.Hour() != 3 || t.Minute() != 0 {
		return
	}
	start := e.clock.Now()
	_ = bill(ctx)
	if e.clock.Since(start) > time.Minute {
		log.Print("export slow")
	}
}

//corpus:case occurrence-kind
// Looking at the occurrence's kind is what the library is for.

type Reporter struct{}

func (Reporter) Note(o dstsafe.Occurrence) string {
	if o.Kind == dstsafe.Fold {
		return "first of two readings"
	}
	return ""
}

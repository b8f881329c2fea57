package dstsafe

import (
	"context"
	"fmt"
	"log/slog"
	"time"
)

// msgJobScheduled is the startup line Run logs per job.
const msgJobScheduled = "job scheduled"

// logJobStart logs, at INFO, the job's startup line when Run starts: a
// constant message with the job's name, its schedule, the schedule's zone
// and the next instant it is due (absent when the schedule has no more),
// so an operator reads what a replica will run, in which zone, before the
// first run. Computed only when the logger wants INFO.
func (s *Scheduler) logJobStart(ctx context.Context, j *job) {
	if !s.log.Enabled(ctx, slog.LevelInfo) {
		return
	}
	s.mu.Lock()
	spec, removed := j.spec, j.removed
	s.mu.Unlock()
	if removed {
		return
	}
	o, ok := spec.nextAfter(s.clock.Now())
	zone := ""
	switch l := spec.sched.(type) {
	case interface{ Location() *time.Location }:
		if loc := l.Location(); loc != nil {
			zone = loc.String()
		}
	default:
		if ok {
			zone = o.At.Location().String()
		}
	}
	attrs := []slog.Attr{
		slog.String("job", j.name),
		slog.String("schedule", scheduleText(spec.sched)),
		slog.String("zone", zone),
	}
	if ok {
		attrs = append(attrs, slog.Time("next", o.At))
	}
	s.log.LogAttrs(ctx, slog.LevelInfo, msgJobScheduled, attrs...)
}

// scheduleText is how a log line names a schedule: its String (a *Cron's
// spec, an *RRule's text), else its type.
func scheduleText(sched Schedule) string {
	if st, ok := sched.(fmt.Stringer); ok {
		return st.String()
	}
	return fmt.Sprintf("%T", sched)
}

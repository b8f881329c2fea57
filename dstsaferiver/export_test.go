package dstsaferiver

import (
	"time"

	"github.com/riverqueue/river"

	"github.com/dstsafe/dstsafe"
)

// Parts returns the schedule and the constructor NewPeriodicJob hands river,
// for tests that drive them as river's enqueuer does, on a fake clock.
func Parts[T river.JobArgs](schedule dstsafe.OccurrenceSchedule, constructor func(dstsafe.Occurrence) (T, *river.InsertOpts), opts *Options) (next func(time.Time) time.Time, construct func() (river.JobArgs, *river.InsertOpts)) {
	p := newPeriodic(schedule, constructor, opts)
	return p.Next, p.construct
}

package dstsaferiver_test

import (
	"context"
	"testing"
	"time"

	"github.com/riverqueue/river"
	"github.com/riverqueue/river/rivertype"
	"github.com/stretchr/testify/require"

	"github.com/dstsafe/dstsafe"
	"github.com/dstsafe/dstsafe/dstsaferiver"
)

// A period river's enqueuer constructs is inserted available, not
// scheduled: only the leader's scheduler makes a scheduled job
// available, so a leader SIGKILLed right after inserting its copy held
// the period until the next leader (issue 28: 14.7 to 22.6 s, with
// InsertDue's copy refused as a duplicate). Inserted through a real river
// client, the job is available to every producer; a constructor that
// sets ScheduledAt keeps it (scheduled).
func TestConstructedAvailable(t *testing.T) {
	sched, err := dstsafe.ParseCron("CRON_TZ=America/Chicago 30 1 * * *")
	require.NoError(t, err)
	due := time.Date(2024, 11, 3, 6, 30, 0, 0, time.UTC) // 01:30 CDT, the first reading of the fold
	clock := newFakeClock(due)
	client := insertClient(t, openSQLite(t), clock)
	cases := []struct {
		name  string
		build func(dstsafe.Occurrence) (ReportArgs, *river.InsertOpts)
		want  rivertype.JobState
	}{
		{"by the schedule", report, rivertype.JobStateAvailable},
		{"ScheduledAt set by the constructor", func(o dstsafe.Occurrence) (ReportArgs, *river.InsertOpts) {
			return ReportArgs{Note: "later"}, &river.InsertOpts{ScheduledAt: o.At.Add(time.Hour)}
		}, rivertype.JobStateScheduled},
	}
	for i, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			next, construct := dstsaferiver.Parts(sched, c.build, &dstsaferiver.Options{
				Name: []string{"a", "b"}[i], CatchUp: dstsafe.CatchUpSkip{}, Logger: discard})
			require.True(t, next(due.Add(-time.Minute)).Equal(due))
			args, opts := construct()
			require.NotNil(t, args)
			res, err := client.Insert(context.Background(), args, opts)
			require.NoError(t, err)
			require.Equal(t, c.want, res.Job.State)
			p, err := dstsaferiver.PeriodOf(res.Job)
			require.NoError(t, err)
			require.Equal(t, "2024-11-03T01:30:00", p.Period)
			require.True(t, p.Due.Equal(due))
		})
	}
}

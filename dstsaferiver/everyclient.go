package dstsaferiver

import (
	"context"
	"fmt"
	"reflect"
	"time"

	"github.com/jonboulle/clockwork"
	"github.com/riverqueue/river"
	"github.com/riverqueue/river/rivertype"

	"github.com/dstsafe/dstsafe"
)

// InsertOptions configures InsertDue. A nil *InsertOptions is the zero
// value.
type InsertOptions struct {
	// Name is the job's name, as Options.Name: it must be the same as the
	// NewPeriodicJob of the same schedule, or the two insert different
	// jobs for one period. Defaults to the Kind of the args type.
	Name string
	// Clock is what InsertDue waits on. Defaults to the real clock.
	Clock dstsafe.Clock
	// OnError receives each failed insert (the database down: the
	// leader's recheck, see NewPeriodicJob, enqueues the period later).
	// Defaults to nothing.
	OnError func(o dstsafe.Occurrence, err error)
}

// InsertDue inserts, through client, the job of each occurrence of
// schedule when it comes due, until ctx ends: the same job NewPeriodicJob
// inserts (ForPeriod: the Period in its args, unique by period in every
// state), so run it on every client beside the NewPeriodicJob one of them
// leads, and each period is inserted once by whichever client comes
// first, the others' inserts refused as duplicates.
//
// It bounds the wait of a due period after its leader dies. River's
// periodic jobs are inserted only by the leader, and a leader killed
// without resigning keeps its lease until river's leader TTL runs out (15
// s in river 0.43: a 5 s election interval plus 10 s padding, neither
// configurable), then the next leader's enqueuer starts: a period due just
// after the kill waited about 17 s. With InsertDue on every client, any
// live client inserts it at its due instant, available at once (with no
// ScheduledAt: river would insert it scheduled, for the leader's
// scheduler to make available), and a producer fetches it within
// Config.FetchPollInterval (1 s by default; sooner with LISTEN/NOTIFY on
// PostgreSQL). A period whose copy waits in scheduled although it is due
// (inserted by hand with ForPeriod, or by an older version's leader) is
// made available (river's JobRetry). The leader's reconcile
// (NewPeriodicJob) still covers what every client missed, a whole outage.
//
// The occurrences are the schedule's, folds and gaps included, from the
// first one after InsertDue starts; it inserts nothing late (that is the
// catch-up's). It returns ctx.Err() when ctx ends, an insert that ctx's
// end interrupted included (that is not reported to OnError); any other
// failed insert is reported to OnError and does not stop it. It panics on a nil client,
// schedule or constructor.
func InsertDue[TTx any, T river.JobArgs](ctx context.Context, client *river.Client[TTx], schedule dstsafe.OccurrenceSchedule,
	constructor func(dstsafe.Occurrence) (T, *river.InsertOpts), opts *InsertOptions) error {
	if client == nil {
		panic("dstsaferiver: InsertDue with nil client")
	}
	if schedule == nil || reflect.ValueOf(schedule).Kind() == reflect.Pointer && reflect.ValueOf(schedule).IsNil() {
		panic("dstsaferiver: InsertDue with nil schedule")
	}
	if constructor == nil {
		panic("dstsaferiver: InsertDue with nil constructor")
	}
	var o InsertOptions
	if opts != nil {
		o = *opts
	}
	if o.Name == "" {
		var zero T
		o.Name = zero.Kind()
	}
	if o.Clock == nil {
		o.Clock = clockwork.NewRealClock()
	}
	after := o.Clock.Now()
	for {
		occ, ok := schedule.NextOccurrence(after)
		if !ok {
			<-ctx.Done()
			return ctx.Err()
		}
		if d := occ.At.Sub(o.Clock.Now()); d > 0 {
			t := o.Clock.NewTimer(d)
			select {
			case <-ctx.Done():
				t.Stop()
				return ctx.Err()
			case <-t.Chan():
			}
		}
		after = occ.At
		args, io := constructor(occ)
		if v := reflect.ValueOf(args); !v.IsValid() || v.Kind() == reflect.Pointer && v.IsNil() {
			continue // the constructor inserts nothing for this period
		}
		pa, pio := ForPeriod(o.Name, occ, args, io)
		if !pio.ScheduledAt.After(o.Clock.Now()) {
			// River inserts a job with any ScheduledAt as scheduled, made
			// available by the leader's scheduler only: without one, the
			// job is available at once, to every client's producer.
			pio.ScheduledAt = time.Time{}
		}
		res, err := client.Insert(ctx, pa, pio)
		if err == nil && res.UniqueSkippedAsDuplicate && res.Job != nil && res.Job.State == rivertype.JobStateScheduled &&
			!res.Job.ScheduledAt.After(o.Clock.Now()) {
			// The period's copy waits in scheduled (inserted by ForPeriod
			// by hand, or by a leader of an older version) for the
			// leader's scheduler, which a killed leader no longer runs:
			// make it available to every client now.
			_, err = client.JobRetry(ctx, res.Job.ID)
		}
		if err != nil && ctx.Err() != nil {
			// Stopped mid-insert: not a failed insert but the end of
			// InsertDue. Whether the insert committed or not, the period
			// is in the leader's reconcile window (NewPeriodicJob).
			return ctx.Err()
		}
		if err != nil && o.OnError != nil {
			o.OnError(occ, fmt.Errorf("dstsaferiver: insert job %s period %s: %w", o.Name, occ.Period, err))
		}
	}
}

package billing

import (
	"context"
	"fmt"
	"time"

	"github.com/dstsafe/dstsafe"
)

// Spec is when the billing run fires: 07:30 UTC, the postmortem's fix. UTC
// has no DST, so it fires once a day; in Chicago it is 01:30 CST or 02:30
// CDT, on the Chicago date being billed.
const Spec = "CRON_TZ=UTC 30 7 * * *"

// RetryPolicy lets a failed or abandoned billing run be taken over. dstsafe
// never does that for a money-moving job by default; this one opts in
// because it is idempotent end to end: a takeover skips the subscriptions
// already billed (their charge rows exist) and resends the others with the
// same idempotency keys, so the processor replays what it did.
var RetryPolicy = dstsafe.RetryPolicy{MaxAttempts: 3, Failed: true, Abandoned: true}

// CheckZone reports an error if the run scheduled by Spec for the UTC date d
// would not fall on date d in zone: the claim (billing, run_date) is keyed
// by the schedule's date, so the two must agree. 07:30 UTC is on the same
// date from UTC-07:29 to UTC+16:29: in Chicago, London, Tokyo and Auckland,
// but not in Honolulu or in Los Angeles in winter, whose company would
// schedule its run at another hour.
func CheckZone(zone *time.Location, d dstsafe.Date) error {
	cron, err := dstsafe.ParseCron(Spec)
	if err != nil {
		return err
	}
	at := cron.Next(time.Date(d.Year, d.Month, d.Day, 0, 0, 0, 0, time.UTC).Add(-time.Nanosecond))
	if local := dstsafe.DateOf(at, zone); local != d {
		return fmt.Errorf("billing: %s: the run of %s fires at %s, on %s there; use a zone where it is on the same date",
			zone, d, at.In(zone).Format("2006-01-02 15:04 MST"), local)
	}
	return nil
}

// Register adds the billing run to s: Spec, one claim per run_date
// (ByDate), run_date derived in the job's zone.
func (j *Job) Register(s *dstsafe.Scheduler) error {
	cron, err := dstsafe.ParseCron(Spec, dstsafe.WithPeriodKey(dstsafe.ByDate))
	if err != nil {
		return err
	}
	return s.Add(JobName, cron, j.Run,
		dstsafe.WithRunDateLocation(j.Zone),
		dstsafe.WithRetry(RetryPolicy, time.Minute),
	)
}

// Run is the job function: the scheduler has claimed (JobName,
// run.Period) in its ledger and calls it once per period.
func (j *Job) Run(ctx context.Context, run dstsafe.Run) error {
	runDate := run.RunDate
	// The claim must be keyed by the run_date, the Chicago date being
	// billed. ByDate keys it by the schedule's (UTC) date; at 07:30 UTC the
	// two agree, and this check keeps it so if anyone moves the schedule.
	if run.Period != runDate.String() {
		return fmt.Errorf("billing: claimed period %s is not the run_date %s in %s", run.Period, runDate, j.Zone)
	}
	res, err := j.Bill(ctx, runDate, RunID(run))
	if j.Log != nil {
		j.Log.Info("billing.bill", "run_date", runDate.String(), "attempt", run.Attempt, "due", res.Due,
			"charged", res.Charged, "declined", res.Declined, "already_billed", res.AlreadyBilled)
	}
	return err
}

// RunID names a run on the charge rows it creates.
func RunID(run dstsafe.Run) string { return fmt.Sprintf("%s/%s/%d", run.Job, run.Period, run.Token) }

// RecordRunID is RunID of the run that made a ledger record.
func RecordRunID(r dstsafe.Record) string { return fmt.Sprintf("%s/%s/%d", r.Job, r.Period, r.Token) }

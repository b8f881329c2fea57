package dstsafe

import (
	"time"
)

// CatchUpPolicy says what a job does with periods that came due while it
// could not run (scheduler down, VM suspended, clock stepped forward). It is
// one of CatchUpLatest, CatchUpAll and CatchUpSkip.
//
// A period is missed when it was due more than the misfire threshold before
// the scheduler noticed it. Periods the policy does not run are recorded as
// StateSkipped in the ledger, so each period ends with exactly one record.
// After a restart, missed periods are those after the job's latest record in
// the ledger (looked for up to about 400 days back), and, within the
// recovery window (WithRecoveryWindow), those before it that have no
// record (a replica died before claiming them while another recorded a
// later one); a job with no record starts fresh and catches up nothing.
//
// Missed periods are counted under the schedule that was in force, never
// under a newer one: a schedule edited between deploys (Kubernetes'
// kubernetes#63371: "0 23 * * *" that ran at 23:00, changed to "0 5 * * *"
// and restarted at 08:00) does not run the 05:00 period at 08:00. Each
// claim records the fingerprint of the schedule in force (spec, zone,
// policies and the zone data, ClaimRequest.Schedule). When the latest
// record was made under another schedule, the periods that schedule missed
// until the restart are caught up by the policy, and the new schedule
// starts at the restart: its earlier periods never run, and the most
// recent of them is recorded as skipped ("before the schedule took
// effect") so that later restarts see when it took effect. Update follows
// the same rule with the instant of the Update.
type CatchUpPolicy interface {
	catchUp()
}

// CatchUpLatest runs the most recent missed period, once, and skips the
// older ones: Quartz's fire-once-now, Kubernetes' most-recent. The default.
type CatchUpLatest struct{}

// CatchUpAll runs every missed period due within Window of now, oldest
// first and at most Max of them (the most recent ones; zero means no
// limit), and skips the rest. A zero Window runs none of them late.
type CatchUpAll struct {
	Window time.Duration
	Max    int
}

// CatchUpSkip runs no missed period: all of them are skipped.
type CatchUpSkip struct{}

func (CatchUpLatest) catchUp() {}
func (CatchUpAll) catchUp()    {}
func (CatchUpSkip) catchUp()   {}

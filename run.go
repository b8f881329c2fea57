package dstsafe

import "time"

// Run describes one run of a job: which logical period it is for and how it
// was claimed. The Scheduler passes it to the job function.
type Run struct {
	// Job is the name the job was added under.
	Job string
	// Period is the ledger key of the logical period ("2024-11-03T01:30:00",
	// or "2024-11-03" with ByDate). Use it (with Job) as the idempotency key
	// of everything the run does: charges, e-mails, state changes.
	Period string
	// Wall is the wall reading the run was scheduled for, in the schedule's
	// zone. It stays 02:30 when a gap moved the run to 03:30.
	Wall Wall
	// Kind says how Wall resolved: Unique, Fold or Gap.
	Kind Kind
	// Due is the instant the run was due, in the schedule's zone. It is
	// earlier than the start of the run when the run is late (catch-up).
	Due time.Time
	// RunDate is the business date of the run, derived explicitly, never
	// from the machine's zone: the date of the scheduled wall reading, or
	// with WithRunDateLocation the civil date of Due in that zone.
	RunDate Date
	// Attempt counts claims of the period, starting at 1 (a retry or a
	// takeover of an abandoned run is attempt 2 ...).
	Attempt int
	// Token is the ledger's fencing token for this attempt. Pass it to
	// systems that can reject a stale writer.
	Token int64
}

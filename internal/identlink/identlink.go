// Package identlink hands the dstsafe command the schedule fingerprint
// functions package dstsafe keeps unexported: a job's identity in a
// JobRegistry (JobInfo.Schedule, Record.Schedule) is a fingerprint, and
// `dstsafe exec` and `dstsafe ledger` compute it for a --schedule and
// read a registered one back into the schedule it names, exactly as the
// Scheduler does, without the root package exporting the format.
//
// Package dstsafe calls Set in its init; Get panics if it did not (the
// command imports dstsafe, so its init has run).
package identlink

// Funcs are package dstsafe's fingerprint functions; the any values are
// *dstsafe.Cron.
type Funcs struct {
	// Fingerprint is a *Cron's fingerprint ("" for anything else).
	Fingerprint func(cron any) string
	// Parse reads a fingerprint back into the *Cron it names, or an
	// error when it cannot (a hashed one, another version).
	Parse func(fp string) (any, error)
	// Same reports whether two fingerprints name one schedule, whatever
	// zone data each was computed with.
	Same func(a, b string) bool
}

var funcs *Funcs

// Set registers f. Package dstsafe calls it once, in its init.
func Set(f Funcs) { funcs = &f }

// Get returns the functions Set registered.
func Get() Funcs {
	if funcs == nil {
		panic("identlink: package dstsafe registered no fingerprint functions")
	}
	return *funcs
}

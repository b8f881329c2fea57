// Package dstsafeui serves a dstsafe ledger as web pages an operator reads:
// the jobs, each job's periods on a timeline of local days with the zone's
// daylight-saving transitions drawn on it, a period's record, and an audit
// of a date range. `dstsafe ui` serves it; a service mounts the same
// handler:
//
//	mux.Handle("/ops/ledger/", http.StripPrefix("/ops/ledger", dstsafeui.Handler(ledger, dstsafeui.Options{})))
//
// # The fall-back night
//
// A fixed-time job at 01:30 in America/Chicago has one period on
// 2024-11-03, when 01:30 happens twice: the timeline draws it at the first
// reading (01:30 CDT, 06:30 UTC) and the second reading (01:30 CST) as the
// same period, not run. On 2024-03-10, when 02:30 never happens, a 02:30
// job's period sits at its shifted instant, 03:30 CDT. Each day's track is
// as long as the day (25 and 23 hours), with an hour tick for every hour
// that happens.
//
// # Where the schedule comes from
//
// From the ledger's registration when it is a dstsafe.JobRegistry that
// knows the job, else from the schedule fingerprint of the job's newest
// record (dstsafe.ParseFingerprint). With it the pages compute the periods
// the job should have had: one due with no record is missing. A job whose
// records carry no fingerprint (a plain Schedule) shows its records only.
//
// # States
//
//	succeeded, failed, abandoned, running, skipped  the record's state
//	missing                                        expected, due, no record
//	upcoming                                       expected, not due yet
//
// At risk, on the jobs page, counts failed and abandoned periods: due,
// not done, and still rescuable by a retry.
//
// # Security
//
// Read-only unless Options.AllowActions: then pause, resume, retry
// (ControlLedger.Release) and skip are POST forms carrying an HMAC of the
// session cookie, refused (403) from another origin (Sec-Fetch-Site,
// Origin: http.CrossOriginProtection). Without Options.Token only loopback
// clients asking for a loopback host are served; with it every request
// carries the token. Every value is escaped; Options.Redact keeps a ledger
// password out of every page.
package dstsafeui

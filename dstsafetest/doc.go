// Package dstsafetest checks scheduled jobs in tests. The Require*
// assertions check the fires a dstsafe.Simulate returned: once per period
// (RequireOncePerPeriod), once per civil day in a zone (RequireOncePerDay)
// or in each job's own zone (RequireOncePerLocalDay), at given instants
// (RequireFiresAt), none inside a gap (RequireNoFireBetween). Days a zone
// never had (Pacific/Apia 2011-12-30) are not missing. Zone loads pinned
// tzdata 2025b files, so tests do not depend on the machine's tz database;
// RunLedgerTests and RunSchedulerTests are the conformance suites every
// Ledger backend passes.
package dstsafetest

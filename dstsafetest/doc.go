// Package dstsafetest checks scheduled jobs in tests. The Require*
// assertions check the fires a dstsafe.Simulate returned: once per period
// (RequireOncePerPeriod), once per civil day in a zone (RequireOncePerDay)
// or in each job's own zone (RequireOncePerLocalDay), at given instants
// (RequireFiresAt), none inside a gap (RequireNoFireBetween). Days a zone
// never had (Pacific/Apia 2011-12-30) are not missing. Zone loads pinned
// tzdata 2025b files, so tests do not depend on the machine's tz database;
// RunLedgerTests and RunSchedulerTests are the conformance suites every
// Ledger backend passes.
//
// SimulateCluster runs several replicas of a service (real Schedulers with
// the service's own jobs) on one ledger, each with its own clock offset,
// drift and tz data (ZoneLoader), crashed and restarted at chosen points,
// in fake time; RequireClusterOnce lists every period that did not run
// exactly once (docs/cluster-simulation.md).
package dstsafetest

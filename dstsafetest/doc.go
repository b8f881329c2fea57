// Package dstsafetest helps test code built on dstsafe:
//
//   - Require* assertions over the runs dstsafe.Simulate returns
//     (RequireOncePerPeriod, RequireOncePerDay, RequireFiresAt, ...);
//   - SimulateCluster, several replicas of a service (real Schedulers with
//     the service's own jobs) on one ledger, each with its own clock offset,
//     drift and tz data, crashed and restarted at chosen points, in fake
//     time, with RequireClusterOnce listing every period that did not run
//     exactly once (docs/cluster-simulation.md);
//   - the Ledger conformance suite every backend runs (RunLedgerTests);
//   - pinned tzdata 2025b zone files (Zone, ZoneinfoFS, ZoneLoader).
package dstsafetest

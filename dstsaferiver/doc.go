// Package dstsaferiver runs dstsafe schedules as river periodic jobs
// (github.com/riverqueue/river): one river job per logical period, its
// work run once per period by a ledger claim, and the periods that came
// due while no client led enqueued by the next leader.
//
// # Enqueue
//
// NewPeriodicJob returns a *river.PeriodicJob whose constructor gets the
// dstsafe.Occurrence it builds a job for. Each job carries its Period (job
// name, period key, wall reading, kind, due instant, run date) in its args
// under ArgsKey, is due at the occurrence's instant, and is unique by
// (kind, job name, period) in every job state: river refuses a second job
// of the period for as long as the first one's row lives, whoever inserts
// it. It is inserted available at its due instant, so any live client
// starts it, even if the leader that inserted it is killed at once. The
// leader reconciles the recovery window (Options.MisfireThreshold) with
// the ledger, on becoming leader and every Options.RecheckAfter while a
// period of it has no record: every period due in it without a record is
// enqueued (again), and the late ones beyond it by the job's catch-up
// policy, so an outage of PostgreSQL, or of every leader, up to the
// window loses no period. InsertDue, run on every client, inserts each
// period at its due instant from whichever client is alive, so a killed
// leader's lease delays none.
//
// # Work
//
// NewWorker claims (job, period) in any dstsafe.Ledger before the work and
// finishes the claim after it. NewTxWorker does it inside one database
// transaction with sqlledger, together with the work's own rows and river's
// completion of the job (river.JobCompleteTx), on riversqlite and
// riverdatabasesql (*sql.Tx) and riverpgxv5 (pgx.Tx). A ledger that was
// never migrated cancels the job instead of retrying it.
//
// # Guarantees
//
//	                               plain river periodic job      dstsaferiver
//	period of a job                none (insert time only)       Period in args: key, wall, kind, due, run date
//	one job per period             UniqueOpts.ByPeriod: UTC-     unique by (kind, job, period) while the row
//	                               aligned window (river#827)    lives, any state, any insert time
//	DST fold / gap                 the schedule's (robfig:       dstsafe: once, first reading / once, shifted;
//	                               twice / skipped)              periodic jobs both readings, two periods
//	leader down when a period      lost (in-memory schedule)     enqueued by the next leader (catch-up policy)
//	is due                                                       from the ledger; with InsertDue, by any live
//	                                                             client at once (not after the 15 s lease)
//	insert fails (database down    lost                          enqueued again by the leader's next pass
//	at the due instant)                                          (RecheckAfter), or the next leader's start:
//	                                                             none lost within MisfireThreshold
//	work run twice for a period    yes (retry, rescue, manual    no: ledger claim; NewTxWorker commits claim,
//	                               insert, cleaned unique row)   rows and completion in one transaction
//	worker killed mid-work         rescued, run again            NewTxWorker: rolled back, run again once;
//	                                                             NewWorker: abandoned, rerun only if Retry allows
//
// # Time in tests
//
// River sleeps on real timers; its Config.Test.Time stubs only its reading
// of "now" (ClockTime adapts a dstsafe.Clock). This package's tests drive
// the enqueue logic over whole nights on a fake clock and run the
// multi-process failover on short real periods with both clients' clocks
// shifted to the transition nights.
package dstsaferiver

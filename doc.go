// Package dstsafe makes scheduled jobs fire exactly once per logical period
// across daylight-saving transitions, and makes a second run of the same
// period harmless.
//
// Local time is not monotonic. When the clocks go back (a fold) a wall
// reading such as 01:30 happens twice; when they go forward (a gap) it never
// happens. A job that asks "is it 01:30 now?" runs twice on the fall-back
// night and not at all on the spring-forward night; a guard such as "not
// within 10 minutes" sees 70 real minutes between the two 01:30s and lets the
// second run through. On 2024-11-03 in America/Chicago that charged 1,284
// customers twice.
//
// dstsafe answers with three pieces:
//
//   - an exact resolver from wall readings to instants ([Lookup], [Resolve]),
//     which never lets time.Date pick an offset;
//   - cron schedules ([ParseCron]) whose behaviour in a fold and a gap is
//     explicit, documented and right in every zone of the tz database;
//   - a [Ledger] that guards each logical period ("billing", "2024-11-03")
//     with a unique claim, so a second run of the same period, from this
//     process or another, a second or a year later, does nothing.
//
// # Fold and gap policies
//
// A schedule names wall readings in a zone (a CRON_TZ=Zone prefix, else UTC,
// never the machine's local zone). Each matching reading is resolved to an
// instant; the instants a schedule fires at strictly increase and never
// repeat.
//
//	                      fold: 01:30 happens twice       gap: 02:30 never happens
//	fixed-time job        once, at the first 01:30        once, at 03:30 CDT
//	("30 1 * * *")        (FoldFirst)                     (GapShift: pushed forward by the gap)
//	periodic job          at both 01:30s                  not at all
//	("*/15 * * * *")      (FoldBoth: follows real time)   (GapSkip: the reading does not exist)
//
// A spec is fixed-time when none of its seconds, minute and hour fields
// starts with * or ?. [WithFold] (FoldFirst, FoldLast, FoldBoth) and
// [WithGap] (GapShift, GapAtTransition, GapSkip) override the defaults per
// schedule. Two readings that resolve to the same instant fire once.
//
// # Resolving wall readings
//
// [Lookup] classifies a [Wall] in a zone as [Unique], [Fold] or [Gap] and
// returns both candidate instants. [Resolve] picks one with a
// [Disambiguation], named as in Temporal and java.time:
//
//	              Fold (01:30 twice)        Gap (02:30 skipped)
//	Compatible    first reading (CDT)       pushed forward: 03:30 CDT
//	Earlier       first reading (CDT)       before the gap: 01:30 CST
//	Later         second reading (CST)      pushed forward: 03:30 CDT
//	Reject        ErrAmbiguous              ErrNonexistent
//
// Kinds are decided by the change of UTC offset, never by the DST flag, so
// Europe/Dublin's negative DST and offset changes that are not DST at all
// (Europe/Volgograd) work like any other transition. The resolver is exact
// for every zone and year the time package knows, including a skipped day
// (Pacific/Apia 2011-12-30), midnight gaps (America/Havana, Asia/Beirut),
// 24:00 transitions (Africa/Cairo), 30-minute shifts (Australia/Lord_Howe)
// and the POSIX-rule years after a zone's last listed transition.
//
// [Lookup]'s [Resolution] carries the [Transition] that makes a reading a
// fold or a gap, as [Transitions] lists it.
//
// # Dates and text
//
// A [Date] is a civil date with no zone (the run_date a billing run is for);
// [DateOf] derives it from an instant in a named zone, and its arithmetic
// ([Date.AddDays], [Date.AddMonths], clamped to the month's end) is exact
// because civil days have no DST. Every enum ([Kind], [FoldPolicy],
// [GapPolicy], [PeriodKey], [Disambiguation], [State], [Overlap]) and [Date]
// implement encoding.TextMarshaler and TextUnmarshaler with the names their
// String methods print, so they work with flag.TextVar, JSON and YAML. An
// enum's unknown name is an error wrapping [ErrInvalidArgument], a date that
// is not on the calendar one wrapping [ErrInvalidArgument].
//
// # Recurrence rules and calendars
//
// [ParseRRule] reads RFC 5545 recurrences (DTSTART, RRULE, EXDATE, RDATE,
// and RFC 7529's SKIP: "FREQ=MONTHLY;SKIP=BACKWARD" is the anniversary
// rule). An [RRule] counts in wall-clock units and resolves each reading
// as RFC 5545 says (first reading of a fold, pushed forward out of a gap);
// it is a Schedule with the fold and gap options and period keys of a
// cron spec. A [Calendar] is a set of dates (weekends, holiday rules,
// explicit closures, unions and differences); [CalendarIn] makes its
// dates whole local days in a zone, and [Excluding] drops or moves a
// schedule's occurrences on them, keeping each occurrence's period.
//
// # Running jobs
//
// A [Scheduler] sleeps on its Clock until the next occurrence, claims the
// period in its Ledger, runs the job with a heartbeat and records the
// outcome. [Simulate] runs the same Scheduler on a fake clock across both
// transitions; dstsafetest's Require* helpers check the runs it returns.
// Log messages are constant strings ("run start", "run finish", "run
// already claimed"); the job, period and outcome are attributes.
// [Scheduler.Update] and [Scheduler.Remove] change jobs while it runs. A
// schedule edited between deploys, or by Update, never runs a period
// retroactively: missed periods are counted under the schedule that was
// in force (see [CatchUpPolicy]). The cost of a fire is O(log N) in the
// number of jobs, and ledger I/O never runs on the loop goroutine.
//
// # One job, one identity
//
// A job's name is its identity in the ledger, wherever it runs: an
// in-process Scheduler, a replica, `dstsafe exec` in a Kubernetes CronJob.
// On a [JobRegistry] ledger (every ledger of this module) the Scheduler
// registers each job on Run, Add and Update: its schedule's fingerprint,
// spec, period key kind, zone and zone data. Another schedule under a
// registered name is an error naming both (a [*JobConflictError], wrapping
// [ErrJobConflict]), never a silent change that would key a day twice:
// a restart with an edited schedule fails until the name is taken over
// explicitly, by [Scheduler.Update] or [WithTakeOver]. `dstsafe exec` and
// `dstsafe ledger audit` read the registered schedule and key, so a job
// moves between them and keeps its periods.
//
// # A period's states
//
// Every due period ends in one recorded outcome: succeeded, skipped on
// purpose, or missed, reported once. The Scheduler reconciles rather than
// remembers: each pass of a job compares the periods of its recovery
// window ([WithRecoveryWindow]) with the ledger's records and acts by
// [CheckPeriods], the classification [Scheduler.Describe] and `dstsafe
// ledger audit` show:
//
//	due ──claim──▶ running ──Finish──▶ succeeded | failed
//	 │                │
//	 │ pause,         └─lease ends─▶ abandoned
//	 │ catch-up,                       │
//	 ▼ overlap         failed/abandoned ├─RetryPolicy allows─▶ running (attempt n+1, any replica)
//	skipped                            ├─operator release───▶ running (within a wake interval)
//	                                   └─otherwise──────────▶ AtRisk, then Missed (once across replicas)
//
// The path of one period through a Scheduler is a sequence of stages, each
// in its own file: expected (stage_expect.go), reconciled
// (stage_reconcile.go), decided (stage_decide.go), claimed
// (stage_claim.go), run (stage_run.go), recorded (stage_record.go),
// reported (stage_report.go); period.go runs them in order. docs/scheduler.md
// draws the states with who performs each transition.
//
// # Operating jobs
//
// Every period has a ledger record, so what operators decide about a job
// lives in the ledger too, and every replica sharing it obeys. The period
// key stays the schedule's nominal one whatever happens.
// [Scheduler.Pause] and [Scheduler.Resume] pause a job durably and
// cluster-wide (on a [ControlLedger]): each period due while it is paused,
// both readings of a fold included, is recorded as skipped ("paused"), and
// a resumed job goes on from the instant of the Resume with no burst,
// under every catch-up policy; [WithPauseOnFailure] pauses it after n
// consecutive failed periods. [Scheduler.Backfill] runs the periods of a
// range that have no succeeded record (none, failed or abandoned; skipped
// ones are final), through the same claim, lease and fencing path, so a
// second backfill of runs that succeeded runs nothing. [WithJitter] delays each start
// by a hash of (job, period), below the schedule's shortest interval,
// which the transitions shorten. [WithBounds] and [WithMaxRuns] limit a
// job to a window and to n succeeded periods, the count kept in the
// ledger by run slots. [OverlapCancelRunning] and [OverlapBufferOne] join
// the overlap policies. [Scheduler.Describe] lists the next occurrences
// with their Kind and Period, the latest record and the pause state, and
// an [Observer] set with [WithObserver] sees every event of every period.
//
// # Nil arguments
//
// One rule in every package of the module. A nil where the default is
// harmless is ignored, as if the option were not given: WithClock(nil)
// (the real clock), WithLogger(nil) (slog.Default()), WithObserver(nil)
// (none), an empty WithOwner, a nil option function. A nil where the
// default would silently change what runs is an error from Add, Update
// and Run naming the option (an *ArgError wrapping ErrInvalidArgument):
// WithLedger(nil) (a silent MemoryLedger would forget every period at a
// restart), WithCatchUp(nil). A typed nil (a nil *sqlledger.Ledger or
// *clockwork.FakeClock in the interface) would panic on a scheduler
// goroutine, so it is an error for every option. Nothing panics. A nil *time.Location is
// never a default, since the zone decides what a fold or a gap is: a
// function that returns an error returns a typed one naming the argument
// and wrapping [ErrInvalidArgument] ([ParseCron] a *ParseError for
// WithLocation(nil), [Scheduler.Add] a *JobError for
// WithRunDateLocation(nil), [Resolve] an *ArgError); one that cannot
// ([Lookup], [Transitions], [DateOf]) panics with a message naming itself,
// as only a programming error gets there.
//
// # Time
//
// Library code never calls time.Now or time.Sleep. Instants are parameters
// ([Cron.Next] takes the instant to start from), and whatever has to wait
// uses a [Clock], which a *clockwork.FakeClock satisfies, so tests walk a
// fake clock across both transitions.
package dstsafe

// Package dstsafevet holds go/analysis analyzers that turn the dstsafe
// postmortem's prevention checklist into vet checks, for code review and CI:
//
//   - [WallClock] ("wallclock"): deciding a job is due by matching the local
//     hour of the current time against a setting (now.Hour() == 1 &&
//     now.Minute() == 30, nowLocal.Hour() == hm[0], now.Format("15:04") ==
//     cfg.At, jobs[now.Format("15:04")], slices.Contains(hours, now.Hour())).
//     The reading repeats when the clocks go back and never happens when
//     they go forward. A constant hour read in a known zone is reported
//     only if the zone's transitions touch it, and the message names them.
//   - [ElapsedGuard] ("elapsedguard"): suppressing a rerun of a job that is
//     due by the wall clock or calendar with an elapsed-time guard
//     (time.Since(lastRun) < 10*time.Minute, now.Sub(lastStart[job]) < d,
//     now.Before(last.Add(d))). A repeated local hour is 60 real minutes
//     later, so the guard lets the job run again. "Due" is an equality
//     match, an hour window whose edge is in 00:00-04:00 or a setting
//     (now.Hour() >= 1, h > 0 && h < 3, now.Hour()*60+now.Minute() >= 90),
//     or a wall predicate of another package (clockutil.IsBillingTime(now)).
//     Plain interval loops are left alone: elapsed time is right for them.
//   - [LocalDate] ("localdate"): time.Date used as a schedule instant at a
//     wall time its zone skips or repeats (time.Date picks an unspecified
//     offset then): named with the date and what time.Date gives when the
//     zone is known, reported at 00:00-03:59 or an hour set at run time when
//     it is not; time.ParseInLocation of a date and a wall time used so; a business date taken from the current time in a
//     local zone (now.In(loc).Date(), Format("2006-01-02"),
//     dstsafe.DateOf(now, loc)); Truncate(24*time.Hour) and Add(24*time.Hour)
//     on a local time; a dedup key of the local date kept for 24 hours
//     (SetNX(ctx, key, 1, 24*time.Hour), a key from local.Year() and
//     local.YearDay() with const dedupTTL = 86400 * time.Second, a
//     configuration field or a separate Expire): local days last 23 or 25
//     hours.
//   - [CronSpec] ("cronspec"): cron specs passed to robfig/cron or gocron
//     without a zone, or with a zone (a CRON_TZ= prefix, cron.WithLocation,
//     gocron.WithLocation, gocron v1 NewScheduler(loc)) and a fixed time
//     inside one of the zone's transition windows, whether written at the
//     call or in a configuration table; gocron's at-time jobs
//     (DailyJob(1, NewAtTimes(NewAtTime(1, 30, 0))), v1 Every(1).Day().At
//     ("01:30"), Every(1).Monday().At("00:30")) likewise, on the days they
//     run. When the zone cannot be named here (time.Local, a location from
//     configuration), a fixed time at 00:00-03:59 is reported. dstsafe.ParseCron's own zoned specs are not: the dstsafe
//     Scheduler resolves folds and gaps.
//
// Each diagnostic states the risk in one sentence and names the fix.
//
// # The zone's real rules
//
// Where the zone is known (a literal, a constant, a variable assigned one),
// the transitions come from the tz database at analysis time, for three
// years from the day of the run, and only a wall time a transition skips
// or repeats on a day the job runs is reported, with the date, what
// happens and by how much: "00:00 does not exist on 2026-09-06 (00:00-01:00
// skipped)" for @daily in America/Santiago, never "runs twice" there (its
// April fall-back repeats 23:00-24:00 of the Saturday); nothing for
// midnight in Europe/Berlin or 09:00 in America/Chicago; nothing for a
// Monday 00:30 job in America/Havana, whose transitions are on Sundays.
// UTC by any name (time.UTC, LoadLocation("UTC"), "Etc/UTC", "Etc/GMT",
// "Zulu", FixedZone(name, 0)) is UTC: nothing is reported in it.
// CronSpec offers a suggested fix (prefix CRON_TZ=UTC) where the spec is a
// string literal.
//
// # The current time, whatever its name
//
// The analyzers share [NowFlow], which finds every expression holding the
// current instant: time.Now(), a Clock's Now(), a ticker's tick, and what
// they flow into, to a fixed point: variables, struct fields, map and
// slice elements, parameters (a parameter that receives the current time
// at any call site of the package holds it in the callee, whatever its
// name: tick(nowLocal time.Time) called as tick(time.Now().In(chicago))),
// function literals and function values, results of functions. Functions,
// package variables and fields of one package that yield the current time
// carry an analysis fact into the packages that import it. A parameter
// named now is the current time by convention.
//
// # Scope
//
// Test files (_test.go) are skipped by default: tests exist to build
// schedules that straddle transitions on purpose. Each analyzer has a
// -NAME.tests flag to include them. Generated files (a "// Code generated
// ... DO NOT EDIT." line before the package clause) are skipped too: the
// fix belongs in the generator. Each analyzer has a -NAME.generated flag to
// include them. The flags are read from the analyzer that runs, so a
// driver that runs copies of the analyzers (the golangci-lint plugin) is
// honoured.
//
// A line that does something on purpose (a replay of the incident, say) is
// silenced by a comment on that line or the line above:
//
//	//dstsafevet:ignore replays the 2024-11-03 incident
//
// # Measured
//
// testdata/src/corpus holds 116 positive and 112 negative hand-written cases
// in the shapes of real code (methods, closures, goroutine loops,
// configuration structs, the first postmortem's scheduler and its
// variants, the second one's "midnight tonight" and its dedup key,
// schedulers configured with a zone, at-time builders, the 24-hour step,
// hour windows, parsed run times, helpers in another package; round
// three: zones whose real rules decide, UTC under other names, date keys
// from calendar fields, map tables, weekly and monthly jobs) and 16
// negatives generated from robfig/cron and gocron jobs written as their
// READMEs write them; TestCorpus prints precision and recall per analyzer
// and requires 100% on it. TestDocSnippetsClean and TestExamplesClean run
// the analyzers over every Go snippet of README.md and docs/ and every
// package under examples/: no finding.
//
// # Known misses
//
// The analyzers do not report (false negatives):
//
//   - a time parameter that is not named now and receives the current time
//     only from another package or from tests; a helper of another package
//     that reads the wall clock of its argument through a second helper
//     (facts carry one call: a function that returns the local hour of its
//     time parameter, or a bool matching or ordering it);
//   - the current time passed through an interface method other than a
//     Now() method, reflection, an any, or a channel of a type other than
//     time.Time (a struct field sent on a channel is followed by field);
//   - comparing the hour of the current time with the hour of another
//     computed instant (now.Hour() == next.Hour()), which is a wall-clock
//     match too;
//   - matches on the minute alone (now.Minute() == 0): an hourly job that
//     follows real time, except in zones whose transitions shift by 30
//     minutes (Australia/Lord_Howe), where it loses a run in the gap;
//   - hour windows without an elapsed-time guard (now.Hour() >= cfg.Hour
//     && !ranToday), and windows whose constant edges are all outside
//     00:00-04:00 (business hours);
//   - an elapsed-time guard more than one call away from the wall-clock
//     match (the predicate that matches, or the function the matching
//     function calls, is followed; deeper chains are not), or on a mark
//     whose name reads as liveness (heartbeat, lease, seen, ping, ...);
//   - business dates from the machine's zone (time.Now().Format
//     ("2006-01-02") without In: dstsafe check keeps TZ at UTC), from
//     Day() alone (as a business date; a dedup key of calendar fields
//     with a day's TTL is reported), or from a recorded instant (the date
//     of s.lastRun);
//   - cron specs built at run time (fmt.Sprintf, os.Getenv, a file:
//     dstsafe check reads deployment files), or set in another package's
//     configuration table; a time to live computed at run time.
//
// They may report (false positives):
//
//   - a struct field is followed per field, not per value: a field set
//     from the current time in one place holds it everywhere in the
//     package;
//   - an elapsed-time check that is not a run guard in a function that
//     also matches the local hour (an alert on a stale last success in the
//     same function as a daily 09:00 report);
//   - a local date of the current time used as a key where that is meant
//     (a log file named by the local day);
//   - an unknown zone's 00:00-03:59 rule reports a zone that happens to
//     have no DST.
//
// # Running
//
//	go install github.com/dstsafe/dstsafe/cmd/dstsafe-vet
//	go vet -vettool=$(which dstsafe-vet) ./...
//	dstsafe-vet ./...            # standalone, same analyzers
//
// For golangci-lint v2, package [github.com/dstsafe/dstsafe/cmd/golangci]
// is a module plugin.
package dstsafevet

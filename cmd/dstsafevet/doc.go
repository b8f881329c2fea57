// Package dstsafevet holds go/analysis analyzers that turn the dstsafe
// postmortem's prevention checklist into vet checks, for code review and CI:
//
//   - [WallClock] ("wallclock"): deciding a job is due by comparing the
//     local hour and minute of the current time to constants or settings
//     (now.Hour() == 1 && now.Minute() == 30, now.Hour() == cfg.At[0]). The reading repeats when the
//     clocks go back and never happens when they go forward.
//   - [ElapsedGuard] ("elapsedguard"): suppressing a rerun of a job that is
//     due by the wall clock or calendar with an elapsed-time guard
//     (time.Since(lastRun) < 10*time.Minute). A repeated local hour is 60
//     real minutes later, so the guard lets the job run again. Plain
//     interval loops are left alone: elapsed time is right for them.
//   - [LocalDate] ("localdate"): time.Date with a zone other than UTC whose
//     result is used as a schedule instant (time.Until, a comparison with now,
//     the return value of a Next method). time.Date picks an unspecified
//     offset for a skipped or repeated wall time.
//   - [CronSpec] ("cronspec"): cron spec literals passed to dstsafe.ParseCron,
//     robfig/cron or gocron without a zone prefix, or with a zone and a
//     fixed time inside one of the zone's transition windows.
//
// Each diagnostic states the risk in one sentence and names the fix.
// CronSpec offers a suggested fix (prefix CRON_TZ=UTC) where the spec is a
// string literal.
//
// # Scope
//
// Test files (_test.go) are skipped by default: tests exist to build
// schedules that straddle transitions on purpose. Each analyzer has a
// -NAME.tests flag to include them.
//
// A line that does something on purpose (a replay of the incident, say) is
// silenced by a comment on that line or the line above:
//
//	//dstsafevet:ignore replays the 2024-11-03 incident
//
// # Running
//
//	go install github.com/dstsafe/dstsafe/cmd/dstsafe-vet
//	go vet -vettool=$(which dstsafe-vet) ./...
//	dstsafe-vet ./...            # standalone, same analyzers
package dstsafevet

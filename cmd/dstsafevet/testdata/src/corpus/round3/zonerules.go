// Package round3 holds the round-three corpus (issue 30): time.Date and
// schedulers in zones whose real rules decide whether a wall time is at
// risk, UTC under its other names, dedup keys from any calendar field,
// cron specs from map tables, and a predicate of another package.
package round3

import (
	"context"
	"log"
	"time"

	"corpus/round3/timeutil"
)

func settle(context.Context) error { return nil }

//corpus:case berlin-next-midnight
// "Next midnight" in Berlin: Berlin changes its clocks at 02:00 and 03:00,
// never at midnight, so the midnight time.Date builds always exists once.

var berlin, _ = time.LoadLocation("Europe/Berlin")

func RunAtBerlinMidnight(ctx context.Context) {
	for {
		now := time.Now().In(berlin)
		y, m, d := now.Date()
		next := time.Date(y, m, d+1, 0, 0, 0, 0, berlin)
		select {
		case <-ctx.Done():
			return
		case <-time.After(time.Until(next)):
			_ = settle(ctx)
		}
	}
}

//corpus:case santiago-next-midnight
// The same loop in Santiago, where the clocks skip midnight in September:
// time.Date resolves the missing 00:00 to 23:00 the day before, and the
// loop fires again and again until 01:00.

const santiagoZone = "America/Santiago"

func RunAtSantiagoMidnight(ctx context.Context) error {
	loc, err := time.LoadLocation(santiagoZone)
	if err != nil {
		return err
	}
	for {
		now := time.Now().In(loc)
		y, m, d := now.Date()
		next := time.Date(y, m, d+1, 0, 0, 0, 0, loc) // want `localdate: time.Date\(.*00:00.*America/Santiago.*2026-09-06.*23:00 on 2026-09-05`
		timer := time.NewTimer(time.Until(next))
		select {
		case <-ctx.Done():
			timer.Stop()
			return nil
		case <-timer.C:
			_ = settle(ctx)
		}
	}
}

//corpus:case chicago-morning-report
// 09:00 in Chicago is never skipped or repeated.

func NextMorningReport(now time.Time) time.Time {
	chicago, _ := time.LoadLocation("America/Chicago")
	local := now.In(chicago)
	at := time.Date(local.Year(), local.Month(), local.Day(), 9, 0, 0, 0, chicago)
	if !at.After(now) {
		at = time.Date(local.Year(), local.Month(), local.Day()+1, 9, 0, 0, 0, chicago)
	}
	return at
}

//corpus:case chicago-settlement-0130
// 01:30 in Chicago happens twice on the first Sunday of November.

func NextSettlement(now time.Time) time.Time {
	chicago, _ := time.LoadLocation("America/Chicago")
	local := now.In(chicago)
	return time.Date(local.Year(), local.Month(), local.Day()+1, 1, 30, 0, 0, chicago) // want `localdate: .*01:30.*America/Chicago.*occurs twice on 2026-11-01`
}

//corpus:case machine-zone-0230
// time.Local at 02:30: the zone is the machine's, and 02:30 is when North
// America and Europe change their clocks.

func NextCompaction(now time.Time) time.Time {
	local := now.Local()
	return time.Date(local.Year(), local.Month(), local.Day()+1, 2, 30, 0, 0, time.Local) // want `localdate: .*zone this check cannot name`
}

//corpus:case config-zone-1015
// A zone from configuration at 10:15: no zone changes its clocks then.

type ReportConfig struct {
	Zone *time.Location
}

func NextDigest(cfg ReportConfig, now time.Time) time.Time {
	local := now.In(cfg.Zone)
	return time.Date(local.Year(), local.Month(), local.Day()+1, 10, 15, 0, 0, cfg.Zone)
}

//corpus:case utc-loaded-by-name
// UTC loaded by name is still UTC: no wall time repeats.

func UTCSweep(ctx context.Context) error {
	utc, err := time.LoadLocation("UTC")
	if err != nil {
		return err
	}
	for tick := range time.Tick(time.Minute) {
		now := tick.In(utc)
		if now.Hour() == 1 && now.Minute() == 30 {
			_ = settle(ctx)
		}
		midnight := time.Date(now.Year(), now.Month(), now.Day()+1, 0, 0, 0, 0, utc)
		log.Printf("next sweep window closes in %s", time.Until(midnight))
		if now.Before(midnight) {
			continue
		}
	}
	return nil
}

//corpus:case etc-utc-zulu
// Etc/UTC and Zulu, as containers and Java ports spell UTC.

var (
	etcUTC, _ = time.LoadLocation("Etc/UTC")
	zulu, _   = time.LoadLocation("Zulu")
)

func NextExport(now time.Time) time.Time {
	n := now.In(etcUTC)
	return time.Date(n.Year(), n.Month(), n.Day()+1, 1, 30, 0, 0, zulu)
}

func DueExport(now time.Time) bool {
	n := now.In(etcUTC)
	return n.Hour() == 2 && n.Minute() == 0
}

//corpus:case fixed-zone-named-utc
// time.FixedZone("UTC", 0) from a port of Python code.

var utcZone = time.FixedZone("UTC", 0)

func NextPurge(now time.Time) time.Time {
	n := now.In(utcZone)
	return time.Date(n.Year(), n.Month(), n.Day()+1, 2, 30, 0, 0, utcZone)
}

//corpus:case timeutil-isat-local
// A predicate of another package called with the local time.

func PollSettlement(ctx context.Context, loc *time.Location) {
	ticker := time.NewTicker(20 * time.Second)
	defer ticker.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case t := <-ticker.C:
			if timeutil.IsAt(t.In(loc), 1, 30) { // want `wallclock:`
				_ = settle(ctx)
			}
		}
	}
}

//corpus:case timeutil-isat-utc
// The same predicate on the UTC reading.

func PollSettlementUTC(ctx context.Context) {
	ticker := time.NewTicker(20 * time.Second)
	defer ticker.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case t := <-ticker.C:
			if timeutil.IsAt(t.UTC(), 1, 30) {
				_ = settle(ctx)
			}
		}
	}
}

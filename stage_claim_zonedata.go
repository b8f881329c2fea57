package dstsafe

import (
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/dstsafe/dstsafe/event"
)

// errZoneData: a period was recorded in the ledger by a replica whose
// zone data (tz database) differs from this one's for the same schedule,
// so the two may disagree about the period's instant. The error says
// both zone data ids, this replica's instant and the instant the record
// was claimed at (Event.Err of event.ZoneData, Description.ZoneData).
var errZoneData = errors.New("dstsafe: zone data differs from the ledger's record")

// The zone data rule (docs/replicas-tzdata.md). Replicas deployed with
// different tz databases compute a period's instant from different rules
// (Mexico abolished DST in tzdata 2022f: a 01:30 job in Mexico City is at
// 06:30Z by the old rules and at 07:30Z by the new ones all summer). The
// period key is the wall reading or the date, which no rule change
// alters, so the ledger still holds each period once: the first replica
// to reach it claims it, at the instant its own rules give, and the
// others find it claimed. No period runs twice, and none is lost while
// any replica runs. What a replica cannot know is the instant its peer's
// rules give (the record names the peer's zone data by id, not by
// content), so it never refuses or re-runs a period for it: it reports,
// every time it meets a period recorded under other zone data, with its
// own instant and the instant the record was claimed at (event.ZoneData,
// a warning in the log, and Description.ZoneData), so that an operator
// sees a mixed fleet and which periods moved; `dstsafe tzdiff` lists the
// periods two tz trees move before a deploy.

// zoneDataOf returns the zone data id in fingerprint fp ("" when it
// carries none: a plain Schedule's).
func zoneDataOf(fp string) string {
	if f, ok := fingerprintFields(fp); ok {
		return f[2]
	}
	if strings.HasPrefix(fp, fingerprintVersion+"#") {
		if _, id, ok := strings.Cut(fp, ";"); ok {
			return id
		}
	}
	return ""
}

// zoneDataDiffers returns an error wrapping errZoneData when rec was
// claimed under schedule fingerprint mine with other zone data; nil
// otherwise (the same data, another schedule, no fingerprint). due is
// this replica's instant for rec's period (zero: not computed).
func zoneDataDiffers(job string, rec Record, mine string, due time.Time) error {
	if rec.Schedule == "" || mine == "" || rec.Schedule == mine || !sameSchedule(rec.Schedule, mine) {
		return nil
	}
	theirs, ours := zoneDataOf(rec.Schedule), zoneDataOf(mine)
	if theirs == ours {
		return nil
	}
	msg := fmt.Sprintf("job %q period %q: recorded by %s under zone data %s, claimed at %s; this replica's zone data is %s",
		job, rec.Period, rec.Owner, theirs, rec.StartedAt.UTC().Format(time.RFC3339), ours)
	if !due.IsZero() {
		msg += fmt.Sprintf(", by which the period is due at %s (%+v from the claim)", due.UTC().Format(time.RFC3339), due.Sub(rec.StartedAt))
	}
	return fmt.Errorf("%w: %s", errZoneData, msg)
}

// zoneDataMet reports a period this replica found claimed (rec) under
// other zone data: a warning and event.ZoneData. It never changes what
// the replica does with the period.
func (s *Scheduler) zoneDataMet(j *job, t task, rec Record) {
	err := zoneDataDiffers(j.name, rec, t.spec.fp(), t.o.At)
	if err == nil {
		return
	}
	s.log.Warn("run recorded under other zone data", "job", j.name, "period", t.o.Period, "due", t.o.At,
		"owner", rec.Owner, "started", rec.StartedAt, "zone_data", zoneDataOf(t.spec.fp()),
		"recorded_zone_data", zoneDataOf(rec.Schedule))
	if !s.observed() {
		return
	}
	e := s.taskEvent(event.ZoneData, j.name, t)
	e.Attempt, e.Err = rec.Attempt, err
	r := rec
	e.Recorded = &r
	s.emit(e)
}

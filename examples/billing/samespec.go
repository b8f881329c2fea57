package main

import (
	"context"
	"fmt"
	"time"

	"github.com/jonboulle/clockwork"

	"github.com/dstsafe/dstsafe"
)

// SameSpecOutcome is the naive worker's own schedule, 01:30 local time,
// under the dstsafe Scheduler: the headline fix on its own, without moving
// the job to UTC. On the fall-back night it fires once, at the first 01:30.
type SameSpecOutcome struct {
	Spec  string         `json:"spec"`
	Fires []SameSpecFire `json:"fires"`
}

// SameSpecFire is one fire of the same-spec job.
type SameSpecFire struct {
	Due    time.Time `json:"due"`
	Period string    `json:"period"`
	Kind   string    `json:"kind"`
}

// replaySameSpec runs "CRON_TZ=<zone> 30 1 * * *" (the 01:30 the naive
// worker matches) through a dstsafe Scheduler on a fake clock from local
// midnight to the next, with a memory ledger, and lists its fires.
func replaySameSpec(ctx context.Context, cfg config, start, end time.Time) (SameSpecOutcome, error) {
	o := SameSpecOutcome{Spec: fmt.Sprintf("CRON_TZ=%s 30 1 * * *", cfg.Zone)}
	sched, err := dstsafe.ParseCron("30 1 * * *", dstsafe.WithLocation(cfg.Zone))
	if err != nil {
		return o, err
	}
	s := dstsafe.NewScheduler(dstsafe.WithClock(clockwork.NewFakeClockAt(start)))
	if err := s.Add("billing-0130", sched, func(context.Context, dstsafe.Run) error { return nil }); err != nil {
		return o, err
	}
	fires, err := dstsafe.Simulate(ctx, s, end.Sub(start))
	if err != nil {
		return o, err
	}
	for _, f := range fires {
		if f.Err != nil {
			return o, fmt.Errorf("same-spec run %s: %w", f.Period, f.Err)
		}
		o.Fires = append(o.Fires, SameSpecFire{Due: f.Due, Period: f.Period, Kind: f.Kind.String()})
	}
	return o, nil
}

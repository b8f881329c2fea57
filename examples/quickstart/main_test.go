package main

import (
	"context"
	"testing"
	"time"

	"github.com/jonboulle/clockwork"

	"github.com/dstsafe/dstsafe"
	"github.com/dstsafe/dstsafe/dstsafetest"
)

// All of 2024 on a fake clock, in a second: each zone's job bills once per
// local day, across Chicago's and London's folds and London's gap.
func TestBillingOncePerLocalDay(t *testing.T) {
	clock := clockwork.NewFakeClockAt(time.Date(2024, 1, 1, 0, 0, 0, 0, time.UTC))
	s := dstsafe.NewScheduler(dstsafe.WithClock(clock))
	nop := func(context.Context, string, dstsafe.Run) error { return nil }
	if err := addBillingJobs(s, nop); err != nil {
		t.Fatal(err)
	}
	fires, err := dstsafe.Simulate(context.Background(), s, 366*24*time.Hour)
	if err != nil {
		t.Fatal(err)
	}
	dstsafetest.RequireNoFireErrors(t, fires)
	dstsafetest.RequireFireCount(t, fires, 4*366) // 2024 has 366 days
	dstsafetest.RequireOncePerLocalDay(t, fires)

	// 2024-11-03 in Chicago: 01:30 happens twice; billed once, at 01:30 CDT.
	dstsafetest.RequireFiresAt(t, day(fires, "billing/America/Chicago", "2024-11-03"),
		time.Date(2024, 11, 3, 6, 30, 0, 0, time.UTC))
	// 2024-03-31 in London: 01:30 never happens; billed once, at 02:30 BST.
	dstsafetest.RequireFiresAt(t, day(fires, "billing/Europe/London", "2024-03-31"),
		time.Date(2024, 3, 31, 1, 30, 0, 0, time.UTC))
}

// day returns the fires of job for the local date period.
func day(fires []dstsafe.Fire, job, period string) []dstsafe.Fire {
	var out []dstsafe.Fire
	for _, f := range fires {
		if f.Job == job && f.Period == period {
			out = append(out, f)
		}
	}
	return out
}

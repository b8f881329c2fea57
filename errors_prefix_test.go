package dstsafe_test

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/jonboulle/clockwork"

	"github.com/dstsafe/dstsafe"
	"github.com/dstsafe/dstsafe/dstsafetest"
)

// Every error says "dstsafe: " once, at the start, however many dstsafe
// errors it wraps: the old message for Add("") was
// `dstsafe: job "": dstsafe: invalid job name: dstsafe: invalid ledger key: job "": empty`.
func TestErrorsPrefixedOnce(t *testing.T) {
	ctx := context.Background()
	chicago := dstsafetest.Zone(t, "America/Chicago")
	start := time.Date(2024, 11, 2, 12, 0, 0, 0, time.UTC)
	daily, err := dstsafe.ParseCron("30 1 * * *", dstsafe.WithLocation(chicago))
	if err != nil {
		t.Fatal(err)
	}
	nop := func(context.Context, dstsafe.Run) error { return nil }
	newSched := func() *dstsafe.Scheduler {
		s := dstsafe.NewScheduler(dstsafe.WithClock(clockwork.NewFakeClockAt(start)))
		if err := s.Add("billing", daily, nop); err != nil {
			t.Fatal(err)
		}
		return s
	}
	ledger := dstsafe.NewMemoryLedger(clockwork.NewFakeClockAt(start))

	tests := []struct {
		name string
		err  func() error
	}{
		{"Add: empty job name", func() error { return newSched().Add("", daily, nop) }},
		{"Add: NUL in job name", func() error { return newSched().Add("a\x00b", daily, nop) }},
		{"Add: over-long job name", func() error { return newSched().Add(strings.Repeat("j", 2000), daily, nop) }},
		{"Add: duplicate job", func() error { return newSched().Add("billing", daily, nop) }},
		{"Add: nil schedule", func() error { return newSched().Add("x", nil, nop) }},
		{"Add: nil func", func() error { return newSched().Add("x", daily, nil) }},
		{"Add: max runs over a long name", func() error {
			return newSched().Add(strings.Repeat("j", 1020), daily, nop, dstsafe.WithMaxRuns(2))
		}},
		{"Add: negative jitter", func() error { return newSched().Add("x", daily, nop, dstsafe.WithJitter(-time.Second)) }},
		{"Add: jitter too long", func() error { return newSched().Add("x", daily, nop, dstsafe.WithJitter(48*time.Hour)) }},
		{"Add: negative max runs", func() error { return newSched().Add("x", daily, nop, dstsafe.WithMaxRuns(-1)) }},
		{"Add: reversed bounds", func() error {
			return newSched().Add("x", daily, nop, dstsafe.WithBounds(start, start.Add(-time.Hour)))
		}},
		{"Add: nil run date location", func() error { return newSched().Add("x", daily, nop, dstsafe.WithRunDateLocation(nil)) }},
		{"Add: unknown overlap", func() error { return newSched().Add("x", daily, nop, dstsafe.WithOverlap(dstsafe.Overlap(99))) }},
		{"Update: unknown job", func() error { return newSched().Update("nope", daily) }},
		{"Remove: unknown job", func() error { return newSched().Remove("nope") }},
		{"RunNow: unknown period", func() error { return newSched().RunNow(ctx, "billing", "2024-11-03T02:30:00") }},
		{"RunNow: unknown job", func() error { return newSched().RunNow(ctx, "nope", "2024-11-03T01:30:00") }},
		{"Backfill: reversed range", func() error {
			_, err := newSched().Backfill(ctx, "billing", start, start.Add(-time.Hour), nil)
			return err
		}},
		{"Describe: unknown job", func() error { _, err := newSched().Describe(ctx, "nope", 1); return err }},
		{"Simulate: real clock", func() error {
			_, err := dstsafe.Simulate(ctx, dstsafe.NewScheduler(), time.Hour)
			return err
		}},
		{"Simulate: negative duration", func() error { _, err := dstsafe.Simulate(ctx, newSched(), -time.Hour); return err }},
		{"ParseCron: bad zone", func() error { _, err := dstsafe.ParseCron("CRON_TZ=America/Chicgo 30 1 * * *"); return err }},
		{"ParseCron: nil location", func() error { _, err := dstsafe.ParseCron("30 1 * * *", dstsafe.WithLocation(nil)); return err }},
		{"ParseRRule: bad TZID", func() error {
			_, err := dstsafe.ParseRRule("DTSTART;TZID=Mars/Base:20240101T000000\nRRULE:FREQ=DAILY")
			return err
		}},
		{"Resolve: bad wall", func() error {
			_, err := dstsafe.Resolve(dstsafe.Wall{Year: 2024, Month: 2, Day: 30}, chicago, dstsafe.Compatible)
			return err
		}},
		{"Resolve: nil location", func() error {
			_, err := dstsafe.Resolve(dstsafe.Wall{Year: 2024, Month: 2, Day: 3}, nil, dstsafe.Compatible)
			return err
		}},
		{"Resolve: unknown disambiguation", func() error {
			_, err := dstsafe.Resolve(dstsafe.Wall{Year: 2024, Month: 2, Day: 3}, chicago, dstsafe.Disambiguation(9))
			return err
		}},
		{"Resolve: reject in a fold", func() error {
			_, err := dstsafe.Resolve(dstsafe.Wall{Year: 2024, Month: 11, Day: 3, Hour: 1, Minute: 30}, chicago, dstsafe.Reject)
			return err
		}},
		{"ParseWall", func() error { _, err := dstsafe.ParseWall("2024-13-01T00:00"); return err }},
		{"ParseDate", func() error { _, err := dstsafe.ParseDate("2024-02-30"); return err }},
		{"Claim: empty job", func() error {
			_, err := ledger.Claim(ctx, dstsafe.ClaimRequest{Period: "p", Owner: "o"})
			return err
		}},
		{"Claim: negative lease", func() error {
			_, err := ledger.Claim(ctx, dstsafe.ClaimRequest{Job: "j", Period: "p", Owner: "o", Lease: -time.Second})
			return err
		}},
		{"Claim: twice", func() error {
			req := dstsafe.ClaimRequest{Job: "twice", Period: "p", Owner: "o"}
			if _, err := ledger.Claim(ctx, req); err != nil {
				return err
			}
			_, err := ledger.Claim(ctx, req)
			return err
		}},
		{"Heartbeat: not found", func() error {
			_, err := ledger.Heartbeat(ctx, "j", "none", 1, time.Minute)
			return err
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			err := tt.err()
			if err == nil {
				t.Fatal("no error")
			}
			msg := err.Error()
			if !strings.HasPrefix(msg, "dstsafe: ") || strings.Count(msg, "dstsafe:") != 1 {
				t.Errorf("want one \"dstsafe: \" prefix, at the start:\n%s", msg)
			}
		})
	}
	// The message of the issue, whole.
	err = newSched().Add("", daily, nop)
	if !errors.Is(err, dstsafe.ErrInvalidArgument) {
		t.Errorf("Add(\"\") = %v; want ErrInvalidArgument", err)
	}
	if want := `dstsafe: job "": invalid job name: invalid ledger key: job "": empty`; err.Error() != want {
		t.Errorf("Add(\"\"):\n got %s\nwant %s", err, want)
	}
}

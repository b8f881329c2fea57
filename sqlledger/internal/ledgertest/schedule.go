package ledgertest

import (
	"context"
	"fmt"
	"log/slog"
	"testing"
	"time"

	"github.com/jonboulle/clockwork"

	"github.com/dstsafe/dstsafe"
	"github.com/dstsafe/dstsafe/dstsafetest"
	"github.com/dstsafe/dstsafe/sqlledger"
)

// The kubernetes#63371 case (the root package's
// TestEditBetweenDeploysNeverRunsRetroactively, there on a MemoryLedger)
// on this dialect, each deploy a new process with a new Ledger on the
// same database: "0 23 * * *" (UTC) ran at 2024-05-01T23:00Z, was edited
// to "0 5 * * *" and restarted at 2024-05-02T08:00Z. The Scheduler tells
// the edit from the schedule fingerprint the ledger stored with the last
// claim, so under no catch-up policy does it run the 05:00 period at
// 08:00, nor on a second restart; the next run is 2024-05-03T05:00Z. A
// ledger that dropped the fingerprint makes CatchUpLatest and CatchUpAll
// run 2024-05-02T05:00 at 08:00.
func testEditBetweenDeploys(t *testing.T, b Backend) {
	for _, policy := range []dstsafe.CatchUpPolicy{
		dstsafe.CatchUpLatest{}, dstsafe.CatchUpAll{Window: 7 * 24 * time.Hour}, dstsafe.CatchUpSkip{},
	} {
		t.Run(fmt.Sprintf("%T", policy), func(t *testing.T) {
			ctx := context.Background()
			clock := clockwork.NewFakeClockAt(time.Date(2024, 5, 1, 22, 0, 0, 0, time.UTC))
			tg := b.Fresh(t)
			// deploy starts a process on the database with spec, runs it
			// for d on the fake clock and stops it, ledger closed.
			deploy := func(spec string, d time.Duration) []dstsafe.Fire {
				t.Helper()
				l, err := b.Open(tg, sqlledger.WithClock(clock))
				if err != nil {
					t.Fatalf("open: %v", err)
				}
				defer l.Close()
				if err := l.Migrate(ctx); err != nil {
					t.Fatalf("Migrate: %v", err)
				}
				c, err := dstsafe.ParseCron(spec)
				if err != nil {
					t.Fatal(err)
				}
				s := dstsafe.NewScheduler(dstsafe.WithClock(clock), dstsafe.WithLedger(l), dstsafe.WithLogger(slog.New(slog.DiscardHandler)))
				// Each deploy changes the schedule on purpose: it takes
				// the name over in the ledger's job registry.
				if err := s.Add("report", c, func(context.Context, dstsafe.Run) error { return nil }, dstsafe.WithCatchUp(policy), dstsafe.WithTakeOver()); err != nil {
					t.Fatal(err)
				}
				fires, err := dstsafe.Simulate(ctx, s, d)
				if err != nil {
					t.Fatalf("Simulate: %v", err)
				}
				return fires
			}
			dstsafetest.RequireFiresAt(t, deploy("0 23 * * *", 2*time.Hour), time.Date(2024, 5, 1, 23, 0, 0, 0, time.UTC))

			clock.Advance(8 * time.Hour) // the deploy: 2024-05-02T08:00Z
			for restart := range 2 {
				if fires := deploy("0 5 * * *", time.Hour); len(fires) != 0 {
					t.Fatalf("restart %d ran a period of the edited schedule retroactively: %+v", restart, fires)
				}
				clock.Advance(time.Hour)
			}
			// From 05-02 10:00 on, the new schedule runs on time.
			dstsafetest.RequireFiresAt(t, deploy("0 5 * * *", 24*time.Hour), time.Date(2024, 5, 3, 5, 0, 0, 0, time.UTC))

			l, err := b.Open(tg, sqlledger.WithClock(clock))
			if err != nil {
				t.Fatal(err)
			}
			defer l.Close()
			rec, err := l.Get(ctx, "report", "2024-05-02T05:00:00")
			if err != nil || rec.State != dstsafe.StateSkipped || rec.Reason != "before the schedule took effect" {
				t.Fatalf("2024-05-02T05:00 = %+v, %v; want skipped before the schedule took effect", rec, err)
			}
			if rec.Schedule == "" {
				t.Errorf("the skipped period's record has no schedule fingerprint")
			}
		})
	}
}

package ledgertest

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"testing"
	"time"

	"github.com/jonboulle/clockwork"

	"github.com/dstsafe/dstsafe"
	"github.com/dstsafe/dstsafe/sqlledger"
)

// Replicas, each with its own Ledger on its own *sql.DB (its own
// connections), race to take over the same periods at the same instant:
// periods whose holder crashed (abandoned once the lease is over) and
// periods whose run failed, under a RetryPolicy that allows both. Each
// period goes to exactly one of them, every other claim of it gets
// ErrAlreadyClaimed, and the fencing token goes up by exactly one: the
// takeover's UPDATE only matches the version of the row its claimer read.
func testTakeoverRace(t *testing.T, b Backend) {
	const (
		periods  = 100 // of each kind
		replicas = 4
		workers  = 2 // claiming goroutines per replica
	)
	ctx := context.Background()
	tg := b.Fresh(t)
	tg.Relaxed = true
	// 01:30 CDT on the fall-back night, the first reading.
	clock := clockwork.NewFakeClockAt(time.Date(2024, 11, 3, 6, 30, 0, 0, time.UTC))
	first := b.open(t, tg, sqlledger.WithClock(clock))
	if err := first.Migrate(ctx); err != nil {
		t.Fatal(err)
	}
	var keys []string
	before := map[string]dstsafe.Record{}
	for i := range periods {
		for _, kind := range []string{"abandoned", "failed"} {
			p := fmt.Sprintf("2024-11-03T01:30:00/%s-%02d", kind, i)
			r, err := first.Claim(ctx, dstsafe.ClaimRequest{Job: "settlement", Period: p, Owner: "crashed", Lease: time.Minute})
			if err != nil {
				t.Fatalf("first claim of %s: %v", p, err)
			}
			if kind == "failed" {
				if r, err = first.Finish(ctx, "settlement", p, r.Token, dstsafe.StateFailed, "card processor 503"); err != nil {
					t.Fatalf("fail %s: %v", p, err)
				}
			}
			keys = append(keys, p)
			before[p] = r
		}
	}
	clock.Advance(time.Minute + time.Second) // the running claims' leases are over

	ledgers := make([]*sqlledger.Ledger, replicas)
	for i := range ledgers {
		ledgers[i] = b.open(t, tg, sqlledger.WithClock(clock))
	}
	retry := dstsafe.RetryPolicy{MaxAttempts: 3, Failed: true, Abandoned: true}
	type won struct {
		owner string
		rec   dstsafe.Record
	}
	var (
		mu      sync.Mutex
		winners = map[string][]won{}
		refused int
		errs    []error
		wg      sync.WaitGroup
	)
	// Period by period, every claimer at once, as at a due instant.
	for _, p := range keys {
		gate := make(chan struct{})
		for i, l := range ledgers {
			for w := range workers {
				owner := fmt.Sprintf("replica-%d/%d", i, w)
				wg.Go(func() {
					<-gate
					r, err := l.Claim(ctx, dstsafe.ClaimRequest{Job: "settlement", Period: p, Owner: owner, Lease: time.Minute, Retry: retry})
					mu.Lock()
					defer mu.Unlock()
					switch {
					case err == nil:
						winners[p] = append(winners[p], won{owner, r})
					case errors.Is(err, dstsafe.ErrAlreadyClaimed):
						refused++
					default:
						errs = append(errs, fmt.Errorf("%s claiming %s: %w", owner, p, err))
					}
				})
			}
		}
		close(gate)
		wg.Wait()
	}
	if len(errs) > 0 {
		t.Fatalf("%d errors other than ErrAlreadyClaimed, first: %v", len(errs), errs[0])
	}
	for _, p := range keys {
		ws := winners[p]
		if len(ws) != 1 {
			t.Fatalf("%s taken over %d times, want once: %+v", p, len(ws), ws)
		}
		old, w := before[p], ws[0]
		if w.rec.Token != old.Token+1 || w.rec.Attempt != old.Attempt+1 || w.rec.Owner != w.owner || w.rec.State != dstsafe.StateRunning {
			t.Fatalf("%s: winner %s told %+v; want running, token %d, attempt %d", p, w.owner, w.rec, old.Token+1, old.Attempt+1)
		}
		got, err := first.Get(ctx, "settlement", p)
		if err != nil {
			t.Fatal(err)
		}
		if got.Token != old.Token+1 || got.Attempt != old.Attempt+1 || got.Owner != w.owner {
			t.Fatalf("%s stored %+v after the race; want %s's claim, token %d", p, got, w.owner, old.Token+1)
		}
	}
	if want := len(keys) * (replicas*workers - 1); refused != want {
		t.Fatalf("%d claims refused, want %d", refused, want)
	}
}

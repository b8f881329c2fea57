package ledgertest

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"testing"

	"github.com/jonboulle/clockwork"

	"github.com/dstsafe/dstsafe"
	"github.com/dstsafe/dstsafe/dstsafetest"
	"github.com/dstsafe/dstsafe/sqlledger"
)

// Concurrent claims through one Ledger are committed in groups. Whatever
// the grouping, each claim gets its own answer: takeovers of failed
// periods, new periods claimed twice, and claims whose caller gave up.
func testGroupedClaims(t *testing.T, b Backend) {
	ctx := context.Background()
	l := b.New(t, sqlledger.WithClock(clockwork.NewFakeClockAt(dstsafetest.SuiteStart)))
	const n = 12
	retry := dstsafe.RetryPolicy{MaxAttempts: 2, Failed: true}
	for i := range n {
		r, err := l.Claim(ctx, dstsafe.ClaimRequest{Job: "sync", Period: fmt.Sprintf("failed-%02d", i), Owner: "first"})
		if err != nil {
			t.Fatal(err)
		}
		if _, err := l.Finish(ctx, r.Job, r.Period, r.Token, dstsafe.StateFailed, "timeout"); err != nil {
			t.Fatal(err)
		}
	}
	canceled, cancel := context.WithCancel(ctx)
	cancel()

	type outcome struct {
		kind, period, owner string
		rec                 dstsafe.Record
		err                 error
	}
	var (
		start = make(chan struct{})
		wg    sync.WaitGroup
		mu    sync.Mutex
		outs  []outcome
	)
	claim := func(kind string, c context.Context, req dstsafe.ClaimRequest) {
		wg.Go(func() {
			<-start
			r, err := l.Claim(c, req)
			mu.Lock()
			outs = append(outs, outcome{kind, req.Period, req.Owner, r, err})
			mu.Unlock()
		})
	}
	for i := range n {
		claim("takeover", ctx, dstsafe.ClaimRequest{Job: "sync", Period: fmt.Sprintf("failed-%02d", i), Owner: "retrier", Retry: retry})
		for _, owner := range []string{"a", "b"} { // two replicas, one new period
			claim("new", ctx, dstsafe.ClaimRequest{Job: "sync", Period: fmt.Sprintf("new-%02d", i), Owner: owner})
		}
		claim("canceled", canceled, dstsafe.ClaimRequest{Job: "sync", Period: fmt.Sprintf("gone-%02d", i), Owner: "quitter"})
	}
	close(start)
	wg.Wait()

	winners := map[string]string{}
	for _, o := range outs {
		switch o.kind {
		case "takeover":
			if o.err != nil || o.rec.Attempt != 2 || o.rec.Token != 2 || o.rec.Owner != "retrier" {
				t.Errorf("takeover of %s = %+v, %v; want attempt 2 by retrier", o.period, o.rec, o.err)
			}
		case "new":
			switch {
			case o.err == nil:
				if prev, ok := winners[o.period]; ok {
					t.Errorf("%s won by %s and %s", o.period, prev, o.owner)
				}
				winners[o.period] = o.owner
			case !errors.Is(o.err, dstsafe.ErrAlreadyClaimed):
				t.Errorf("claim of %s by %s: %v", o.period, o.owner, o.err)
			}
		case "canceled":
			if !errors.Is(o.err, context.Canceled) {
				t.Errorf("claim with a canceled context = %+v, %v; want context.Canceled", o.rec, o.err)
			}
			if _, err := l.Get(ctx, "sync", o.period); !errors.Is(err, dstsafe.ErrNotFound) {
				t.Errorf("a canceled claim of %s was stored: %v", o.period, err)
			}
		}
	}
	if len(winners) != n {
		t.Errorf("%d new periods won, want %d", len(winners), n)
	}
	for p, owner := range winners {
		if r, err := l.Get(ctx, "sync", p); err != nil || r.Owner != owner {
			t.Errorf("Get(%s) = %+v, %v; want owner %s", p, r, err, owner)
		}
	}
}

package sqlledger_test

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"testing"
	"time"

	"github.com/jonboulle/clockwork"

	"github.com/dstsafe/dstsafe"
	"github.com/dstsafe/dstsafe/dstsafetest"
	"github.com/dstsafe/dstsafe/sqlledger"
)

// Concurrent claims through one Ledger are committed in groups. Whatever
// the grouping, each claim gets its own answer: takeovers of failed
// periods, new periods claimed twice, and claims whose caller gave up.
func TestGroupedClaims(t *testing.T) {
	dialects := map[string]func(t *testing.T, clock *clockwork.FakeClock) *sqlledger.Ledger{
		"sqlite": func(t *testing.T, clock *clockwork.FakeClock) *sqlledger.Ledger {
			l, _ := openSQLite(t, sqlledger.WithClock(clock))
			return l
		},
		"postgres": func(t *testing.T, clock *clockwork.FakeClock) *sqlledger.Ledger {
			return pgLedger(t, pgDB(t), sqlledger.WithClock(clock))
		},
	}
	for name, newLedger := range dialects {
		t.Run(name, func(t *testing.T) {
			ctx := context.Background()
			l := newLedger(t, clockwork.NewFakeClockAt(dstsafetest.SuiteStart))
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
		})
	}
}

// A claim stuck behind another transaction's row lock holds the group
// lock; a caller queued behind it still gets its context's error when it
// gives up, not a wait as long as the other transaction.
func TestPostgresQueuedClaimHonoursContext(t *testing.T) {
	db := pgDB(t)
	l := pgLedger(t, db)
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	tx, err := db.BeginTx(ctx, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer tx.Rollback()
	if _, err := l.WithTx(tx).Claim(ctx, dstsafe.ClaimRequest{Job: "billing", Period: "2024-11-03", Owner: "tx"}); err != nil {
		t.Fatal(err)
	}
	stuck := make(chan error, 1)
	go func() {
		_, err := l.Claim(ctx, dstsafe.ClaimRequest{Job: "billing", Period: "2024-11-03", Owner: "stuck"})
		stuck <- err
	}()
	waitForLockWait(ctx, t, db, l.Table())

	queued, giveUp := context.WithCancel(ctx)
	res := make(chan error, 1)
	go func() {
		_, err := l.Claim(queued, dstsafe.ClaimRequest{Job: "billing", Period: "2024-11-04", Owner: "queued"})
		res <- err
	}()
	giveUp()
	select {
	case err := <-res:
		if !errors.Is(err, context.Canceled) {
			t.Fatalf("queued claim = %v, want context.Canceled", err)
		}
	case <-time.After(30 * time.Second): // a guard, not a wait: the answer is immediate
		t.Fatal("a queued claim ignored its caller's context")
	}
	if err := tx.Commit(); err != nil {
		t.Fatal(err)
	}
	if err := <-stuck; !errors.Is(err, dstsafe.ErrAlreadyClaimed) {
		t.Fatalf("stuck claim = %v, want ErrAlreadyClaimed once the transaction committed", err)
	}
	if _, err := l.Get(ctx, "billing", "2024-11-04"); !errors.Is(err, dstsafe.ErrNotFound) {
		t.Fatalf("the abandoned claim was stored: %v", err)
	}
}

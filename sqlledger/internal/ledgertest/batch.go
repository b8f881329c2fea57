package ledgertest

import (
	"context"
	"errors"
	"fmt"
	"runtime"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/jonboulle/clockwork"

	"github.com/dstsafe/dstsafe"
	"github.com/dstsafe/dstsafe/internal/testkit"
	"github.com/dstsafe/dstsafe/sqlledger"
	"github.com/dstsafe/dstsafe/sqlledger/internal/config"
)

// Concurrent claims through one Ledger are committed in groups. Whatever
// the grouping, each claim gets its own answer: takeovers of failed
// periods, new periods claimed twice, and claims whose caller gave up.
func testGroupedClaims(t *testing.T, b Backend) {
	ctx := context.Background()
	l := b.New(t, sqlledger.WithClock(clockwork.NewFakeClockAt(testkit.SuiteStart)))
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

// Group commit, counted: the Ledger reports every commit of claims
// (config.OnCommit), and 64 goroutines claiming new periods at once commit
// in a few groups (one flush each), not 64 times. Then 16 goroutines
// claim one period at once, in 20 rounds: one wins each round, and the
// commits are logged (about one a round: the claims that arrive while the
// period is being committed wait for it; late ones ask the database).
func testGroupCommit(t *testing.T, b Backend) {
	var commits, answered atomic.Int64
	count := config.MakeOption(func(c *config.Config) {
		c.OnCommit = func(n int) { commits.Add(1); answered.Add(int64(n)) }
	}).(sqlledger.Option)
	l := b.New(t, count)
	ctx := context.Background()
	together := func(n int, claim func(g int) error) {
		t.Helper()
		var (
			ready atomic.Int32
			wg    sync.WaitGroup
			errs  = make([]error, n)
		)
		for g := range n {
			wg.Go(func() {
				ready.Add(1)
				for i := 1; ready.Load() < int32(n); i++ {
					if i%1024 == 0 {
						runtime.Gosched()
					}
				}
				errs[g] = claim(g)
			})
		}
		wg.Wait()
		for g, err := range errs {
			if err != nil {
				t.Fatalf("claim %d: %v", g, err)
			}
		}
	}

	const distinct = 64
	together(distinct, func(g int) error {
		_, err := l.Claim(ctx, dstsafe.ClaimRequest{Job: "sync", Period: fmt.Sprintf("new-%02d", g), Owner: "w"})
		return err
	})
	t.Logf("%d new periods: %d commits", distinct, commits.Load())
	if c := commits.Load(); c > distinct/4 {
		t.Errorf("%d claims of new periods took %d commits, want at most %d: claims made at once commit in groups", distinct, c, distinct/4)
	}
	if a := answered.Load(); a != distinct {
		t.Errorf("the commits answered %d claims, want %d", a, distinct)
	}

	const goroutines, rounds = 16, 20
	commits.Store(0)
	for round := range rounds {
		period := fmt.Sprintf("hot-%02d", round)
		won := atomic.Int32{}
		together(goroutines, func(g int) error {
			_, err := l.Claim(ctx, dstsafe.ClaimRequest{Job: "sync", Period: period, Owner: fmt.Sprint("replica-", g)})
			if err == nil {
				won.Add(1)
				return nil
			}
			if errors.Is(err, dstsafe.ErrAlreadyClaimed) {
				return nil
			}
			return err
		})
		if won.Load() != 1 {
			t.Fatalf("%s won %d times", period, won.Load())
		}
	}
	t.Logf("%d rounds of %d claims of one period: %d commits", rounds, goroutines, commits.Load())
}

// Claims retried after a lost answer, arriving together and grouped with
// other claims: each retry gets its own attempt back (the group that
// finds its row does not refuse it), the same token, attempt 1; a claim
// of the same periods by another owner, in the same groups, is refused;
// two tries of one claim racing each other both get the one attempt.
func testGroupedClaimRetries(t *testing.T, b Backend) {
	ctx := context.Background()
	l := b.New(t, sqlledger.WithClock(clockwork.NewFakeClockAt(testkit.SuiteStart)))
	const n = 12
	reqs := make([]dstsafe.ClaimRequest, n)
	first := make([]dstsafe.Record, n)
	for i := range n {
		reqs[i] = dstsafe.ClaimRequest{Job: "billing", Period: fmt.Sprintf("2024-11-%02d", i+1), Owner: "billing-1",
			ID: fmt.Sprintf("billing-1/%d", i)}
		r, err := l.Claim(ctx, reqs[i]) // committed; pretend the answer was lost
		if err != nil {
			t.Fatal(err)
		}
		first[i] = r
	}
	type outcome struct {
		i     int
		retry bool
		rec   dstsafe.Record
		err   error
	}
	var (
		start = make(chan struct{})
		wg    sync.WaitGroup
		mu    sync.Mutex
		outs  []outcome
	)
	for i := range n {
		for _, retry := range []bool{true, false} {
			req := reqs[i]
			if !retry {
				req.Owner, req.ID = "billing-2", "billing-2/x"
			}
			wg.Go(func() {
				<-start
				r, err := l.Claim(ctx, req)
				mu.Lock()
				outs = append(outs, outcome{i, retry, r, err})
				mu.Unlock()
			})
		}
	}
	// Two tries of one new claim at once.
	fresh := dstsafe.ClaimRequest{Job: "billing", Period: "2024-12-01", Owner: "billing-1", ID: "billing-1/fresh"}
	var freshOut [2]dstsafe.Record
	var freshErr [2]error
	for k := range 2 {
		wg.Go(func() {
			<-start
			freshOut[k], freshErr[k] = l.Claim(ctx, fresh)
		})
	}
	close(start)
	wg.Wait()
	for _, o := range outs {
		switch {
		case o.retry && (o.err != nil || o.rec.Token != first[o.i].Token || o.rec.Attempt != 1 || o.rec.Owner != "billing-1"):
			t.Errorf("retry of %s = %+v, %v; want its own attempt (token %d)", reqs[o.i].Period, o.rec, o.err, first[o.i].Token)
		case !o.retry && !errors.Is(o.err, dstsafe.ErrAlreadyClaimed):
			t.Errorf("billing-2's claim of %s = %+v, %v; want ErrAlreadyClaimed", reqs[o.i].Period, o.rec, o.err)
		}
	}
	for k := range 2 {
		if freshErr[k] != nil || freshOut[k].Token != 1 || freshOut[k].Attempt != 1 {
			t.Errorf("try %d of one new claim = %+v, %v; want attempt 1, token 1", k, freshOut[k], freshErr[k])
		}
	}
}

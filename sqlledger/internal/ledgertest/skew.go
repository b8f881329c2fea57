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
	"github.com/dstsafe/dstsafe/internal/testkit"
	"github.com/dstsafe/dstsafe/sqlledger"
)

// Claims refused for the claimer's clock inside a group commit: replicas
// with good and bad clocks claiming at the same instant through one
// Ledger. Each skewed claim is refused (ErrClockSkew) and writes nothing,
// whichever group it lands in; the others are answered as if the skewed
// ones had never been made.
func testGroupedClaimsSkew(t *testing.T, b Backend) {
	ctx := context.Background()
	clock := clockwork.NewFakeClockAt(testkit.SuiteStart)
	l := b.New(t, sqlledger.WithClock(clock))
	store := clock.Now()
	fast := store.Add(time.Minute) // a replica whose clock is a minute ahead
	const n = 16
	type result struct {
		period, owner string
		skewed        bool
		err           error
	}
	var (
		start = make(chan struct{})
		wg    sync.WaitGroup
		mu    sync.Mutex
		out   []result
	)
	claim := func(period, owner string, skewed bool) {
		now := store
		if skewed {
			now = fast
		}
		wg.Go(func() {
			<-start
			_, err := l.Claim(ctx, dstsafe.ClaimRequest{Job: "sync", Period: period, Owner: owner, Now: now})
			mu.Lock()
			out = append(out, result{period, owner, skewed, err})
			mu.Unlock()
		})
	}
	for i := range n {
		claim(fmt.Sprintf("skewed-%02d", i), "fast", true) // only skewed claimers
		claim(fmt.Sprintf("good-%02d", i), "good", false)  // only good ones
		// Every replica at once on one period, half of them fast.
		claim("hot", fmt.Sprintf("replica-%02d", i), i%2 == 1)
	}
	close(start)
	wg.Wait()

	hotWinners := 0
	for _, r := range out {
		switch {
		case r.skewed:
			if !errors.Is(r.err, dstsafe.ErrClockSkew) {
				t.Errorf("skewed claim of %s by %s: %v, want ErrClockSkew", r.period, r.owner, r.err)
			}
		case r.period == "hot":
			if r.err == nil {
				hotWinners++
			} else if !errors.Is(r.err, dstsafe.ErrAlreadyClaimed) {
				t.Errorf("claim of hot by %s: %v", r.owner, r.err)
			}
		case r.err != nil:
			t.Errorf("claim of %s: %v", r.period, r.err)
		}
	}
	if hotWinners != 1 {
		t.Errorf("hot was won %d times, want once", hotWinners)
	}
	for i := range n {
		if _, err := l.Get(ctx, "sync", fmt.Sprintf("skewed-%02d", i)); !errors.Is(err, dstsafe.ErrNotFound) {
			t.Errorf("skewed-%02d: %v, want no record", i, err)
		}
	}
	hot, err := l.Get(ctx, "sync", "hot")
	if err != nil {
		t.Fatal(err)
	}
	var owner int
	if _, err := fmt.Sscanf(hot.Owner, "replica-%d", &owner); err != nil || owner%2 == 1 {
		t.Errorf("hot is held by %q, a replica whose clock is fast", hot.Owner)
	}
}

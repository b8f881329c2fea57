package dstsafetest_test

import (
	"context"
	"errors"
	"os"
	"os/exec"
	"strings"
	"testing"
	"time"

	"github.com/jonboulle/clockwork"

	"github.com/dstsafe/dstsafe"
	"github.com/dstsafe/dstsafe/dstsafetest"
	"github.com/dstsafe/dstsafe/ledgerkit"
)

func TestMemoryLedgerPassesSuite(t *testing.T) {
	dstsafetest.RunLedgerTests(t, func(t *testing.T, clock *clockwork.FakeClock) dstsafe.Ledger {
		l := dstsafe.NewMemoryLedger(clock)
		// The suite checks it as a ControlLedger only if it is one.
		var _ dstsafe.ControlLedger = l
		return l
	}, dstsafetest.WithSecondLedger(func(t *testing.T, clock *clockwork.FakeClock, l dstsafe.Ledger) dstsafe.Ledger {
		return otherView{l.(*dstsafe.MemoryLedger)} // another value on the same records
	}))
}

// otherView is a second Ledger value on a MemoryLedger's records.
type otherView struct{ *dstsafe.MemoryLedger }

// brokenCase is a ledger that breaks one promise of dstsafe.Ledger (or
// dstsafe.ControlLedger), and the subtest of the suite that must catch
// it; opts, if set, are given to the suite with it.
type brokenCase struct {
	catches string
	wrap    func(l *dstsafe.MemoryLedger) dstsafe.Ledger
	opts    []dstsafetest.LedgerSuiteOption
}

var broken = map[string]brokenCase{
	// The incident's guard: a claim that does not check for an existing run.
	"reclaims": {"SecondClaimRefused", func(l *dstsafe.MemoryLedger) dstsafe.Ledger { return reclaims{l} }, nil},
	// A zombie's late result is written: no compare-and-set on the token.
	"unfenced": {"FenceZombie", func(l *dstsafe.MemoryLedger) dstsafe.Ledger { return unfenced{l} }, nil},
	// Instants in the machine's zone, not UTC.
	"localtime": {"ClaimFresh", func(l *dstsafe.MemoryLedger) dstsafe.Ledger { return localTime{l} }, nil},
	// List in insertion order.
	"unsorted": {"List", func(l *dstsafe.MemoryLedger) dstsafe.Ledger { return unsorted{l} }, nil},
	// A claim that checks for a record, then writes without checking
	// again: replicas waking at the same instant both win.
	"nonatomic": {"ContendedClaim", func(l *dstsafe.MemoryLedger) dstsafe.Ledger { return nonAtomic{l} }, nil},
	// Today's ledgers before issue 22: the claimer's clock is never
	// checked, so a replica minutes fast claims and runs.
	"clockblind": {"ClockSkewFirstClaim", func(l *dstsafe.MemoryLedger) dstsafe.Ledger { return clockBlind{l} }, nil},
	// Checks the clock of first claims only: a fast replica still takes
	// over abandoned periods.
	"skewfirstonly": {"ClockSkewTakeover", func(l *dstsafe.MemoryLedger) dstsafe.Ledger { return skewFirstOnly{l} }, nil},
	// Stamps records with the claimer's clock, not the ledger's.
	"claimerclock": {"ClockSkewFirstClaim", func(l *dstsafe.MemoryLedger) dstsafe.Ledger { return claimerClock{l} }, nil},
	// Issue 28: a claim's ID is not kept, so a retry after a lost
	// answer is refused as claimed by someone else (itself).
	"noclaimid": {"ClaimAnswerLost", func(l *dstsafe.MemoryLedger) dstsafe.Ledger { return noClaimID{l} }, nil},
	// A retry finds its own record by owner alone: a replica's next
	// claim of the period (another ID) revives its old attempt.
	"ownerretries": {"ClaimAnswerLost", func(l *dstsafe.MemoryLedger) dstsafe.Ledger { return ownerRetries{l} }, nil},
	// Issue 29: the last registration wins, silently replacing the
	// schedule another service registered.
	"lastwins": {"JobConflict", func(l *dstsafe.MemoryLedger) dstsafe.Ledger { return lastWins{l} }, nil},
}

type noClaimID struct{ *dstsafe.MemoryLedger }

func (n noClaimID) Claim(ctx context.Context, req dstsafe.ClaimRequest) (dstsafe.Record, error) {
	req.ID = ""
	return n.MemoryLedger.Claim(ctx, req)
}

type ownerRetries struct{ *dstsafe.MemoryLedger }

func (o ownerRetries) Claim(ctx context.Context, req dstsafe.ClaimRequest) (dstsafe.Record, error) {
	if cur, err := o.MemoryLedger.Get(ctx, req.Job, req.Period); err == nil && req.ID != "" && cur.Owner == req.Owner {
		req.ID = cur.ClaimID
	}
	return o.MemoryLedger.Claim(ctx, req)
}

type lastWins struct{ *dstsafe.MemoryLedger }

func (w lastWins) RegisterJob(ctx context.Context, reg dstsafe.JobRegistration) (dstsafe.JobInfo, error) {
	reg.TakeOver = true
	return w.MemoryLedger.RegisterJob(ctx, reg)
}

type clockBlind struct{ *dstsafe.MemoryLedger }

func (c clockBlind) Claim(ctx context.Context, req dstsafe.ClaimRequest) (dstsafe.Record, error) {
	req.Now = time.Time{}
	return c.MemoryLedger.Claim(ctx, req)
}

type skewFirstOnly struct{ *dstsafe.MemoryLedger }

func (c skewFirstOnly) Claim(ctx context.Context, req dstsafe.ClaimRequest) (dstsafe.Record, error) {
	if _, err := c.Get(ctx, req.Job, req.Period); err == nil {
		req.Now = time.Time{}
	}
	return c.MemoryLedger.Claim(ctx, req)
}

type claimerClock struct{ *dstsafe.MemoryLedger }

func (c claimerClock) Claim(ctx context.Context, req dstsafe.ClaimRequest) (dstsafe.Record, error) {
	r, err := c.MemoryLedger.Claim(ctx, req)
	if err == nil && !req.Now.IsZero() {
		d := r.LeaseUntil.Sub(r.StartedAt)
		r.StartedAt = ledgerkit.LedgerTime(req.Now)
		r.LeaseUntil = r.StartedAt.Add(d)
	}
	return r, err
}

type reclaims struct{ *dstsafe.MemoryLedger }

func (r reclaims) Claim(ctx context.Context, req dstsafe.ClaimRequest) (dstsafe.Record, error) {
	req.Retry = dstsafe.RetryPolicy{MaxAttempts: 1 << 30, Failed: true, Abandoned: true}
	rec, err := r.MemoryLedger.Claim(ctx, req)
	if _, bad := ledgerkit.CheckClaim(ctx, req); err != nil && bad == nil {
		if g, gerr := r.MemoryLedger.Get(ctx, req.Job, req.Period); gerr == nil {
			return g, nil // "it's running, go ahead"
		}
	}
	return rec, err
}

// nonAtomic is the MemoryLedger with a non-atomic Claim: it looks for the
// period's record under the read lock (Get), lets the lock go, then
// writes without looking again. A claim that finds nothing writes its own
// record even if a rival wrote one in between: it ends the rival's
// (Finish with the rival's token) and takes the period over, and both
// were told they won.
type nonAtomic struct{ *dstsafe.MemoryLedger }

func (n nonAtomic) Claim(ctx context.Context, req dstsafe.ClaimRequest) (dstsafe.Record, error) {
	if _, err := n.Get(ctx, req.Job, req.Period); !errors.Is(err, dstsafe.ErrNotFound) {
		return n.MemoryLedger.Claim(ctx, req) // found (or bad input): the ledger's own answer
	}
	r, err := n.MemoryLedger.Claim(ctx, req)
	var ce *dstsafe.ClaimedError
	if !errors.As(err, &ce) {
		return r, err
	}
	// Written in between: overwrite it.
	n.Finish(ctx, req.Job, req.Period, ce.Existing.Token, dstsafe.StateFailed, "overwritten")
	req.Retry = dstsafe.RetryPolicy{MaxAttempts: 1 << 30, Failed: true, Abandoned: true}
	return n.MemoryLedger.Claim(ctx, req)
}

type unfenced struct{ *dstsafe.MemoryLedger }

func (u unfenced) Finish(ctx context.Context, job, period string, token int64, st dstsafe.State, reason string) (dstsafe.Record, error) {
	if cur, err := u.MemoryLedger.Get(ctx, job, period); err == nil && cur.State == dstsafe.StateRunning {
		token = cur.Token
	}
	return u.MemoryLedger.Finish(ctx, job, period, token, st, reason)
}

type localTime struct{ *dstsafe.MemoryLedger }

func (l localTime) Claim(ctx context.Context, req dstsafe.ClaimRequest) (dstsafe.Record, error) {
	r, err := l.MemoryLedger.Claim(ctx, req)
	r.StartedAt = r.StartedAt.In(time.FixedZone("CDT", -5*3600))
	return r, err
}

type unsorted struct{ *dstsafe.MemoryLedger }

func (u unsorted) List(ctx context.Context, job, from, to string) ([]dstsafe.Record, error) {
	rs, err := u.MemoryLedger.List(ctx, job, from, to)
	for i, j := 0, len(rs)-1; i < j; i, j = i+1, j-1 {
		rs[i], rs[j] = rs[j], rs[i]
	}
	return rs, err
}

const brokenEnv = "DSTSAFE_SUITE_BROKEN"

// The suite must fail each broken ledger, in the subtest meant to catch
// it. Each runs in a child process (this test binary again), since a
// failing suite fails the test that runs it.
func TestSuiteFailsBrokenLedgers(t *testing.T) {
	if name := os.Getenv(brokenEnv); name != "" {
		dstsafetest.RunLedgerTests(t, func(t *testing.T, clock *clockwork.FakeClock) dstsafe.Ledger {
			return broken[name].wrap(dstsafe.NewMemoryLedger(clock))
		}, broken[name].opts...)
		return
	}
	for name, b := range broken {
		t.Run(name, func(t *testing.T) {
			// Only the subtest meant to catch it: the whole suite per
			// broken ledger would cost minutes under the race detector.
			cmd := exec.Command(os.Args[0], "-test.run=^TestSuiteFailsBrokenLedgers$/^"+b.catches+"$", "-test.v")
			cmd.Env = append(os.Environ(), brokenEnv+"="+name)
			out, err := cmd.CombinedOutput()
			if err == nil {
				t.Fatalf("the suite passed the %s ledger:\n%s", name, out)
			}
			if want := "--- FAIL: TestSuiteFailsBrokenLedgers/" + b.catches; !strings.Contains(string(out), want) {
				t.Fatalf("the %s ledger was not caught by %s:\n%s", name, b.catches, out)
			}
		})
	}
}

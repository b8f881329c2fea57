package dstsafetest

// The dstsafe.ControlLedger part of the suite: what operators decide
// about jobs and periods. A paused job stays paused for every replica and
// across restarts; a failed or abandoned period that an operator releases
// is taken over by exactly one claim, whatever that claim's RetryPolicy.

import (
	"context"
	"errors"
	"fmt"
	"runtime"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/jonboulle/clockwork"

	"github.com/dstsafe/dstsafe"
	"github.com/dstsafe/dstsafe/ledgerkit"
)

// controlTests are the subtests of dstsafe.ControlLedger. Each skips,
// naming the capability, for a Ledger that is not one.
func (s suite) controlTests() []subtest {
	tests := []subtest{
		{"Pause", s.testPause},
		{"Release", s.testRelease},
		{"ReleaseRefused", s.testReleaseRefused},
		{"ReleaseRace", s.testReleaseRace},
		{"ControlKeys", s.testControlKeys},
		{"Jobs", s.testJobs},
	}
	for i, tt := range tests {
		tests[i].fn = func(t *testing.T) {
			// Once a ledger was seen not to be one, skip here rather than
			// in each of the table's subtests.
			if s.control.Load() == notControl {
				t.Skip(notControlSkip)
			}
			tt.fn(t)
		}
	}
	return tests
}

const (
	isControl  = 1
	notControl = 2
	// notControlSkip is the capability skip of the control subtests.
	notControlSkip = "capability: the Ledger is not a dstsafe.ControlLedger"
)

// controlSetup is setup for a subtest of dstsafe.ControlLedger: it skips
// when the Ledger is not one.
func (s suite) controlSetup(t *testing.T) (dstsafe.ControlLedger, *clockwork.FakeClock) {
	t.Helper()
	l, clock := s.setup(t)
	cl, ok := l.(dstsafe.ControlLedger)
	if !ok {
		s.control.Store(notControl)
		t.Skipf("%s (%T)", notControlSkip, l)
	}
	s.control.Store(isControl)
	return cl, clock
}

// samePause checks got against want, Since by instant and in UTC.
func samePause(t *testing.T, want, got dstsafe.Pause, what string) {
	t.Helper()
	ok := want.Paused == got.Paused && want.By == got.By && want.Reason == got.Reason && want.Since.Equal(got.Since)
	check.True(t, ok, "%s = %+v, want %+v", what, got, want)
	if !got.Since.IsZero() {
		check.Equal(t, time.UTC, got.Since.Location(), "%s: Since %v is not in UTC", what, got.Since)
	}
}

func setPause(t *testing.T, l dstsafe.ControlLedger, job string, p dstsafe.Pause) dstsafe.Pause {
	t.Helper()
	got, err := l.SetPause(context.Background(), job, p)
	must.NoError(t, err, "SetPause(%s, %+v)", job, p)
	return got
}

func getPause(t *testing.T, l dstsafe.ControlLedger, job string) dstsafe.Pause {
	t.Helper()
	got, err := l.GetPause(context.Background(), job)
	must.NoError(t, err, "GetPause(%s)", job)
	return got
}

func release(t *testing.T, l dstsafe.ControlLedger, job, period, by, reason string) dstsafe.Record {
	t.Helper()
	r, err := l.Release(context.Background(), job, period, by, reason)
	must.NoError(t, err, "Release(%s, %s, %s)", job, period, by)
	requireUTC(t, r)
	return r
}

// The billing job is paused at 01:30 CDT on the fall-back night while
// the double charges are looked into. Pausing a paused job, or resuming
// a running one, changes nothing: the first decision keeps its By,
// Reason and Since (the ledger's clock, never the caller's).
func (s suite) testPause(t *testing.T) {
	l, clock := s.controlSetup(t)
	samePause(t, dstsafe.Pause{}, getPause(t, l, "billing"), "GetPause of a job never paused")
	// Resuming a job nobody paused: still the zero Pause, no Since.
	samePause(t, dstsafe.Pause{}, setPause(t, l, "billing", dstsafe.Pause{By: "ops"}), "resuming a job never paused")
	samePause(t, dstsafe.Pause{}, getPause(t, l, "billing"), "GetPause after resuming a job never paused")

	t0 := now(clock)
	p := setPause(t, l, "billing", dstsafe.Pause{Paused: true, By: "ops@bastion", Reason: "incident 42: double charges",
		Since: time.Date(2001, 1, 1, 0, 0, 0, 0, time.UTC)}) // ignored
	want := dstsafe.Pause{Paused: true, By: "ops@bastion", Reason: "incident 42: double charges", Since: t0}
	samePause(t, want, p, "SetPause(pause)")
	samePause(t, want, getPause(t, l, "billing"), "GetPause after pausing")

	// An hour later, at 01:30 CST, a replica pauses it again (pause on
	// failure): nothing changes.
	clock.Advance(time.Hour)
	samePause(t, want, setPause(t, l, "billing", dstsafe.Pause{Paused: true, By: "replica-2", Reason: "3 failures"}), "pausing a paused job")
	samePause(t, want, getPause(t, l, "billing"), "GetPause after pausing a paused job")
	for _, other := range []string{"billing-eu", "Billing", "billin"} {
		samePause(t, dstsafe.Pause{}, getPause(t, l, other), "GetPause of another job")
	}

	clock.Advance(10 * time.Minute)
	resumed := dstsafe.Pause{By: "ops@bastion", Reason: "processor fixed", Since: now(clock)}
	samePause(t, resumed, setPause(t, l, "billing", dstsafe.Pause{By: "ops@bastion", Reason: "processor fixed"}), "SetPause(resume)")
	clock.Advance(time.Minute)
	samePause(t, resumed, setPause(t, l, "billing", dstsafe.Pause{By: "bot", Reason: "again"}), "resuming a resumed job")
	samePause(t, resumed, getPause(t, l, "billing"), "GetPause after resuming")

	clock.Advance(24 * time.Hour)
	again := dstsafe.Pause{Paused: true, By: "oncall", Since: now(clock)}
	samePause(t, again, setPause(t, l, "billing", dstsafe.Pause{Paused: true, By: "oncall"}), "pausing again")

	// Reasons are kept as Finish keeps them (ledgerkit.NormalizeReason).
	for i, tc := range []struct{ reason, want string }{
		{"bad \xff byte, nul\x00", "bad \uFFFD byte, nul"},
		{strings.Repeat("é", ledgerkit.MaxReasonLen), strings.Repeat("é", ledgerkit.MaxReasonLen/2)},
	} {
		job := fmt.Sprintf("export-%d", i)
		check.Equal(t, tc.want, setPause(t, l, job, dstsafe.Pause{Paused: true, By: "ops", Reason: tc.reason}).Reason, "SetPause reason %d", i)
		check.Equal(t, tc.want, getPause(t, l, job).Reason, "GetPause reason %d", i)
	}

	pauseRace(t, []dstsafe.ControlLedger{l}, now(clock))
}

// pauseRace: every replica pauses "report" at once (pause on failure on
// each): one state wins, and every answer, and every view, is it.
func pauseRace(t *testing.T, views []dstsafe.ControlLedger, at time.Time) {
	t.Helper()
	const replicas = 8
	var (
		wg   sync.WaitGroup
		got  [replicas]dstsafe.Pause
		errs [replicas]error
	)
	for i := range replicas {
		wg.Go(func() {
			got[i], errs[i] = views[i%len(views)].SetPause(context.Background(), "report",
				dstsafe.Pause{Paused: true, By: fmt.Sprintf("replica-%d", i), Reason: "3 consecutive failures"})
		})
	}
	waitGroup(t, &wg, "%d replicas pausing report at once", replicas)
	for i := range replicas {
		must.NoError(t, errs[i], "replica %d pausing at once", i)
	}
	winner := got[0]
	check.True(t, winner.Paused && strings.HasPrefix(winner.By, "replica-") && winner.Since.Equal(at), "race winner %+v", winner)
	for i := range replicas {
		samePause(t, winner, got[i], fmt.Sprintf("replica %d's answer", i))
	}
	for i, v := range views {
		samePause(t, winner, getPause(t, v, "report"), fmt.Sprintf("GetPause through view %d", i))
	}
}

// The 2024-11-03 billing run failed when the card processor went down,
// or its holder died mid-run. The job moves money, so its RetryPolicy
// never takes a period over. Once the processor is back, an operator
// releases the period: the next claim, under any policy, takes it over
// once; the old holder is fenced; a second claim is refused.
func (s suite) testRelease(t *testing.T) {
	ends := []struct {
		name  string
		end   func(t *testing.T, l dstsafe.Ledger, clock *clockwork.FakeClock, r dstsafe.Record)
		state dstsafe.State
	}{
		{"failed", endFailed, dstsafe.StateFailed},
		{"abandoned", endAbandoned, dstsafe.StateAbandoned},
	}
	for _, e := range ends {
		policies := []struct {
			name  string
			retry dstsafe.RetryPolicy
		}{
			{"no retry", dstsafe.RetryPolicy{}},
			{"attempts used", dstsafe.RetryPolicy{MaxAttempts: 1, Failed: true, Abandoned: true}},
			{"other state only", dstsafe.RetryPolicy{MaxAttempts: 5, Failed: e.state == dstsafe.StateAbandoned, Abandoned: e.state == dstsafe.StateFailed}},
		}
		for _, pol := range policies {
			t.Run(e.name+"/"+pol.name, func(t *testing.T) {
				ctx := context.Background()
				l, clock := s.controlSetup(t)
				const job, period = "billing", "2024-11-03"
				req := func(owner string) dstsafe.ClaimRequest {
					return dstsafe.ClaimRequest{Job: job, Period: period, Owner: owner, Lease: time.Minute, Retry: pol.retry}
				}
				first := claim(t, l, req("worker-1"))
				e.end(t, l, clock, first)
				_, err := l.Claim(ctx, req("worker-2"))
				requireClaimed(t, err, e.state) // the policy alone never takes it over

				rel := release(t, l, job, period, "ops@bastion", "processor back")
				check.Equal(t, e.state, rel.State, "Release keeps the state")
				check.True(t, rel.Released, "Release: Released = false")
				check.Equal(t, "ops@bastion", rel.ReleasedBy)
				check.Equal(t, "processor back", rel.ReleaseReason)
				check.Equal(t, first.Token, rel.Token, "Release changed the token")
				check.Equal(t, 1, rel.Attempt, "Release changed the attempt")
				check.Equal(t, "worker-1", rel.Owner)
				g := get(t, l, job, period)
				check.True(t, g.Released && g.ReleasedBy == "ops@bastion" && g.ReleaseReason == "processor back" && g.State == e.state,
					"Get after Release = %+v", g)
				rs, err := l.List(ctx, job, "", "")
				must.NoError(t, err)
				must.Len(t, rs, 1)
				check.True(t, rs[0].Released, "List after Release: Released = false")

				// A second look by another operator: still one release, in
				// their name.
				rel = release(t, l, job, period, "lead@bastion", "confirmed with finance")
				check.Equal(t, "lead@bastion", rel.ReleasedBy)
				check.Equal(t, "confirmed with finance", rel.ReleaseReason)

				clock.Advance(time.Second)
				taker := claim(t, l, req("worker-3"))
				check.Equal(t, dstsafe.StateRunning, taker.State)
				check.Equal(t, "worker-3", taker.Owner)
				check.Equal(t, 2, taker.Attempt)
				check.Greater(t, taker.Token, first.Token, "a takeover after a release must bump the token")
				sameInstant(t, now(clock), taker.StartedAt, "StartedAt of the takeover")
				check.True(t, taker.FinishedAt.IsZero(), "takeover FinishedAt = %v", taker.FinishedAt)
				check.Empty(t, taker.Reason, "takeover keeps the old reason")
				check.True(t, !taker.Released, "the takeover did not use the release up")
				check.Equal(t, "lead@bastion", taker.ReleasedBy, "takeover keeps who released it")
				check.Equal(t, "confirmed with finance", taker.ReleaseReason, "takeover keeps why")
				g = get(t, l, job, period)
				check.True(t, !g.Released && g.ReleasedBy == "lead@bastion" && g.Token == taker.Token && g.Owner == "worker-3",
					"Get after the takeover = %+v", g)

				// The first holder, maybe alive after all, is fenced.
				_, err = l.Heartbeat(ctx, job, period, first.Token, time.Minute)
				must.ErrorIs(t, err, dstsafe.ErrLeaseLost, "old holder's Heartbeat after the takeover")
				_, err = l.Finish(ctx, job, period, first.Token, dstsafe.StateSucceeded, "")
				must.ErrorIs(t, err, dstsafe.ErrLeaseLost, "old holder's Finish after the takeover")
				_, err = l.Claim(ctx, req("worker-4"))
				requireClaimed(t, err, dstsafe.StateRunning)

				// The release is used up: when the new attempt ends the same
				// way, nothing takes it over again...
				e.end(t, l, clock, taker)
				_, err = l.Claim(ctx, req("worker-4"))
				ce := requireClaimed(t, err, e.state)
				check.Equal(t, 2, ce.Existing.Attempt)
				check.Equal(t, taker.Token, ce.Existing.Token)
				check.True(t, !ce.Existing.Released, "refused record Released = true")
				// ...until an operator releases it again.
				release(t, l, job, period, "ops@bastion", "third try")
				third := claim(t, l, req("worker-5"))
				check.Equal(t, 3, third.Attempt)
				check.Greater(t, third.Token, taker.Token)
				check.Equal(t, "third try", third.ReleaseReason)
				f := finish(t, l, third, dstsafe.StateSucceeded, "")
				check.Equal(t, dstsafe.StateSucceeded, f.State)
			})
		}
	}
}

// A release never reopens a period that is running, succeeded or
// skipped: the error is a *ClaimedError with the record, which it leaves
// as it was. A period never claimed has nothing to release.
func (s suite) testReleaseRefused(t *testing.T) {
	cases := []struct {
		name string
		end  func(t *testing.T, l dstsafe.Ledger, clock *clockwork.FakeClock, r dstsafe.Record)
		want dstsafe.State
	}{
		{"running", func(t *testing.T, l dstsafe.Ledger, clock *clockwork.FakeClock, r dstsafe.Record) {
			clock.Advance(30 * time.Second) // half its lease
		}, dstsafe.StateRunning},
		{"succeeded", endSucceeded, dstsafe.StateSucceeded},
		{"skipped", endSkipped, dstsafe.StateSkipped},
		// Abandoned, then the slow holder heartbeats: running again.
		{"revived", func(t *testing.T, l dstsafe.Ledger, clock *clockwork.FakeClock, r dstsafe.Record) {
			endAbandoned(t, l, clock, r)
			_, err := l.Heartbeat(context.Background(), r.Job, r.Period, r.Token, time.Minute)
			must.NoError(t, err, "late heartbeat")
		}, dstsafe.StateRunning},
		// Released while abandoned, but the holder was only slow and
		// finished it (the token fences, not the clock): done, for good.
		{"released, then finished by its holder", func(t *testing.T, l dstsafe.Ledger, clock *clockwork.FakeClock, r dstsafe.Record) {
			endAbandoned(t, l, clock, r)
			release(t, l.(dstsafe.ControlLedger), r.Job, r.Period, "ops", "holder looks dead")
			endSucceeded(t, l, clock, r)
		}, dstsafe.StateSucceeded},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			ctx := context.Background()
			l, clock := s.controlSetup(t)
			first := claim(t, l, dstsafe.ClaimRequest{Job: "billing", Period: "2024-11-03", Owner: "worker-1", Lease: time.Minute})
			tc.end(t, l, clock, first)
			before := get(t, l, "billing", "2024-11-03")
			_, err := l.Release(ctx, "billing", "2024-11-03", "ops", "run it again")
			ce := requireClaimed(t, err, tc.want)
			check.Equal(t, first.Token, ce.Existing.Token)
			check.Equal(t, "worker-1", ce.Existing.Owner)
			check.True(t, !errors.Is(err, dstsafe.ErrNotFound), "Release of a claimed period: %v is ErrNotFound", err)
			after := get(t, l, "billing", "2024-11-03")
			check.Equal(t, before.Released, after.Released, "a refused Release changed Released")
			check.Equal(t, before.ReleaseReason, after.ReleaseReason, "a refused Release changed the reason")
			check.Equal(t, first.Token, after.Token)
			check.Equal(t, tc.want, after.State)
			_, err = l.Claim(ctx, dstsafe.ClaimRequest{Job: "billing", Period: "2024-11-03", Owner: "worker-2"})
			requireClaimed(t, err, tc.want)
		})
	}
	t.Run("never claimed", func(t *testing.T) {
		l, _ := s.controlSetup(t)
		claim(t, l, dstsafe.ClaimRequest{Job: "billing", Period: "2024-11-03", Owner: "w"})
		for _, k := range []struct{ job, period string }{{"billing", "2024-11-04"}, {"billing-eu", "2024-11-03"}} {
			_, err := l.Release(context.Background(), k.job, k.period, "ops", "run it")
			must.ErrorIs(t, err, dstsafe.ErrNotFound, "Release of %s/%s", k.job, k.period)
			check.True(t, !errors.Is(err, dstsafe.ErrAlreadyClaimed), "Release of a period never claimed: %v", err)
			_, err = l.Get(context.Background(), k.job, k.period)
			must.ErrorIs(t, err, dstsafe.ErrNotFound, "Release created %s/%s", k.job, k.period)
		}
	})
}

// An operator releases a failed period while every replica's scheduler
// keeps asking for it (RunNow in a loop, with no policy or with its
// attempts used), and a second operator releases it too. Of all the
// claims exactly one takes it over, wherever it lands against the
// releases; every other is refused, with the failed record or the
// taker's; a release either releases or is refused with the taker's
// record. A claim that decides on a stale read of the release, then
// writes, lets two take the period over. Rounds of one period each, 8
// claimers and 2 operators started together: up to 20 rounds, at least
// one, for about a second (five under the race detector).
func (s suite) testReleaseRace(t *testing.T) {
	l, _ := s.controlSetup(t)
	const claimers, maxRounds, maxTries = 8, 20, 20000
	owner := func(g int) string { return fmt.Sprintf("replica-%d", g) }
	policies := []dstsafe.RetryPolicy{{}, {MaxAttempts: 1, Failed: true, Abandoned: true}}
	began := wallClock.Now() // a budget of real time for the rounds
	round := 0
	for ; round < maxRounds && (round == 0 || wallClock.Since(began) < contentionBudget); round++ {
		period := fmt.Sprintf("2024-11-03T01:30/%02d", round)
		r := claim(t, l, dstsafe.ClaimRequest{Job: "billing", Period: period, Owner: "worker-0"})
		finish(t, l, r, dstsafe.StateFailed, "card processor down")
		var (
			wg      sync.WaitGroup
			asked   sync.WaitGroup // every claimer was refused once
			start   = make(chan struct{})
			mu      sync.Mutex
			winners []string
			errs    []error
		)
		fail := func(err error) {
			mu.Lock()
			errs = append(errs, err)
			mu.Unlock()
		}
		asked.Add(claimers)
		for g := range claimers {
			wg.Go(func() {
				req := dstsafe.ClaimRequest{Job: "billing", Period: period, Owner: owner(g), Retry: policies[g%2]}
				_, err := l.Claim(context.Background(), req)
				asked.Done()
				if err == nil {
					fail(fmt.Errorf("%s took %s over before any release", owner(g), period))
					return
				}
				<-start
				for try := range maxTries {
					_, err := l.Claim(context.Background(), req)
					if err == nil {
						mu.Lock()
						winners = append(winners, owner(g))
						mu.Unlock()
						return
					}
					var ce *dstsafe.ClaimedError
					switch {
					case !errors.As(err, &ce):
						fail(fmt.Errorf("claim of %s by %s: %w", period, owner(g), err))
						return
					case ce.Existing.Attempt > 1 || ce.Existing.State == dstsafe.StateRunning:
						return // taken over
					case ce.Existing.State != dstsafe.StateFailed:
						fail(fmt.Errorf("claim of %s by %s refused with %+v", period, owner(g), ce.Existing))
						return
					}
					if try%64 == 63 {
						runtime.Gosched()
					}
				}
				fail(fmt.Errorf("%s: nobody took %s over in %d claims", owner(g), period, maxTries))
			})
		}
		for op := range 2 {
			wg.Go(func() {
				<-start
				_, err := l.Release(context.Background(), "billing", period, fmt.Sprintf("ops-%d", op), "processor back")
				var ce *dstsafe.ClaimedError
				if err != nil && (!errors.As(err, &ce) || ce.Existing.State != dstsafe.StateRunning || ce.Existing.Attempt != 2) {
					fail(fmt.Errorf("release of %s by ops-%d: %w", period, op, err))
				}
			})
		}
		waitGroup(t, &asked, "round %d: every claimer of %s refused once", round, period)
		close(start)
		waitGroup(t, &wg, "round %d: claimers and releases of %s", round, period)
		must.Empty(t, errs, "round %d: errors", round)
		must.Len(t, winners, 1, "round %d: takers of %s after its release", round, period)
		r = get(t, l, "billing", period)
		must.True(t, r.Owner == winners[0] && r.Attempt == 2 && r.State == dstsafe.StateRunning && !r.Released &&
			(r.ReleasedBy == "ops-0" || r.ReleasedBy == "ops-1"),
			"%s stored as %+v, but %s was told it took it over", period, r, winners[0])
	}
	t.Logf("%d rounds", round)
}

// The keys of the operator calls are held to the rules of every ledger
// key, By included (a decision nobody made is refused: a *KeyError for
// field "by"), before storage is touched; a done ctx stops them too.
func (s suite) testControlKeys(t *testing.T) {
	ctx := context.Background()
	for _, b := range badKeys {
		t.Run(b.name, func(t *testing.T) {
			l, _ := s.controlSetup(t)
			failed := claim(t, l, dstsafe.ClaimRequest{Job: "billing", Period: "2024-11-03", Owner: "w"})
			finish(t, l, failed, dstsafe.StateFailed, "timeout")
			for _, paused := range []bool{true, false} {
				_, err := l.SetPause(ctx, b.value, dstsafe.Pause{Paused: paused, By: "ops"})
				requireKeyError(t, err, "job", b.value)
				_, err = l.SetPause(ctx, "billing", dstsafe.Pause{Paused: paused, By: b.value, Reason: "no name"})
				requireKeyError(t, err, "by", b.value)
			}
			_, err := l.GetPause(ctx, b.value)
			requireKeyError(t, err, "job", b.value)
			_, err = l.Release(ctx, b.value, "2024-11-03", "ops", "again")
			requireKeyError(t, err, "job", b.value)
			_, err = l.Release(ctx, "billing", b.value, "ops", "again")
			requireKeyError(t, err, "period", b.value)
			_, err = l.Release(ctx, "billing", "2024-11-03", b.value, "again")
			requireKeyError(t, err, "by", b.value)
			// Nothing was stored or changed by the refused calls.
			samePause(t, dstsafe.Pause{}, getPause(t, l, "billing"), "GetPause after refused calls")
			g := get(t, l, "billing", "2024-11-03")
			check.True(t, !g.Released && g.ReleasedBy == "", "a refused Release released %+v", g)
			_, err = l.Claim(ctx, dstsafe.ClaimRequest{Job: "billing", Period: "2024-11-03", Owner: "w2"})
			requireClaimed(t, err, dstsafe.StateFailed)
		})
	}
	t.Run("longest", func(t *testing.T) {
		l, _ := s.controlSetup(t)
		p := setPause(t, l, longestKey, dstsafe.Pause{Paused: true, By: longestKey})
		check.Equal(t, longestKey, p.By)
		check.Equal(t, longestKey, getPause(t, l, longestKey).By)
		r := claim(t, l, dstsafe.ClaimRequest{Job: longestKey, Period: longestKey, Owner: "w"})
		finish(t, l, r, dstsafe.StateFailed, "")
		check.Equal(t, longestKey, release(t, l, longestKey, longestKey, longestKey, "").ReleasedBy)
	})
	t.Run("reason", func(t *testing.T) {
		l, _ := s.controlSetup(t)
		r := claim(t, l, dstsafe.ClaimRequest{Job: "billing", Period: "2024-11-03", Owner: "w"})
		finish(t, l, r, dstsafe.StateFailed, "")
		check.Equal(t, "bad \uFFFD byte, nul", release(t, l, "billing", "2024-11-03", "ops", "bad \xff byte, nul\x00").ReleaseReason)
		check.Equal(t, "bad \uFFFD byte, nul", get(t, l, "billing", "2024-11-03").ReleaseReason)
	})
	t.Run("canceled context", func(t *testing.T) {
		l, _ := s.controlSetup(t)
		r := claim(t, l, dstsafe.ClaimRequest{Job: "billing", Period: "2024-11-03", Owner: "w"})
		finish(t, l, r, dstsafe.StateFailed, "")
		done, cancel := context.WithCancel(ctx)
		cancel()
		_, err := l.SetPause(done, "billing", dstsafe.Pause{Paused: true, By: "ops"})
		must.ErrorIs(t, err, context.Canceled, "SetPause")
		_, err = l.GetPause(done, "billing")
		must.ErrorIs(t, err, context.Canceled, "GetPause")
		_, err = l.Release(done, "billing", "2024-11-03", "ops", "")
		must.ErrorIs(t, err, context.Canceled, "Release")
		samePause(t, dstsafe.Pause{}, getPause(t, l, "billing"), "a canceled SetPause was stored")
		check.True(t, !get(t, l, "billing", "2024-11-03").Released, "a canceled Release was stored")
	})
}

// Two processes on one storage (WithSecondLedger): a pause made through
// one is what the other reads and keeps, a release made through one is
// what the other's claim takes over, and replicas pausing at once
// through both agree.
func (s suite) testControlShared(t *testing.T) {
	if s.caps.second == nil {
		t.Skip("capability: no second Ledger on the same storage (dstsafetest.WithSecondLedger)")
	}
	l1, clock := s.controlSetup(t)
	other := s.caps.second(t, clock, l1)
	must.NotNil(t, other, "WithSecondLedger returned nil")
	l2, ok := other.(dstsafe.ControlLedger)
	must.True(t, ok, "WithSecondLedger returned %T, not a dstsafe.ControlLedger", other)

	p := setPause(t, l1, "billing", dstsafe.Pause{Paused: true, By: "ops", Reason: "incident 42"})
	samePause(t, p, getPause(t, l2, "billing"), "the other process's GetPause")
	clock.Advance(time.Hour)
	samePause(t, p, setPause(t, l2, "billing", dstsafe.Pause{Paused: true, By: "replica-2", Reason: "3 failures"}), "the other process pausing a paused job")
	r := setPause(t, l2, "billing", dstsafe.Pause{By: "ops", Reason: "fixed"})
	samePause(t, dstsafe.Pause{By: "ops", Reason: "fixed", Since: now(clock)}, r, "resumed by the other process")
	samePause(t, r, getPause(t, l1, "billing"), "GetPause after the other process resumed")

	first := claim(t, l1, dstsafe.ClaimRequest{Job: "billing", Period: "2024-11-03", Owner: "replica-1"})
	finish(t, l1, first, dstsafe.StateFailed, "card processor down")
	release(t, l2, "billing", "2024-11-03", "ops", "processor back")
	check.True(t, get(t, l1, "billing", "2024-11-03").Released, "the other process's release is not seen")
	taker := claim(t, l1, dstsafe.ClaimRequest{Job: "billing", Period: "2024-11-03", Owner: "replica-1"})
	check.Equal(t, 2, taker.Attempt)
	_, err := l2.Claim(context.Background(), dstsafe.ClaimRequest{Job: "billing", Period: "2024-11-03", Owner: "replica-2"})
	requireClaimed(t, err, dstsafe.StateRunning)

	// A job only the other process ever claimed is known to both.
	claim(t, l2, dstsafe.ClaimRequest{Job: "report", Period: "2024-11-03T02:00:00", Owner: "replica-2"})
	check.Equal(t, []string{"billing", "report"}, jobs(t, l1), "Jobs through the first process")

	pauseRace(t, []dstsafe.ControlLedger{l1, l2}, now(clock))
}

func jobs(t *testing.T, l dstsafe.ControlLedger) []string {
	t.Helper()
	got, err := l.Jobs(context.Background())
	must.NoError(t, err, "Jobs")
	return got
}

// Jobs lists the jobs the ledger knows, the names an operator may
// mean: every job with a record, whatever its state, and every job with
// a pause state, even one never run (paused before its first deploy).
// Names compare as bytes ("Billing" before "billing", "bill" before
// "billing"), and a name containing the characters a backend builds its
// keys with is returned whole. A name only ever asked about (GetPause,
// Get, List) is not known: that is how a typo is told apart.
func (s suite) testJobs(t *testing.T) {
	l, clock := s.controlSetup(t)
	check.Equal(t, 0, len(jobs(t, l)), "Jobs of an empty ledger")
	ctx := context.Background()

	// Asking is not knowing: a typo an operator read about stays unknown.
	getPause(t, l, "billng")
	_, err := l.Get(ctx, "billng", "2024-11-03")
	must.ErrorIs(t, err, dstsafe.ErrNotFound, "Get of a job never claimed")
	_, err = l.List(ctx, "billng", "", "")
	must.NoError(t, err, "List of a job never claimed")
	check.Equal(t, 0, len(jobs(t, l)), "Jobs after reading about a job that does not exist")

	// The 2024 fall-back night in Chicago: billing succeeded for
	// 11-02 and failed for 11-03, report (hourly, by wall reading) ran
	// the first 01:00 and its second holder was lost (abandoned).
	r := claim(t, l, dstsafe.ClaimRequest{Job: "billing", Period: "2024-11-02", Owner: "w"})
	finish(t, l, r, dstsafe.StateSucceeded, "")
	r = claim(t, l, dstsafe.ClaimRequest{Job: "billing", Period: "2024-11-03", Owner: "w"})
	finish(t, l, r, dstsafe.StateFailed, "card processor down")
	r = claim(t, l, dstsafe.ClaimRequest{Job: "report", Period: "2024-11-03T01:00:00", Owner: "w"})
	finish(t, l, r, dstsafe.StateSucceeded, "")
	claim(t, l, dstsafe.ClaimRequest{Job: "report", Period: "2024-11-03T02:00:00", Owner: "w", Lease: time.Minute})
	clock.Advance(time.Hour)
	// Names that sort apart by bytes, or look like a backend's keys.
	for _, job := range []string{"Billing", "bill", "a}:run:b", "ünicode"} {
		claim(t, l, dstsafe.ClaimRequest{Job: job, Period: "2024-11-03", Owner: "w"})
	}
	// Paused before it ever ran, and paused then resumed: both known.
	setPause(t, l, "export", dstsafe.Pause{Paused: true, By: "ops", Reason: "not deployed yet"})
	setPause(t, l, "cleanup", dstsafe.Pause{Paused: true, By: "ops"})
	setPause(t, l, "cleanup", dstsafe.Pause{By: "ops"})
	// Paused while it has records: listed once.
	setPause(t, l, "billing", dstsafe.Pause{Paused: true, By: "ops"})

	want := []string{"Billing", "a}:run:b", "bill", "billing", "cleanup", "export", "report", "ünicode"}
	check.Equal(t, want, jobs(t, l), "Jobs")

	done, cancel := context.WithCancel(ctx)
	cancel()
	_, err = l.Jobs(done)
	must.ErrorIs(t, err, context.Canceled, "Jobs with a canceled ctx")
}

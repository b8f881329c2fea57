package dstsafetest

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/jonboulle/clockwork"

	"github.com/dstsafe/dstsafe"
	"github.com/dstsafe/dstsafe/internal/testkit"
)

// A LedgerSuiteOption tells RunLedgerTests what a backend can do beyond
// the Ledger contract, or what it cannot do yet. The subtest an option
// governs runs with it and skips without it, naming the capability. A nil
// option, or one made from a nil value, is no option: it never panics.
type LedgerSuiteOption func(*capabilities)

type capabilities struct {
	broken     []brokenLedger
	noSchedule string // why the backend does not store ClaimRequest.Schedule yet
	second     SecondLedgerFunc
}

type brokenLedger struct {
	name      string
	newBroken NewLedgerFunc
}

// WithBrokenLedger gives the "Permanent" subtest a way to make a ledger
// that cannot work until someone changes something: its table never
// migrated, its pool or client closed, its credentials refused. Every
// method of that ledger must fail with an error wrapping
// dstsafe.ErrPermanent, and with none of the sentinels that describe a
// period (ErrAlreadyClaimed, ErrLeaseLost, ErrNotFound): an outage is not
// an answer. Give it once per way the backend can break; name becomes the
// subtest's name. Without it "Permanent" skips, and so it does when
// newBroken is nil: a nil function is no option.
func WithBrokenLedger(name string, newBroken NewLedgerFunc) LedgerSuiteOption {
	if newBroken == nil {
		return nil
	}
	return func(c *capabilities) { c.broken = append(c.broken, brokenLedger{name, newBroken}) }
}

// WithoutSchedule declares that the backend does not store
// ClaimRequest.Schedule yet: the "Schedule" subtest skips with reason
// ("mybackend: schedule column pending"). A backend that stores it must not
// give this option.
func WithoutSchedule(reason string) LedgerSuiteOption {
	return func(c *capabilities) { c.noSchedule = reason }
}

// SecondLedgerFunc opens another Ledger on the storage of l, the way a
// second process would: its own connection pool or client, the same
// table, key prefix or file, the same clock. Clean up through t.Cleanup.
type SecondLedgerFunc func(t *testing.T, clock *clockwork.FakeClock, l dstsafe.Ledger) dstsafe.Ledger

// WithSecondLedger gives the "ControlShared" subtest a second Ledger on
// the storage of the first, to check that what operators decide (pause
// state, releases) is shared by every process using the storage, not
// kept in one Ledger value. Without it, or with a nil function,
// "ControlShared" skips.
func WithSecondLedger(open SecondLedgerFunc) LedgerSuiteOption {
	if open == nil {
		return nil
	}
	return func(c *capabilities) { c.second = open }
}

// capabilityTests are the subtests governed by LedgerSuiteOptions.
func (s suite) capabilityTests() []subtest {
	return []subtest{
		{"Schedule", s.testSchedule},
		{"Permanent", s.testPermanent},
		{"ControlShared", s.testControlShared},
	}
}

// A claim's schedule fingerprint is stored with the attempt and returned
// by every method; a takeover replaces it with the new claim's (the
// schedule may have been edited between the two attempts).
func (s suite) testSchedule(t *testing.T) {
	if s.caps.noSchedule != "" {
		t.Skip(s.caps.noSchedule)
	}
	ctx := context.Background()
	l, clock := s.setup(t)
	const (
		before = "CRON_TZ=America/Chicago 30 1 * * *|fold=first|gap=shift|tzdata=2024a"
		after  = "CRON_TZ=America/Chicago 0 2 * * *|fold=first|gap=shift|tzdata=2024b"
	)
	retry := dstsafe.RetryPolicy{MaxAttempts: 3, Failed: true, Abandoned: true}
	r := claim(t, l, dstsafe.ClaimRequest{Job: "billing", Period: "2024-11-03", Owner: "w1", Schedule: before, Retry: retry})
	check.Equal(t, before, r.Schedule, "Claim")
	check.Equal(t, before, get(t, l, "billing", "2024-11-03").Schedule, "Get")
	hb, err := l.Heartbeat(ctx, "billing", "2024-11-03", r.Token, 0)
	must.NoError(t, err, "Heartbeat")
	check.Equal(t, before, hb.Schedule, "Heartbeat")
	_, err = l.Claim(ctx, dstsafe.ClaimRequest{Job: "billing", Period: "2024-11-03", Owner: "w2", Schedule: after})
	ce := requireClaimed(t, err, dstsafe.StateRunning)
	check.Equal(t, before, ce.Existing.Schedule, "ClaimedError.Existing")
	f := finish(t, l, r, dstsafe.StateFailed, "card network timeout")
	check.Equal(t, before, f.Schedule, "Finish")

	// Taken over under the edited schedule: the new attempt carries it.
	r2 := claim(t, l, dstsafe.ClaimRequest{Job: "billing", Period: "2024-11-03", Owner: "w2", Schedule: after, Retry: retry})
	check.Equal(t, 2, r2.Attempt, "takeover attempt")
	check.Equal(t, after, r2.Schedule, "takeover Claim")
	check.Equal(t, after, get(t, l, "billing", "2024-11-03").Schedule, "Get after takeover")

	// Abandoned and taken over by a claimer that gives no schedule: the
	// old fingerprint does not stay behind.
	clock.Advance(2 * dstsafe.DefaultLease)
	r3 := claim(t, l, dstsafe.ClaimRequest{Job: "billing", Period: "2024-11-03", Owner: "w3", Retry: retry})
	check.Equal(t, "", r3.Schedule, "takeover without a schedule")

	// A period claimed without a schedule, and List of both.
	claim(t, l, dstsafe.ClaimRequest{Job: "billing", Period: "2024-11-04", Owner: "w1", Schedule: after})
	claim(t, l, dstsafe.ClaimRequest{Job: "billing", Period: "2024-11-05", Owner: "w1"})
	rs, err := l.List(ctx, "billing", "", "")
	must.NoError(t, err, "List")
	must.Len(t, rs, 3)
	for i, want := range []string{"", after, ""} {
		check.Equal(t, want, rs[i].Schedule, "List record %d %q", i, rs[i].Period)
	}

	// A schedule is held to the rules of a key, except that it may be empty.
	_, err = l.Claim(ctx, dstsafe.ClaimRequest{Job: "billing", Period: "2024-11-06", Owner: "w1", Schedule: "30 1 * * *\x00"})
	var ke *dstsafe.KeyError
	must.ErrorAs(t, err, &ke, "schedule with a NUL byte")
	check.Equal(t, "schedule", ke.Field)
}

// A ledger that cannot work says so with dstsafe.ErrPermanent from every
// method, so that callers (and the Scheduler) stop retrying and report;
// a dstsafe.ControlLedger from SetPause, GetPause and Release too, a
// dstsafe.JobRegistry from RegisterJob and LookupJob.
func (s suite) testPermanent(t *testing.T) {
	if len(s.caps.broken) == 0 {
		t.Skip("capability: no broken ledger (dstsafetest.WithBrokenLedger)")
	}
	ctx := context.Background()
	for _, b := range s.caps.broken {
		t.Run(b.name, func(t *testing.T) {
			l := b.newBroken(t, clockwork.NewFakeClockAt(testkit.SuiteStart))
			must.NotNil(t, l, "WithBrokenLedger %q returned nil", b.name)
			calls := map[string]func() error{
				"Claim": func() error {
					_, err := l.Claim(ctx, dstsafe.ClaimRequest{Job: "billing", Period: "2024-11-03", Owner: "w", Lease: time.Minute})
					return err
				},
				"Heartbeat": func() error {
					_, err := l.Heartbeat(ctx, "billing", "2024-11-03", 1, time.Minute)
					return err
				},
				"Finish": func() error {
					_, err := l.Finish(ctx, "billing", "2024-11-03", 1, dstsafe.StateSucceeded, "")
					return err
				},
				"Get": func() error {
					_, err := l.Get(ctx, "billing", "2024-11-03")
					return err
				},
				"List": func() error {
					_, err := l.List(ctx, "billing", "", "")
					return err
				},
			}
			if cl, ok := l.(dstsafe.ControlLedger); ok {
				calls["SetPause"] = func() error {
					_, err := cl.SetPause(ctx, "billing", dstsafe.Pause{Paused: true, By: "ops", Reason: "incident"})
					return err
				}
				calls["GetPause"] = func() error {
					_, err := cl.GetPause(ctx, "billing")
					return err
				}
				calls["Release"] = func() error {
					_, err := cl.Release(ctx, "billing", "2024-11-03", "ops", "processor back")
					return err
				}
			}
			if jr, ok := l.(dstsafe.JobRegistry); ok {
				calls["RegisterJob"] = func() error {
					_, err := jr.RegisterJob(ctx, dstsafe.JobRegistration{Job: "billing", Owner: "w", Schedule: billAt0130})
					return err
				}
				calls["LookupJob"] = func() error {
					_, err := jr.LookupJob(ctx, "billing")
					return err
				}
			}
			for name, call := range calls {
				err := call()
				check.ErrorIs(t, err, dstsafe.ErrPermanent, "%s", name)
				for _, answer := range []error{dstsafe.ErrAlreadyClaimed, dstsafe.ErrLeaseLost, dstsafe.ErrNotFound} {
					check.True(t, !errors.Is(err, answer), "%s: %v is %v: an outage is not an answer", name, err, answer)
				}
			}
		})
	}
}

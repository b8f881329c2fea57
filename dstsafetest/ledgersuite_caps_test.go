package dstsafetest_test

import (
	"context"
	"errors"
	"fmt"
	"testing"
	"time"

	"github.com/jonboulle/clockwork"

	"github.com/dstsafe/dstsafe"
	"github.com/dstsafe/dstsafe/dstsafetest"
)

func init() {
	// A ledger that keeps the first attempt's schedule fingerprint across
	// a takeover: TestSuiteFailsBrokenLedgers checks that the Schedule
	// subtest catches it.
	broken["stale schedule"] = brokenCase{"Schedule", func(l *dstsafe.MemoryLedger) dstsafe.Ledger { return staleSchedule{l} }, nil}
}

type staleSchedule struct{ *dstsafe.MemoryLedger }

func (s staleSchedule) Claim(ctx context.Context, req dstsafe.ClaimRequest) (dstsafe.Record, error) {
	if prev, err := s.MemoryLedger.Get(ctx, req.Job, req.Period); err == nil {
		req.Schedule = prev.Schedule
	}
	return s.MemoryLedger.Claim(ctx, req)
}

// closedLedger is a ledger whose storage was closed: every call fails with
// err.
type closedLedger struct{ err error }

func (c closedLedger) Claim(context.Context, dstsafe.ClaimRequest) (dstsafe.Record, error) {
	return dstsafe.Record{}, c.err
}

func (c closedLedger) Heartbeat(context.Context, string, string, int64, time.Duration) (dstsafe.Record, error) {
	return dstsafe.Record{}, c.err
}

func (c closedLedger) Finish(context.Context, string, string, int64, dstsafe.State, string) (dstsafe.Record, error) {
	return dstsafe.Record{}, c.err
}

func (c closedLedger) Get(context.Context, string, string) (dstsafe.Record, error) {
	return dstsafe.Record{}, c.err
}

func (c closedLedger) List(context.Context, string, string, string) ([]dstsafe.Record, error) {
	return nil, c.err
}

// The Permanent subtest runs every broken ledger it is given, and passes
// those whose every call wraps ErrPermanent. A nil option, and a broken
// ledger without a function, are no option.
func TestSuitePermanent(t *testing.T) {
	var ran []string
	closed := func(name string) dstsafetest.LedgerSuiteOption {
		return dstsafetest.WithBrokenLedger(name, func(t *testing.T, clock *clockwork.FakeClock) dstsafe.Ledger {
			ran = append(ran, name)
			return closedLedger{fmt.Errorf("mybackend: %w: %w", dstsafe.ErrPermanent, errors.New("pool closed"))}
		})
	}
	dstsafetest.RunLedgerTests(t, func(t *testing.T, clock *clockwork.FakeClock) dstsafe.Ledger {
		return dstsafe.NewMemoryLedger(clock)
	}, closed("closed pool"), nil, dstsafetest.WithBrokenLedger("nil", nil), closed("never migrated"))
	if len(ran) != 2 || ran[0] != "closed pool" || ran[1] != "never migrated" {
		t.Fatalf("the Permanent subtest ran %q, want both broken ledgers in order", ran)
	}
}

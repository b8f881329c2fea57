package dstsafetest_test

import (
	"context"
	"errors"
	"runtime"
	"testing"
	"time"

	"github.com/jonboulle/clockwork"

	"github.com/dstsafe/dstsafe"
	"github.com/dstsafe/dstsafe/dstsafetest"
)

// Ledgers that break a promise of dstsafe.ControlLedger:
// TestSuiteFailsBrokenLedgers checks that the subtest named catches each.
func init() {
	add := func(name, catches string, wrap func(l *dstsafe.MemoryLedger) dstsafe.Ledger, opts ...dstsafetest.LedgerSuiteOption) {
		broken[name] = brokenCase{catches, wrap, opts}
	}
	// The pause's Since is never stored: "paused since when?" has no answer.
	add("pause without since", "Pause", func(l *dstsafe.MemoryLedger) dstsafe.Ledger { return pauseNoSince{l} })
	// Pausing a paused job overwrites the first pause (who, why, since).
	add("pause overwrites", "Pause", func(l *dstsafe.MemoryLedger) dstsafe.Ledger { return pauseOverwrites{l} })
	// A takeover does not use the release up: a period released once is
	// taken over again every time it fails.
	add("release never used up", "Release", func(l *dstsafe.MemoryLedger) dstsafe.Ledger { return releaseForever{l} })
	// Release reports success for a running, succeeded or skipped period.
	add("release anything", "ReleaseRefused", func(l *dstsafe.MemoryLedger) dstsafe.Ledger { return releaseAnything{l} })
	// A claim decides on a read of the release, then writes: two replicas
	// that read it before either wrote both take the period over.
	add("stale release read", "ReleaseRace", func(l *dstsafe.MemoryLedger) dstsafe.Ledger { return staleRelease{l} })
	// A decision without a name is stored under a made-up one.
	add("by optional", "ControlKeys", func(l *dstsafe.MemoryLedger) dstsafe.Ledger { return byOptional{l} })
	// Pause state kept in the Ledger value, not in the storage: another
	// process on the same records never sees it.
	add("pause per process", "ControlShared", func(l *dstsafe.MemoryLedger) dstsafe.Ledger {
		return localPauses{l, dstsafe.NewMemoryLedger(nil)}
	}, dstsafetest.WithSecondLedger(func(t *testing.T, clock *clockwork.FakeClock, l dstsafe.Ledger) dstsafe.Ledger {
		return localPauses{l.(localPauses).MemoryLedger, dstsafe.NewMemoryLedger(clock)}
	}))
}

type pauseNoSince struct{ *dstsafe.MemoryLedger }

func (p pauseNoSince) SetPause(ctx context.Context, job string, want dstsafe.Pause) (dstsafe.Pause, error) {
	got, err := p.MemoryLedger.SetPause(ctx, job, want)
	got.Since = time.Time{}
	return got, err
}

func (p pauseNoSince) GetPause(ctx context.Context, job string) (dstsafe.Pause, error) {
	got, err := p.MemoryLedger.GetPause(ctx, job)
	got.Since = time.Time{}
	return got, err
}

type pauseOverwrites struct{ *dstsafe.MemoryLedger }

func (p pauseOverwrites) SetPause(ctx context.Context, job string, want dstsafe.Pause) (dstsafe.Pause, error) {
	if cur, err := p.MemoryLedger.GetPause(ctx, job); err == nil && cur.Paused == want.Paused && !cur.Since.IsZero() {
		flip := want
		flip.Paused = !want.Paused
		p.MemoryLedger.SetPause(ctx, job, flip)
	}
	return p.MemoryLedger.SetPause(ctx, job, want)
}

type releaseForever struct{ *dstsafe.MemoryLedger }

func (r releaseForever) Claim(ctx context.Context, req dstsafe.ClaimRequest) (dstsafe.Record, error) {
	if prev, err := r.Get(ctx, req.Job, req.Period); err == nil && prev.ReleasedBy != "" {
		req.Retry = dstsafe.RetryPolicy{MaxAttempts: 1 << 30, Failed: true, Abandoned: true}
	}
	return r.MemoryLedger.Claim(ctx, req)
}

type releaseAnything struct{ *dstsafe.MemoryLedger }

func (r releaseAnything) Release(ctx context.Context, job, period, by, reason string) (dstsafe.Record, error) {
	rec, err := r.MemoryLedger.Release(ctx, job, period, by, reason)
	var ce *dstsafe.ClaimedError
	if errors.As(err, &ce) {
		rec = ce.Existing
		rec.Released, rec.ReleasedBy, rec.ReleaseReason = true, by, reason
		return rec, nil
	}
	return rec, err
}

type staleRelease struct{ *dstsafe.MemoryLedger }

func (s staleRelease) Claim(ctx context.Context, req dstsafe.ClaimRequest) (dstsafe.Record, error) {
	prev, err := s.Get(ctx, req.Job, req.Period)
	if err != nil || !prev.Released || (prev.State != dstsafe.StateFailed && prev.State != dstsafe.StateAbandoned) {
		return s.MemoryLedger.Claim(ctx, req)
	}
	runtime.Gosched() // the read and the write are apart: another claimer runs in between
	r, err := s.MemoryLedger.Claim(ctx, req)
	var ce *dstsafe.ClaimedError
	if !errors.As(err, &ce) || ce.Existing.State != dstsafe.StateRunning {
		return r, err
	}
	// Taken over since the read, which said it was ours: written anyway.
	s.MemoryLedger.Finish(ctx, req.Job, req.Period, ce.Existing.Token, dstsafe.StateFailed, "overwritten")
	s.MemoryLedger.Release(ctx, req.Job, req.Period, prev.ReleasedBy, prev.ReleaseReason)
	return s.MemoryLedger.Claim(ctx, req)
}

type byOptional struct{ *dstsafe.MemoryLedger }

func (b byOptional) SetPause(ctx context.Context, job string, p dstsafe.Pause) (dstsafe.Pause, error) {
	if p.By == "" {
		p.By = "unknown"
	}
	return b.MemoryLedger.SetPause(ctx, job, p)
}

func (b byOptional) Release(ctx context.Context, job, period, by, reason string) (dstsafe.Record, error) {
	if by == "" {
		by = "unknown"
	}
	return b.MemoryLedger.Release(ctx, job, period, by, reason)
}

// localPauses keeps records in the shared MemoryLedger and pause state
// in a ledger of its own.
type localPauses struct {
	*dstsafe.MemoryLedger
	own *dstsafe.MemoryLedger
}

func (l localPauses) SetPause(ctx context.Context, job string, p dstsafe.Pause) (dstsafe.Pause, error) {
	return l.own.SetPause(ctx, job, p)
}

func (l localPauses) GetPause(ctx context.Context, job string) (dstsafe.Pause, error) {
	return l.own.GetPause(ctx, job)
}

// A Ledger that is not a ControlLedger passes the suite: its control
// subtests skip, saying so.
func TestSuiteSkipsControlOfPlainLedger(t *testing.T) {
	var ran bool
	dstsafetest.RunLedgerTests(t, func(t *testing.T, clock *clockwork.FakeClock) dstsafe.Ledger {
		ran = true
		return plainLedger{dstsafe.NewMemoryLedger(clock)}
	}, dstsafetest.WithSecondLedger(func(t *testing.T, clock *clockwork.FakeClock, l dstsafe.Ledger) dstsafe.Ledger {
		return l
	}))
	if !ran {
		t.Fatal("the suite never asked for a ledger")
	}
}

// plainLedger has the Ledger methods of a MemoryLedger and none of its
// others.
type plainLedger struct{ m *dstsafe.MemoryLedger }

func (p plainLedger) Claim(ctx context.Context, req dstsafe.ClaimRequest) (dstsafe.Record, error) {
	return p.m.Claim(ctx, req)
}

func (p plainLedger) Heartbeat(ctx context.Context, job, period string, token int64, lease time.Duration) (dstsafe.Record, error) {
	return p.m.Heartbeat(ctx, job, period, token, lease)
}

func (p plainLedger) Finish(ctx context.Context, job, period string, token int64, st dstsafe.State, reason string) (dstsafe.Record, error) {
	return p.m.Finish(ctx, job, period, token, st, reason)
}

func (p plainLedger) Get(ctx context.Context, job, period string) (dstsafe.Record, error) {
	return p.m.Get(ctx, job, period)
}

func (p plainLedger) List(ctx context.Context, job, from, to string) ([]dstsafe.Record, error) {
	return p.m.List(ctx, job, from, to)
}

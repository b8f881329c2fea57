package dstsafe_test

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/jonboulle/clockwork"

	"github.com/dstsafe/dstsafe"
)

func TestMemoryLedgerPause(t *testing.T) {
	ctx := context.Background()
	t0 := time.Date(2024, 11, 3, 6, 0, 0, 0, time.UTC) // 01:00 CDT, an hour before the fold
	clock := clockwork.NewFakeClockAt(t0)
	l := dstsafe.NewMemoryLedger(clock)

	if p, err := l.GetPause(ctx, "billing"); err != nil || p != (dstsafe.Pause{}) {
		t.Fatalf("GetPause of a job never paused = %+v, %v; want the zero Pause", p, err)
	}
	p, err := l.SetPause(ctx, "billing", dstsafe.Pause{Paused: true, By: "ops", Reason: "incident 42"})
	if err != nil || !p.Paused || p.By != "ops" || p.Reason != "incident 42" || !p.Since.Equal(t0) {
		t.Fatalf("SetPause(paused) = %+v, %v; want paused by ops since %v", p, err, t0)
	}
	clock.Advance(time.Hour)
	again, err := l.SetPause(ctx, "billing", dstsafe.Pause{Paused: true, By: "bot", Reason: "second"})
	if err != nil || again != p {
		t.Errorf("pausing a paused job = %+v, %v; want it unchanged, %+v", again, err, p)
	}
	r, err := l.SetPause(ctx, "billing", dstsafe.Pause{By: "ops", Reason: "fixed"})
	if err != nil || r.Paused || r.Reason != "fixed" || !r.Since.Equal(t0.Add(time.Hour)) {
		t.Errorf("SetPause(resumed) = %+v, %v; want resumed since %v", r, err, t0.Add(time.Hour))
	}
	if got, _ := l.GetPause(ctx, "billing"); got != r {
		t.Errorf("GetPause = %+v, want %+v", got, r)
	}
	if got, _ := l.GetPause(ctx, "other"); got.Paused {
		t.Errorf("pausing billing paused other: %+v", got)
	}

	var ke *dstsafe.KeyError
	if _, err := l.SetPause(ctx, "billing", dstsafe.Pause{Paused: true}); !errors.As(err, &ke) || ke.Field != "by" {
		t.Errorf("SetPause without By = %v, want a *KeyError for by", err)
	}
	if _, err := l.GetPause(ctx, ""); !errors.As(err, &ke) || ke.Field != "job" {
		t.Errorf("GetPause(\"\") = %v, want a *KeyError for job", err)
	}
}

func TestMemoryLedgerRelease(t *testing.T) {
	ctx := context.Background()
	clock := clockwork.NewFakeClockAt(time.Date(2024, 11, 3, 6, 30, 0, 0, time.UTC))
	l := dstsafe.NewMemoryLedger(clock)
	req := dstsafe.ClaimRequest{Job: "billing", Period: "2024-11-03", Owner: "a"} // zero RetryPolicy: money moves

	if _, err := l.Release(ctx, "billing", "2024-11-03", "ops", "why"); !errors.Is(err, dstsafe.ErrNotFound) {
		t.Errorf("Release of an unclaimed period = %v, want ErrNotFound", err)
	}
	first, err := l.Claim(ctx, req)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := l.Release(ctx, "billing", "2024-11-03", "ops", "why"); !errors.Is(err, dstsafe.ErrAlreadyClaimed) {
		t.Errorf("Release of a running period = %v, want ErrAlreadyClaimed", err)
	}
	if _, err := l.Finish(ctx, "billing", "2024-11-03", first.Token, dstsafe.StateFailed, "card processor down"); err != nil {
		t.Fatal(err)
	}
	if _, err := l.Claim(ctx, req); !errors.Is(err, dstsafe.ErrAlreadyClaimed) {
		t.Fatalf("claim of a failed period without retry = %v, want ErrAlreadyClaimed", err)
	}
	rel, err := l.Release(ctx, "billing", "2024-11-03", "ops", "processor back")
	if err != nil || !rel.Released || rel.ReleasedBy != "ops" || rel.ReleaseReason != "processor back" || rel.State != dstsafe.StateFailed {
		t.Fatalf("Release = %+v, %v; want the failed record, released by ops", rel, err)
	}
	if got, _ := l.Get(ctx, "billing", "2024-11-03"); !got.Released {
		t.Errorf("Get after Release: Released = false")
	}
	second, err := l.Claim(ctx, dstsafe.ClaimRequest{Job: "billing", Period: "2024-11-03", Owner: "b"})
	if err != nil || second.Token <= first.Token || second.Attempt != 2 || second.Released || second.ReleasedBy != "ops" {
		t.Fatalf("claim after Release = %+v, %v; want a takeover (attempt 2, new token), release used, who kept", second, err)
	}
	if _, err := l.Finish(ctx, "billing", "2024-11-03", first.Token, dstsafe.StateSucceeded, ""); !errors.Is(err, dstsafe.ErrLeaseLost) {
		t.Errorf("the first holder's late Finish = %v, want ErrLeaseLost (fenced)", err)
	}
	if _, err := l.Finish(ctx, "billing", "2024-11-03", second.Token, dstsafe.StateFailed, "again"); err != nil {
		t.Fatal(err)
	}
	if _, err := l.Claim(ctx, dstsafe.ClaimRequest{Job: "billing", Period: "2024-11-03", Owner: "c"}); !errors.Is(err, dstsafe.ErrAlreadyClaimed) {
		t.Errorf("a release allows one takeover; a second claim = %v, want ErrAlreadyClaimed", err)
	}
}

package redisledger_test

import (
	"context"
	"encoding/json"
	"errors"
	"testing"
	"time"

	"github.com/dstsafe/dstsafe"
	"github.com/dstsafe/dstsafe/redisledger"
)

// A job's pause state is one JSON string next to its records, and a
// release is fields of the period's record: redis-cli GET shows both.
func TestControlKeyLayoutReadable(t *testing.T) {
	l, c, prefix, clock := newTestLedger(t)
	ctx := context.Background()
	_, err := l.SetPause(ctx, "billing", dstsafe.Pause{Paused: true, By: "ops@bastion", Reason: "incident 42"})
	noErr(t, err, "SetPause")
	raw, err := c.Get(ctx, prefix+"{7:billing}:pause").Result()
	noErr(t, err, "pause state not at the documented key")
	if want := `{"paused":true,"by":"ops@bastion","reason":"incident 42","since":"2024-11-03T06:30:00.123456Z"}`; raw != want {
		t.Errorf("stored pause\n got %s\nwant %s", raw, want)
	}

	r, err := l.Claim(ctx, dstsafe.ClaimRequest{Job: "billing", Period: "2024-11-03", Owner: "host-a"})
	noErr(t, err, "Claim")
	_, err = l.Finish(ctx, "billing", "2024-11-03", r.Token, dstsafe.StateFailed, "card processor down")
	noErr(t, err, "Finish")
	_, err = l.Release(ctx, "billing", "2024-11-03", "ops@bastion", "processor back")
	noErr(t, err, "Release")
	fields := func() map[string]any {
		t.Helper()
		raw, err := c.Get(ctx, prefix+"{7:billing}:run:2024-11-03").Result()
		noErr(t, err, "record")
		var v map[string]any
		noErr(t, json.Unmarshal([]byte(raw), &v), "record is not JSON: %s", raw)
		return v
	}
	v := fields()
	if v["released"] != true || v["released_by"] != "ops@bastion" || v["release_reason"] != "processor back" || v["state"] != "failed" {
		t.Errorf("released record %v, want state failed, released by ops@bastion because processor back", v)
	}
	clock.Advance(time.Minute)
	_, err = l.Claim(ctx, dstsafe.ClaimRequest{Job: "billing", Period: "2024-11-03", Owner: "host-b"})
	noErr(t, err, "takeover")
	v = fields()
	if _, ok := v["released"]; ok || v["released_by"] != "ops@bastion" || v["attempt"] != float64(2) {
		t.Errorf("record after the takeover %v, want no released field, released_by kept, attempt 2", v)
	}
}

// A value under a pause key that the ledger did not write is refused,
// permanently, and never overwritten.
func TestCorruptPauseState(t *testing.T) {
	l, c, prefix, _ := newTestLedger(t)
	ctx := context.Background()
	key := prefix + "{7:billing}:pause"
	for _, bad := range []string{"paused", `{"paused":true}`} {
		noErr(t, c.Set(ctx, key, bad, 0).Err(), "Set")
		_, getErr := l.GetPause(ctx, "billing")
		_, setErr := l.SetPause(ctx, "billing", dstsafe.Pause{By: "ops"})
		for name, err := range map[string]error{"GetPause": getErr, "SetPause": setErr} {
			var ce *redisledger.CorruptRecordError
			if !errors.As(err, &ce) || ce.Key != key || !errors.Is(err, dstsafe.ErrPermanent) {
				t.Errorf("%s over %q = %v, want a permanent *CorruptRecordError for %s", name, bad, err, key)
			}
		}
		if got, _ := c.Get(ctx, key).Result(); got != bad {
			t.Errorf("corrupt pause state overwritten: %q, was %q", got, bad)
		}
	}
}

package redisledger_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/jonboulle/clockwork"
	"github.com/redis/go-redis/v9"

	"github.com/dstsafe/dstsafe"
	"github.com/dstsafe/dstsafe/dstsafetest"
	"github.com/dstsafe/dstsafe/internal/testkit"
	"github.com/dstsafe/dstsafe/redisledger"
)

// The shared conformance suite, every subtest under its own key prefix,
// with commands sent one by one and through go-redis's autopipeline.
func TestLedgerConformance(t *testing.T) {
	c := testClient(t)
	for name, opts := range map[string][]redisledger.Option{
		"direct":       nil,
		"autopipeline": {redisledger.WithAutoPipeline()},
	} {
		t.Run(name, func(t *testing.T) {
			var (
				mu       sync.Mutex
				prefixes = map[dstsafe.Ledger]string{}
				seconds  int
			)
			dstsafetest.RunLedgerTests(t, func(t *testing.T, clock *clockwork.FakeClock) dstsafe.Ledger {
				prefix := testPrefix(t, c)
				opts := append([]redisledger.Option{redisledger.WithKeyPrefix(prefix), redisledger.WithClock(clock)}, opts...)
				var l dstsafe.Ledger = mustNew(c, opts...)
				if _, ok := l.(dstsafe.ControlLedger); !ok {
					t.Fatalf("%T is not a dstsafe.ControlLedger: the suite would skip its control subtests", l)
				}
				mu.Lock()
				prefixes[l] = prefix
				mu.Unlock()
				return l
			}, dstsafetest.WithBrokenLedger("closed client", func(t *testing.T, clock *clockwork.FakeClock) dstsafe.Ledger {
				closed := redis.NewClient(&redis.Options{Addr: c.Options().Addr})
				l := mustNew(closed, append([]redisledger.Option{redisledger.WithClock(clock)}, opts...)...)
				noErr(t, closed.Close(), "Close")
				return l
			}), dstsafetest.WithSecondLedger(func(t *testing.T, clock *clockwork.FakeClock, l dstsafe.Ledger) dstsafe.Ledger {
				// Another process: its own client, the same prefix.
				mu.Lock()
				prefix := prefixes[l]
				seconds++
				mu.Unlock()
				other := redis.NewClient(&redis.Options{Addr: c.Options().Addr})
				t.Cleanup(func() { _ = other.Close() })
				return mustNew(other, append([]redisledger.Option{redisledger.WithKeyPrefix(prefix), redisledger.WithClock(clock)}, opts...)...)
			}))
			if seconds == 0 && !t.Failed() {
				t.Error("the suite never opened a second ledger: ControlShared did not run")
			}
		})
	}
}

// The runner's operating features (pause, backfill, the max-runs race,
// jitter, Describe) on Redis, each subtest under its own key prefix.
func TestScheduler(t *testing.T) {
	c := testClient(t)
	dstsafetest.RunSchedulerTests(t, func(t *testing.T, clock *clockwork.FakeClock) dstsafe.Ledger {
		return mustNew(c, redisledger.WithKeyPrefix(testPrefix(t, c)), redisledger.WithClock(clock))
	})
}

// newTestLedger returns a ledger with its own prefix and a fake clock at
// the suite's start (01:30 CDT on the fall-back night of 2024).
func newTestLedger(t *testing.T, opts ...redisledger.Option) (*redisledger.Ledger, *redis.Client, string, *clockwork.FakeClock) {
	t.Helper()
	c := testClient(t)
	prefix := testPrefix(t, c)
	clock := clockwork.NewFakeClockAt(testkit.SuiteStart)
	opts = append([]redisledger.Option{redisledger.WithKeyPrefix(prefix), redisledger.WithClock(clock)}, opts...)
	return mustNew(c, opts...), c, prefix, clock
}

// The record is one JSON string that redis-cli GET shows whole, under a key
// that names the job and the period; the index is a sorted set of periods.
func TestKeyLayoutReadable(t *testing.T) {
	l, c, prefix, _ := newTestLedger(t)
	ctx := context.Background()
	r, err := l.Claim(ctx, dstsafe.ClaimRequest{Job: "billing", Period: "2024-11-03", Owner: "host-a", Lease: 5 * time.Minute})
	noErr(t, err, "Claim")

	raw, err := c.Get(ctx, prefix+"{7:billing}:run:2024-11-03").Result()
	noErr(t, err, "record not at the documented key")
	var v map[string]any
	noErr(t, json.Unmarshal([]byte(raw), &v), "record is not JSON: %s", raw)
	want := map[string]any{
		"job":         "billing",
		"period":      "2024-11-03",
		"state":       "running",
		"owner":       "host-a",
		"token":       float64(r.Token),
		"attempt":     float64(1),
		"started_at":  "2024-11-03T06:30:00.123456Z", // 01:30 CDT, kept to microseconds
		"lease_until": "2024-11-03T06:35:00.123456Z",
		// no finished_at while running
	}
	if claim, ok := v["claim"].(string); !ok || len(claim) != 16 {
		t.Errorf("claim id %v, want 16 hex digits", v["claim"])
	}
	delete(v, "claim")
	if fmt.Sprint(v) != fmt.Sprint(want) {
		t.Errorf("stored record\n got %v\nwant %v", v, want)
	}

	members, err := c.ZRangeWithScores(ctx, prefix+"{7:billing}:periods", 0, -1).Result()
	noErr(t, err, "index")
	if want := []redis.Z{{Score: 0, Member: "2024-11-03"}}; !slices.Equal(members, want) {
		t.Errorf("index %v, want %v", members, want)
	}
}

// Job names and periods may hold the key separators: pairs that would
// concatenate to the same key must still be different records.
func TestKeysDoNotCollide(t *testing.T) {
	l, _, _, _ := newTestLedger(t)
	ctx := context.Background()
	pairs := []struct{ job, period string }{
		{"a", "b}:run:c"},   // naive "{job}:run:period" gives {a}:run:b}:run:c
		{"a}:run:b", "c"},   // ... and so does this one
		{"a", "periods"},    // a period named like the index
		{"a:run", "x"},      // "a:run" + ":run:x" against "a" + ":run:run:x"
		{"a", "run:x"},      //
		{"{", "}"},          // braces around the hash tag
		{"job}", "{period"}, //
	}
	for i, p := range pairs {
		_, err := l.Claim(ctx, dstsafe.ClaimRequest{Job: p.job, Period: p.period, Owner: fmt.Sprint("w", i)})
		noErr(t, err, "claim %q %q collided with an earlier pair", p.job, p.period)
	}
	for i, p := range pairs {
		r, err := l.Get(ctx, p.job, p.period)
		noErr(t, err, "Get %q %q", p.job, p.period)
		if r.Owner != fmt.Sprint("w", i) || r.Job != p.job || r.Period != p.period {
			t.Errorf("Get(%q, %q) = %+v, want owner w%d", p.job, p.period, r, i)
		}
	}
	list, err := l.List(ctx, "a", "", "")
	noErr(t, err, "List")
	var got []string
	for _, r := range list {
		got = append(got, r.Period)
	}
	if want := []string{"b}:run:c", "periods", "run:x"}; !slices.Equal(got, want) {
		t.Errorf("List(a) periods %q, want %q", got, want)
	}
}

// The second incident: a Redis guard whose key expired let the same charge
// through again. By default a finished record has no TTL at all, and a
// claim of its period a year later is still refused.
func TestSucceededNeverExpiresByDefault(t *testing.T) {
	l, c, prefix, clock := newTestLedger(t)
	ctx := context.Background()
	r, err := l.Claim(ctx, dstsafe.ClaimRequest{Job: "billing", Period: "2024-11-03", Owner: "w"})
	noErr(t, err, "Claim")
	_, err = l.Finish(ctx, "billing", "2024-11-03", r.Token, dstsafe.StateSucceeded, "")
	noErr(t, err, "Finish")

	ttl, err := c.PTTL(ctx, prefix+"{7:billing}:run:2024-11-03").Result()
	noErr(t, err, "PTTL")
	if ttl != -1 {
		t.Errorf("PTTL of a succeeded record = %v, want -1ns (no expiry)", ttl)
	}

	clock.Advance(366 * 24 * time.Hour)
	_, err = l.Claim(ctx, dstsafe.ClaimRequest{Job: "billing", Period: "2024-11-03", Owner: "w2",
		Retry: dstsafe.RetryPolicy{MaxAttempts: 10, Failed: true, Abandoned: true}})
	var claimed *dstsafe.ClaimedError
	if !errors.As(err, &claimed) || claimed.Existing.State != dstsafe.StateSucceeded {
		t.Fatalf("claim a year later: %v, want ClaimedError of a succeeded record", err)
	}
}

// WithFinishedTTL sets the TTL on finished records only: a running record
// must never expire under its holder, whatever the option says.
func TestFinishedTTL(t *testing.T) {
	const ttl = 90 * 24 * time.Hour
	l, c, prefix, _ := newTestLedger(t, redisledger.WithFinishedTTL(ttl))
	ctx := context.Background()
	key := prefix + "{7:billing}:run:2024-11-03"
	pttl := func() time.Duration {
		t.Helper()
		d, err := c.PTTL(ctx, key).Result()
		noErr(t, err, "PTTL")
		return d
	}
	r, err := l.Claim(ctx, dstsafe.ClaimRequest{Job: "billing", Period: "2024-11-03", Owner: "w"})
	noErr(t, err, "Claim")
	if d := pttl(); d != -1 {
		t.Errorf("running record has PTTL %v, want none", d)
	}
	_, err = l.Heartbeat(ctx, "billing", "2024-11-03", r.Token, 0)
	noErr(t, err, "Heartbeat")
	if d := pttl(); d != -1 {
		t.Errorf("heartbeat set PTTL %v, want none", d)
	}
	_, err = l.Finish(ctx, "billing", "2024-11-03", r.Token, dstsafe.StateSucceeded, "")
	noErr(t, err, "Finish")
	if d := pttl(); d <= ttl-time.Minute || d > ttl {
		t.Errorf("finished record PTTL %v, want about %v", d, ttl)
	}

	// Once Redis drops it the period is unknown again: exactly the risk the
	// option's doc warns about. List forgets it and cleans the index.
	noErr(t, c.Del(ctx, key).Err(), "DEL")
	_, err = l.Get(ctx, "billing", "2024-11-03")
	isErr(t, err, dstsafe.ErrNotFound, "Get of an expired record")
	list, err := l.List(ctx, "billing", "", "")
	noErr(t, err, "List")
	if len(list) != 0 {
		t.Errorf("List after expiry: %v", list)
	}
	if n, err := c.ZCard(ctx, prefix+"{7:billing}:periods").Result(); err != nil || n != 0 {
		t.Errorf("index after List: %d members (%v), want 0", n, err)
	}
	r, err = l.Claim(ctx, dstsafe.ClaimRequest{Job: "billing", Period: "2024-11-03", Owner: "w2"})
	noErr(t, err, "Claim after expiry")
	if r.Attempt != 1 || r.Token != 1 {
		t.Errorf("claim after expiry: attempt %d token %d, want a fresh record", r.Attempt, r.Token)
	}
}

// A value under a ledger key that the ledger did not write is reported,
// never overwritten.
func TestCorruptRecord(t *testing.T) {
	l, c, prefix, _ := newTestLedger(t)
	ctx := context.Background()
	key := prefix + "{7:billing}:run:2024-11-03"
	for _, v := range []string{
		"1",                    // an old SETNX guard's counter
		`{"state":"exploded"}`, // unknown state
		`{"state":"running","token":0,"attempt":1}`, // no token
		"not json",
	} {
		noErr(t, c.Set(ctx, key, v, 0).Err(), "SET")
		var corrupt *redisledger.CorruptRecordError
		_, err := l.Claim(ctx, dstsafe.ClaimRequest{Job: "billing", Period: "2024-11-03", Owner: "w",
			Retry: dstsafe.RetryPolicy{MaxAttempts: 9, Failed: true, Abandoned: true}})
		if !errors.As(err, &corrupt) || corrupt.Key != key {
			t.Errorf("Claim over %q: %v, want CorruptRecordError at %s", v, err, key)
		}
		_, err = l.Get(ctx, "billing", "2024-11-03")
		if !errors.As(err, &corrupt) {
			t.Errorf("Get of %q: %v, want CorruptRecordError", v, err)
		}
		_, err = l.Finish(ctx, "billing", "2024-11-03", 1, dstsafe.StateSucceeded, "")
		if !errors.As(err, &corrupt) {
			t.Errorf("Finish over %q: %v, want CorruptRecordError", v, err)
		}
		if got, err := c.Get(ctx, key).Result(); err != nil || got != v {
			t.Errorf("value %q became %q (%v)", v, got, err)
		}
	}
}

// List pages through the index; more periods than one page holds come back
// complete and in order, and bounds cut across page boundaries correctly.
func TestListPages(t *testing.T) {
	l, _, _, _ := newTestLedger(t)
	ctx := context.Background()
	const n = 1234 // more than two pages of 500
	for i := range n {
		_, err := l.Claim(ctx, dstsafe.ClaimRequest{Job: "ticks", Period: fmt.Sprintf("%05d", i), Owner: "w"})
		noErr(t, err, "Claim %d", i)
	}
	tests := []struct {
		from, to   string
		first, end int // expected periods first..end-1
	}{
		{"", "", 0, n},
		{"00500", "", 500, n},          // from on a page boundary
		{"00499", "01001", 499, 1001},  // straddles two boundaries
		{"", "00001", 0, 1},            // only the first
		{"01233", "01234", 1233, 1234}, // only the last
		{"01234", "", n, n},            // past the end
		{"00700", "00700", 700, 700},   // empty range
		{"00800", "00700", 800, 800},   // inverted range
	}
	for _, tt := range tests {
		got, err := l.List(ctx, "ticks", tt.from, tt.to)
		noErr(t, err, "List(%q, %q)", tt.from, tt.to)
		if len(got) != tt.end-tt.first {
			t.Errorf("List(%q, %q): %d records, want %d", tt.from, tt.to, len(got), tt.end-tt.first)
			continue
		}
		for i, r := range got {
			if want := fmt.Sprintf("%05d", tt.first+i); r.Period != want {
				t.Errorf("List(%q, %q)[%d] = %s, want %s", tt.from, tt.to, i, r.Period, want)
				break
			}
		}
	}
}

// When Redis cannot be reached every call fails with the client's error,
// which is none of the ledger's sentinels: a caller must not mistake an
// outage for "already claimed" or "lease lost".
func TestUnreachableServer(t *testing.T) {
	// A port nothing listens on: 127.0.0.1:1 (tcpmux) is refused at once.
	c := redis.NewClient(&redis.Options{Addr: "127.0.0.1:1", MaxRetries: -1})
	t.Cleanup(func() { _ = c.Close() })
	for name, err := range ledgerErrors(mustNew(c)) {
		if err == nil {
			t.Errorf("%s succeeded without a server", name)
			continue
		}
		// Nor is it permanent: the server may be restarting.
		for _, sentinel := range []error{dstsafe.ErrAlreadyClaimed, dstsafe.ErrLeaseLost, dstsafe.ErrNotFound, dstsafe.ErrInvalidArgument, dstsafe.ErrPermanent} {
			if errors.Is(err, sentinel) {
				t.Errorf("%s: %v is %v", name, err, sentinel)
			}
		}
		var netErr interface{ Timeout() bool }
		if !errors.As(err, &netErr) || !strings.HasPrefix(err.Error(), "redisledger: ") {
			t.Errorf("%s: %v does not wrap the network error under redisledger:", name, err)
		}
	}
}

// A nil client is a programmer error; a nil clock or option is the
// default.
func TestNewNil(t *testing.T) {
	func() {
		defer func() {
			if recover() == nil {
				t.Errorf("New(nil) did not panic")
			}
		}()
		mustNew(nil)
	}()
	c := testClient(t)
	l := mustNew(c, nil, redisledger.WithClock(nil), redisledger.WithKeyPrefix(testPrefix(t, c)))
	if l == nil {
		t.Fatal("New with a nil option and WithClock(nil) returned nil")
	}
	// The real clock: a claim's StartedAt is now, not the zero time.
	r, err := l.Claim(context.Background(), dstsafe.ClaimRequest{Job: "nil-options", Period: "2024-11-03", Owner: "w"})
	noErr(t, err, "Claim")
	if r.StartedAt.IsZero() || r.StartedAt.Year() < 2024 {
		t.Errorf("StartedAt = %v with WithClock(nil), want the real clock's now", r.StartedAt)
	}
}

// A clock past year 9999 (a broken NTP source, a test clock advanced too
// far) cannot be written as RFC 3339: the claim fails with an error
// instead of panicking, and nothing is stored.
func TestClockOutOfRange(t *testing.T) {
	c := testClient(t)
	prefix := testPrefix(t, c)
	clock := clockwork.NewFakeClockAt(time.Date(9999, 12, 31, 23, 59, 0, 0, time.UTC))
	l := mustNew(c, redisledger.WithKeyPrefix(prefix), redisledger.WithClock(clock))
	ctx := context.Background()
	_, err := l.Claim(ctx, dstsafe.ClaimRequest{Job: "billing", Period: "2024-11-03", Owner: "w", Lease: time.Hour})
	if err == nil || errors.Is(err, dstsafe.ErrAlreadyClaimed) {
		t.Fatalf("claim with a lease past year 9999: %v, want an encoding error", err)
	}
	_, err = l.Get(ctx, "billing", "2024-11-03")
	isErr(t, err, dstsafe.ErrNotFound, "Get after the failed claim")
}

// New refuses an option it cannot use with a *ConfigError, as
// sqlledger.New does, before it talks to Redis (the client here points at
// nothing).
func TestNewConfigErrors(t *testing.T) {
	client := redis.NewClient(&redis.Options{Addr: "127.0.0.1:1"})
	defer client.Close()
	for _, tc := range []struct {
		option string
		opt    redisledger.Option
	}{
		{"WithKeyPrefix", redisledger.WithKeyPrefix("billing:{eu}:")},
		{"WithKeyPrefix", redisledger.WithKeyPrefix("billing}")},
		{"WithFinishedTTL", redisledger.WithFinishedTTL(-time.Hour)},
	} {
		l, err := redisledger.New(client, tc.opt)
		var ce *redisledger.ConfigError
		if l != nil || !errors.As(err, &ce) || ce.Option != tc.option ||
			!errors.Is(err, redisledger.ErrInvalidConfig) || !errors.Is(err, dstsafe.ErrInvalidArgument) {
			t.Errorf("%s: New = %v, %v; want a *ConfigError for %s", tc.option, l, err, tc.option)
		}
	}
	if _, err := redisledger.New(client, redisledger.WithKeyPrefix("billing:eu:"), redisledger.WithFinishedTTL(0)); err != nil {
		t.Errorf("valid options: %v", err)
	}
}

package redisledger

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"testing"

	"github.com/dstsafe/dstsafe/internal/testkit"
	"github.com/redis/go-redis/v9"
)

// go-redis retries a command whose connection broke after it was sent, so
// a script may run twice for one call. Running each script twice with the
// same arguments must give the caller the same answer as running it once:
// the claim is still its own (thanks to the random claim id), the swap
// still applied. Another claim's identical-looking record is not.
func TestScriptsSafeToRetry(t *testing.T) {
	c, ctx, key, idx := scriptTarget(t)
	run := func(s *redis.Script, args ...any) []any {
		t.Helper()
		return runScript(t, c, s, []string{key, idx}, args...)
	}

	first := `{"claim":"aaaa"}`
	if !won(run(claimScript, first, "p")) {
		t.Fatal("first claim lost on an empty key")
	}
	if !won(run(claimScript, first, "p")) {
		t.Error("a retried claim (same bytes, same claim id) was refused")
	}
	if res := run(claimScript, `{"claim":"bbbb"}`, "p"); won(res) || res[1] != first {
		t.Errorf("another claim got %v, want refused with the first record", res)
	}

	second := `{"claim":"aaaa","state":"succeeded"}`
	if !won(run(swapScript, first, second, "p", 0)) {
		t.Fatal("swap from the current record failed")
	}
	if !won(run(swapScript, first, second, "p", 0)) {
		t.Error("a retried swap (already applied) was reported lost")
	}
	if res := run(swapScript, first, `{"claim":"aaaa","state":"failed"}`, "p", 0); won(res) || res[1] != second {
		t.Errorf("a swap from a stale record got %v, want lost to %s", res, second)
	}
	if got, _ := c.Get(ctx, key).Result(); got != second {
		t.Errorf("stored %s, want %s", got, second)
	}
	if n, _ := c.ZCard(ctx, idx).Result(); n != 1 {
		t.Errorf("index has %d members, want 1", n)
	}
}

// The pause state's compare-and-set, run twice with the same arguments
// (a retried command), answers the same; a set from a stale value is
// refused with the current one.
func TestSetScriptSafeToRetry(t *testing.T) {
	c, ctx, key, _ := scriptTarget(t)
	run := func(expected, next string) []any {
		t.Helper()
		return runScript(t, c, setScript, []string{key}, expected, next)
	}
	for i := range 2 {
		if !won(run("", `{"paused":true}`)) {
			t.Fatalf("set %d of a missing key lost", i)
		}
	}
	if res := run("", `{"paused":false}`); won(res) || len(res) != 2 || res[1] != `{"paused":true}` {
		t.Errorf("set from a stale (missing) value = %v, want {0, current}", res)
	}
	for i := range 2 {
		if !won(run(`{"paused":true}`, `{"paused":false}`)) {
			t.Fatalf("swap %d lost", i)
		}
	}
	c.Del(ctx, key)
	if res := run(`{"paused":true}`, `{"paused":false}`); won(res) || len(res) != 1 {
		t.Errorf("swap of a deleted key = %v, want {0}", res)
	}
}

// scriptTarget returns a client of the test server and two keys no other
// test uses, deleted when t ends.
func scriptTarget(t *testing.T) (c *redis.Client, ctx context.Context, key, idx string) {
	t.Helper()
	addr := testkit.RequireEnv(t, "DSTSAFE_TEST_REDIS_ADDR")
	c = redis.NewClient(&redis.Options{Addr: addr})
	t.Cleanup(func() { _ = c.Close() })
	ctx = context.Background()
	var b [6]byte
	_, _ = rand.Read(b[:])
	key, idx = "dstsafe-test:"+hex.EncodeToString(b[:])+":rec", "dstsafe-test:"+hex.EncodeToString(b[:])+":idx"
	t.Cleanup(func() { c.Del(ctx, key, idx) })
	return c, ctx, key, idx
}

func runScript(t *testing.T, c *redis.Client, s *redis.Script, keys []string, args ...any) []any {
	t.Helper()
	res, err := s.Run(context.Background(), c, keys, args...).Slice()
	if err != nil {
		t.Fatal(err)
	}
	return res
}

// won reports a script's {1}.
func won(res []any) bool { n, ok := res[0].(int64); return ok && n == 1 }

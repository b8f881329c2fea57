package redisledger_test

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"testing"

	"github.com/redis/go-redis/v9"

	"github.com/dstsafe/dstsafe/internal/testkit"
	"github.com/dstsafe/dstsafe/redisledger"
)

// The tests use the standard library only: testify would need go.mod to
// list its own dependencies (go-spew, go-difflib, yaml), and go.mod is
// fixed for this package.

// redisAddrEnv names the variable scripts/test sets to the address of the
// Redis server it started.
const redisAddrEnv = "DSTSAFE_TEST_REDIS_ADDR"

// testClient returns a client of the test Redis server, closed at the end
// of the test. It skips the test without DSTSAFE_TEST_REDIS_ADDR (fails
// under CI=true).
func testClient(t testing.TB) *redis.Client {
	t.Helper()
	addr := testkit.RequireEnv(t, redisAddrEnv)
	c := redis.NewClient(&redis.Options{Addr: addr, PoolSize: 32})
	t.Cleanup(func() { _ = c.Close() })
	if err := c.Ping(context.Background()).Err(); err != nil {
		t.Fatalf("Redis at %s=%s: %v", redisAddrEnv, addr, err)
	}
	return c
}

// testPrefix returns a key prefix no other test uses, and deletes every key
// under it at the end of the test, so that tests share one Redis database
// without seeing each other's records.
func testPrefix(t testing.TB, c redis.UniversalClient) string {
	t.Helper()
	var b [6]byte
	_, _ = rand.Read(b[:])
	prefix := "dstsafe-test:" + hex.EncodeToString(b[:]) + ":"
	t.Cleanup(func() { deleteKeys(t, c, prefix) })
	return prefix
}

// deleteKeys deletes the keys under prefix (which must hold no glob
// characters: testPrefix's are hex).
func deleteKeys(t testing.TB, c redis.UniversalClient, prefix string) {
	t.Helper()
	ctx := context.Background()
	iter := c.Scan(ctx, 0, prefix+"*", 1000).Iterator()
	var keys []string
	flush := func() {
		if len(keys) > 0 {
			if err := c.Unlink(ctx, keys...).Err(); err != nil {
				t.Errorf("deleting test keys: %v", err)
			}
			keys = keys[:0]
		}
	}
	for iter.Next(ctx) {
		keys = append(keys, iter.Val())
		if len(keys) == 1000 {
			flush()
		}
	}
	if err := iter.Err(); err != nil {
		t.Errorf("scanning test keys: %v", err)
	}
	flush()
}

// noErr stops the test if err is not nil.
func noErr(t testing.TB, err error, what string, args ...any) {
	t.Helper()
	if err != nil {
		t.Fatalf(what+": %v", append(args, err)...)
	}
}

// isErr stops the test unless errors.Is(err, target).
func isErr(t testing.TB, err, target error, what string, args ...any) {
	t.Helper()
	if !errors.Is(err, target) {
		t.Fatalf(what+": got error %v, want %v", append(args, err, target)...)
	}
}

// mustNew is redisledger.New for tests, whose options are always valid: it
// panics on an error, which fails the test.
func mustNew(client redis.UniversalClient, opts ...redisledger.Option) *redisledger.Ledger {
	l, err := redisledger.New(client, opts...)
	if err != nil {
		panic(err)
	}
	return l
}

package redisledger_test

import (
	"context"
	"errors"
	"testing"

	"github.com/redis/go-redis/v9"

	"github.com/dstsafe/dstsafe"
	"github.com/dstsafe/dstsafe/internal/testkit"
	"github.com/dstsafe/dstsafe/redisledger"
)

// ledgerErrors calls every method of l once and returns their errors.
func ledgerErrors(l dstsafe.Ledger) map[string]error {
	ctx := context.Background()
	_, claimErr := l.Claim(ctx, dstsafe.ClaimRequest{Job: "billing", Period: "2024-11-03", Owner: "w"})
	_, hbErr := l.Heartbeat(ctx, "billing", "2024-11-03", 1, 0)
	_, finErr := l.Finish(ctx, "billing", "2024-11-03", 1, dstsafe.StateSucceeded, "")
	_, getErr := l.Get(ctx, "billing", "2024-11-03")
	_, listErr := l.List(ctx, "billing", "", "")
	return map[string]error{"Claim": claimErr, "Heartbeat": hbErr, "Finish": finErr, "Get": getErr, "List": listErr}
}

// A closed client fails every call with dstsafe.ErrPermanent, directly and
// through the autopipeline. It needs no server: go-redis refuses before it
// dials.
func TestClosedClientPermanent(t *testing.T) {
	for name, opts := range map[string][]redisledger.Option{
		"direct":       nil,
		"autopipeline": {redisledger.WithAutoPipeline()},
	} {
		t.Run(name, func(t *testing.T) {
			c := redis.NewClient(&redis.Options{Addr: "127.0.0.1:1"})
			l := mustNew(c, opts...)
			noErr(t, c.Close(), "Close")
			for method, err := range ledgerErrors(l) {
				if !errors.Is(err, dstsafe.ErrPermanent) || !errors.Is(err, redis.ErrClosed) {
					t.Errorf("%s on a closed client = %v, want ErrPermanent wrapping redis.ErrClosed", method, err)
				}
			}
		})
	}
}

// A connection the server (or a proxy) drops is not permanent: the next
// call may get through. (TestUnreachableServer checks a refused one.)
func TestDroppedConnectionNotPermanent(t *testing.T) {
	c := redis.NewClient(&redis.Options{Addr: testkit.DroppingServer(t), MaxRetries: -1})
	t.Cleanup(func() { _ = c.Close() })
	for method, err := range ledgerErrors(mustNew(c)) {
		if err == nil {
			t.Errorf("%s succeeded over a dropped connection", method)
		} else if errors.Is(err, dstsafe.ErrPermanent) {
			t.Errorf("%s: %v is permanent; a dropped connection is not", method, err)
		}
	}
}

// Credentials the server refuses are permanent: an ACL user it does not
// know gets WRONGPASS.
func TestWrongPasswordPermanent(t *testing.T) {
	addr := testClient(t).Options().Addr
	c := redis.NewClient(&redis.Options{Addr: addr, Username: "dstsafe-no-such-user", Password: "guess", MaxRetries: -1})
	t.Cleanup(func() { _ = c.Close() })
	_, err := mustNew(c).Get(context.Background(), "billing", "2024-11-03")
	if !errors.Is(err, dstsafe.ErrPermanent) {
		t.Fatalf("Get with refused credentials = %v, want ErrPermanent", err)
	}
}

// A ledger key that holds another type than the ledger writes (something
// else wrote there) is permanent, and so is a string the ledger did not
// write (a *CorruptRecordError). Neither is overwritten.
func TestForeignKeyPermanent(t *testing.T) {
	l, c, prefix, _ := newTestLedger(t)
	ctx := context.Background()
	record, index := prefix+"{7:billing}:run:2024-11-03", prefix+"{7:billing}:periods"
	retry := dstsafe.RetryPolicy{MaxAttempts: 9, Failed: true, Abandoned: true}

	noErr(t, c.RPush(ctx, record, "a queue, not a record").Err(), "RPUSH")
	for method, err := range ledgerErrors(l) {
		if method == "List" {
			continue // the index is intact: List does not read the record's key type
		}
		if !errors.Is(err, dstsafe.ErrPermanent) {
			t.Errorf("%s over a list = %v, want ErrPermanent", method, err)
		}
	}
	noErr(t, c.Del(ctx, record).Err(), "DEL")

	noErr(t, c.Set(ctx, index, "not a sorted set", 0).Err(), "SET index")
	_, err := l.Claim(ctx, dstsafe.ClaimRequest{Job: "billing", Period: "2024-11-03", Owner: "w", Retry: retry})
	isErr(t, err, dstsafe.ErrPermanent, "Claim with a string for an index")
	_, err = l.List(ctx, "billing", "", "")
	isErr(t, err, dstsafe.ErrPermanent, "List with a string for an index")
	noErr(t, c.Del(ctx, index).Err(), "DEL index")

	noErr(t, c.Set(ctx, record, "1", 0).Err(), "SET") // an old SETNX guard's counter
	_, err = l.Claim(ctx, dstsafe.ClaimRequest{Job: "billing", Period: "2024-11-03", Owner: "w", Retry: retry})
	var corrupt *redisledger.CorruptRecordError
	if !errors.As(err, &corrupt) || !errors.Is(err, dstsafe.ErrPermanent) {
		t.Errorf("Claim over a foreign string = %v, want a permanent CorruptRecordError", err)
	}
}

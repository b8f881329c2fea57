package ledgerkit_test

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/dstsafe/dstsafe"
	"github.com/dstsafe/dstsafe/ledgerkit"
)

func ExampleCheckClaim() {
	ctx := context.Background()
	lease, err := ledgerkit.CheckClaim(ctx, dstsafe.ClaimRequest{Job: "billing", Period: "2024-11-03", Owner: "w"})
	fmt.Println(lease, err)
	_, err = ledgerkit.CheckClaim(ctx, dstsafe.ClaimRequest{Job: "billing", Period: "2024-11-03", Owner: "w", Lease: -time.Second})
	fmt.Println(errors.Is(err, dstsafe.ErrInvalidArgument), err)
	canceled, cancel := context.WithCancel(ctx)
	cancel()
	_, err = ledgerkit.CheckClaim(canceled, dstsafe.ClaimRequest{Job: "billing", Period: "2024-11-03", Owner: "w"})
	fmt.Println(err)
	// Output:
	// 1m0s <nil>
	// true dstsafe: invalid ledger request: negative lease -1s
	// context canceled
}

func ExampleCheckHeartbeat() {
	lease, err := ledgerkit.CheckHeartbeat(context.Background(), "billing", "2024-11-03", 1500*time.Millisecond)
	fmt.Println(lease, err)
	// Output: 1.5s <nil>
}

func ExampleCheckFinish() {
	ctx := context.Background()
	reason, err := ledgerkit.CheckFinish(ctx, "billing", "2024-11-03", dstsafe.StateFailed, "card network \xfftimeout")
	fmt.Printf("%+q %v\n", reason, err)
	_, err = ledgerkit.CheckFinish(ctx, "billing", "2024-11-03", dstsafe.StateAbandoned, "")
	fmt.Println(err)
	// Output:
	// "card network \ufffdtimeout" <nil>
	// dstsafe: invalid ledger request: cannot finish in state abandoned (4)
}

func ExampleCheckGet() {
	fmt.Println(ledgerkit.CheckGet(context.Background(), "billing", ""))
	// Output: dstsafe: invalid ledger key: period "": empty
}

func ExampleCheckList() {
	ctx := context.Background()
	fmt.Println(ledgerkit.CheckList(ctx, "billing", "", "2024-12-01")) // an empty bound is open
	fmt.Println(ledgerkit.CheckList(ctx, "billing", "2024-11-\xff", ""))
	// Output:
	// <nil>
	// dstsafe: invalid ledger key: from "2024-11-\xff": not valid UTF-8
}

// A pause or resume needs to say who decided it: an empty By is a
// *dstsafe.KeyError for field "by". The reason is kept as Finish keeps one.
func ExampleCheckSetPause() {
	ctx := context.Background()
	reason, err := ledgerkit.CheckSetPause(ctx, "billing", dstsafe.Pause{Paused: true, By: "ops@bastion", Reason: "incident\x00 42"})
	fmt.Printf("%q %v\n", reason, err)
	_, err = ledgerkit.CheckSetPause(ctx, "billing", dstsafe.Pause{Paused: true})
	var ke *dstsafe.KeyError
	fmt.Println(errors.As(err, &ke), ke.Field, err)
	// Output:
	// "incident 42" <nil>
	// true by dstsafe: invalid ledger key: by "": empty
}

func ExampleCheckGetPause() {
	fmt.Println(ledgerkit.CheckGetPause(context.Background(), "billing"))
	fmt.Println(ledgerkit.CheckGetPause(context.Background(), "billing\x00eu"))
	// Output:
	// <nil>
	// dstsafe: invalid ledger key: job "billing\x00eu": contains a NUL byte
}

// A release names the operator who made it; its reason is kept as
// Finish keeps one.
func ExampleCheckRelease() {
	ctx := context.Background()
	reason, err := ledgerkit.CheckRelease(ctx, "billing", "2024-11-03", "ops@bastion", "processor back")
	fmt.Printf("%q %v\n", reason, err)
	_, err = ledgerkit.CheckRelease(ctx, "billing", "2024-11-03", "", "processor back")
	fmt.Println(err)
	// Output:
	// "processor back" <nil>
	// dstsafe: invalid ledger key: by "": empty
}

func ExampleValidateKey() {
	for _, k := range []string{"2024-11-03", "", "factura\xe7ion", strings.Repeat("x", 256)} {
		err := ledgerkit.ValidateKey("period", k)
		var ke *dstsafe.KeyError
		if errors.As(err, &ke) {
			fmt.Println(errors.Is(err, dstsafe.ErrInvalidArgument), ke.Reason)
		} else {
			fmt.Println(err)
		}
	}
	// Output:
	// <nil>
	// true empty
	// true not valid UTF-8
	// true longer than 255 bytes
}

func ExampleValidateBound() {
	fmt.Println(ledgerkit.ValidateBound("from", ""), ledgerkit.ValidateBound("to", "2024-12-01"))
	fmt.Println(ledgerkit.ValidateBound("to", "\xff"))
	// Output:
	// <nil> <nil>
	// dstsafe: invalid ledger key: to "\xff": not valid UTF-8
}

func ExampleEffectiveLease() {
	for _, d := range []time.Duration{0, 90 * time.Second, 1500 * time.Nanosecond, -time.Second} {
		l, err := ledgerkit.EffectiveLease(d)
		fmt.Println(l, err != nil)
	}
	// Output:
	// 1m0s false
	// 1m30s false
	// 1µs false
	// 0s true
}

func ExampleNormalizeReason() {
	fmt.Printf("%+q\n", ledgerkit.NormalizeReason("timeout\x00 from \xff legacy gateway"))
	fmt.Println(len(ledgerkit.NormalizeReason(strings.Repeat("€", 2000))))
	// Output:
	// "timeout from \ufffd legacy gateway"
	// 4095
}

func ExampleLedgerTime() {
	cdt := time.FixedZone("CDT", -5*60*60)
	t := time.Date(2024, 11, 3, 1, 30, 0, 123456789, cdt)
	fmt.Println(ledgerkit.LedgerTime(t))
	// Output: 2024-11-03 06:30:00.123456 +0000 UTC
}

func ExampleLeaseLost() {
	cur := dstsafe.Record{Job: "billing", Period: "2024-11-03", State: dstsafe.StateSucceeded, Token: 3, Owner: "w2"}
	err := ledgerkit.LeaseLost(cur, 2)
	fmt.Println(errors.Is(err, dstsafe.ErrLeaseLost))
	fmt.Println(err)
	// Output:
	// true
	// dstsafe: lease lost: job "billing" period "2024-11-03": token 2 does not hold it (token 3, succeeded, owner "w2")
}

func ExampleNotFound() {
	err := ledgerkit.NotFound("billing", "2024-11-03")
	fmt.Println(errors.Is(err, dstsafe.ErrNotFound), err)
	// Output: true dstsafe: no record: job "billing" period "2024-11-03"
}

func ExamplePermanent() {
	// As a backend's error mapping marks a table that was never migrated.
	undefinedTable := errors.New(`relation "dstsafe_runs" does not exist (SQLSTATE 42P01)`)
	err := fmt.Errorf("mybackend: claim: %w", ledgerkit.Permanent(undefinedTable))
	fmt.Println(errors.Is(err, dstsafe.ErrPermanent), errors.Is(err, undefinedTable))
	fmt.Println(err)
	// Output:
	// true true
	// mybackend: claim: dstsafe: permanent ledger error: relation "dstsafe_runs" does not exist (SQLSTATE 42P01)
}

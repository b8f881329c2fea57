package dstsafe_test

import (
	"encoding/json"
	"flag"
	"fmt"

	"github.com/dstsafe/dstsafe"
)

// Policies are flags with flag.TextVar: the flag takes the names String
// prints, in any case.
func ExampleFoldPolicy_UnmarshalText() {
	fs := flag.NewFlagSet("billing", flag.ContinueOnError)
	var fold dstsafe.FoldPolicy
	var gap dstsafe.GapPolicy
	fs.TextVar(&fold, "fold", dstsafe.FoldPolicy(0), "fold policy")
	fs.TextVar(&gap, "gap", dstsafe.GapPolicy(0), "gap policy")
	if err := fs.Parse([]string{"--fold", "LAST", "--gap", "at-transition"}); err != nil {
		fmt.Println(err)
		return
	}
	c, err := dstsafe.ParseCron("CRON_TZ=America/Chicago 30 1 * * *", dstsafe.WithFold(fold), dstsafe.WithGap(gap))
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(c.FoldPolicy(), c.GapPolicy())

	var bad dstsafe.FoldPolicy
	fmt.Println(bad.UnmarshalText([]byte("twice")))
	// Output:
	// last at-transition
	// dstsafe: unknown fold policy "twice": want auto, first, last or both
}

// A ledger Record's State is a word in JSON; the zero State is "".
func ExampleState_MarshalText() {
	b, err := json.Marshal(map[string]dstsafe.State{"2024-11-03": dstsafe.StateSucceeded, "2024-11-04": 0})
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(string(b))

	var s dstsafe.State
	if err := json.Unmarshal([]byte(`"Failed"`), &s); err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(s == dstsafe.StateFailed)
	// Output:
	// {"2024-11-03":"succeeded","2024-11-04":""}
	// true
}

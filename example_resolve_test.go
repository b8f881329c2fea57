package dstsafe_test

import (
	"errors"
	"fmt"
	"testing"
	"time"

	"github.com/dstsafe/dstsafe"
	"github.com/dstsafe/dstsafe/dstsafetest"
)

// chicago is America/Chicago from the pinned tzdata, so the examples print
// the same on every machine.
func chicago() *time.Location { return pinnedZone("America/Chicago") }

// pinnedZone is dstsafetest.Zone for examples, which have no testing.TB.
func pinnedZone(name string) *time.Location { return dstsafetest.Zone(exampleTB{}, name) }

// exampleTB is the testing.TB of an example: a failure panics, which fails
// the example. Only Helper and Fatalf are called.
type exampleTB struct{ testing.TB }

func (exampleTB) Helper() {}

func (exampleTB) Fatalf(format string, args ...any) { panic(fmt.Sprintf(format, args...)) }

// On 2024-11-03 Chicago's clocks went back from 02:00 CDT to 01:00 CST,
// so 01:30 happened twice; on 2024-03-10 they jumped from 02:00 to 03:00,
// so 02:30 never happened.
func ExampleLookup() {
	loc := chicago()
	for _, w := range []dstsafe.Wall{
		{Year: 2024, Month: time.November, Day: 3, Hour: 1, Minute: 30},
		{Year: 2024, Month: time.March, Day: 10, Hour: 2, Minute: 30},
		{Year: 2024, Month: time.June, Day: 1, Hour: 1, Minute: 30},
	} {
		r := dstsafe.Lookup(w, loc)
		fmt.Printf("%s %-6s earlier %s  later %s\n", w, r.Kind,
			r.Earlier.Format(time.RFC3339), r.Later.Format(time.RFC3339))
	}
	// Output:
	// 2024-11-03T01:30:00 fold   earlier 2024-11-03T01:30:00-05:00  later 2024-11-03T01:30:00-06:00
	// 2024-03-10T02:30:00 gap    earlier 2024-03-10T01:30:00-06:00  later 2024-03-10T03:30:00-05:00
	// 2024-06-01T01:30:00 unique earlier 2024-06-01T01:30:00-05:00  later 2024-06-01T01:30:00-05:00
}

// Resolve picks one instant as told; Reject refuses to guess.
func ExampleResolve() {
	loc := chicago()
	fold := dstsafe.Wall{Year: 2024, Month: time.November, Day: 3, Hour: 1, Minute: 30}
	gap := dstsafe.Wall{Year: 2024, Month: time.March, Day: 10, Hour: 2, Minute: 30}
	for _, d := range []dstsafe.Disambiguation{dstsafe.Compatible, dstsafe.Earlier, dstsafe.Later} {
		f, _ := dstsafe.Resolve(fold, loc, d)
		g, _ := dstsafe.Resolve(gap, loc, d)
		fmt.Printf("%-10s fold %s  gap %s\n", d, f.Format(time.RFC3339), g.Format(time.RFC3339))
	}
	_, err := dstsafe.Resolve(gap, loc, dstsafe.Reject)
	fmt.Println(errors.Is(err, dstsafe.ErrNonexistent))
	fmt.Println(err)
	// Output:
	// compatible fold 2024-11-03T01:30:00-05:00  gap 2024-03-10T03:30:00-05:00
	// earlier    fold 2024-11-03T01:30:00-05:00  gap 2024-03-10T01:30:00-06:00
	// later      fold 2024-11-03T01:30:00-06:00  gap 2024-03-10T03:30:00-05:00
	// true
	// dstsafe: wall time 2024-03-10T02:30:00 does not exist in America/Chicago: skipped by the -06:00 -> -05:00 transition at 2024-03-10T08:00:00Z; candidates 2024-03-10T01:30:00-06:00 and 2024-03-10T03:30:00-05:00
}

func ExampleTransitions() {
	loc := pinnedZone("Australia/Lord_Howe")
	from := time.Date(2024, 1, 1, 0, 0, 0, 0, time.UTC)
	for _, tr := range dstsafe.Transitions(loc, from, from.AddDate(1, 0, 0)) {
		fmt.Printf("%s %s: %s-%s\n", tr.At.UTC().Format(time.RFC3339), tr.Kind, tr.Start, tr.End)
	}
	// Output:
	// 2024-04-06T15:00:00Z fold: 2024-04-07T01:30:00-2024-04-07T02:00:00
	// 2024-10-05T15:30:00Z gap: 2024-10-06T02:00:00-2024-10-06T02:30:00
}

package dstsafetest_test

import (
	"context"
	"fmt"
	"log/slog"
	"strings"
	"testing"
	"time"

	"github.com/jonboulle/clockwork"

	"github.com/dstsafe/dstsafe"
	"github.com/dstsafe/dstsafe/dstsafetest"
)

// printT stands in for *testing.T: it prints the first line of a failure.
type printT struct{}

func (printT) Helper()  {}
func (printT) FailNow() {}
func (printT) Errorf(format string, args ...any) {
	msg := fmt.Sprintf(format, args...)
	for _, line := range strings.Split(msg, "\n") {
		if strings.Contains(line, "Error:") {
			fmt.Println(strings.TrimSpace(line))
		}
	}
}

// pinned is Zone for examples, which have no testing.TB.
func pinned(name string) *time.Location { return dstsafetest.Zone(exampleTB{}, name) }

// exampleTB is the testing.TB of an example: a failure panics, which fails
// the example. Zone calls only Helper and Fatalf.
type exampleTB struct{ testing.TB }

func (exampleTB) Helper() {}

func (exampleTB) Fatalf(format string, args ...any) { panic(fmt.Sprintf(format, args...)) }

// In a test, pass t. The billing job at 01:30 in Chicago passes across the
// fall-back night; the naive "every 01:30 reading" schedule of the incident
// (a plain schedule read in UTC, so the ledger sees two periods) does not.
func ExampleRequireOncePerDay() {
	chicago := pinned("America/Chicago")
	start := time.Date(2024, 11, 2, 12, 0, 0, 0, time.UTC)
	simulate := func(sched dstsafe.Schedule) []dstsafe.Fire {
		clock := clockwork.NewFakeClockAt(start)
		s := dstsafe.NewScheduler(dstsafe.WithClock(clock), dstsafe.WithLogger(slog.New(slog.DiscardHandler)))
		_ = s.Add("billing", sched, func(context.Context, dstsafe.Run) error { return nil })
		fires, _ := dstsafe.Simulate(context.Background(), s, 48*time.Hour)
		return fires
	}

	billing, _ := dstsafe.ParseCron("30 1 * * *", dstsafe.WithLocation(chicago))
	dstsafetest.RequireOncePerDay(printT{}, simulate(billing), chicago)
	fmt.Println("cron: ok")

	dstsafetest.RequireOncePerDay(printT{}, simulate(everyReading{chicago}), chicago)
	// Output:
	// cron: ok
	// Error:      	not once per day:
}

// everyReading fires whenever the wall clock in loc reads 01:30, both
// readings of a fold included, and returns instants in UTC.
type everyReading struct{ loc *time.Location }

func (e everyReading) Next(after time.Time) time.Time {
	for t := after.UTC().Truncate(time.Minute).Add(time.Minute); ; t = t.Add(time.Minute) {
		if r := t.In(e.loc); r.Hour() == 1 && r.Minute() == 30 {
			return t
		}
	}
}

// A billing job per customer zone, checked in one call: each job by the
// local dates of its own schedule's zone. Chicago's and London's daily
// 01:30 across both of their 2024 transitions.
func ExampleRequireOncePerLocalDay() {
	start := time.Date(2024, 1, 1, 0, 0, 0, 0, time.UTC)
	s := dstsafe.NewScheduler(dstsafe.WithClock(clockwork.NewFakeClockAt(start)))
	for _, zone := range []string{"America/Chicago", "Europe/London"} {
		billing, err := dstsafe.ParseCron("30 1 * * *", dstsafe.WithLocation(pinned(zone)), dstsafe.WithPeriodKey(dstsafe.ByDate))
		if err != nil {
			panic(err)
		}
		if err := s.Add("billing/"+zone, billing, func(context.Context, dstsafe.Run) error { return nil }); err != nil {
			panic(err)
		}
	}
	fires, err := dstsafe.Simulate(context.Background(), s, 366*24*time.Hour)
	if err != nil {
		panic(err)
	}
	dstsafetest.RequireOncePerLocalDay(printT{}, fires)
	fmt.Println(len(fires), "fires, once per local day")
	// Output:
	// 732 fires, once per local day
}

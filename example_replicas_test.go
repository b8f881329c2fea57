package dstsafe_test

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"time"

	"github.com/jonboulle/clockwork"

	"github.com/dstsafe/dstsafe"
)

// fastClock reads the fake clock plus an offset: a replica whose NTP
// sync stopped.
type fastClock struct {
	*clockwork.FakeClock
	offset time.Duration
}

func (c fastClock) Now() time.Time { return c.FakeClock.Now().Add(c.offset) }

func Example_clockSkew() {
	store := clockwork.NewFakeClockAt(time.Date(2024, 11, 3, 6, 0, 0, 0, time.UTC))
	ledger := dstsafe.NewMemoryLedger(store) // the ledger's clock
	replica := dstsafe.NewScheduler(
		dstsafe.WithClock(fastClock{store, 2 * time.Minute}),
		dstsafe.WithLedger(ledger),
		dstsafe.WithLogger(slog.New(slog.DiscardHandler)), // it logs the refusal at ERROR
	)
	sched, err := dstsafe.ParseCron("CRON_TZ=UTC 0 * * * *")
	if err != nil {
		fmt.Println(err)
		return
	}
	if err := replica.Add("sync", sched, func(context.Context, dstsafe.Run) error { return nil }); err != nil {
		fmt.Println(err)
		return
	}
	err = replica.RunNow(context.Background(), "sync", "2024-11-03T06:00:00")
	fmt.Println(errors.Is(err, dstsafe.ErrClockSkew))
	_, err = ledger.Get(context.Background(), "sync", "2024-11-03T06:00:00")
	fmt.Println(errors.Is(err, dstsafe.ErrNotFound))
	// Output:
	// true
	// true
}

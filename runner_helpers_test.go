package dstsafe_test

import (
	"context"
	"io"
	"log/slog"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/jonboulle/clockwork"
	"github.com/stretchr/testify/require"

	"github.com/dstsafe/dstsafe"
	"github.com/dstsafe/dstsafe/dstsafetest"
	"github.com/dstsafe/dstsafe/event"
)

// zone is dstsafetest.Zone: a zone from the pinned tzdata 2025b.
func zone(t testing.TB, name string) *time.Location {
	t.Helper()
	return dstsafetest.Zone(t, name)
}

// quiet is a logger that drops everything.
func quiet() *slog.Logger { return slog.New(slog.DiscardHandler) }

// textLogger writes logfmt lines to w, without timestamps so golden
// comparisons stay stable.
func textLogger(w io.Writer) *slog.Logger {
	return slog.New(slog.NewTextHandler(w, &slog.HandlerOptions{
		ReplaceAttr: func(groups []string, a slog.Attr) slog.Attr {
			if len(groups) == 0 && a.Key == slog.TimeKey {
				return slog.Attr{}
			}
			return a
		},
	}))
}

// newSim returns a scheduler on a fake clock at start with a MemoryLedger
// on the same clock.
func newSim(t testing.TB, start time.Time, opts ...dstsafe.SchedulerOption) (*dstsafe.Scheduler, *clockwork.FakeClock, *dstsafe.MemoryLedger) {
	t.Helper()
	clock := clockwork.NewFakeClockAt(start)
	ledger := dstsafe.NewMemoryLedger(clock)
	opts = append([]dstsafe.SchedulerOption{
		dstsafe.WithClock(clock), dstsafe.WithLedger(ledger), dstsafe.WithLogger(quiet()), dstsafe.WithOwner("test"),
	}, opts...)
	return dstsafe.NewScheduler(opts...), clock, ledger
}

func mustCron(t testing.TB, spec string, opts ...dstsafe.CronOption) *dstsafe.Cron {
	t.Helper()
	c, err := dstsafe.ParseCron(spec, opts...)
	require.NoError(t, err)
	return c
}

func nop(context.Context, dstsafe.Run) error { return nil }

// eventLog is an Observer that keeps every event.
type eventLog struct {
	mu     sync.Mutex
	events []dstsafe.Event
}

func (l *eventLog) Observe(e dstsafe.Event) {
	l.mu.Lock()
	l.events = append(l.events, e)
	l.mu.Unlock()
}

// all returns the events so far, in the order they were observed.
func (l *eventLog) all() []dstsafe.Event {
	l.mu.Lock()
	defer l.mu.Unlock()
	return slices.Clone(l.events)
}

// has reports whether an event of type typ about period was observed.
func (l *eventLog) has(typ event.Type, period string) bool {
	for _, e := range l.all() {
		if e.Type == typ && e.Period == period {
			return true
		}
	}
	return false
}

// types lists the types of the events about period of job, in order.
func (l *eventLog) types(job, period string) []event.Type {
	var out []event.Type
	for _, e := range l.all() {
		if e.Job == job && e.Period == period {
			out = append(out, e.Type)
		}
	}
	return out
}

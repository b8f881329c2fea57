package sqlite_test

import (
	"bytes"
	"context"
	"log/slog"
	"path/filepath"
	"testing"
	"time"

	"github.com/dstsafe/dstsafe"
	"github.com/dstsafe/dstsafe/dstsafetest"
	"github.com/dstsafe/dstsafe/sqlledger"
	"github.com/dstsafe/dstsafe/sqlledger/sqlite"
	"github.com/jonboulle/clockwork"
	"github.com/stretchr/testify/require"
)

func nop(context.Context, dstsafe.Run) error { return nil }

// dropTime keeps log lines free of timestamps.
func dropTime(groups []string, a slog.Attr) slog.Attr {
	if a.Key == slog.TimeKey && len(groups) == 0 {
		return slog.Attr{}
	}
	return a
}

// The postmortem's "deploy restart": a scheduler stopped right after the
// first 01:30 (CDT) of 2024-11-03 and a new process started on the same
// SQLite ledger does not run the period again, neither at 01:30 CST nor
// ever; it runs 11-04 as usual. The second process is also tried with a
// naive schedule (robfig/cron style, keyed by wall time) that offers the
// second 01:30: the ledger refuses it and the log says so.
func TestRestartMidNight(t *testing.T) {
	chicago := dstsafetest.Zone(t, "America/Chicago")
	for _, tc := range []struct {
		name  string
		sched func(t *testing.T) dstsafe.Schedule
	}{
		{"cron", func(t *testing.T) dstsafe.Schedule {
			c, err := dstsafe.ParseCron("30 1 * * *", dstsafe.WithLocation(chicago))
			require.NoError(t, err)
			return c
		}},
		{"naive schedule", func(t *testing.T) dstsafe.Schedule { return everyWallReading{chicago, 1, 30} }},
	} {
		t.Run(tc.name, func(t *testing.T) {
			path := filepath.Join(t.TempDir(), "ledger.db")
			clock := clockwork.NewFakeClockAt(time.Date(2024, 11, 3, 5, 0, 0, 0, time.UTC)) // 00:00 CDT
			open := func() *sqlledger.Ledger {
				l, err := sqlite.OpenSQLite(path, sqlledger.WithClock(clock))
				require.NoError(t, err)
				require.NoError(t, l.Migrate(context.Background()))
				return l
			}

			first := open()
			s1 := dstsafe.NewScheduler(dstsafe.WithClock(clock), dstsafe.WithLedger(first), dstsafe.WithLogger(slog.New(slog.DiscardHandler)), dstsafe.WithOwner("billing-1"))
			require.NoError(t, s1.Add("billing", tc.sched(t), nop))
			fires, err := dstsafe.Simulate(context.Background(), s1, 105*time.Minute, dstsafe.WithStep(20*time.Second))
			require.NoError(t, err)
			dstsafetest.RequireFiresAt(t, fires, time.Date(2024, 11, 3, 6, 30, 0, 0, time.UTC)) // 01:30 CDT
			require.NoError(t, first.Close())

			var logs bytes.Buffer
			second := open()
			defer second.Close()
			s2 := dstsafe.NewScheduler(dstsafe.WithClock(clock), dstsafe.WithLedger(second), dstsafe.WithLogger(slog.New(slog.NewTextHandler(&logs, &slog.HandlerOptions{ReplaceAttr: dropTime}))), dstsafe.WithOwner("billing-2"))
			require.NoError(t, s2.Add("billing", tc.sched(t), nop))
			fires, err = dstsafe.Simulate(context.Background(), s2, 26*time.Hour, dstsafe.WithStep(20*time.Second))
			require.NoError(t, err)
			dstsafetest.RequireFiresAt(t, fires, time.Date(2024, 11, 4, 7, 30, 0, 0, time.UTC)) // 01:30 CST next day

			rec, err := second.Get(context.Background(), "billing", "2024-11-03T01:30:00")
			require.NoError(t, err)
			require.Equal(t, dstsafe.StateSucceeded, rec.State)
			require.Equal(t, "billing-1", rec.Owner)
			require.Equal(t, 1, rec.Attempt)
			if tc.name == "naive schedule" {
				require.Contains(t, logs.String(), `msg="billing.run already claimed" job=billing period=2024-11-03T01:30:00`)
				require.Contains(t, logs.String(), "owner=billing-1")
			}
		})
	}
}

// everyWallReading is the naive schedule of the incident: every instant
// whose wall clock reads hh:mm in loc, both readings of a fold included.
type everyWallReading struct {
	loc    *time.Location
	hh, mm int
}

func (e everyWallReading) Next(after time.Time) time.Time {
	t := after.Truncate(time.Minute).Add(time.Minute)
	for {
		r := t.In(e.loc)
		if r.Hour() == e.hh && r.Minute() == e.mm {
			return r
		}
		t = t.Add(time.Minute)
	}
}

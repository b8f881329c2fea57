package dstsafe_test

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/jonboulle/clockwork"
	"github.com/stretchr/testify/require"

	"github.com/dstsafe/dstsafe"
	"github.com/dstsafe/dstsafe/event"
	"github.com/dstsafe/dstsafe/ledgerkit"
)

// succeeded counts job's succeeded periods in the ledger.
func succeeded(t testing.TB, l dstsafe.Ledger, job string) int {
	t.Helper()
	n := 0
	for _, r := range records(t, l, job) {
		if r.State == dstsafe.StateSucceeded {
			n++
		}
	}
	return n
}

// WithMaxRuns(5) on a half-hourly Chicago job runs the first five
// periods and then nothing: across the fold the two readings of 01:00
// and of 01:30 are four periods and count four times; across the gap the
// skipped 02:00 and 02:30 count for nothing. The periods are the oracle's.
func TestMaxRunsAcrossTheNights(t *testing.T) {
	chicago := zone(t, "America/Chicago")
	for _, tc := range []struct {
		night string
		start time.Time
	}{
		{"fold", time.Date(2024, 11, 3, 5, 45, 0, 0, time.UTC)}, // 00:45 CDT
		{"gap", time.Date(2024, 3, 10, 7, 15, 0, 0, time.UTC)},  // 01:15 CST
	} {
		t.Run(tc.night, func(t *testing.T) {
			s, _, ledger := newSim(t, tc.start)
			require.NoError(t, s.Add("sync", mustCron(t, "*/30 * * * *", dstsafe.WithLocation(chicago)), nop, dstsafe.WithMaxRuns(5)))
			fires, err := dstsafe.Simulate(simCtx(t), s, 24*time.Hour)
			require.NoError(t, err)
			want := oracleFires(t, "America/Chicago", every(30), periodicPolicy, tc.start, tc.start.Add(24*time.Hour))[:5]
			require.Equal(t, periods(want), firePeriods(fires, "sync"))
			require.Len(t, records(t, ledger, "sync"), 5, "the periods after the fifth have no record: the job is done")
			slots := records(t, ledger, "sync/max-runs")
			require.Len(t, slots, 5)
			for _, r := range slots {
				require.Equal(t, dstsafe.StateSucceeded, r.State)
			}
			d, err := s.Describe(context.Background(), "sync", 3)
			require.NoError(t, err)
			require.Empty(t, d.Next)
			require.Equal(t, 5, d.Runs)
			require.Equal(t, 5, d.MaxRuns)
			err = s.RunNow(context.Background(), "sync", "2024-"+tc.start.Format("01-02")+"T12:00:00")
			require.ErrorIs(t, err, dstsafe.ErrMaxRuns)
		})
	}
}

// The count lives in the ledger: a Scheduler restarted after two of three
// runs runs one more; failures free their slot; Update raising the limit
// lets the job go on.
func TestMaxRunsAcrossRestarts(t *testing.T) {
	start := time.Date(2024, 6, 1, 0, 0, 0, 0, time.UTC)
	hourly := mustCron(t, "0 * * * *")
	calls := 0
	job := func(_ context.Context, r dstsafe.Run) error {
		calls++
		if calls == 2 {
			return errors.New("transient")
		}
		return nil
	}
	a, clock, ledger := newSim(t, start)
	require.NoError(t, a.Add("sync", hourly, job, dstsafe.WithMaxRuns(3)))
	_, err := dstsafe.Simulate(simCtx(t), a, 2*time.Hour) // 00:00 ok, 01:00 failed, 02:00 ok
	require.NoError(t, err)
	require.Equal(t, 2, succeeded(t, ledger, "sync"))

	b := dstsafe.NewScheduler(dstsafe.WithClock(clock), dstsafe.WithLedger(ledger), dstsafe.WithLogger(quiet()))
	require.NoError(t, b.Add("sync", hourly, job, dstsafe.WithMaxRuns(3)))
	fires, err := dstsafe.Simulate(simCtx(t), b, 5*time.Hour)
	require.NoError(t, err)
	require.Equal(t, []string{"2024-06-01T03:00:00"}, firePeriods(fires, "sync"), "one run left")
	require.Equal(t, 3, succeeded(t, ledger, "sync"))

	require.NoError(t, b.Update("sync", hourly, dstsafe.WithMaxRuns(4)))
	fires, err = dstsafe.Simulate(simCtx(t), b, 5*time.Hour)
	require.NoError(t, err)
	require.Equal(t, []string{"2024-06-01T07:00:00"}, firePeriods(fires, "sync"), "the raised limit's one more, from the Update (07:00) on")
	require.Equal(t, 4, succeeded(t, ledger, "sync"))
}

// WithMaxRuns refuses a negative count and a job name that leaves no
// room for the slots' key.
func TestMaxRunsArguments(t *testing.T) {
	s, _, _ := newSim(t, time.Date(2024, 6, 1, 0, 0, 0, 0, time.UTC))
	require.ErrorIs(t, s.Add("a", mustCron(t, "0 * * * *"), nop, dstsafe.WithMaxRuns(-1)), dstsafe.ErrInvalidArgument)
	name := strings.Repeat("j", ledgerkit.MaxKeyLen-len("/max-runs")) // the longest name WithMaxRuns takes
	require.NoError(t, s.Add(name, mustCron(t, "0 * * * *"), nop, dstsafe.WithMaxRuns(1)))
	require.ErrorIs(t, s.Add(name+"x", mustCron(t, "0 * * * *"), nop, dstsafe.WithMaxRuns(1)), dstsafe.ErrInvalidArgument)
	require.NoError(t, s.Add("b", mustCron(t, "0 * * * *"), nop, dstsafe.WithMaxRuns(0)))
}

// slotThief is the real MemoryLedger where, just before the holder of a
// run slot records its success, the slot's lease runs out and another
// replica takes it over: the moment a stalled process loses its slot.
type slotThief struct {
	*dstsafe.MemoryLedger
	clock *clockwork.FakeClock
}

func (l slotThief) Finish(ctx context.Context, job, period string, token int64, state dstsafe.State, reason string) (dstsafe.Record, error) {
	if strings.HasSuffix(job, "/max-runs") && state == dstsafe.StateSucceeded {
		l.clock.Advance(2 * dstsafe.DefaultLease)
		if _, err := l.MemoryLedger.Claim(ctx, dstsafe.ClaimRequest{Job: job, Period: period, Owner: "thief",
			Retry: dstsafe.RetryPolicy{MaxAttempts: 99, Abandoned: true}}); err != nil {
			return dstsafe.Record{}, err
		}
	}
	return l.MemoryLedger.Finish(ctx, job, period, token, state, reason)
}

// A run whose slot was taken over before its success was recorded is
// recorded failed, not succeeded: the count never passes n, even when
// the slot's new holder succeeds too.
func TestMaxRunsSlotLostBeforeSuccess(t *testing.T) {
	clock := clockwork.NewFakeClockAt(time.Date(2024, 6, 2, 0, 0, 0, 0, time.UTC))
	ledger := slotThief{dstsafe.NewMemoryLedger(clock), clock}
	ev := &eventLog{}
	s := dstsafe.NewScheduler(dstsafe.WithClock(clock), dstsafe.WithLedger(ledger), dstsafe.WithLogger(quiet()), dstsafe.WithObserver(ev))
	require.NoError(t, s.Add("sync", mustCron(t, "0 6 * * *"), nop, dstsafe.WithMaxRuns(1)))
	err := s.RunNow(context.Background(), "sync", "2024-06-01T06:00:00")
	require.ErrorIs(t, err, dstsafe.ErrLeaseLost)
	rec, err := ledger.Get(context.Background(), "sync", "2024-06-01T06:00:00")
	require.NoError(t, err)
	require.Equal(t, dstsafe.StateFailed, rec.State)
	require.Zero(t, succeeded(t, ledger, "sync"))
	slot := records(t, ledger, "sync/max-runs")["0000000001"]
	require.Equal(t, "thief", slot.Owner)
	require.True(t, ev.has(event.Failed, "2024-06-01T06:00:00"))
	require.False(t, ev.has(event.Succeeded, "2024-06-01T06:00:00"))
}

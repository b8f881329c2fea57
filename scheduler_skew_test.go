package dstsafe_test

import (
	"context"
	"log/slog"
	"sync"
	"testing"
	"time"

	"github.com/jonboulle/clockwork"
	"github.com/stretchr/testify/require"

	"github.com/dstsafe/dstsafe"
	"github.com/dstsafe/dstsafe/event"
)

// What a claim refused for its clock carries, on the MemoryLedger whose
// Clock is the store's.
func TestClockSkewRefusal(t *testing.T) {
	store := time.Date(2024, 11, 3, 6, 30, 0, 0, time.UTC) // 01:30 CDT, the first of two
	tests := []struct {
		name    string
		offset  time.Duration // the claimer's clock minus the store's
		max     time.Duration // ClaimRequest.MaxClockOffset
		refused bool
		limit   time.Duration // the bound the refusal reports
	}{
		// chrony keeps a host a few milliseconds off.
		{"NTP-synced host", 4 * time.Millisecond, 0, false, 0},
		// The documented default, 5 s, either way: at it accepted, past it
		// refused.
		{"5s fast", 5 * time.Second, 0, false, 0},
		{"5s and 1µs fast", 5*time.Second + time.Microsecond, 0, true, 5 * time.Second},
		{"5s and 1µs slow", -5*time.Second - time.Microsecond, 0, true, 5 * time.Second},
		// A VM restored from last night's snapshot, before its time sync.
		{"a day slow", -24 * time.Hour, 0, true, 5 * time.Second},
		// A team that wants its replicas within 250 ms.
		{"300ms fast with a 250ms bound", 300 * time.Millisecond, 250 * time.Millisecond, true, 250 * time.Millisecond},
		{"250ms slow with a 250ms bound", -250 * time.Millisecond, 250 * time.Millisecond, false, 0},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			ctx := context.Background()
			l := dstsafe.NewMemoryLedger(clockwork.NewFakeClockAt(store))
			claimer := store.Add(tc.offset)
			_, err := l.Claim(ctx, dstsafe.ClaimRequest{Job: "billing", Period: "2024-11-03", Owner: "replica-b",
				Now: claimer, MaxClockOffset: tc.max})
			if !tc.refused {
				require.NoError(t, err)
				return
			}
			require.ErrorIs(t, err, dstsafe.ErrClockSkew)
			require.NotErrorIs(t, err, dstsafe.ErrAlreadyClaimed)
			off, limit, gotStore, gotClaimer, ok := dstsafe.ClockSkewOf(err)
			require.True(t, ok)
			require.Equal(t, tc.offset, off)
			require.Equal(t, tc.limit, limit)
			require.True(t, store.Equal(gotStore), "store %v", gotStore)
			require.True(t, claimer.Equal(gotClaimer), "claimer %v", gotClaimer)
			_, err = l.Get(ctx, "billing", "2024-11-03")
			require.ErrorIs(t, err, dstsafe.ErrNotFound, "a refused claim left a record")
		})
	}
}

// runLog records the runs of every replica, by period.
type runLog struct {
	mu   sync.Mutex
	runs map[string][]string // period -> owners that ran it
	at   map[string]time.Time
}

func (l *runLog) job(owner string, clock *clockwork.FakeClock) func(context.Context, dstsafe.Run) error {
	return func(_ context.Context, r dstsafe.Run) error {
		l.mu.Lock()
		defer l.mu.Unlock()
		l.runs[r.Period] = append(l.runs[r.Period], owner)
		if _, ok := l.at[r.Period]; !ok {
			l.at[r.Period] = clock.Now() // the store's clock
		}
		return nil
	}
}

func (l *runLog) of(period string) ([]string, time.Time) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return append([]string(nil), l.runs[period]...), l.at[period]
}

// Two replicas of an hourly job on one ledger, whose Clock is the store's.
// Replica B's clock runs 2 minutes fast, more than the lease: before issue
// 22 it fired every period 2 minutes early and ran it, A finding it
// claimed. Now B's claims are refused (event.ClockSkew, Describe shows
// it), A runs each period at its due instant, and once B's clock is fixed
// B takes part again.
func TestSchedulerFastReplicaRefused(t *testing.T) {
	ctx := context.Background()
	fc := clockwork.NewFakeClockAt(time.Date(2024, 6, 1, 11, 50, 0, 0, time.UTC))
	ledger := dstsafe.NewMemoryLedger(fc)
	bClock := &steppedClock{fc: fc, offset: 2 * time.Minute}
	evB := &eventLog{}
	a := dstsafe.NewScheduler(dstsafe.WithClock(fc), dstsafe.WithLedger(ledger), dstsafe.WithLogger(quiet()),
		dstsafe.WithOwner("replica-a"), dstsafe.WithWakeInterval(time.Minute))
	b := dstsafe.NewScheduler(dstsafe.WithClock(bClock), dstsafe.WithLedger(ledger), dstsafe.WithLogger(quiet()),
		dstsafe.WithOwner("replica-b"), dstsafe.WithWakeInterval(time.Minute), dstsafe.WithObserver(evB))
	log := &runLog{runs: map[string][]string{}, at: map[string]time.Time{}}
	hourly := mustCron(t, "0 * * * *")
	require.NoError(t, a.Add("sync", hourly, log.job("replica-a", fc)))
	require.NoError(t, b.Add("sync", hourly, log.job("replica-b", fc)))
	ha, hb := startRun(t, a), startRun(t, b)
	minutes := func(n int) {
		for range n {
			pa, pb := ha.parks(), hb.parks()
			fc.Advance(time.Minute) // both loops wake at least every minute
			ha.waitParks(pa)
			hb.waitParks(pb)
			ha.settle(fc.Now())
			hb.settle(bClock.Now())
		}
	}

	minutes(11) // 12:01 by the store: B tried 12:00 at 11:58, A ran it at 12:00
	owners, at := log.of("2024-06-01T12:00:00")
	require.Equal(t, []string{"replica-a"}, owners, "12:00 ran by the wrong replica, or twice")
	require.Equal(t, time.Date(2024, 6, 1, 12, 0, 0, 0, time.UTC), at, "12:00 ran early")
	require.Equal(t, []event.Type{event.Due, event.ClockSkew}, evB.types("sync", "2024-06-01T12:00:00"))
	for _, e := range evB.all() {
		if e.Type == event.ClockSkew {
			require.Equal(t, 2*time.Minute, e.Offset)
			require.ErrorIs(t, e.Err, dstsafe.ErrClockSkew)
		}
	}
	d, err := b.Describe(ctx, "sync", 1)
	require.NoError(t, err)
	require.ErrorIs(t, d.ClockSkew, dstsafe.ErrClockSkew, "Describe does not show B's skew")

	bClock.step(-2 * time.Minute) // NTP fixes B's clock
	minutes(60)                   // 13:01: both fire at 13:00
	owners, at = log.of("2024-06-01T13:00:00")
	require.Len(t, owners, 1, "13:00 ran %v", owners)
	require.Equal(t, time.Date(2024, 6, 1, 13, 0, 0, 0, time.UTC), at)
	d, err = b.Describe(ctx, "sync", 1)
	require.NoError(t, err)
	require.NoError(t, d.ClockSkew, "B's skew episode did not end with its clock fixed")
	require.Contains(t, []event.Type{event.Claimed, event.ClaimedElsewhere}, evB.types("sync", "2024-06-01T13:00:00")[1])
}

// A negative WithMaxClockOffset is refused where the caller sees it.
func TestWithMaxClockOffsetNegative(t *testing.T) {
	s, _, _ := newSim(t, time.Date(2024, 6, 1, 0, 0, 0, 0, time.UTC), dstsafe.WithMaxClockOffset(-time.Second))
	require.ErrorIs(t, s.Add("sync", mustCron(t, "0 * * * *"), nop), dstsafe.ErrInvalidArgument)
}

// WithMaxClockOffset loosens the bound for every claim of the Scheduler:
// a replica 6 s fast is refused by default and runs with a 10 s bound.
func TestWithMaxClockOffset(t *testing.T) {
	ctx := context.Background()
	for _, tc := range []struct {
		opts []dstsafe.SchedulerOption
		want error
	}{
		{nil, dstsafe.ErrClockSkew},
		{[]dstsafe.SchedulerOption{dstsafe.WithMaxClockOffset(10 * time.Second)}, nil},
	} {
		fc := clockwork.NewFakeClockAt(time.Date(2024, 6, 1, 0, 0, 0, 0, time.UTC))
		s := dstsafe.NewScheduler(append([]dstsafe.SchedulerOption{dstsafe.WithClock(&steppedClock{fc: fc, offset: 6 * time.Second}),
			dstsafe.WithLedger(dstsafe.NewMemoryLedger(fc)), dstsafe.WithLogger(quiet())}, tc.opts...)...)
		require.NoError(t, s.Add("sync", mustCron(t, "0 * * * *"), nop))
		err := s.RunNow(ctx, "sync", "2024-06-01T00:00:00")
		if tc.want == nil {
			require.NoError(t, err)
		} else {
			require.ErrorIs(t, err, tc.want)
		}
	}
}

// msgCounter counts log records by message and level (dstsafe's messages
// are constant strings).
type msgCounter struct {
	mu sync.Mutex
	n  map[string]int // "LEVEL message" -> count
}

func (c *msgCounter) Enabled(context.Context, slog.Level) bool { return true }
func (c *msgCounter) Handle(_ context.Context, r slog.Record) error {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.n[r.Level.String()+" "+r.Message]++
	return nil
}
func (c *msgCounter) WithAttrs([]slog.Attr) slog.Handler { return c }
func (c *msgCounter) WithGroup(string) slog.Handler      { return c }
func (c *msgCounter) count(key string) int {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.n[key]
}

// The only replica's clock is 10 s fast: every period is refused and
// reported (event.ClockSkew each), nothing is written, and the ERROR is
// logged once for the episode, not once per period. Its clock fixed, it
// runs the next period and logs the episode's end once.
func TestClockSkewEpisode(t *testing.T) {
	fc := clockwork.NewFakeClockAt(time.Date(2024, 6, 1, 12, 1, 0, 0, time.UTC))
	ledger := dstsafe.NewMemoryLedger(fc)
	clock := &steppedClock{fc: fc, offset: 10 * time.Second}
	logs := &msgCounter{n: map[string]int{}}
	ev := &eventLog{}
	s := dstsafe.NewScheduler(dstsafe.WithClock(clock), dstsafe.WithLedger(ledger), dstsafe.WithLogger(slog.New(logs)),
		dstsafe.WithWakeInterval(time.Minute), dstsafe.WithObserver(ev))
	var ran sync.Map
	require.NoError(t, s.Add("sync", mustCron(t, "*/5 * * * *"), func(_ context.Context, r dstsafe.Run) error {
		ran.Store(r.Period, true)
		return nil
	}))
	h := startRun(t, s)
	minutes := func(n int) {
		for range n {
			before := h.parks()
			fc.Advance(time.Minute)
			h.waitParks(before)
			h.settle(clock.Now())
		}
	}
	minutes(15) // 12:16: 12:05, 12:10 and 12:15 refused
	skewed := 0
	for _, e := range ev.all() {
		if e.Type == event.ClockSkew {
			skewed++
			require.Equal(t, 10*time.Second, e.Offset)
		}
	}
	require.Equal(t, 3, skewed, "one event.ClockSkew per period")
	require.Equal(t, 1, logs.count("ERROR clock skew: claims refused"), "logged per period, not per episode")
	list, err := ledger.List(context.Background(), "sync", "", "")
	require.NoError(t, err)
	require.Empty(t, list, "refused claims were written")

	clock.step(-10 * time.Second)
	minutes(5) // 12:21: 12:20 runs
	_, ok := ran.Load("2024-06-01T12:20:00")
	require.True(t, ok, "12:20 did not run once the clock was fixed")
	require.Equal(t, 1, logs.count("ERROR clock skew: claims refused"))
	require.Equal(t, 1, logs.count("INFO clock skew over: claims accepted"))
}

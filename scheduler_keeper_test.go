package dstsafe_test

import (
	"context"
	"testing"
	"time"

	"github.com/jonboulle/clockwork"
	"github.com/stretchr/testify/require"

	"github.com/dstsafe/dstsafe"
)

// beatLedger is the real MemoryLedger that reports every heartbeat it
// answered, and holds the heartbeats of one job at a gate until the test
// opens it: a ledger call that hangs for one run.
type beatLedger struct {
	*dstsafe.MemoryLedger
	stuckJob string
	entered  chan struct{} // the stuck job's heartbeat reached the gate
	gate     chan struct{}
	beats    chan string // the job of every heartbeat answered
}

func (l *beatLedger) Heartbeat(ctx context.Context, job, period string, token int64, lease time.Duration) (dstsafe.Record, error) {
	if job == l.stuckJob {
		l.entered <- struct{}{}
		<-l.gate
	}
	rec, err := l.MemoryLedger.Heartbeat(ctx, job, period, token, lease)
	l.beats <- job
	return rec, err
}

// Four attempts run at once, their heartbeats and two timeouts on the
// keeper's shared timer. A heartbeat that hangs in the ledger holds up no
// other run's heartbeat or timeout, nor its own run's timeout (before the
// keeper it did: the run's heartbeat goroutine watched both); every lease
// is extended from the instant its heartbeat reached the ledger; and once
// the runs end no heartbeat of theirs reaches the ledger.
func TestHeartbeatsOfManyRuns(t *testing.T) {
	t0 := time.Date(2024, 6, 1, 12, 1, 0, 0, time.UTC)
	fc := clockwork.NewFakeClockAt(t0.Add(-30 * time.Second))
	ledger := &beatLedger{MemoryLedger: dstsafe.NewMemoryLedger(fc), stuckJob: "stuck",
		entered: make(chan struct{}, 4), gate: make(chan struct{}), beats: make(chan string, 64)}
	s := dstsafe.NewScheduler(dstsafe.WithClock(fc), dstsafe.WithLedger(ledger), dstsafe.WithLogger(quiet()), dstsafe.WithWakeInterval(0))
	jobs := map[string]*blockingJob{}
	for _, name := range []string{"a", "b", "stuck", "timed"} {
		jobs[name] = newBlockingJob()
		opts := []dstsafe.JobOption{dstsafe.WithLease(30*time.Second, 10*time.Second)}
		switch name {
		case "timed":
			opts = append(opts, dstsafe.WithTimeout(25*time.Second))
		case "stuck":
			opts = append(opts, dstsafe.WithTimeout(20*time.Second))
		}
		require.NoError(t, s.Add(name, mustCron(t, "1 12 * * *"), jobs[name].run, opts...))
	}
	h := startRun(t, s)
	fc.Advance(30 * time.Second)
	periods := map[string]string{}
	for name, j := range jobs {
		periods[name] = recv(t, j.started).Period
	}
	leaseOf := func(name string) time.Time {
		t.Helper()
		rec, err := ledger.Get(context.Background(), name, periods[name])
		require.NoError(t, err)
		return rec.LeaseUntil
	}
	for name := range jobs {
		require.Equal(t, t0.Add(30*time.Second), leaseOf(name), name)
	}
	// Every attempt's heartbeat and timeout are set when its job starts.
	require.NoError(t, fc.BlockUntilContext(context.Background(), 2)) // the loop's timer, and the one the leases share

	fc.Advance(10 * time.Second) // every heartbeat due; the stuck one hangs
	recv(t, ledger.entered)
	got := map[string]int{}
	for range 3 {
		got[recv(t, ledger.beats)]++
	}
	require.Equal(t, map[string]int{"a": 1, "b": 1, "timed": 1}, got, "the others beat while one heartbeat hangs")
	for _, name := range []string{"a", "b", "timed"} {
		require.Equal(t, t0.Add(40*time.Second), leaseOf(name), name)
	}
	require.Equal(t, t0.Add(30*time.Second), leaseOf("stuck"), "its heartbeat has not reached the ledger")

	fc.Advance(15 * time.Second) // 25 s after the start: both timeouts, while the stuck call still hangs
	require.ErrorIs(t, recv(t, jobs["stuck"].causes), dstsafe.ErrJobTimeout)
	require.ErrorIs(t, recv(t, jobs["timed"].causes), dstsafe.ErrJobTimeout)

	close(ledger.gate) // the stuck heartbeat reaches the ledger 25 s after the start, inside its lease
	for job := ""; job != "stuck"; job = recv(t, ledger.beats) {
	}
	require.Equal(t, t0.Add(55*time.Second), leaseOf("stuck"))
	for _, name := range []string{"a", "b"} {
		jobs[name].release <- nil
	}
	h.settle(fc.Now())
	for name := range jobs {
		rec, err := ledger.Get(context.Background(), name, periods[name])
		require.NoError(t, err)
		want := dstsafe.StateSucceeded
		if name == "timed" || name == "stuck" {
			want = dstsafe.StateFailed
		}
		require.Equal(t, want, rec.State, name)
	}
	// The runs' heartbeats stopped with them: a minute on, none reaches
	// the ledger (one would be refused, and reported here).
	for len(ledger.beats) > 0 {
		<-ledger.beats
	}
	fc.Advance(time.Minute)
	h.settle(fc.Now())
	require.Empty(t, ledger.beats, "a heartbeat after the runs ended")
}

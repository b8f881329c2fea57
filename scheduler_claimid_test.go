package dstsafe_test

import (
	"context"
	"errors"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/dstsafe/dstsafe"
	"github.com/dstsafe/dstsafe/dstsafetest"
)

// lostAnswerLedger commits the first claim of a chosen job and period,
// then returns a transient error, as a database whose reply is lost after
// the commit (a connection reset, a timeout after the write) does.
type lostAnswerLedger struct {
	dstsafe.Ledger
	job, period string

	mu   sync.Mutex
	lost int // answers lost so far
}

var errReplyLost = errors.New("test: connection reset after the commit")

func (l *lostAnswerLedger) Claim(ctx context.Context, req dstsafe.ClaimRequest) (dstsafe.Record, error) {
	rec, err := l.Ledger.Claim(ctx, req)
	l.mu.Lock()
	defer l.mu.Unlock()
	if err == nil && req.Job == l.job && req.Period == l.period && l.lost == 0 {
		l.lost++
		return dstsafe.Record{}, errReplyLost
	}
	return rec, err
}

// The claim of 2024-11-03 01:30 in Chicago commits, its answer is lost,
// and the Scheduler claims again a second later (its backoff): the ledger
// finds the claim's own attempt (same owner, same ClaimRequest.ID) and
// returns it, so the period runs once, as attempt 1. Before claims had
// IDs the retry got a *ClaimedError naming the Scheduler itself, took it
// for another replica's claim, and the period was lost: left running,
// then abandoned.
func TestClaimAnswerLost(t *testing.T) {
	chicago := zone(t, "America/Chicago")
	start := time.Date(2024, 11, 2, 12, 0, 0, 0, time.UTC)
	_, clock, mem := newSim(t, start)
	ledger := &lostAnswerLedger{Ledger: mem, job: "billing", period: "2024-11-03T01:30:00"}
	s := dstsafe.NewScheduler(dstsafe.WithClock(clock), dstsafe.WithLedger(ledger),
		dstsafe.WithLogger(quiet()), dstsafe.WithOwner("billing-1"))
	require.NoError(t, s.Add("billing", mustCron(t, "30 1 * * *", dstsafe.WithLocation(chicago)), nop))

	fires, err := dstsafe.Simulate(simCtx(t), s, 48*time.Hour)
	require.NoError(t, err)
	require.Equal(t, 1, ledger.lost, "the answer of the first claim was lost")
	dstsafetest.RequireOncePerPeriod(t, fires)
	var periods []string
	for _, f := range fires {
		periods = append(periods, f.Period)
		require.NoError(t, f.Err)
		require.Equal(t, 1, f.Attempt, "%s runs as its first attempt", f.Period)
	}
	require.Equal(t, []string{"2024-11-03T01:30:00", "2024-11-04T01:30:00"}, periods)

	rec, err := mem.Get(context.Background(), "billing", "2024-11-03T01:30:00")
	require.NoError(t, err)
	require.Equal(t, dstsafe.StateSucceeded, rec.State)
	require.Equal(t, "billing-1", rec.Owner)
	require.NotEmpty(t, rec.ClaimID)
	require.Equal(t, 1, rec.Attempt)
}

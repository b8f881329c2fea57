package dstsafe_test

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/jonboulle/clockwork"
	"github.com/stretchr/testify/require"

	"github.com/dstsafe/dstsafe"
	"github.com/dstsafe/dstsafe/event"
)

// mexicoCity loads America/Mexico_City from one of the two tz trees of
// dstsafetest/testdata/tzdiff: "old" keeps Mexico's DST after 2022, "new"
// is tzdata 2025b (DST abolished from 2022-10-30, tzdata 2022f).
func mexicoCity(t *testing.T, tree string) *time.Location {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("dstsafetest", "testdata", "tzdiff", tree, "America", "Mexico_City"))
	require.NoError(t, err)
	loc, err := time.LoadLocationFromTZData("America/Mexico_City", b)
	require.NoError(t, err)
	return loc
}

// Two replicas of one service, one deployed with tz data from before
// Mexico abolished DST, one after. On Sunday 2023-06-04 the old rules
// put a daily 01:30 at 06:30Z (CDT, -05:00), the new ones at 07:30Z
// (CST, -06:00). The old replica gets there first and runs the period,
// once; the new one finds it claimed and reports it: event.ZoneData with
// its own instant and the record's, wrapping ErrZoneData, and Describe
// shows it. A replica with the same zone data reports nothing.
func TestZoneDataReported(t *testing.T) {
	ctx := context.Background()
	start := time.Date(2023, 6, 4, 0, 0, 0, 0, time.UTC)
	fc := clockwork.NewFakeClockAt(start)
	ledger := dstsafe.NewMemoryLedger(fc)
	replica := func(owner, tree string, ev *eventLog) *dstsafe.Scheduler {
		s := dstsafe.NewScheduler(dstsafe.WithClock(fc), dstsafe.WithLedger(ledger), dstsafe.WithOwner(owner),
			dstsafe.WithLogger(quiet()), dstsafe.WithObserver(ev))
		require.NoError(t, s.Add("report", mustCron(t, "30 1 * * *", dstsafe.WithLocation(mexicoCity(t, tree))), nop))
		return s
	}
	oldEv, newEv, peerEv := &eventLog{}, &eventLog{}, &eventLog{}
	old, cur, peer := replica("old", "old", oldEv), replica("new", "new", newEv), replica("peer", "old", peerEv)

	fires, err := dstsafe.Simulate(ctx, old, 12*time.Hour)
	require.NoError(t, err)
	require.Len(t, fires, 1)
	oldAt, newAt := time.Date(2023, 6, 4, 6, 30, 0, 0, time.UTC), time.Date(2023, 6, 4, 7, 30, 0, 0, time.UTC)
	require.True(t, fires[0].Due.Equal(oldAt), "old rules: 01:30 CDT, got %v", fires[0].Due)

	const period = "2023-06-04T01:30:00"
	require.ErrorIs(t, cur.RunNow(ctx, "report", period), dstsafe.ErrAlreadyClaimed)
	require.Equal(t, []event.Type{event.Due, event.ClaimedElsewhere, event.ZoneData}, newEv.types("report", period))
	e := newEv.all()[2]
	require.True(t, e.Due.Equal(newAt), "new rules: 01:30 CST, got %v", e.Due)
	require.NotNil(t, e.Recorded)
	require.Equal(t, "old", e.Recorded.Owner)
	require.True(t, e.Recorded.StartedAt.Equal(oldAt), "claimed at %v", e.Recorded.StartedAt)
	require.Equal(t, time.Hour, e.Due.Sub(e.Recorded.StartedAt), "the period moved by the abolished hour")
	require.ErrorIs(t, e.Err, dstsafe.ErrZoneData)

	d, err := cur.Describe(ctx, "report", 1)
	require.NoError(t, err)
	require.ErrorIs(t, d.ZoneData, dstsafe.ErrZoneData)
	d, err = old.Describe(ctx, "report", 1)
	require.NoError(t, err)
	require.NoError(t, d.ZoneData, "its own record")

	// Same zone data: claimed elsewhere, nothing to report.
	require.ErrorIs(t, peer.RunNow(ctx, "report", period), dstsafe.ErrAlreadyClaimed)
	require.Equal(t, []event.Type{event.Due, event.ClaimedElsewhere}, peerEv.types("report", period))
	d, err = peer.Describe(ctx, "report", 1)
	require.NoError(t, err)
	require.NoError(t, d.ZoneData)
	require.False(t, errors.Is(d.ZoneData, dstsafe.ErrZoneData))
}

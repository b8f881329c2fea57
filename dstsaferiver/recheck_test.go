package dstsaferiver_test

import (
	"context"
	"errors"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/dstsafe/dstsafe"
	"github.com/dstsafe/dstsafe/dstsaferiver"
)

// downLedger is a ledger whose database is down while down is set.
type downLedger struct {
	*dstsafe.MemoryLedger
	down atomic.Bool
}

var errDown = errors.New("connection refused")

func (l *downLedger) Get(ctx context.Context, job, period string) (dstsafe.Record, error) {
	if l.down.Load() {
		return dstsafe.Record{}, errDown
	}
	return l.MemoryLedger.Get(ctx, job, period)
}

func (l *downLedger) List(ctx context.Context, job, from, to string) ([]dstsafe.Record, error) {
	if l.down.Load() {
		return nil, errDown
	}
	return l.MemoryLedger.List(ctx, job, from, to)
}

// The leader's recheck, driven as river's enqueuer drives the schedule
// (each instant Next returns: construct, insert unless the database is
// down, then Next of that instant), for a job every minute whose
// database is down from 12:00:59 to until: the inserts due meanwhile
// fail, as river's do. Once the ledger answers, the periods without a
// record come back as the catch-up policy allows; the others are gone
// (logged at ERROR). No period is inserted twice while it has a record.
func TestRecheckAfterLostInserts(t *testing.T) {
	t0 := time.Date(2024, 11, 3, 12, 0, 30, 0, time.UTC)
	cases := []struct {
		name    string
		policy  dstsafe.CatchUpPolicy
		misfire time.Duration // 0: one minute
		until   time.Time
		want    []string // the periods worked after 12:00, in order
	}{
		// 16 s down: 12:01 is lost, rechecked at 12:01:10 (down: again
		// at 12:01:20), enqueued again at once, on time.
		{"short blip", dstsafe.CatchUpSkip{}, 0, t0.Add(45 * time.Second), []string{"12:01", "12:02", "12:03", "12:04"}},
		// 3 min down: 12:01, 12:02 and 12:03 lost; back at 12:03:30,
		// 12:03 is on time (1 min threshold), the others late.
		{"long, skip", dstsafe.CatchUpSkip{}, 0, t0.Add(3 * time.Minute), []string{"12:03", "12:04"}},
		{"long, latest", dstsafe.CatchUpLatest{}, 0, t0.Add(3 * time.Minute), []string{"12:03", "12:04"}},
		{"long, all within 2 min", dstsafe.CatchUpAll{Window: 2 * time.Minute}, 0, t0.Add(3 * time.Minute), []string{"12:02", "12:03", "12:04"}},
		{"long, all within an hour", dstsafe.CatchUpAll{Window: time.Hour}, 0, t0.Add(3 * time.Minute), []string{"12:01", "12:02", "12:03", "12:04"}},
		// 5 min down with a 20 s threshold: 12:01 to 12:05 lost; back
		// at 12:05:50, 12:05 is 50 s late, none on time: latest runs
		// 12:05, skip none.
		{"late, latest", dstsafe.CatchUpLatest{}, 20 * time.Second, t0.Add(5*time.Minute + 15*time.Second), []string{"12:05", "12:06"}},
		{"late, skip", dstsafe.CatchUpSkip{}, 20 * time.Second, t0.Add(5*time.Minute + 15*time.Second), []string{"12:06"}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			sched, err := dstsafe.ParseCron("* * * * *")
			require.NoError(t, err)
			ctx := context.Background()
			ledger := &downLedger{MemoryLedger: dstsafe.NewMemoryLedger(nil)}
			work := func(period string) {
				rec, err := ledger.Claim(ctx, dstsafe.ClaimRequest{Job: "report", Period: period, Owner: "w"})
				require.NoError(t, err, "period %s enqueued twice", period)
				_, err = ledger.Finish(ctx, "report", period, rec.Token, dstsafe.StateSucceeded, "")
				require.NoError(t, err)
			}
			work("2024-11-03T12:00:00") // the job ran before
			next, construct := dstsaferiver.Parts(sched, report, &dstsaferiver.Options{Ledger: ledger, CatchUp: c.policy, MisfireThreshold: c.misfire, Logger: discard})
			end := time.Date(2024, 11, 3, 12, 4, 30, 0, time.UTC)
			if c.until.After(end) {
				end = c.until.Add(45 * time.Second)
			}
			var got []string
			now := t0
			at := next(t0)
			for steps := 0; at.Before(end); steps++ {
				require.Less(t, steps, 100, "river's enqueuer woken too often")
				// River wakes at the instant Next returned, or at once for
				// one in the past.
				if at.After(now) {
					now = at
				}
				ledger.down.Store(now.After(t0.Add(29*time.Second)) && now.Before(c.until))
				if args, _ := construct(); args != nil {
					p, err := dstsaferiver.PeriodOf(jobRow(t, args))
					require.NoError(t, err)
					if !ledger.down.Load() {
						work(p.Period)
						got = append(got, p.Due.UTC().Format("15:04"))
					}
				}
				at = next(at)
			}
			require.Equal(t, c.want, got)
		})
	}
}

// Issue 28's outage, driven as river drives two leaders: PostgreSQL down
// from 07:29:56 to 07:30:18 for a job every 2 s, longer than river's
// leader lease, so leader A stops at 07:30:11 (its inserts from 07:29:56
// fail meanwhile); once the server is back, InsertDue on some client
// inserts 07:30:20, worked and recorded at once, and leader B starts at
// 07:30:22. B's catch-up used to start after the latest record (07:30:20)
// and A's recheck died with its leadership: 07:29:56 to 07:30:18 were
// lost. B now enqueues every period of the recovery window
// (MisfireThreshold, 1 minute) without a record: none of the 14 periods
// from 07:29:54 to 07:30:20 is lost, none worked twice.
func TestOutageAcrossLeaders(t *testing.T) {
	sched, err := dstsafe.ParseCron("*/2 * * * * *", dstsafe.WithSeconds())
	require.NoError(t, err)
	ctx := context.Background()
	ledger := &downLedger{MemoryLedger: dstsafe.NewMemoryLedger(nil)}
	worked := map[string]int{}
	work := func(period string) {
		worked[period]++
		rec, err := ledger.Claim(ctx, dstsafe.ClaimRequest{Job: "report", Period: period, Owner: "w"})
		if err != nil {
			return // a second river job of the period: the claim refuses it
		}
		_, err = ledger.Finish(ctx, "report", period, rec.Token, dstsafe.StateSucceeded, "")
		require.NoError(t, err)
	}
	at := func(s string) time.Time {
		v, err := time.Parse("15:04:05", s)
		require.NoError(t, err)
		return time.Date(2024, 11, 3, v.Hour(), v.Minute(), v.Second(), 0, time.UTC)
	}
	down, up := at("07:29:56"), at("07:30:18")
	// drive runs one leader's enqueuer from start until stop.
	drive := func(start, stop time.Time) {
		next, construct := dstsaferiver.Parts(sched, report, &dstsaferiver.Options{Ledger: ledger, Logger: discard})
		now := start
		for nextAt := next(start); nextAt.Before(stop); nextAt = next(nextAt) {
			if nextAt.After(now) {
				now = nextAt
			}
			ledger.down.Store(!now.Before(down) && now.Before(up))
			if args, _ := construct(); args != nil && !ledger.down.Load() {
				p, err := dstsaferiver.PeriodOf(jobRow(t, args))
				require.NoError(t, err)
				work(p.Period)
			}
		}
	}
	drive(at("07:29:40"), at("07:30:11"))
	ledger.down.Store(false)
	work("2024-11-03T07:30:20") // InsertDue's insert, worked at once
	drive(at("07:30:22"), at("07:30:23"))

	var lost, twice []string
	for p := at("07:29:54"); !p.After(at("07:30:20")); p = p.Add(2 * time.Second) {
		key := p.Format("2006-01-02T15:04:05")
		if _, err := ledger.Get(ctx, "report", key); err != nil {
			lost = append(lost, key)
		}
		if worked[key] > 1 {
			twice = append(twice, key)
		}
	}
	require.Empty(t, lost, "periods lost of the 14")
	require.Empty(t, twice, "periods enqueued twice")
}

package dstsaferiver_test

import (
	"context"
	"database/sql"
	"io"
	"log/slog"
	"math/rand/v2"
	"strings"
	"testing"
	"time"

	"github.com/riverqueue/river"
	"github.com/riverqueue/river/rivertype"
	"github.com/stretchr/testify/require"

	"github.com/dstsafe/dstsafe"
	"github.com/dstsafe/dstsafe/dstsaferiver"
	"github.com/dstsafe/dstsafe/dstsafetest"
)

var discard = slog.New(slog.NewTextHandler(io.Discard, nil))

// term is one client's leadership: it enqueues from From until To.
type term struct{ From, To time.Time }

// sim is a night of river on a fake clock: leaders come and go by terms,
// each with a fresh periodic job and enqueuer as a new process would have,
// inserting through a real river client into SQLite; workers pick up due
// jobs at random moments (so some wait in the queue across a leader
// change) and run them through NewWorker on a MemoryLedger.
type sim struct {
	db     *sql.DB
	client *river.Client[*sql.Tx]
	ledger *dstsafe.MemoryLedger
	worked map[string]int
}

func runSim(t *testing.T, sched dstsafe.OccurrenceSchedule, policy dstsafe.CatchUpPolicy, start, end, step time.Duration, origin time.Time, terms []term, seed uint64) *sim {
	t.Helper()
	clock := newFakeClock(origin.Add(start))
	s := &sim{db: openSQLite(t), ledger: dstsafe.NewMemoryLedger(clock), worked: map[string]int{}}
	s.client = insertClient(t, s.db, clock)
	worker := dstsaferiver.NewWorker(s.ledger, func(_ context.Context, run dstsafe.Run, _ *river.Job[ReportArgs]) error {
		s.worked[run.Period]++
		return nil
	}, &dstsaferiver.WorkerOptions{Clock: clock, Logger: discard})
	rng := rand.New(rand.NewPCG(seed, 827))
	ctx := context.Background()

	// The job ran before the test: its last period before the start is in
	// the ledger, so the job is not new and late periods count.
	var last dstsafe.Occurrence
	for o, ok := sched.NextOccurrence(origin.Add(start - 400*24*time.Hour)); ok && !o.At.After(origin.Add(start-dstsafe.DefaultMisfireThreshold)); o, ok = sched.NextOccurrence(o.At) {
		last = o
	}
	rec, err := s.ledger.Claim(ctx, dstsafe.ClaimRequest{Job: "report", Period: last.Period, Owner: "before"})
	require.NoError(t, err)
	_, err = s.ledger.Finish(ctx, "report", last.Period, rec.Token, dstsafe.StateSucceeded, "")
	require.NoError(t, err)

	workDue := func(now time.Time, all bool) {
		res, err := s.client.JobList(ctx, river.NewJobListParams().Kinds("report").
			States(rivertype.JobStateAvailable, rivertype.JobStateScheduled).First(10000))
		require.NoError(t, err)
		for _, row := range res.Jobs {
			if row.ScheduledAt.After(now) || !all && rng.IntN(3) == 0 {
				continue
			}
			require.NoError(t, worker.Work(ctx, &river.Job[ReportArgs]{JobRow: row}))
			completeJob(t, s.db, row.ID, now)
		}
	}

	var (
		cur     *enqueuer
		curTerm = -1
	)
	for now := origin.Add(start); !now.After(origin.Add(end)); now = now.Add(step) {
		clock.Advance(now.Sub(clock.Now()))
		active := -1
		for i, tm := range terms {
			if !now.Before(tm.From) && now.Before(tm.To) {
				active = i
			}
		}
		if active != curTerm {
			cur, curTerm = nil, active
			if active >= 0 {
				cur = startEnqueuer(sched, &dstsaferiver.Options{Ledger: s.ledger, CatchUp: policy, Logger: discard}, now)
			}
		}
		if cur != nil {
			cur.wake(t, s.client, now)
		}
		if rng.IntN(4) == 0 {
			workDue(now, false)
		}
	}
	workDue(origin.Add(end), true)
	return s
}

// requireWorkedOnce checks that each period of want was worked once.
func (s *sim) requireWorkedOnce(t *testing.T, want []wantPeriod) {
	t.Helper()
	for _, w := range want {
		require.Equal(t, 1, s.worked[w.Period], "period %s worked %d times", w.Period, s.worked[w.Period])
	}
	require.Len(t, s.worked, len(want))
}

// TestChicagoNights drives river's enqueue contract across both 2024
// transitions in America/Chicago on a fake clock, with the leader down
// over the transition (00:40-03:20 local) and changing twice more, one
// change too short to count as missed. Every period the time package says
// the schedule has is enqueued once and worked once, none lost.
func TestChicagoNights(t *testing.T) {
	chicago := dstsafetest.Zone(t, "America/Chicago")
	nights := []struct {
		name string
		// midnight of the transition date, local (no transition near it)
		midnight time.Time
	}{
		{"fall 2024-11-03: 02:00 CDT -> 01:00 CST", time.Date(2024, 11, 3, 0, 0, 0, 0, chicago)},
		{"spring 2024-03-10: 02:00 CST -> 03:00 CDT", time.Date(2024, 3, 10, 0, 0, 0, 0, chicago)},
	}
	specs := []struct {
		spec  string
		match func(time.Time) bool
		fixed bool // fixed-time: one fire per reading, the first
	}{
		{"CRON_TZ=America/Chicago 30 1 * * *", func(w time.Time) bool { return w.Hour() == 1 && w.Minute() == 30 }, true},
		{"CRON_TZ=America/Chicago 30 2 * * *", func(w time.Time) bool { return w.Hour() == 2 && w.Minute() == 30 }, true},
		{"CRON_TZ=America/Chicago */15 * * * *", func(w time.Time) bool { return w.Minute()%15 == 0 }, false},
	}
	// The one reading the minute scan cannot see: a fixed-time job in a gap.
	gapShift := map[string]wantPeriod{
		// 02:30 CST never happens on 2024-03-10; shifted forward by the gap to 03:30 CDT.
		"CRON_TZ=America/Chicago 30 2 * * */2024-03-10": {"2024-03-10T02:30:00", time.Date(2024, 3, 10, 8, 30, 0, 0, time.UTC)},
	}
	for _, n := range nights {
		for _, sp := range specs {
			t.Run(n.name+"/"+sp.spec, func(t *testing.T) {
				sched, err := dstsafe.ParseCron(sp.spec)
				require.NoError(t, err)
				m := n.midnight
				start, end := -12*time.Hour, 36*time.Hour
				terms := []term{
					{m.Add(start), m.Add(40 * time.Minute)},
					{m.Add(3*time.Hour + 20*time.Minute), m.Add(5 * time.Hour)},
					{m.Add(5*time.Hour + 30*time.Second), m.Add(end + time.Minute)},
				}
				s := runSim(t, sched, dstsafe.CatchUpAll{Window: 12 * time.Hour}, start, end, 20*time.Second, m, terms, 1)

				// On time at the first start counts too: due within the misfire threshold.
				want := minuteOracle(chicago, m.Add(start-dstsafe.DefaultMisfireThreshold), m.Add(end), sp.match)
				if sp.fixed {
					kept := want[:0]
					for _, w := range want {
						if !strings.HasSuffix(w.Period, ";fold=1") {
							kept = append(kept, w)
						}
					}
					want = kept
					for d := -1; d <= 1; d++ {
						if g, ok := gapShift[sp.spec+"/"+m.AddDate(0, 0, d).Format("2006-01-02")]; ok {
							want = append(want, g)
						}
					}
				}
				require.NotEmpty(t, want)
				requireOncePerPeriod(t, want, jobs(t, s.client))
				s.requireWorkedOnce(t, want)
			})
		}
	}
}

// TestRiver827 is riverqueue/river#827: "CRON_TZ=America/Chicago */5 18 *
// * *", meant to run once a day in the 18:00 hour. Keyed by date it runs
// once per Chicago date from 2024-03-01 to 03-20 and 2024-10-25 to 11-15,
// across both transitions, while the leader restarts every day at a random
// time (often inside 18:00-19:00) and is sometimes down for the whole hour.
func TestRiver827(t *testing.T) {
	chicago := dstsafetest.Zone(t, "America/Chicago")
	sched, err := dstsafe.ParseCron("CRON_TZ=America/Chicago */5 18 * * *", dstsafe.WithPeriodKey(dstsafe.ByDate))
	require.NoError(t, err)
	for _, span := range []struct{ from, to time.Time }{
		{time.Date(2024, 3, 1, 12, 0, 0, 0, chicago), time.Date(2024, 3, 20, 12, 0, 0, 0, chicago)},
		{time.Date(2024, 10, 25, 12, 0, 0, 0, chicago), time.Date(2024, 11, 15, 12, 0, 0, 0, chicago)},
	} {
		t.Run(span.from.Format("2006-01"), func(t *testing.T) {
			rng := rand.New(rand.NewPCG(uint64(span.from.Unix()), 1))
			days := int(span.to.Sub(span.from).Hours()/24 + 0.5)
			var terms []term
			up := span.from
			for d := 0; d < days; d++ {
				// The next restart: 17:30-19:30 local (UTC arithmetic: no
				// transition is near the evening), down 0-90 minutes.
				down := up.Add(24*time.Hour + time.Duration(rng.IntN(120)-60)*time.Minute)
				if d == 0 {
					down = span.from.Add(6*time.Hour + time.Duration(rng.IntN(120))*time.Minute)
				}
				terms = append(terms, term{up, down})
				up = down.Add(time.Duration(rng.IntN(90)) * time.Minute)
			}
			terms = append(terms, term{up, span.to.Add(time.Minute)})
			s := runSim(t, sched, dstsafe.CatchUpLatest{}, 0, span.to.Sub(span.from), 5*time.Minute, span.from, terms, 2)

			rows := jobs(t, s.client)
			ps, count := periodsOf(t, rows)
			var want []string
			for d := span.from; d.Before(span.to); d = d.AddDate(0, 0, 1) {
				want = append(want, d.Format("2006-01-02"))
			}
			for _, date := range want {
				require.Equal(t, 1, count[date], "Chicago date %s has %d jobs", date, count[date])
				require.Equal(t, 1, s.worked[date], "Chicago date %s worked %d times", date, s.worked[date])
			}
			require.Len(t, rows, len(want))
			for i, p := range ps {
				local := rows[i].ScheduledAt.In(chicago)
				require.Equal(t, p.Period, local.Format("2006-01-02"), "job of %s scheduled on another date", p.Period)
				require.Equal(t, 18, local.Hour(), "job of %s scheduled outside the 18:00 hour", p.Period)
			}
		})
	}
}

// TestRiver827PlainRiver shows the bug the issue reported, on river's own
// uniqueness: the same schedule with UniqueOpts{ByPeriod: 24h} and
// RunOnStart, as in river#827. The 24 h window is aligned to UTC days, so
// a restart at 20:00 CDT (01:00 UTC the next day) runs the job a second
// time on its Chicago date and blocks the next evening's run: one date
// doubled, the next lost.
func TestRiver827PlainRiver(t *testing.T) {
	chicago := dstsafetest.Zone(t, "America/Chicago")
	sched, err := dstsafe.ParseCron("CRON_TZ=America/Chicago */5 18 * * *")
	require.NoError(t, err)
	from := time.Date(2024, 10, 28, 12, 0, 0, 0, chicago)
	restart := time.Date(2024, 10, 30, 20, 0, 0, 0, chicago) // 01:00 UTC on 10-31
	to := time.Date(2024, 11, 6, 12, 0, 0, 0, chicago)
	clock := newFakeClock(from)
	client := insertClient(t, openSQLite(t), clock)
	ctx := context.Background()
	// River computes the unique key of ByPeriod from its clock at insert
	// time (client.go, insertParamsFromConfigArgsAndOptions), so the fake
	// clock moves to each insert, as river's enqueuer would be woken.
	insert := func(at time.Time) {
		clock.Advance(at.Sub(clock.Now()))
		_, err := client.Insert(ctx, ReportArgs{}, &river.InsertOpts{UniqueOpts: river.UniqueOpts{ByPeriod: 24 * time.Hour}})
		require.NoError(t, err)
	}
	// River's enqueuer: RunOnStart inserts at start; then one insert per
	// occurrence.
	for _, start := range []time.Time{from, restart} {
		insert(start)
		stop := to
		if start.Equal(from) {
			stop = restart
		}
		for next := sched.Next(start); next.Before(stop); next = sched.Next(next) {
			insert(next)
		}
	}
	perDate := map[string]int{}
	for _, r := range jobs(t, client) {
		perDate[r.ScheduledAt.In(chicago).Format("2006-01-02")]++
	}
	require.Equal(t, 2, perDate["2024-10-30"], "the restart's run doubles 10-30 in Chicago")
	require.Equal(t, 0, perDate["2024-10-31"], "and its UTC window blocks the 10-31 evening")
}

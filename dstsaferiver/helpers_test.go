package dstsaferiver_test

import (
	"context"
	"database/sql"
	"encoding/json"
	"path/filepath"
	"sort"
	"testing"
	"time"

	"github.com/jonboulle/clockwork"
	"github.com/riverqueue/river"
	"github.com/riverqueue/river/riverdriver/riversqlite"
	"github.com/riverqueue/river/rivermigrate"
	"github.com/riverqueue/river/rivertype"
	"github.com/stretchr/testify/require"
	_ "modernc.org/sqlite"

	"github.com/dstsafe/dstsafe"
	"github.com/dstsafe/dstsafe/dstsaferiver"
)

// ReportArgs are the args of the test job: empty apart from the Period
// dstsaferiver adds.
type ReportArgs struct {
	Note string `json:"note,omitempty"`
}

func (ReportArgs) Kind() string { return "report" }

func report(dstsafe.Occurrence) (ReportArgs, *river.InsertOpts) { return ReportArgs{}, nil }

// openSQLite opens a river database in a temp file, migrated with river's
// own migrations, on one connection as riversqlite advises.
func openSQLite(tb testing.TB) *sql.DB {
	tb.Helper()
	path := filepath.Join(tb.TempDir(), "river.db")
	db, err := sql.Open("sqlite", path+"?_pragma=busy_timeout(10000)&_pragma=journal_mode(WAL)&_txlock=immediate")
	require.NoError(tb, err)
	db.SetMaxOpenConns(1)
	tb.Cleanup(func() { db.Close() })
	migrator, err := rivermigrate.New(riversqlite.New(db), nil)
	require.NoError(tb, err)
	_, err = migrator.Migrate(context.Background(), rivermigrate.DirectionUp, nil)
	require.NoError(tb, err)
	return db
}

// insertClient is a river client that only inserts (never started), its
// time read from clock.
func insertClient(tb testing.TB, db *sql.DB, clock dstsafe.Clock) *river.Client[*sql.Tx] {
	tb.Helper()
	workers := river.NewWorkers()
	river.AddWorker(workers, river.WorkFunc(func(context.Context, *river.Job[ReportArgs]) error { return nil }))
	c, err := river.NewClient(riversqlite.New(db), &river.Config{
		Workers: workers,
		Test:    river.TestConfig{Time: dstsaferiver.ClockTime(clock)},
		Logger:  discard,
	})
	require.NoError(tb, err)
	return c
}

// enqueuer drives a periodic job's schedule and constructor the way river's
// PeriodicJobEnqueuer does (internal/maintenance/periodic_job_enqueuer.go,
// v0.43.0): on start next = Next(now); on each wake, every job whose next
// run is before now+100ms is constructed and inserted, then next =
// Next(next). Each leader gets its own enqueuer and its own periodic job.
type enqueuer struct {
	next      func(time.Time) time.Time
	construct func() (river.JobArgs, *river.InsertOpts)
	nextAt    time.Time
}

func startEnqueuer(sched dstsafe.OccurrenceSchedule, opts *dstsaferiver.Options, now time.Time) *enqueuer {
	next, construct := dstsaferiver.Parts(sched, report, opts)
	return &enqueuer{next: next, construct: construct, nextAt: next(now)}
}

// wake inserts what is due at now through client and returns the results.
func (e *enqueuer) wake(tb testing.TB, client *river.Client[*sql.Tx], now time.Time) []*rivertype.JobInsertResult {
	tb.Helper()
	var out []*rivertype.JobInsertResult
	for e.nextAt.Before(now.Add(100 * time.Millisecond)) {
		args, opts := e.construct()
		if args != nil {
			res, err := client.Insert(context.Background(), args, opts)
			require.NoError(tb, err)
			out = append(out, res)
		}
		e.nextAt = e.next(e.nextAt)
	}
	return out
}

// jobs lists every job of kind report, oldest id first.
func jobs(tb testing.TB, client *river.Client[*sql.Tx]) []*rivertype.JobRow {
	tb.Helper()
	res, err := client.JobList(context.Background(), river.NewJobListParams().Kinds("report").
		States(rivertype.JobStates()...).First(10000).OrderBy(river.JobListOrderByID, river.SortOrderAsc))
	require.NoError(tb, err)
	require.Less(tb, len(res.Jobs), 10000, "more jobs than one page")
	return res.Jobs
}

// periodsOf returns the Period of each job, and how many jobs each period
// key has.
func periodsOf(tb testing.TB, rows []*rivertype.JobRow) ([]dstsaferiver.Period, map[string]int) {
	tb.Helper()
	var ps []dstsaferiver.Period
	count := map[string]int{}
	for _, r := range rows {
		p, err := dstsaferiver.PeriodOf(r)
		require.NoError(tb, err)
		ps = append(ps, p)
		count[p.Period]++
	}
	return ps, count
}

// completeJob marks a job completed as river's completer would after its
// worker returned nil.
func completeJob(tb testing.TB, db *sql.DB, id int64, at time.Time) {
	tb.Helper()
	_, err := db.Exec(`UPDATE river_job SET state = 'completed', finalized_at = ? WHERE id = ?`, at.UTC().Format(time.RFC3339Nano), id)
	require.NoError(tb, err)
}

// wantPeriod is a period the time package says a schedule has.
type wantPeriod struct {
	Period string
	At     time.Time
}

// minuteOracle lists, from the time package alone, the periods of a
// schedule that fires at every minute of (from, to] whose Chicago reading
// match accepts: one per instant, keyed by the wall reading, with
// ";fold=1" for the second reading of a repeated hour (the instant an hour
// earlier read the same). Instants whose reading falls in a gap do not
// exist, so they are never visited.
func minuteOracle(loc *time.Location, from, to time.Time, match func(wall time.Time) bool) []wantPeriod {
	var out []wantPeriod
	for t := from.Truncate(time.Minute).Add(time.Minute); !t.After(to); t = t.Add(time.Minute) {
		w := t.In(loc)
		if !match(w) {
			continue
		}
		key := w.Format("2006-01-02T15:04:05")
		if t.Add(-time.Hour).In(loc).Format("2006-01-02T15:04:05") == key {
			key += ";fold=1"
		}
		out = append(out, wantPeriod{key, t})
	}
	return out
}

// byDateOracle keeps the first period of each Chicago date, keyed by the
// date: what a ByDate schedule enqueues.
func byDateOracle(loc *time.Location, ps []wantPeriod) []wantPeriod {
	var out []wantPeriod
	seen := map[string]bool{}
	for _, p := range ps {
		d := p.At.In(loc).Format("2006-01-02")
		if !seen[d] {
			seen[d] = true
			out = append(out, wantPeriod{d, p.At})
		}
	}
	return out
}

// requireOncePerPeriod checks that rows hold exactly the periods of want,
// one job each, due at the period's instant.
func requireOncePerPeriod(tb testing.TB, want []wantPeriod, rows []*rivertype.JobRow) {
	tb.Helper()
	ps, count := periodsOf(tb, rows)
	got := map[string]time.Time{}
	for _, p := range ps {
		got[p.Period] = p.Due
	}
	var missing, doubled, extra []string
	wantSet := map[string]bool{}
	for _, w := range want {
		wantSet[w.Period] = true
		switch at, ok := got[w.Period]; {
		case !ok:
			missing = append(missing, w.Period)
		case count[w.Period] > 1:
			doubled = append(doubled, w.Period)
		default:
			require.True(tb, at.Equal(w.At), "period %s due at %s, want %s", w.Period, at, w.At)
		}
	}
	for p := range count {
		if !wantSet[p] {
			extra = append(extra, p)
		}
	}
	sort.Strings(extra)
	require.Empty(tb, missing, "periods never enqueued")
	require.Empty(tb, doubled, "periods enqueued twice")
	require.Empty(tb, extra, "periods the schedule does not have")
	require.Len(tb, rows, len(want))
}

func newFakeClock(at time.Time) *clockwork.FakeClock { return clockwork.NewFakeClockAt(at) }

// jobRow encodes args as river would into a job row.
func jobRow(tb testing.TB, args river.JobArgs) *rivertype.JobRow {
	tb.Helper()
	b, err := json.Marshal(args)
	require.NoError(tb, err)
	return &rivertype.JobRow{Kind: args.Kind(), EncodedArgs: b}
}

package dstsaferiver_test

import (
	"context"
	"database/sql"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"sync"
	"time"

	"github.com/jonboulle/clockwork"
	"github.com/riverqueue/river"
	"github.com/riverqueue/river/riverdriver/riversqlite"
	"github.com/riverqueue/river/rivermigrate"

	"github.com/dstsafe/dstsafe"
	"github.com/dstsafe/dstsafe/dstsaferiver"
	"github.com/dstsafe/dstsafe/sqlledger"
)

// BillingArgs are a job's own args; dstsaferiver adds the period.
type BillingArgs struct{}

func (BillingArgs) Kind() string { return "billing" }

// exampleDB opens a river database on SQLite in a temp file, migrated by
// river's own migrations, and a ledger in the same database.
func exampleDB(clock dstsafe.Clock) (*sql.DB, *sqlledger.Ledger, func()) {
	dir, err := os.MkdirTemp("", "dstsaferiver-example-")
	if err != nil {
		panic(err)
	}
	db, err := sql.Open("sqlite", filepath.Join(dir, "river.db")+"?_pragma=busy_timeout(10000)&_pragma=journal_mode(WAL)&_txlock=immediate")
	if err != nil {
		panic(err)
	}
	db.SetMaxOpenConns(1) // as riversqlite advises
	ctx := context.Background()
	migrator, err := rivermigrate.New(riversqlite.New(db), nil)
	if err != nil {
		panic(err)
	}
	if _, err := migrator.Migrate(ctx, rivermigrate.DirectionUp, nil); err != nil {
		panic(err)
	}
	ledger, err := sqlledger.New(db, sqlledger.WithClock(clock))
	if err != nil {
		panic(err)
	}
	if err := ledger.Migrate(ctx); err != nil {
		panic(err)
	}
	return db, ledger, func() { db.Close(); os.RemoveAll(dir) }
}

// A billing job at 01:30 Chicago time whose leader was down from
// 2024-11-01 until noon on 11-04: the client that becomes leader enqueues
// the three missed days from the ledger (CatchUpAll), 11-03 once although
// 01:30 happened twice that night, and each is billed once, in the
// transaction that completes its river job.
func ExampleNewPeriodicJob() {
	clock := clockwork.NewFakeClockAt(time.Date(2024, 11, 4, 18, 0, 0, 0, time.UTC)) // 12:00 CST
	db, ledger, done := exampleDB(clock)
	defer done()
	ctx := context.Background()

	// 11-01 ran before the outage.
	rec, _ := ledger.Claim(ctx, dstsafe.ClaimRequest{Job: "billing", Period: "2024-11-01T01:30:00", Owner: "before"})
	_, _ = ledger.Finish(ctx, "billing", rec.Period, rec.Token, dstsafe.StateSucceeded, "")

	billing, err := dstsafe.ParseCron("CRON_TZ=America/Chicago 30 1 * * *")
	if err != nil {
		panic(err)
	}
	var (
		mu   sync.Mutex
		runs []string
		all  = make(chan struct{})
	)
	workers := river.NewWorkers()
	river.AddWorker(workers, dstsaferiver.NewTxWorker[*riversqlite.Driver](ledger,
		func(ctx context.Context, tx *sql.Tx, run dstsafe.Run, job *river.Job[BillingArgs]) error {
			// Charge rows for run.RunDate go through tx here.
			mu.Lock()
			defer mu.Unlock()
			runs = append(runs, fmt.Sprintf("%s %-6s due %s", run.Period, run.Kind, run.Due.Format(time.RFC3339)))
			if len(runs) == 3 {
				close(all)
			}
			return nil
		}, &dstsaferiver.WorkerOptions{Clock: clock})) // the ledger's clock: claims carry it, and one 2 years off is refused
	client, err := river.NewClient(riversqlite.New(db), &river.Config{
		Queues:  map[string]river.QueueConfig{river.QueueDefault: {MaxWorkers: 1}},
		Workers: workers,
		Logger:  discard,
		Test:    river.TestConfig{Time: dstsaferiver.ClockTime(clock)},
		PeriodicJobs: []*river.PeriodicJob{dstsaferiver.NewPeriodicJob(billing,
			func(dstsafe.Occurrence) (BillingArgs, *river.InsertOpts) { return BillingArgs{}, nil },
			&dstsaferiver.Options{Ledger: ledger, CatchUp: dstsafe.CatchUpAll{Window: 72 * time.Hour}, Logger: discard})},
	})
	if err != nil {
		panic(err)
	}
	if err := client.Start(ctx); err != nil {
		panic(err)
	}
	select {
	case <-all:
	case <-time.After(30 * time.Second):
		fmt.Println("timed out")
	}
	_ = client.Stop(ctx)

	sort.Strings(runs)
	for _, r := range runs {
		fmt.Println(r)
	}
	// Output:
	// 2024-11-02T01:30:00 unique due 2024-11-02T01:30:00-05:00
	// 2024-11-03T01:30:00 fold   due 2024-11-03T01:30:00-05:00
	// 2024-11-04T01:30:00 unique due 2024-11-04T01:30:00-06:00
}

// A period inserted by hand is refused while its job's row lives, and its
// Period reads back from the job.
func ExampleForPeriod() {
	clock := clockwork.NewFakeClockAt(time.Date(2024, 11, 4, 18, 0, 0, 0, time.UTC))
	db, _, done := exampleDB(clock)
	defer done()
	ctx := context.Background()
	workers := river.NewWorkers()
	river.AddWorker(workers, river.WorkFunc(func(context.Context, *river.Job[BillingArgs]) error { return nil }))
	client, err := river.NewClient(riversqlite.New(db), &river.Config{Workers: workers, Logger: discard})
	if err != nil {
		panic(err)
	}
	billing, _ := dstsafe.ParseCron("CRON_TZ=America/Chicago 30 1 * * *")
	o, _ := billing.NextOccurrence(time.Date(2024, 11, 2, 12, 0, 0, 0, time.UTC))

	for range 2 {
		args, opts := dstsaferiver.ForPeriod("billing", o, BillingArgs{}, nil)
		res, err := client.Insert(ctx, args, opts)
		if err != nil {
			panic(err)
		}
		p, _ := dstsaferiver.PeriodOf(res.Job)
		fmt.Println(p.Period, p.Kind, p.RunDate, "duplicate:", res.UniqueSkippedAsDuplicate)
	}
	// Output:
	// 2024-11-03T01:30:00 fold 2024-11-03 duplicate: false
	// 2024-11-03T01:30:00 fold 2024-11-03 duplicate: true
}

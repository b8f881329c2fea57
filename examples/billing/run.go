package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"io/fs"
	"log/slog"
	"os"
	"time"

	"github.com/dstsafe/dstsafe"
	"github.com/dstsafe/dstsafe/examples/billing/internal/billing"
	"github.com/dstsafe/dstsafe/examples/billing/internal/payments"
	"github.com/dstsafe/dstsafe/sqlledger"
	"github.com/jonboulle/clockwork"
)

// runOptions say how to run the billing job for one run_date by hand.
type runOptions struct {
	Date        dstsafe.Date
	Zone        *time.Location
	SQLitePath  string
	PostgresDSN string
	Schema      string
	// Seed, if positive, creates the tables and seeds Seed subscriptions
	// due on Date, unless the database has subscriptions already. Zero:
	// the database must be seeded (ErrNotSeeded).
	Seed         int
	ProcessorURL string        // empty: an in-process simulator
	Clock        dstsafe.Clock // nil: the real clock
	Log          *slog.Logger
	Hooks        billing.Hooks // tests crash the job with these
}

// runCommand is "billing run": what an operator types to bill (or rebill)
// one run_date. It goes through the same claim as the scheduled run, so a
// date that was billed is not billed again: the scheduler logs "run already
// claimed" and the command exits 0.
//
// It bills a database the demo (--db, --postgres) or --seed made, and
// refuses one without subscriptions (exit 1, before it claims the date):
// billing an empty database would bill nobody and mark the date billed.
// With --seed N it first creates the tables and seeds N subscriptions due on
// --date, unless there are subscriptions already; processes started
// together on a new database create and seed it once (the migration takes
// a lock) and bill the date once.
func runCommand(ctx context.Context, args []string, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("billing run", flag.ContinueOnError)
	fs.SetOutput(stderr)
	zone := fs.String("zone", "America/Chicago", "the company's zone, where run_date is derived")
	date := fs.String("date", "", "the run_date to bill (required)")
	db := fs.String("db", "", "SQLite `path` of the billing database")
	pg := fs.String("postgres", "", "PostgreSQL `DSN` (default $DATABASE_URL unless --db is given)")
	schema := fs.String("schema", "billing_dstsafe", "PostgreSQL schema of the billing tables")
	seed := fs.Int("seed", 0, "create the tables and seed `N` subscriptions due on --date (7 declined, fewer if N < 7), unless there are subscriptions already")
	proc := fs.String("processor", "", "payment processor `URL` (default: an in-process simulator)")
	if err := fs.Parse(args); errors.Is(err, flag.ErrHelp) {
		return exitOK
	} else if err != nil {
		return exitUsage
	}
	if *pg == "" && *db == "" {
		*pg = os.Getenv("DATABASE_URL")
	}
	cfg, err := parseCommon(*zone, *date)
	if err == nil && (*db == "") == (*pg == "") {
		err = errors.New("give one of --db and --postgres")
	}
	if err == nil && (*seed < 0 || fs.NArg() > 0) {
		err = errors.New("--seed must not be negative, and there are no arguments")
	}
	if err != nil {
		fmt.Fprintln(stderr, "billing run:", err)
		return exitUsage
	}
	opts := runOptions{
		Date: cfg.Date, Zone: cfg.Zone, SQLitePath: *db, PostgresDSN: *pg, Schema: *schema, Seed: *seed, ProcessorURL: *proc,
		Log: slog.New(slog.NewTextHandler(stderr, nil)), Hooks: testHooks,
	}
	res, err := runDate(ctx, opts)
	switch {
	case errors.Is(err, dstsafe.ErrAlreadyClaimed):
		// Logged by the scheduler: msg="run already claimed" job=billing.
		return exitOK
	case errors.Is(err, billing.ErrNotSeeded):
		fmt.Fprintln(stderr, "billing run:", err)
		fmt.Fprintln(stderr, "billing run: bill a database the demo made (billing --db PATH; billing --postgres DSN, schema billing_dstsafe), or seed this one with --seed N")
		return exitFailed
	case err != nil:
		fmt.Fprintln(stderr, "billing run:", err)
		return exitFailed
	}
	fmt.Fprintf(stdout, "%s is billed: %d charged, %d declined\n", opts.Date, res.Charged, res.Declined)
	return exitOK
}

// runSeed is what --seed n seeds: n subscriptions due on date, 7 of them
// (fewer if there are fewer) declined, as the demo's.
func runSeed(n int, date dstsafe.Date, zone *time.Location) billing.Seed {
	return billing.NewSeed(n, min(7, n), date, zone)
}

// testHooks is set by the tests in a child process they start and kill.
var testHooks billing.Hooks

// runDate claims (billing, date) through the scheduler and bills it, then
// reads from the database what the date's charges are.
func runDate(ctx context.Context, o runOptions) (billing.RunStats, error) {
	if o.Seed == 0 && o.SQLitePath != "" {
		// Opening would create an empty file.
		if _, err := os.Stat(o.SQLitePath); errors.Is(err, fs.ErrNotExist) {
			return billing.RunStats{}, fmt.Errorf("%w: no database at %s", billing.ErrNotSeeded, o.SQLitePath)
		}
	}
	var (
		db  *billing.DB
		err error
	)
	if o.PostgresDSN != "" {
		db, err = billing.OpenPostgres(ctx, o.PostgresDSN, o.Schema)
	} else {
		db, err = billing.OpenSQLite(o.SQLitePath)
	}
	if err != nil {
		return billing.RunStats{}, err
	}
	defer db.Close()
	if o.Seed > 0 {
		err = billing.MigrateSeed(ctx, db, runSeed(o.Seed, o.Date, o.Zone).Subscriptions)
	} else {
		err = billing.RequireSeeded(ctx, db)
	}
	if err != nil {
		return billing.RunStats{}, err
	}
	clock := o.Clock
	if clock == nil {
		clock = clockwork.NewRealClock()
	}
	var ledgerOpts []sqlledger.Option
	if o.Clock != nil {
		// A simulated run: the ledger judges time by the same fake
		// clock. A real one uses the database's clock, which every
		// replica shares (docs/replicas.md).
		ledgerOpts = append(ledgerOpts, sqlledger.WithClock(o.Clock))
	}
	ledger, err := sqlledger.New(db.DB, ledgerOpts...)
	if err != nil {
		return billing.RunStats{}, err
	}
	if err := ledger.Migrate(ctx); err != nil {
		return billing.RunStats{}, err
	}
	var proc payments.Processor = payments.NewSimulator()
	if o.ProcessorURL != "" {
		proc = &payments.HTTPClient{BaseURL: o.ProcessorURL}
	}
	job := &billing.Job{DB: db, Processor: proc, Clock: clock, Zone: o.Zone, Log: o.Log, Hooks: o.Hooks}
	s := dstsafe.NewScheduler(dstsafe.WithClock(clock), dstsafe.WithLedger(ledger), dstsafe.WithLogger(o.Log))
	if err := job.Register(s); err != nil {
		return billing.RunStats{}, err
	}
	if err := s.RunNow(ctx, billing.JobName, o.Date.String()); err != nil {
		return billing.RunStats{}, err
	}
	stats, err := billing.Stats(ctx, db, o.Date)
	var total billing.RunStats
	for _, st := range stats {
		total.Charged += st.Charged
		total.Declined += st.Declined
	}
	return total, err
}

package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"os"
	"time"

	"github.com/dstsafe/dstsafe"
	"github.com/dstsafe/dstsafe/examples/billing/internal/billing"
	"github.com/dstsafe/dstsafe/examples/billing/internal/payments"
	"github.com/dstsafe/dstsafe/sqlledger"
)

// runOptions say how to run the billing job for one run_date by hand.
type runOptions struct {
	Date         dstsafe.Date
	Zone         *time.Location
	SQLitePath   string
	PostgresDSN  string
	Schema       string
	ProcessorURL string        // empty: an in-process simulator
	Clock        dstsafe.Clock // nil: the real clock
	Log          *slog.Logger
	Hooks        billing.Hooks // tests crash the job with these
}

// runCommand is "billing run": what an operator types to bill (or rebill)
// one run_date. It goes through the same claim as the scheduled run, so a
// date that was billed is not billed again: the scheduler logs "run already
// claimed" and the command exits 0.
func runCommand(ctx context.Context, args []string, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("billing run", flag.ContinueOnError)
	fs.SetOutput(stderr)
	zone := fs.String("zone", "America/Chicago", "the company's zone, where run_date is derived")
	date := fs.String("date", "", "the run_date to bill (required)")
	db := fs.String("db", "", "SQLite `path` of the billing database")
	pg := fs.String("postgres", "", "PostgreSQL `DSN` (default $DATABASE_URL unless --db is given)")
	schema := fs.String("schema", "billing_dstsafe", "PostgreSQL schema of the billing tables")
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
	if err != nil {
		fmt.Fprintln(stderr, "billing run:", err)
		return exitUsage
	}
	opts := runOptions{
		Date: cfg.Date, Zone: cfg.Zone, SQLitePath: *db, PostgresDSN: *pg, Schema: *schema, ProcessorURL: *proc,
		Log: slog.New(slog.NewTextHandler(stderr, nil)), Hooks: testHooks,
	}
	res, err := runDate(ctx, opts)
	switch {
	case errors.Is(err, dstsafe.ErrAlreadyClaimed):
		// Logged by the scheduler: billing.run already claimed.
		return exitOK
	case err != nil:
		fmt.Fprintln(stderr, "billing run:", err)
		return exitDuplicates
	}
	fmt.Fprintf(stdout, "%s is billed: %d charged, %d declined\n", opts.Date, res.Charged, res.Declined)
	return exitOK
}

// testHooks is set by the tests in a child process they start and kill.
var testHooks billing.Hooks

// runDate claims (billing, date) through the scheduler and bills it, then
// reads from the database what the date's charges are.
func runDate(ctx context.Context, o runOptions) (billing.RunStats, error) {
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
	if err := billing.Migrate(ctx, db); err != nil {
		return billing.RunStats{}, err
	}
	clock := o.Clock
	if clock == nil {
		clock = dstsafe.RealClock()
	}
	ledger, err := sqlledger.New(db.DB, sqlledger.WithClock(clock))
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

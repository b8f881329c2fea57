// Command billing replays the night of 2024-11-03 in America/Chicago, when a
// billing worker that matched "01:30" on the wall clock charged 1,284
// customers twice, and then runs the same night with dstsafe.
//
//	go run ./examples/billing                 # SQLite in a temp dir
//	go run ./examples/billing --json
//	go run ./examples/billing --postgres "$DATABASE_URL"
//	go run ./examples/billing --db billing.db
//	go run ./examples/billing run --db billing.db --date 2024-11-03   # a manual rerun of that night
//	go run ./examples/billing run --db new.db --seed 1291 --date 2024-11-03
//
// Both replays run on a fake clock against a real database; every number
// printed is read back from the database after the run. It exits 1 if the
// dstsafe run charged anyone twice, or on any error.
//
// "billing run" bills one run_date of a database the demo made (--db,
// --postgres) or that --seed seeds; it exits 1, before claiming the date,
// on a database without subscriptions.
//
// The job itself is in internal/billing: read job.go first.
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"github.com/dstsafe/dstsafe"
	"io"
	"os"
	"time"
	_ "time/tzdata" // the zones of the demo, on machines without tzdata

	"github.com/dstsafe/dstsafe/examples/billing/internal/billing"
)

func main() {
	os.Exit(realMain(context.Background(), os.Args[1:], os.Stdout, os.Stderr))
}

func realMain(ctx context.Context, args []string, stdout, stderr io.Writer) int {
	if len(args) > 0 && args[0] == "run" {
		return runCommand(ctx, args[1:], stdout, stderr)
	}
	return demoCommand(ctx, args, stdout, stderr)
}

// Exit codes.
const (
	exitOK     = 0
	exitFailed = 1 // the run failed, or the demo's dstsafe run charged someone twice
	exitUsage  = 2
)

func demoCommand(ctx context.Context, args []string, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("billing", flag.ContinueOnError)
	fs.SetOutput(stderr)
	zone := fs.String("zone", "America/Chicago", "the company's zone, where run_date is derived")
	date := fs.String("date", "2024-11-03", "the night to replay (a `date` in --zone)")
	subs := fs.Int("subscriptions", 1291, "subscriptions due that night; 7 of them (fewer if there are fewer) are declined")
	db := fs.String("db", "", "SQLite `path` of the dstsafe run's database (the naive replica's is written next to it);\ndefault: temporary files")
	pg := fs.String("postgres", "", "PostgreSQL `DSN` (default $DATABASE_URL unless --db is given); the replay recreates schemas billing_naive, billing_dstsafe, billing_local")
	asJSON := fs.Bool("json", false, "print the result as JSON")
	fs.Usage = func() {
		fmt.Fprintf(stderr, "usage: billing [flags]            replay the night, naive then dstsafe\n")
		fmt.Fprintf(stderr, "       billing run -date D [flags] bill one run_date now (a manual rerun)\n\n")
		fs.PrintDefaults()
	}
	if err := fs.Parse(args); errors.Is(err, flag.ErrHelp) {
		return exitOK
	} else if err != nil {
		return exitUsage
	}
	if *pg == "" && *db == "" {
		*pg = os.Getenv("DATABASE_URL")
	}
	cfg, err := parseCommon(*zone, *date)
	if err != nil || *subs < 1 || fs.NArg() > 0 {
		if err == nil {
			err = errors.New("--subscriptions must be positive, and there are no arguments")
		}
		fmt.Fprintln(stderr, "billing:", err)
		return exitUsage
	}
	cfg.Subscriptions, cfg.Declining = *subs, min(7, *subs)
	cfg.SQLitePath, cfg.PostgresDSN, cfg.Schema = *db, *pg, "billing"
	cfg.Progress = &syncWriter{w: stderr}

	r, err := replay(ctx, cfg)
	if err != nil {
		fmt.Fprintln(stderr, "billing:", err)
		return exitFailed
	}
	if *asJSON {
		if err := writeJSON(stdout, r); err != nil {
			fmt.Fprintln(stderr, "billing:", err)
			return exitFailed
		}
	} else {
		writeText(stdout, r)
	}
	if err := r.check(); err != nil {
		fmt.Fprintln(stderr, "billing:", err)
		return exitFailed
	}
	return exitOK
}

// check fails if the dstsafe run charged anyone twice, or left a
// subscription due or not advanced.
func (r Replay) check() error {
	if n := r.DSTSafe.Duplicates; n > 0 {
		return fmt.Errorf("the dstsafe run charged %d subscriptions more than once", n)
	}
	if !r.DSTSafe.Reconcile.OK() {
		return fmt.Errorf("the dstsafe run does not reconcile: %+v", r.DSTSafe.Reconcile)
	}
	if a := r.Anniversary; a.Duplicates > 0 || a.Missed > 0 {
		return fmt.Errorf("the anniversary renewals: %d duplicates, %d missed", a.Duplicates, a.Missed)
	}
	return nil
}

func parseCommon(zone, date string) (config, error) {
	loc, err := time.LoadLocation(zone)
	if err != nil {
		return config{}, fmt.Errorf("--zone: %w", err)
	}
	d, err := dstsafe.ParseDate(date)
	if err != nil {
		return config{}, fmt.Errorf("--date: %w", err)
	}
	if err := billing.CheckZone(loc, d); err != nil {
		return config{}, fmt.Errorf("--zone: %w", err)
	}
	return config{Zone: loc, Date: d}, nil
}

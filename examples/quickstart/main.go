// Command quickstart bills the customers of each zone at 01:30 local time,
// once per local day, on a SQLite ledger that makes a second run of the
// same day a no-op: across a restart, a second replica, a fold or a gap.
package main

import (
	"context"
	"errors"
	"log"
	"os"
	"os/signal"
	"path/filepath"
	"syscall"

	"github.com/dstsafe/dstsafe"
	"github.com/dstsafe/dstsafe/sqlledger"
	"github.com/dstsafe/dstsafe/sqlledger/sqlite"
)

// customerZones are the zones the customers live in: one billing job each.
var customerZones = []string{"America/Chicago", "Europe/London", "Australia/Sydney", "Asia/Tokyo"}

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	if err := run(ctx, "data"); err != nil {
		log.Fatal(err)
	}
}

// run bills until ctx ends, with the ledger in dir.
func run(ctx context.Context, dir string) (err error) {
	ledger, err := openLedger(ctx, dir)
	if err != nil {
		return err
	}
	defer func() { err = errors.Join(err, ledger.Close()) }()

	s := dstsafe.NewScheduler(dstsafe.WithLedger(ledger))
	if err := addBillingJobs(s, charge); err != nil {
		return err
	}
	return s.Run(ctx) // nil once ctx ends and running jobs have finished
}

// openLedger opens the SQLite ledger in dir, creating both, and migrates it.
func openLedger(ctx context.Context, dir string) (*sqlledger.Ledger, error) {
	if err := os.MkdirAll(dir, 0o750); err != nil {
		return nil, err
	}
	ledger, err := sqlite.OpenSQLite(filepath.Join(dir, "ledger.db"))
	if err != nil {
		return nil, err
	}
	if err := ledger.Migrate(ctx); err != nil {
		return nil, errors.Join(err, ledger.Close())
	}
	return ledger, nil
}

// addBillingJobs adds a job per customer zone that calls bill at 01:30
// local time. ByDate keys each run by its local date ("2024-11-03"): in a
// fold the date runs once, at the first 01:30; in a gap once, shifted
// forward by the gap (Europe/London 2024-03-31: at 02:30 BST).
func addBillingJobs(s *dstsafe.Scheduler, bill func(ctx context.Context, zone string, run dstsafe.Run) error) error {
	for _, zone := range customerZones {
		sched, err := dstsafe.ParseCron("CRON_TZ="+zone+" 30 1 * * *", dstsafe.WithPeriodKey(dstsafe.ByDate))
		if err != nil {
			return err
		}
		err = s.Add("billing/"+zone, sched, func(ctx context.Context, run dstsafe.Run) error {
			return bill(ctx, zone, run)
		})
		if err != nil {
			return err
		}
	}
	return nil
}

// charge bills the customers of zone for run.RunDate. Give the payment
// provider run.Job+"/"+run.Period as the idempotency key, so that even a
// run the ledger let through twice (a takeover after a crash) charges once.
func charge(ctx context.Context, zone string, run dstsafe.Run) error {
	log.Printf("billing %s for %s (idempotency key %s/%s)", zone, run.RunDate, run.Job, run.Period)
	return ctx.Err()
}

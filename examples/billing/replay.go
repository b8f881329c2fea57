package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"time"

	"github.com/dstsafe/dstsafe"
	"github.com/dstsafe/dstsafe/examples/billing/internal/billing"
	"github.com/dstsafe/dstsafe/examples/billing/internal/payments"
	"github.com/dstsafe/dstsafe/sqlledger"
	"github.com/jonboulle/clockwork"
)

// config is what the flags say.
type config struct {
	Zone          *time.Location
	Date          dstsafe.Date
	Subscriptions int
	Declining     int
	// SQLitePath is the dstsafe database; the naive replica's goes next to
	// it. Empty: files in a temporary directory, removed at the end.
	SQLitePath string
	// PostgresDSN, if set, puts both in PostgreSQL, in schemas
	// <Schema>_naive and <Schema>_dstsafe (recreated by every replay).
	PostgresDSN string
	Schema      string
	// Progress gets a line per second while a run is slow. Nil: none.
	Progress io.Writer
}

// Outcome is what one scheduler did, read back from its database.
type Outcome struct {
	Runs           []RunOutcome `json:"runs"`
	Charged        int          `json:"charged"`
	ChargedMinor   int64        `json:"charged_minor"`
	Declined       int          `json:"declined"`
	Duplicates     int          `json:"duplicates"`
	DuplicateMinor int64        `json:"duplicate_minor"`
	// ProcessorCharges is how many charges the processor made: money moved.
	ProcessorCharges int            `json:"processor_charges"`
	Reconcile        billing.Report `json:"reconcile"`
}

// RunOutcome is one run, from its database.
type RunOutcome struct {
	RunID    string    `json:"run_id"`
	Period   string    `json:"period,omitempty"` // the ledger's key (dstsafe)
	Started  time.Time `json:"started"`
	Charged  int       `json:"charged"`
	Declined int       `json:"declined"`
}

// Replay is the whole demo's result.
type Replay struct {
	Zone          string             `json:"zone"`
	Date          string             `json:"date"`
	Subscriptions int                `json:"subscriptions"`
	Declining     int                `json:"declining"`
	Database      string             `json:"database"`
	Transitions   []transition       `json:"transitions"`
	Naive         Outcome            `json:"naive"`
	SameSpec      SameSpecOutcome    `json:"same_spec"`
	DSTSafe       Outcome            `json:"dstsafe"`
	Local         LocalOutcome       `json:"local_midnight"`
	Anniversary   AnniversaryOutcome `json:"anniversary"`
}

// transition is a change of the zone's offset during the replayed night.
type transition struct {
	At   time.Time `json:"at"`
	Kind string    `json:"kind"` // "fold": clocks go back; "gap": forward
	// Before and After are the wall readings either side of At:
	// "02:00 CDT" and "01:00 CST".
	Before string `json:"before"`
	After  string `json:"after"`
}

// replay runs the night of cfg.Date twice, naive then dstsafe, each on its
// own database seeded alike, and reads the outcome back from the databases.
func replay(ctx context.Context, cfg config) (Replay, error) {
	r := Replay{
		Zone: cfg.Zone.String(), Date: cfg.Date.String(),
		Subscriptions: cfg.Subscriptions, Declining: cfg.Declining,
	}
	start, _ := billing.LocalMidnight(cfg.Date, cfg.Zone)
	end, _ := billing.LocalMidnight(cfg.Date.AddDays(1), cfg.Zone)
	for _, t := range dstsafe.Transitions(cfg.Zone, start, end) {
		before := t.At.In(time.FixedZone(t.NameBefore, t.OffsetBefore)).Format("15:04 MST")
		after := t.At.In(time.FixedZone(t.NameAfter, t.OffsetAfter)).Format("15:04 MST")
		r.Transitions = append(r.Transitions, transition{At: t.At.UTC(), Kind: t.Kind.String(), Before: before, After: after})
	}

	dbs, where, err := openDatabases(ctx, cfg)
	if err != nil {
		return r, err
	}
	defer dbs.close()
	r.Database = where
	seed := billing.NewSeed(cfg.Subscriptions, cfg.Declining, cfg.Date, cfg.Zone)

	// The worlds share nothing (databases, processors, clocks), so
	// they replay side by side.
	var wg sync.WaitGroup
	errs := make([]error, 5)
	wg.Go(func() { r.Naive, errs[0] = replayNaive(ctx, cfg, dbs.naive, seed, start, end) })
	wg.Go(func() { r.DSTSafe, errs[1] = replayDSTSafe(ctx, cfg, dbs.dstsafe, seed, start, end) })
	wg.Go(func() { r.Local, errs[2] = replayLocal(ctx, cfg, dbs.local) })
	wg.Go(func() { r.Anniversary, errs[3] = replayAnniversary(ctx, dbs.anniversary) })
	wg.Go(func() { r.SameSpec, errs[4] = replaySameSpec(ctx, cfg, start, end) })
	wg.Wait()
	if err := errors.Join(errs...); err != nil {
		return r, err
	}
	if inspect != nil {
		inspect(cfg, r, dbs.naive, dbs.dstsafe)
	}
	return r, nil
}

// inspect, set by tests, reads the databases before they are closed (and,
// by default, deleted).
var inspect func(cfg config, r Replay, naive, dstsafe *billing.DB)

// replayNaive runs the postmortem's worker: a tick every 20 s from local
// midnight to the next.
func replayNaive(ctx context.Context, cfg config, db *billing.DB, seed billing.Seed, start, end time.Time) (Outcome, error) {
	if err := billing.MigrateLegacy(ctx, db); err != nil {
		return Outcome{}, err
	}
	if err := billing.InsertSubscriptions(ctx, db, seed.Subscriptions); err != nil {
		return Outcome{}, err
	}
	sim := payments.NewSimulator()
	naive := billing.NewNaive(db, sim, cfg.Zone)
	p := newProgress(cfg.Progress, "naive run")
	naive.Progress = p.report
	var err error
	dstsafe.SimulateTicks(start, end.Add(-time.Second), 20*time.Second, func(now time.Time) {
		if err == nil {
			err = naive.Tick(ctx, now)
		}
	})
	p.done()
	if err != nil {
		return Outcome{}, err
	}
	// The runs, from the worker's own table.
	naiveRuns, err := billing.NaiveRuns(ctx, db)
	if err != nil {
		return Outcome{}, err
	}
	var runs []RunOutcome
	for _, nr := range naiveRuns {
		runs = append(runs, RunOutcome{RunID: nr.RunID, Started: nr.Started})
	}
	return outcome(ctx, db, cfg, runs, sim)
}

// replayDSTSafe runs the billing job under the dstsafe Scheduler, with the
// SQL ledger in the same database, on a fake clock from local midnight to
// the next.
func replayDSTSafe(ctx context.Context, cfg config, db *billing.DB, seed billing.Seed, start, end time.Time) (Outcome, error) {
	if err := billing.Migrate(ctx, db); err != nil {
		return Outcome{}, err
	}
	if err := billing.InsertSubscriptions(ctx, db, seed.Subscriptions); err != nil {
		return Outcome{}, err
	}
	fc := clockwork.NewFakeClockAt(start)
	ledger, err := sqlledger.New(db.DB, sqlledger.WithClock(fc))
	if err != nil {
		return Outcome{}, err
	}
	if err := ledger.Migrate(ctx); err != nil {
		return Outcome{}, err
	}
	sim := payments.NewSimulator()
	p := newProgress(cfg.Progress, "dstsafe run")
	job := &billing.Job{DB: db, Processor: sim, Clock: fc, Zone: cfg.Zone, Progress: p.report}
	s := dstsafe.NewScheduler(
		dstsafe.WithClock(fc),
		dstsafe.WithLedger(ledger),
		dstsafe.WithOwner("billing-replay"),
		dstsafe.WithLogger(slog.New(slog.DiscardHandler)),
	)
	if err := job.Register(s); err != nil {
		return Outcome{}, err
	}
	fires, err := dstsafe.Simulate(ctx, s, end.Sub(start))
	p.done()
	if err != nil {
		return Outcome{}, err
	}
	for _, f := range fires {
		if f.Err != nil {
			return Outcome{}, fmt.Errorf("dstsafe run %s: %w", f.Period, f.Err)
		}
	}
	// The runs, from the ledger.
	recs, err := ledger.List(ctx, billing.JobName, "", "")
	if err != nil {
		return Outcome{}, err
	}
	var runs []RunOutcome
	for _, rec := range recs {
		runs = append(runs, RunOutcome{RunID: billing.RecordRunID(rec), Period: rec.Period, Started: rec.StartedAt})
	}
	return outcome(ctx, db, cfg, runs, sim)
}

// outcome reads what happened back from the database.
func outcome(ctx context.Context, db *billing.DB, cfg config, runs []RunOutcome, sim *payments.Simulator) (Outcome, error) {
	o := Outcome{Runs: runs, ProcessorCharges: len(sim.Captured())}
	stats, err := billing.Stats(ctx, db, cfg.Date)
	if err != nil {
		return o, err
	}
	byRun := map[string]billing.RunStats{}
	for _, s := range stats {
		byRun[s.RunID] = s
		o.Charged += s.Charged
		o.ChargedMinor += s.ChargedMinor
		o.Declined += s.Declined
	}
	for i, r := range o.Runs {
		o.Runs[i].Started = r.Started.In(cfg.Zone)
		o.Runs[i].Charged = byRun[r.RunID].Charged
		o.Runs[i].Declined = byRun[r.RunID].Declined
	}
	if o.Reconcile, err = billing.Reconcile(ctx, db, cfg.Date); err != nil {
		return o, err
	}
	o.Duplicates = len(o.Reconcile.Duplicates)
	o.DuplicateMinor = o.Reconcile.DuplicateAmountMinor
	return o, nil
}

// databases are the three worlds of the demo.
type databases struct {
	naive, dstsafe, local, anniversary *billing.DB
	cleanup                            []func()
}

func (d *databases) close() {
	for _, db := range []*billing.DB{d.naive, d.dstsafe, d.local, d.anniversary} {
		if db != nil {
			db.Close()
		}
	}
	for _, f := range d.cleanup {
		f()
	}
}

// openDatabases opens fresh databases for the replay, and says where.
func openDatabases(ctx context.Context, cfg config) (*databases, string, error) {
	d := &databases{}
	if cfg.PostgresDSN != "" {
		names := []string{cfg.Schema + "_naive", cfg.Schema + "_dstsafe", cfg.Schema + "_local", cfg.Schema + "_anniversary"}
		for i, dst := range []**billing.DB{&d.naive, &d.dstsafe, &d.local, &d.anniversary} {
			if err := billing.DropSchema(ctx, cfg.PostgresDSN, names[i]); err != nil {
				d.close()
				return nil, "", err
			}
			// A replay on a fake clock need not wait for each commit to
			// reach the disk; "billing run" keeps durable commits.
			db, err := billing.OpenPostgres(ctx, cfg.PostgresDSN, names[i], "synchronous_commit", "off")
			if err != nil {
				d.close()
				return nil, "", err
			}
			*dst = db
		}
		return d, "PostgreSQL, schemas " + strings.Join(names, ", "), nil
	}
	path, where := cfg.SQLitePath, "SQLite "+cfg.SQLitePath
	if path == "" {
		dir, err := os.MkdirTemp("", "dstsafe-billing-")
		if err != nil {
			return nil, "", err
		}
		d.cleanup = append(d.cleanup, func() { os.RemoveAll(dir) })
		path, where = filepath.Join(dir, "billing.db"), "SQLite, temporary files"
	} else if _, err := os.Stat(path); err == nil {
		return nil, "", fmt.Errorf("--db %s exists: the replay seeds a new database", path)
	}
	ext := filepath.Ext(path)
	base := strings.TrimSuffix(path, ext)
	for _, w := range []struct {
		dst  **billing.DB
		path string
	}{{&d.dstsafe, path}, {&d.naive, base + ".naive" + ext}, {&d.local, base + ".local" + ext}, {&d.anniversary, base + ".anniversary" + ext}} {
		db, err := billing.OpenSQLite(w.path)
		if err != nil {
			d.close()
			return nil, "", err
		}
		*w.dst = db
	}
	return d, where, nil
}

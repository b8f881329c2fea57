// Command replica is one replica of a billing-style worker for the
// OS-process recovery tests (cmd/dstsafe/replicas_test.go): a
// dstsafe.Scheduler with one job on a shared ledger, that writes every
// run and every event of its job to a file, one JSON object a line, and
// runs until SIGTERM (or SIGKILL, which is what the tests are about).
//
//	replica --ledger URL [--table T | --prefix P] --owner NAME --job NAME --schedule SPEC
//	        [--seconds] [--retry-max N --retry-abandoned --retry-failed] [--lease D]
//	        [--wake D] [--deadline D] [--misfire D] [--hang-attempt N] [--out FILE]
//
// A run whose attempt is --hang-attempt (default 1) waits until its
// context ends (the process killed mid-run); any other attempt returns at
// once. The ledger URL is the CLI's: sqlite:///abs/path.db,
// postgres://..., redis://host:port/db; the SQL table or Redis prefix
// must exist (the test migrates it).
package main

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"log/slog"
	"os"
	"os/signal"
	"strings"
	"sync"
	"syscall"
	"time"

	_ "github.com/jackc/pgx/v5/stdlib"
	"github.com/redis/go-redis/v9"

	"github.com/dstsafe/dstsafe"
	"github.com/dstsafe/dstsafe/redisledger"
	"github.com/dstsafe/dstsafe/sqlledger"
	"github.com/dstsafe/dstsafe/sqlledger/sqlite"
)

// Line is one line of the output file.
type Line struct {
	Type    string    `json:"type"` // "run" (the job function started) or an event type ("started", "at-risk", ...)
	Owner   string    `json:"owner"`
	Job     string    `json:"job"`
	Period  string    `json:"period"`
	Attempt int       `json:"attempt"`
	Due     time.Time `json:"due"`
	At      time.Time `json:"at"`
	Reason  string    `json:"reason,omitempty"`
	Err     string    `json:"err,omitempty"`
}

type output struct {
	mu  sync.Mutex
	f   *os.File
	own string
}

func (o *output) write(l Line) {
	l.Owner = o.own
	b, _ := json.Marshal(l)
	o.mu.Lock()
	defer o.mu.Unlock()
	_, _ = o.f.Write(append(b, '\n'))
	_ = o.f.Sync()
}

func (o *output) Observe(e dstsafe.Event) {
	l := Line{Type: e.Type.String(), Job: e.Job, Period: e.Period, Attempt: e.Attempt, Due: e.Due, At: e.At, Reason: e.Reason}
	if e.Err != nil {
		l.Err = e.Err.Error()
	}
	o.write(l)
}

func main() {
	if err := run(os.Args[1:]); err != nil {
		fmt.Fprintln(os.Stderr, "replica:", err)
		os.Exit(1)
	}
}

func run(args []string) error {
	fs := flag.NewFlagSet("replica", flag.ContinueOnError)
	var (
		ledgerURL   = fs.String("ledger", "", "ledger URL")
		table       = fs.String("table", "", "SQL table")
		prefix      = fs.String("prefix", "", "Redis key prefix")
		owner       = fs.String("owner", "", "owner name")
		job         = fs.String("job", "billing", "job name")
		spec        = fs.String("schedule", "", "cron spec")
		seconds     = fs.Bool("seconds", false, "the spec has a seconds field")
		retryMax    = fs.Int("retry-max", 0, "RetryPolicy.MaxAttempts")
		abandoned   = fs.Bool("retry-abandoned", false, "RetryPolicy.Abandoned")
		failed      = fs.Bool("retry-failed", false, "RetryPolicy.Failed")
		lease       = fs.Duration("lease", 2*time.Second, "claim lease")
		wake        = fs.Duration("wake", 200*time.Millisecond, "WithWakeInterval")
		deadline    = fs.Duration("deadline", 0, "WithDeadline (0: the default)")
		misfire     = fs.Duration("misfire", 0, "WithMisfireThreshold (0: the default)")
		hangAttempt = fs.Int("hang-attempt", 1, "the attempt that hangs until killed (0: none)")
		out         = fs.String("out", "", "output file (JSON lines)")
	)
	if err := fs.Parse(args); err != nil {
		return err
	}
	if *ledgerURL == "" || *owner == "" || *spec == "" || *out == "" {
		return errors.New("--ledger, --owner, --schedule and --out are required")
	}
	ctx, stop := signal.NotifyContext(context.Background(), syscall.SIGTERM, os.Interrupt)
	defer stop()

	ledger, closeLedger, err := open(ctx, *ledgerURL, *table, *prefix)
	if err != nil {
		return err
	}
	defer closeLedger()
	f, err := os.OpenFile(*out, os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o644)
	if err != nil {
		return err
	}
	defer f.Close()
	o := &output{f: f, own: *owner}

	var copts []dstsafe.CronOption
	if *seconds {
		copts = append(copts, dstsafe.WithSeconds())
	}
	sched, err := dstsafe.ParseCron(*spec, copts...)
	if err != nil {
		return err
	}
	s := dstsafe.NewScheduler(dstsafe.WithLedger(ledger), dstsafe.WithOwner(*owner), dstsafe.WithObserver(o),
		dstsafe.WithWakeInterval(*wake), dstsafe.WithLogger(slog.New(slog.NewTextHandler(os.Stderr, nil))))
	jopts := []dstsafe.JobOption{dstsafe.WithLease(*lease, *lease/4)}
	if *retryMax > 0 {
		jopts = append(jopts, dstsafe.WithRetry(dstsafe.RetryPolicy{MaxAttempts: *retryMax, Abandoned: *abandoned, Failed: *failed}, 0))
	}
	if *deadline > 0 {
		jopts = append(jopts, dstsafe.WithDeadline(*deadline))
	}
	if *misfire > 0 {
		jopts = append(jopts, dstsafe.WithMisfireThreshold(*misfire))
	}
	err = s.Add(*job, sched, func(ctx context.Context, r dstsafe.Run) error {
		o.write(Line{Type: "run", Job: r.Job, Period: r.Period, Attempt: r.Attempt, Due: r.Due, At: time.Now()})
		if r.Attempt == *hangAttempt {
			<-ctx.Done() // the process is killed here
			return ctx.Err()
		}
		return nil
	}, jopts...)
	if err != nil {
		return err
	}
	if err := s.Run(ctx); err != nil && !errors.Is(err, context.Canceled) {
		return err
	}
	return nil
}

// open opens the ledger a CLI-style URL names.
func open(ctx context.Context, raw, table, prefix string) (dstsafe.Ledger, func(), error) {
	scheme, rest, _ := strings.Cut(raw, ":")
	var opts []sqlledger.Option
	if table != "" {
		opts = append(opts, sqlledger.WithTable(table))
	}
	switch scheme {
	case "sqlite":
		l, err := sqlite.OpenSQLite(strings.TrimPrefix(rest, "//"), opts...)
		if err != nil {
			return nil, nil, err
		}
		return l, func() { l.Close() }, nil
	case "postgres", "postgresql":
		db, err := sql.Open("pgx", raw)
		if err != nil {
			return nil, nil, err
		}
		l, err := sqlledger.New(db, append(opts, sqlledger.WithDialect(sqlledger.PostgreSQL))...)
		if err != nil {
			db.Close()
			return nil, nil, err
		}
		return l, func() { l.Close(); db.Close() }, nil
	case "redis":
		ro, err := redis.ParseURL(raw)
		if err != nil {
			return nil, nil, err
		}
		client := redis.NewClient(ro)
		if err := client.Ping(ctx).Err(); err != nil {
			client.Close()
			return nil, nil, err
		}
		var ropts []redisledger.Option
		if prefix != "" {
			ropts = append(ropts, redisledger.WithKeyPrefix(prefix))
		}
		l, err := redisledger.New(client, ropts...)
		if err != nil {
			client.Close()
			return nil, nil, err
		}
		return l, func() { client.Close() }, nil
	}
	return nil, nil, fmt.Errorf("unknown ledger URL %q", raw)
}

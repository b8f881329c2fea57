package sqlledger_test

import (
	"context"
	"database/sql"
	"errors"
	"net/url"
	"testing"

	"github.com/jonboulle/clockwork"

	"github.com/dstsafe/dstsafe"
	"github.com/dstsafe/dstsafe/internal/testkit"
	"github.com/dstsafe/dstsafe/sqlledger"
	"github.com/dstsafe/dstsafe/sqlledger/internal/ledgertest"
)

// PostgreSQL going away, at startup and after it, through a proxy that
// closes its port (testkit.SchedulerOutage): Run fails within the startup
// timeout instead of logging "run resume failed" for ever and returning
// nil, and an outage after startup is an event per failed call and a
// Healthy error.
func TestSchedulerPostgresOutage(t *testing.T) {
	dsn := testkit.RequireEnv(t, pgEnv)
	u, err := url.Parse(dsn)
	if err != nil {
		t.Fatalf("%s: %v", pgEnv, err)
	}
	testkit.SchedulerOutage(t, u.Host, func(t *testing.T, clock *clockwork.FakeClock, addr string) dstsafe.Ledger {
		via := *u
		via.Host = addr
		db, err := sql.Open("pgx", via.String())
		if err != nil {
			t.Fatal(err)
		}
		schema := uniqueName()
		t.Cleanup(func() { dropSchema(t, dsn, schema) })
		l, err := sqlledger.New(db, sqlledger.WithTable(schema+".job_runs"), sqlledger.WithClock(clock), ledgertest.OwnDB())
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { l.Close() })
		if err := l.Migrate(context.Background()); err != nil {
			t.Fatalf("Migrate: %v", err)
		}
		return l
	})
}

// A typed nil *sqlledger.Ledger passed Add and panicked on a scheduler
// goroutine inside List; it is an error from Add and Run naming the
// option. A real one is named in Describe.
func TestSchedulerLedgerOption(t *testing.T) {
	var nilLedger *sqlledger.Ledger
	s := dstsafe.NewScheduler(dstsafe.WithLedger(nilLedger))
	nop := func(context.Context, dstsafe.Run) error { return nil }
	sched, err := dstsafe.ParseCron("0 * * * *")
	if err != nil {
		t.Fatal(err)
	}
	var ae *dstsafe.ArgError
	if err := s.Add("hourly", sched, nop); !errors.Is(err, dstsafe.ErrInvalidArgument) || !errors.As(err, &ae) || ae.Func != "WithLedger" {
		t.Fatalf("Add with a nil *sqlledger.Ledger = %v, want an *ArgError for WithLedger", err)
	}
	if err := s.Run(context.Background()); !errors.As(err, &ae) || ae.Func != "WithLedger" {
		t.Fatalf("Run with a nil *sqlledger.Ledger = %v, want an *ArgError for WithLedger", err)
	}

	l := postgres.New(t)
	s = dstsafe.NewScheduler(dstsafe.WithLedger(l))
	if err := s.Add("hourly", sched, nop); err != nil {
		t.Fatal(err)
	}
	d, err := s.Describe(context.Background(), "hourly", 0)
	if err != nil || d.Ledger != "*sqlledger.Ledger" {
		t.Fatalf("Describe: Ledger %q, %v; want *sqlledger.Ledger", d.Ledger, err)
	}
}

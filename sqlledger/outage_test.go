package sqlledger_test

import (
	"context"
	"database/sql"
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

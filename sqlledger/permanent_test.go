package sqlledger_test

import (
	"context"
	"database/sql"
	"errors"
	"net/url"
	"testing"

	"github.com/jonboulle/clockwork"

	"github.com/dstsafe/dstsafe"
	"github.com/dstsafe/dstsafe/dstsafetest"
	"github.com/dstsafe/dstsafe/internal/testkit"
	"github.com/dstsafe/dstsafe/sqlledger"
)

// postgresBroken: a table never migrated (in a schema that does not
// exist either), and a *sql.DB its owner closed.
func postgresBroken() []dstsafetest.LedgerSuiteOption {
	return []dstsafetest.LedgerSuiteOption{
		dstsafetest.WithBrokenLedger("never migrated", func(t *testing.T, clock *clockwork.FakeClock) dstsafe.Ledger {
			l, _ := postgres.Unmigrated(t, sqlledger.WithClock(clock))
			return l
		}),
		dstsafetest.WithBrokenLedger("closed pool", func(t *testing.T, clock *clockwork.FakeClock) dstsafe.Ledger {
			l := postgres.New(t, sqlledger.WithClock(clock))
			if err := l.DB().Close(); err != nil {
				t.Fatalf("close: %v", err)
			}
			return l
		}),
	}
}

// A PostgreSQL role the server does not know is refused at connection
// (SQLSTATE 28000): permanent, like a wrong password (28P01).
func TestPostgresUnknownRolePermanent(t *testing.T) {
	u, err := url.Parse(testkit.RequireEnv(t, pgEnv))
	if err != nil {
		t.Fatalf("%s: %v", pgEnv, err)
	}
	u.User = url.User("dstsafe_no_such_role")
	stranger, err := sql.Open("pgx", u.String())
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { stranger.Close() })
	l, err := sqlledger.New(stranger, sqlledger.WithTable(uniqueName()+".job_runs"))
	if err != nil {
		t.Fatal(err)
	}
	_, err = l.Get(context.Background(), "billing", "2024-11-03")
	if !errors.Is(err, dstsafe.ErrPermanent) {
		t.Fatalf("Get as an unknown role = %v, want ErrPermanent", err)
	}
}

// A connection that drops is not permanent: the next call may reach the
// server.
func TestDroppedConnectionNotPermanent(t *testing.T) {
	db, err := sql.Open("pgx", "postgres://dstsafe@"+testkit.DroppingServer(t)+"/dstsafe?sslmode=disable")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	l, err := sqlledger.New(db)
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	_, claimErr := l.Claim(ctx, dstsafe.ClaimRequest{Job: "billing", Period: "2024-11-03", Owner: "w"})
	_, getErr := l.Get(ctx, "billing", "2024-11-03")
	_, listErr := l.List(ctx, "billing", "", "")
	for name, err := range map[string]error{"Claim": claimErr, "Get": getErr, "List": listErr} {
		if err == nil {
			t.Errorf("%s succeeded on a dropped connection", name)
		} else if errors.Is(err, dstsafe.ErrPermanent) {
			t.Errorf("%s: %v is permanent; a dropped connection is not", name, err)
		}
	}
}

package sqlledger_test

import (
	"context"
	"database/sql"
	"errors"
	"net/url"
	"path/filepath"
	"testing"

	"github.com/jonboulle/clockwork"

	"github.com/dstsafe/dstsafe"
	"github.com/dstsafe/dstsafe/dstsafetest"
	"github.com/dstsafe/dstsafe/sqlledger"
)

// pendingSchedule: the table has no column for ClaimRequest.Schedule yet.
var pendingSchedule = dstsafetest.WithoutSchedule("sqlledger: schedule column pending")

// sqliteBroken are the ways a SQLite ledger cannot work until someone
// changes something, for the suite's Permanent subtest.
func sqliteBroken() []dstsafetest.LedgerSuiteOption {
	return []dstsafetest.LedgerSuiteOption{
		dstsafetest.WithBrokenLedger("never migrated", func(t *testing.T, clock *clockwork.FakeClock) dstsafe.Ledger {
			l, err := sqlledger.OpenSQLite(filepath.Join(t.TempDir(), "ledger.db"), sqlledger.WithClock(clock))
			if err != nil {
				t.Fatalf("OpenSQLite: %v", err)
			}
			t.Cleanup(func() { l.Close() })
			return l
		}),
		dstsafetest.WithBrokenLedger("closed", func(t *testing.T, clock *clockwork.FakeClock) dstsafe.Ledger {
			l, _ := openSQLite(t, sqlledger.WithClock(clock))
			if err := l.Close(); err != nil {
				t.Fatalf("Close: %v", err)
			}
			return l
		}),
	}
}

// postgresBroken: a table never migrated, and a *sql.DB its owner closed.
func postgresBroken(db *sql.DB) []dstsafetest.LedgerSuiteOption {
	return []dstsafetest.LedgerSuiteOption{
		dstsafetest.WithBrokenLedger("never migrated", func(t *testing.T, clock *clockwork.FakeClock) dstsafe.Ledger {
			l, err := sqlledger.New(db, sqlledger.WithTable(uniqueTable()), sqlledger.WithClock(clock))
			if err != nil {
				t.Fatalf("New: %v", err)
			}
			return l
		}),
		dstsafetest.WithBrokenLedger("closed pool", func(t *testing.T, clock *clockwork.FakeClock) dstsafe.Ledger {
			closed := pgDB(t)
			migrated := pgLedger(t, db)
			l, err := sqlledger.New(closed, sqlledger.WithTable(migrated.Table()), sqlledger.WithClock(clock))
			if err != nil {
				t.Fatalf("New: %v", err)
			}
			closed.Close()
			return l
		}),
	}
}

// A PostgreSQL role the server does not know is refused at connection
// (SQLSTATE 28000): permanent, like a wrong password (28P01).
func TestPostgresUnknownRolePermanent(t *testing.T) {
	u, err := url.Parse(dstsafetest.RequireEnv(t, pgEnv))
	if err != nil {
		t.Fatalf("%s: %v", pgEnv, err)
	}
	u.User = url.User("dstsafe_no_such_role")
	stranger, err := sql.Open("pgx", u.String())
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { stranger.Close() })
	l, err := sqlledger.New(stranger, sqlledger.WithTable(uniqueTable()))
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
	db, err := sql.Open("pgx", "postgres://dstsafe@"+dstsafetest.DroppingServer(t)+"/dstsafe?sslmode=disable")
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

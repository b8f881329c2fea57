package sqlledger_test

import (
	"context"
	"database/sql"
	"errors"
	"testing"
	"time"

	"github.com/jonboulle/clockwork"

	"github.com/dstsafe/dstsafe"
	"github.com/dstsafe/dstsafe/dstsafetest"
	"github.com/dstsafe/dstsafe/sqlledger"
)

// The postmortem's fix: the claim and the charges commit together. If the
// run's transaction rolls back, neither the charges nor the claim exist, and
// the period can be claimed again; if it commits, both do.
func TestClaimCommitsWithBusinessRows(t *testing.T) {
	dialects := map[string]func(t *testing.T) *sqlledger.Ledger{
		"sqlite": func(t *testing.T) *sqlledger.Ledger {
			l, _ := openSQLite(t)
			return l
		},
		"postgres": func(t *testing.T) *sqlledger.Ledger { return pgLedger(t, pgDB(t)) },
	}
	for name, newLedger := range dialects {
		t.Run(name, func(t *testing.T) {
			ctx := context.Background()
			l := newLedger(t)
			db := l.DB()
			charges := l.Table() + "_charges"
			if _, err := db.ExecContext(ctx, `CREATE TABLE `+charges+` (customer TEXT NOT NULL, period TEXT NOT NULL, PRIMARY KEY (customer, period))`); err != nil {
				t.Fatal(err)
			}
			t.Cleanup(func() { db.ExecContext(context.Background(), `DROP TABLE `+charges) })
			insert := `INSERT INTO ` + charges + ` (customer, period) VALUES ($1, $2)`
			if l.Dialect() == sqlledger.SQLite {
				insert = `INSERT INTO ` + charges + ` (customer, period) VALUES (?1, ?2)`
			}
			count := func() int {
				var n int
				if err := db.QueryRowContext(ctx, `SELECT count(*) FROM `+charges).Scan(&n); err != nil {
					t.Fatal(err)
				}
				return n
			}
			req := dstsafe.ClaimRequest{Job: "billing", Period: "2024-11-03", Owner: "worker-1"}

			run := func(commit bool) dstsafe.Record {
				tx, err := db.BeginTx(ctx, nil)
				if err != nil {
					t.Fatal(err)
				}
				rec, err := l.WithTx(tx).Claim(ctx, req)
				if err != nil {
					tx.Rollback()
					t.Fatalf("claim in tx: %v", err)
				}
				for _, c := range []string{"cus_1", "cus_2", "cus_3"} {
					if _, err := tx.ExecContext(ctx, insert, c, req.Period); err != nil {
						t.Fatal(err)
					}
				}
				if _, err := l.WithTx(tx).Finish(ctx, rec.Job, rec.Period, rec.Token, dstsafe.StateSucceeded, ""); err != nil {
					t.Fatal(err)
				}
				if commit {
					err = tx.Commit()
				} else {
					err = tx.Rollback()
				}
				if err != nil {
					t.Fatal(err)
				}
				return rec
			}

			run(false) // the card processor call failed: roll back
			if n := count(); n != 0 {
				t.Fatalf("%d charges after rollback", n)
			}
			if _, err := l.Get(ctx, req.Job, req.Period); !errors.Is(err, dstsafe.ErrNotFound) {
				t.Fatalf("Get after rollback = %v, want ErrNotFound: the claim must roll back with the charges", err)
			}
			rec := run(true)
			if n := count(); n != 3 {
				t.Fatalf("%d charges after commit, want 3", n)
			}
			if rec.Attempt != 1 {
				t.Errorf("Attempt = %d after a rolled-back first try, want 1", rec.Attempt)
			}
			got, err := l.Get(ctx, req.Job, req.Period)
			if err != nil || got.State != dstsafe.StateSucceeded {
				t.Fatalf("Get after commit = %+v, %v; want succeeded", got, err)
			}
			// The 01:30 CST rerun: refused, nothing charged twice.
			_, err = l.Claim(ctx, req)
			if !errors.Is(err, dstsafe.ErrAlreadyClaimed) {
				t.Fatalf("second claim = %v, want ErrAlreadyClaimed", err)
			}
		})
	}
}

// Under READ COMMITTED (PostgreSQL's default) a claim racing an open
// transaction that claimed the same period does not fail fast and does
// not see a snapshot without the row: its INSERT waits on the winner's
// row lock until the transaction ends. Then it returns no row and the claim
// fails with ErrAlreadyClaimed carrying the winner's record, or, if the
// winner rolled back, the racer wins.
func TestPostgresRacingClaimWaitsForCommit(t *testing.T) {
	db := pgDB(t)
	clock := clockwork.NewFakeClockAt(dstsafetest.SuiteStart)
	l := pgLedger(t, db, sqlledger.WithClock(clock))
	for _, commit := range []bool{true, false} {
		name := map[bool]string{true: "winner commits", false: "winner rolls back"}[commit]
		t.Run(name, func(t *testing.T) {
			ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
			defer cancel()
			req := dstsafe.ClaimRequest{Job: "billing", Period: name, Owner: "tx-holder"}
			tx, err := db.BeginTx(ctx, &sql.TxOptions{Isolation: sql.LevelReadCommitted})
			if err != nil {
				t.Fatal(err)
			}
			defer tx.Rollback()
			won, err := l.WithTx(tx).Claim(ctx, req)
			if err != nil {
				t.Fatal(err)
			}

			type result struct {
				r   dstsafe.Record
				err error
			}
			racer := make(chan result, 1)
			go func() {
				r, err := l.Claim(ctx, dstsafe.ClaimRequest{Job: req.Job, Period: req.Period, Owner: "racer"})
				racer <- result{r, err}
			}()
			waitForLockWait(ctx, t, db, l.Table())
			select {
			case res := <-racer:
				t.Fatalf("the racing claim returned %+v, %v while the winner's transaction was open", res.r, res.err)
			default:
			}

			if commit {
				err = tx.Commit()
			} else {
				err = tx.Rollback()
			}
			if err != nil {
				t.Fatal(err)
			}
			res := <-racer
			if !commit {
				if res.err != nil || res.r.Owner != "racer" || res.r.Attempt != 1 {
					t.Fatalf("racer after rollback = %+v, %v; want its own first attempt", res.r, res.err)
				}
				return
			}
			var ce *dstsafe.ClaimedError
			if !errors.As(res.err, &ce) || !errors.Is(res.err, dstsafe.ErrAlreadyClaimed) {
				t.Fatalf("racer after commit = %+v, %v; want ErrAlreadyClaimed", res.r, res.err)
			}
			if ce.Existing.Owner != "tx-holder" || ce.Existing.Token != won.Token || ce.Existing.State != dstsafe.StateRunning {
				t.Fatalf("racer saw %+v, want the winner's running record", ce.Existing)
			}
		})
	}
}

// waitForLockWait returns once a backend is waiting for a lock while
// running a statement on table. It polls pg_stat_activity; no sleeping.
func waitForLockWait(ctx context.Context, t *testing.T, db *sql.DB, table string) {
	t.Helper()
	for {
		var n int
		err := db.QueryRowContext(ctx, `SELECT count(*) FROM pg_stat_activity
WHERE wait_event_type = 'Lock' AND state = 'active' AND strpos(query, $1) > 0`, table).Scan(&n)
		if err != nil {
			t.Fatalf("waiting for the racing claim to block: %v", err)
		}
		if n > 0 {
			return
		}
	}
}

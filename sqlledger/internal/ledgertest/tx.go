package ledgertest

import (
	"context"
	"errors"
	"testing"

	"github.com/dstsafe/dstsafe"
	"github.com/dstsafe/dstsafe/sqlledger"
)

// The postmortem's fix: the claim and the charges commit together. If the
// run's transaction rolls back, neither the charges nor the claim exist, and
// the period can be claimed again; if it commits, both do.
func testClaimCommitsWithBusinessRows(t *testing.T, b Backend) {
	ctx := context.Background()
	l := b.New(t)
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
}

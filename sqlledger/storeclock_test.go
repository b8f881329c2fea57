package sqlledger_test

// Issue 32: every statement that reads PostgreSQL's clock reads
// clock_timestamp(), the instant it runs, never now(), which stands still
// at the start of the transaction. Outside a transaction the two agree,
// so only a call made late inside a caller's transaction (WithTx,
// dstsaferiver's NewTxWorker) tells them apart. Each subtest opens a
// transaction, waits in it (pg_sleep: the server's time, not the test's)
// longer than the lease, and makes the call there, as a run that did its
// business work first would: the instants it stamps are judged against
// the transaction's start (now(), read in it), and what a user relies on
// is checked after the commit: a claim made late is not already
// abandoned, so another replica's takeover does not run the period again.

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"testing"
	"time"

	"github.com/dstsafe/dstsafe"
	"github.com/dstsafe/dstsafe/sqlledger"
)

const (
	// lateLease is the lease of the claims made late in a transaction.
	lateLease = 2 * time.Second
	// lateBy is how long each transaction waits before its call:
	// longer than lateLease.
	lateBy = 2500 * time.Millisecond
)

// lateTx begins a transaction on l's database and waits lateBy in it on
// the server. It returns the transaction and its start (now() in it).
func lateTx(t *testing.T, ctx context.Context, l *sqlledger.Ledger) (*sql.Tx, time.Time) {
	t.Helper()
	tx, err := l.DB().BeginTx(ctx, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { tx.Rollback() })
	var start time.Time
	if err := tx.QueryRowContext(ctx, `SELECT now()`).Scan(&start); err != nil {
		t.Fatal(err)
	}
	if _, err := tx.ExecContext(ctx, fmt.Sprintf(`SELECT pg_sleep(%g)`, lateBy.Seconds())); err != nil {
		t.Fatal(err)
	}
	return tx, start
}

// stampedLate fails unless at, stamped by a call made late in a
// transaction that started at start, is at least lateBy after start.
func stampedLate(t *testing.T, what string, start, at time.Time) {
	t.Helper()
	if d := at.Sub(start); d < lateBy {
		t.Errorf("%s = %v, %v after the transaction began; the call ran %v after it: stamped with the transaction's start (now()), not the clock (clock_timestamp())",
			what, at, d, lateBy)
	}
}

// notTakenOver fails unless another replica, whose RetryPolicy takes over
// abandoned periods, is refused the period: its holder's lease, given
// late in a transaction, is still running.
func notTakenOver(t *testing.T, ctx context.Context, l *sqlledger.Ledger, job, period string) {
	t.Helper()
	_, err := l.Claim(ctx, dstsafe.ClaimRequest{Job: job, Period: period, Owner: "billing-2",
		Retry: dstsafe.RetryPolicy{MaxAttempts: 5, Failed: true, Abandoned: true}})
	var ce *dstsafe.ClaimedError
	if !errors.As(err, &ce) {
		t.Fatalf("another replica's takeover right after the commit = %v: the period runs again", err)
	}
	if ce.Existing.State != dstsafe.StateRunning {
		t.Fatalf("the record right after the commit is %s: %+v", ce.Existing.State, ce.Existing)
	}
}

func commit(t *testing.T, tx *sql.Tx) {
	t.Helper()
	if err := tx.Commit(); err != nil {
		t.Fatal(err)
	}
}

func TestPostgresStoreClockLateInTransaction(t *testing.T) {
	ctx := context.Background()
	const job, period = "billing", "2024-11-03"
	for _, tc := range []struct {
		name string
		run  func(t *testing.T, l *sqlledger.Ledger)
	}{
		// The run charges the customers in its transaction first, then
		// claims (a NewTxWorker job's shape): the claim's lease runs
		// from the claim, not from BEGIN.
		{"Claim", func(t *testing.T, l *sqlledger.Ledger) {
			tx, start := lateTx(t, ctx, l)
			r, err := l.WithTx(tx).Claim(ctx, dstsafe.ClaimRequest{Job: job, Period: period, Owner: "billing-1", Lease: lateLease})
			if err != nil {
				t.Fatal(err)
			}
			stampedLate(t, "StartedAt", start, r.StartedAt)
			stampedLate(t, "LeaseUntil - lease", start, r.LeaseUntil.Add(-lateLease))
			commit(t, tx)
			notTakenOver(t, ctx, l, job, period)
		}},
		// The same for a takeover of a failed attempt.
		{"Takeover", func(t *testing.T, l *sqlledger.Ledger) {
			r, err := l.Claim(ctx, dstsafe.ClaimRequest{Job: job, Period: period, Owner: "billing-1", Lease: lateLease})
			if err != nil {
				t.Fatal(err)
			}
			if _, err := l.Finish(ctx, job, period, r.Token, dstsafe.StateFailed, "card processor down"); err != nil {
				t.Fatal(err)
			}
			tx, start := lateTx(t, ctx, l)
			r, err = l.WithTx(tx).Claim(ctx, dstsafe.ClaimRequest{Job: job, Period: period, Owner: "billing-1", Lease: lateLease,
				Retry: dstsafe.RetryPolicy{MaxAttempts: 2, Failed: true}})
			if err != nil {
				t.Fatal(err)
			}
			if r.Attempt != 2 {
				t.Fatalf("takeover = %+v, want attempt 2", r)
			}
			stampedLate(t, "StartedAt", start, r.StartedAt)
			commit(t, tx)
			notTakenOver(t, ctx, l, job, period)
		}},
		// The holder heartbeats from a transaction it has held a while:
		// the new lease runs from the heartbeat.
		{"Heartbeat", func(t *testing.T, l *sqlledger.Ledger) {
			r, err := l.Claim(ctx, dstsafe.ClaimRequest{Job: job, Period: period, Owner: "billing-1", Lease: lateLease})
			if err != nil {
				t.Fatal(err)
			}
			tx, start := lateTx(t, ctx, l)
			hb, err := l.WithTx(tx).Heartbeat(ctx, job, period, r.Token, lateLease)
			if err != nil {
				t.Fatal(err)
			}
			stampedLate(t, "LeaseUntil - lease", start, hb.LeaseUntil.Add(-lateLease))
			commit(t, tx)
			notTakenOver(t, ctx, l, job, period)
		}},
		// The run's finish, in the transaction that did its work: the
		// record says when it ended.
		{"Finish", func(t *testing.T, l *sqlledger.Ledger) {
			r, err := l.Claim(ctx, dstsafe.ClaimRequest{Job: job, Period: period, Owner: "billing-1", Lease: time.Minute})
			if err != nil {
				t.Fatal(err)
			}
			tx, start := lateTx(t, ctx, l)
			f, err := l.WithTx(tx).Finish(ctx, job, period, r.Token, dstsafe.StateSucceeded, "")
			if err != nil {
				t.Fatal(err)
			}
			stampedLate(t, "FinishedAt", start, f.FinishedAt)
			commit(t, tx)
		}},
		// An operator's tool releases, in its transaction, a period
		// whose holder died: its lease ran out while the tool waited,
		// so the release is allowed.
		{"Release", func(t *testing.T, l *sqlledger.Ledger) {
			if _, err := l.Claim(ctx, dstsafe.ClaimRequest{Job: job, Period: period, Owner: "billing-1", Lease: lateLease}); err != nil {
				t.Fatal(err)
			}
			tx, _ := lateTx(t, ctx, l)
			r, err := l.WithTx(tx).Release(ctx, job, period, "ops", "holder died")
			if err != nil {
				t.Fatalf("Release of a period abandoned while the transaction waited = %v", err)
			}
			if !r.Released || r.State != dstsafe.StateAbandoned {
				t.Fatalf("Release = %+v, want released and abandoned", r)
			}
			commit(t, tx)
		}},
		// Get and List in a transaction held past the lease read the
		// period as abandoned, as every replica outside it does.
		{"GetList", func(t *testing.T, l *sqlledger.Ledger) {
			if _, err := l.Claim(ctx, dstsafe.ClaimRequest{Job: job, Period: period, Owner: "billing-1", Lease: lateLease}); err != nil {
				t.Fatal(err)
			}
			tx, _ := lateTx(t, ctx, l)
			g, err := l.WithTx(tx).Get(ctx, job, period)
			if err != nil || g.State != dstsafe.StateAbandoned {
				t.Errorf("Get late in a transaction = %s, %v; want abandoned", g.State, err)
			}
			rs, err := l.WithTx(tx).List(ctx, job, "", "")
			if err != nil || len(rs) != 1 || rs[0].State != dstsafe.StateAbandoned {
				t.Errorf("List late in a transaction = %+v, %v; want one abandoned record", rs, err)
			}
		}},
		// A pause decided late in a transaction says when it was made.
		{"Pause", func(t *testing.T, l *sqlledger.Ledger) {
			tx, start := lateTx(t, ctx, l)
			p, err := l.WithTx(tx).SetPause(ctx, job, dstsafe.Pause{Paused: true, By: "ops", Reason: "incident 42"})
			if err != nil {
				t.Fatal(err)
			}
			stampedLate(t, "Pause.Since", start, p.Since)
			commit(t, tx)
		}},
		// A job registered late in a transaction (a service's start-up
		// migration and registration in one): first seen when it was.
		{"RegisterJob", func(t *testing.T, l *sqlledger.Ledger) {
			tx, start := lateTx(t, ctx, l)
			info, err := l.WithTx(tx).RegisterJob(ctx, dstsafe.JobRegistration{Job: job, Owner: "billing-1",
				Schedule: "cron1;America/Chicago;2025b;first;shift;date;0;0;30 1 * * *"})
			if err != nil {
				t.Fatal(err)
			}
			stampedLate(t, "FirstSeen", start, info.FirstSeen)
			commit(t, tx)
			tx, start = lateTx(t, ctx, l)
			info, err = l.WithTx(tx).RegisterJob(ctx, dstsafe.JobRegistration{Job: job, Owner: "billing-2",
				Schedule: "cron1;America/Chicago;2025b;first;shift;date;0;0;30 1 * * *"})
			if err != nil {
				t.Fatal(err)
			}
			stampedLate(t, "LastSeen", start, info.LastSeen)
			commit(t, tx)
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			tc.run(t, postgres.New(t))
		})
	}
}

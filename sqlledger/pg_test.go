package sqlledger_test

// What only PostgreSQL has: row locks a claim waits on, schemas and
// collations, a server that restarts.

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"os/exec"
	"runtime"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/jonboulle/clockwork"

	"github.com/dstsafe/dstsafe"
	"github.com/dstsafe/dstsafe/internal/testkit"
	"github.com/dstsafe/dstsafe/sqlledger"
)

// A claim stuck behind another transaction's row lock holds the group
// lock; a caller queued behind it still gets its context's error when it
// gives up, not a wait as long as the other transaction.
func TestPostgresQueuedClaimHonoursContext(t *testing.T) {
	l := postgres.New(t)
	db := l.DB()
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	tx, err := db.BeginTx(ctx, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer tx.Rollback()
	if _, err := l.WithTx(tx).Claim(ctx, dstsafe.ClaimRequest{Job: "billing", Period: "2024-11-03", Owner: "tx"}); err != nil {
		t.Fatal(err)
	}
	stuck := make(chan error, 1)
	go func() {
		_, err := l.Claim(ctx, dstsafe.ClaimRequest{Job: "billing", Period: "2024-11-03", Owner: "stuck"})
		stuck <- err
	}()
	waitForLockWait(ctx, t, db, l.Table())

	queued, giveUp := context.WithCancel(ctx)
	res := make(chan error, 1)
	go func() {
		_, err := l.Claim(queued, dstsafe.ClaimRequest{Job: "billing", Period: "2024-11-04", Owner: "queued"})
		res <- err
	}()
	giveUp()
	select {
	case err := <-res:
		if !errors.Is(err, context.Canceled) {
			t.Fatalf("queued claim = %v, want context.Canceled", err)
		}
	case <-time.After(30 * time.Second): // a guard, not a wait: the answer is immediate
		t.Fatal("a queued claim ignored its caller's context")
	}
	if err := tx.Commit(); err != nil {
		t.Fatal(err)
	}
	if err := <-stuck; !errors.Is(err, dstsafe.ErrAlreadyClaimed) {
		t.Fatalf("stuck claim = %v, want ErrAlreadyClaimed once the transaction committed", err)
	}
	if _, err := l.Get(ctx, "billing", "2024-11-04"); !errors.Is(err, dstsafe.ErrNotFound) {
		t.Fatalf("the abandoned claim was stored: %v", err)
	}
}

// Under READ COMMITTED (PostgreSQL's default) a claim racing an open
// transaction that claimed the same period does not fail fast and does
// not see a snapshot without the row: its INSERT waits on the winner's
// row lock until the transaction ends. Then it returns no row and the claim
// fails with ErrAlreadyClaimed carrying the winner's record, or, if the
// winner rolled back, the racer wins.
func TestPostgresRacingClaimWaitsForCommit(t *testing.T) {
	clock := clockwork.NewFakeClockAt(testkit.SuiteStart)
	l := postgres.New(t, sqlledger.WithClock(clock))
	db := l.DB()
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
// running a statement on table (in a schema of the test's own). It polls
// pg_stat_activity; no sleeping.
func waitForLockWait(ctx context.Context, t *testing.T, db *sql.DB, table string) {
	t.Helper()
	table, _, _ = strings.Cut(table, ".") // the statement quotes each part
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

// The shared tests put every ledger in a schema Migrate creates. A table
// on the search_path, and one in a schema that exists already, work too.
func TestPostgresTablePlacement(t *testing.T) {
	ctx := context.Background()
	db := pgDB(t)
	existing := uniqueName()
	if _, err := db.ExecContext(ctx, `CREATE SCHEMA `+existing); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { dropSchema(t, testkit.RequireEnv(t, pgEnv), existing) })
	unqualified := uniqueName()
	t.Cleanup(func() {
		db.ExecContext(context.Background(), `DROP TABLE IF EXISTS `+unqualified+`, `+unqualified+`_schema`)
	})
	for _, table := range []string{unqualified, existing + ".job_runs"} {
		l, err := sqlledger.New(db, sqlledger.WithTable(table))
		if err != nil {
			t.Fatal(err)
		}
		if err := l.Migrate(ctx); err != nil {
			t.Fatalf("Migrate %s: %v", table, err)
		}
		if _, err := l.Claim(ctx, dstsafe.ClaimRequest{Job: "billing", Period: "2024-11-03", Owner: "w"}); err != nil {
			t.Fatal(err)
		}
		var n int
		if err := db.QueryRowContext(ctx, `SELECT count(*) FROM `+table).Scan(&n); err != nil || n != 1 {
			t.Fatalf("rows in %s = %d, %v; want 1", table, n, err)
		}
	}
}

// Keys compare as bytes whatever the database's locale: under en_US
// collation "a" < "B" and List would interleave cases and hour suffixes.
// The test server runs C.UTF-8, where the suite cannot tell, so check the
// columns themselves.
func TestPostgresKeyColumnsCollateC(t *testing.T) {
	l := postgres.New(t)
	schema, table, _ := strings.Cut(l.Table(), ".")
	rows, err := l.DB().QueryContext(context.Background(), `SELECT column_name, collation_name FROM information_schema.columns
WHERE table_schema = $1 AND table_name = $2 AND column_name IN ('job_name', 'period') ORDER BY column_name`, schema, table)
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	n := 0
	for rows.Next() {
		var col string
		var coll sql.NullString
		if err := rows.Scan(&col, &coll); err != nil {
			t.Fatal(err)
		}
		n++
		if coll.String != "C" {
			t.Errorf("column %s collates %q, want C", col, coll.String)
		}
	}
	if n != 2 {
		t.Fatalf("found %d key columns, want 2", n)
	}
}

// PostgreSQL stops and starts while workers claim and a holder heartbeats:
// the holder's heartbeat error reaches the job as a cancelled context,
// claims fail with errors (never a false ErrAlreadyClaimed win or a double
// win), and after the restart the ledger works again. It stops the server
// every other server-backed test uses: scripts/test runs it alone, after
// the other modules' tests (go test -skip '^TestPostgresRestart$' there).
func TestPostgresRestart(t *testing.T) {
	ctl := testkit.RequireEnv(t, "DSTSAFE_TEST_POSTGRES_CTL")
	clock := clockwork.NewFakeClockAt(time.Now())
	l := postgres.New(t, sqlledger.WithClock(clock))
	l.DB().SetMaxIdleConns(16)
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	pgctl := func(args ...string) {
		t.Helper()
		if out, err := exec.CommandContext(ctx, ctl, args...).CombinedOutput(); err != nil {
			t.Fatalf("pg_ctl %v: %v\n%s", args, err, out)
		}
	}
	t.Cleanup(func() {
		// Never leave the server down for the tests that follow.
		if exec.Command(ctl, "status").Run() != nil {
			exec.Command(ctl, "start").Run()
		}
	})

	// The holder: a job whose context ends when its heartbeat fails.
	held, err := l.Claim(ctx, dstsafe.ClaimRequest{Job: "billing", Period: "held", Owner: "holder", Lease: 30 * time.Second})
	if err != nil {
		t.Fatal(err)
	}
	jobCtx, stopJob := context.WithCancelCause(ctx)
	defer stopJob(nil)
	go func() {
		for {
			select {
			case <-jobCtx.Done():
				return
			case <-clock.After(10 * time.Second):
			}
			if _, err := l.Heartbeat(jobCtx, "billing", "held", held.Token, 30*time.Second); err != nil {
				stopJob(fmt.Errorf("heartbeat: %w", err))
				return
			}
		}
	}()

	// Workers claim periods throughout; after an error they wait for the
	// restart, then retry the same period.
	const n, workers = 2000, 8
	var (
		next      atomic.Int64
		claimed   atomic.Int64
		errCount  atomic.Int64
		restarted = make(chan struct{})
		mu        sync.Mutex
		won       = map[string]string{} // period -> owner told it won
		ackLost   = map[string]string{} // period -> owner whose claim errored but committed
		wg        sync.WaitGroup
	)
	for w := range workers {
		owner := fmt.Sprintf("worker-%d", w)
		wg.Go(func() {
			for {
				i := next.Add(1) - 1
				if i >= n {
					return
				}
				period := fmt.Sprintf("p%05d", i)
				for attempt := 0; ; attempt++ {
					_, err := l.Claim(ctx, dstsafe.ClaimRequest{Job: "billing", Period: period, Owner: owner})
					var ce *dstsafe.ClaimedError
					if err == nil {
						mu.Lock()
						won[period] = owner
						mu.Unlock()
						claimed.Add(1)
						break
					}
					if errors.As(err, &ce) {
						if ce.Existing.Owner == owner {
							// Our earlier attempt committed, its answer was lost
							// with the connection: the period is ours, once.
							mu.Lock()
							ackLost[period] = owner
							mu.Unlock()
						} else {
							t.Errorf("%s: period %s claimed by %s, which nobody else attempted", owner, period, ce.Existing.Owner)
						}
						break
					}
					errCount.Add(1)
					if attempt > 50 {
						t.Errorf("%s: period %s: still failing after the restart: %v", owner, period, err)
						return
					}
					<-restarted
				}
			}
		})
	}
	for claimed.Load() < 200 {
		if ctx.Err() != nil {
			t.Fatal("workers made no progress")
		}
		runtime.Gosched()
	}

	pgctl("stop", "-m", "fast")
	// The heartbeat against a stopped server fails, and the job hears it.
	if err := clock.BlockUntilContext(ctx, 1); err != nil {
		t.Fatal(err)
	}
	clock.Advance(10 * time.Second)
	<-jobCtx.Done()
	cause := context.Cause(jobCtx)
	if cause == nil || errors.Is(cause, dstsafe.ErrLeaseLost) || errors.Is(cause, context.Canceled) {
		t.Fatalf("job context ended with %v, want the heartbeat's connection error", cause)
	}
	t.Logf("job cancelled: %v", cause)
	if _, err := l.Claim(ctx, dstsafe.ClaimRequest{Job: "billing", Period: "while-down", Owner: "x"}); err == nil || errors.Is(err, dstsafe.ErrAlreadyClaimed) {
		t.Fatalf("claim while PostgreSQL is down = %v, want a connection error", err)
	}

	pgctl("start")
	close(restarted)
	wg.Wait()
	if t.Failed() {
		return
	}
	if errCount.Load() == 0 {
		t.Fatal("no claim failed while PostgreSQL was down: the restart did not happen mid-run")
	}
	t.Logf("%d claims failed during the restart, %d answers lost with their connection", errCount.Load(), len(ackLost))

	recs, err := l.List(ctx, "billing", "p", "q")
	if err != nil {
		t.Fatal(err)
	}
	if len(recs) != n {
		t.Fatalf("%d records after the restart, want %d", len(recs), n)
	}
	for _, r := range recs {
		w, okW := won[r.Period]
		a, okA := ackLost[r.Period]
		switch {
		case okW && okA:
			t.Fatalf("period %s both won by %s and lost-ack by %s", r.Period, w, a)
		case okW && w == r.Owner, okA && a == r.Owner:
		default:
			t.Fatalf("record %+v: owner was never told it won", r)
		}
		if r.Token != 1 || r.Attempt != 1 {
			t.Fatalf("record %+v: claimed more than once", r)
		}
	}

	// The ledger works again: the holder's claim is intact, the holder can
	// heartbeat with its token (after the pool drops dead connections),
	// and nobody else can claim its period.
	var hbErr error
	for range 10 {
		if _, hbErr = l.Heartbeat(ctx, "billing", "held", held.Token, 30*time.Second); hbErr == nil {
			break
		}
	}
	if hbErr != nil {
		t.Fatalf("heartbeat after the restart: %v", hbErr)
	}
	if _, err := l.Claim(ctx, dstsafe.ClaimRequest{Job: "billing", Period: "held", Owner: "other"}); !errors.Is(err, dstsafe.ErrAlreadyClaimed) {
		t.Fatalf("claim of the held period after the restart = %v, want ErrAlreadyClaimed", err)
	}
	if _, err := l.Claim(ctx, dstsafe.ClaimRequest{Job: "billing", Period: "after-restart", Owner: "x"}); err != nil {
		t.Fatalf("new claim after the restart: %v", err)
	}
}

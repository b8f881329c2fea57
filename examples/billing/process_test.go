package main

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io/fs"
	"net/http/httptest"
	"os"
	"os/exec"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/dstsafe/dstsafe"
	"github.com/dstsafe/dstsafe/examples/billing/internal/billing"
	"github.com/dstsafe/dstsafe/examples/billing/internal/billingtest"
	"github.com/dstsafe/dstsafe/examples/billing/internal/payments"
	"github.com/dstsafe/dstsafe/sqlledger"
	"github.com/jonboulle/clockwork"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// night is a seeded billing database and a processor that outlives the
// billing processes the test starts and kills.
type night struct {
	db   *billing.DB
	loc  billingtest.Location
	seed billing.Seed
	sim  *payments.Simulator
	url  string
}

func newNight(t *testing.T, b billingtest.Backend, n, failing int) night {
	t.Helper()
	ctx := context.Background()
	db, loc := b.Open(t)
	require.NoError(t, billing.Migrate(ctx, db))
	seed := billing.NewSeed(n, failing, fallBack, chicago)
	require.NoError(t, billing.InsertSubscriptions(ctx, db, seed.Subscriptions))
	sim := payments.NewSimulator()
	srv := httptest.NewServer(payments.Handler(sim))
	t.Cleanup(srv.Close)
	return night{db: db, loc: loc, seed: seed, sim: sim, url: srv.URL}
}

// args are the "billing run" arguments for this night's database.
func (n night) args() []string {
	a := []string{"run", "--date", fallBack.String()}
	if n.url != "" {
		a = append(a, "--processor", n.url)
	}
	if n.loc.SQLitePath != "" {
		return append(a, "--db", n.loc.SQLitePath)
	}
	return append(a, "--postgres", n.loc.PostgresDSN, "--schema", n.loc.PostgresSchema)
}

// options are runDate's options for this night's database, without a
// log.
func (n night) options() runOptions {
	return runOptions{
		Date: fallBack, Zone: chicago, SQLitePath: n.loc.SQLitePath,
		PostgresDSN: n.loc.PostgresDSN, Schema: n.loc.PostgresSchema,
		ProcessorURL: n.url, Log: discard,
	}
}

// child starts this test binary as a billing process.
func (n night) child(t *testing.T, crash string) (*exec.Cmd, *bytes.Buffer) {
	t.Helper()
	cmd := exec.Command(os.Args[0], n.args()...)
	cmd.Env = append(os.Environ(), "BILLING_TEST_CHILD=1", "BILLING_TEST_CRASH="+crash, "DATABASE_URL=")
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &out
	require.NoError(t, cmd.Start())
	return cmd, &out
}

// requireBilledOnce checks, in the database and at the processor, that each
// paying subscription was charged once for the night, and that
// reconciliation is clean.
func (n night) requireBilledOnce(t *testing.T) {
	t.Helper()
	ctx := context.Background()
	rows, err := n.db.QueryContext(ctx, `SELECT subscription_id, count(*) FROM charges WHERE status = 'succeeded' GROUP BY subscription_id`)
	require.NoError(t, err)
	perSub := map[int64]int{}
	for rows.Next() {
		var id int64
		var c int
		require.NoError(t, rows.Scan(&id, &c))
		perSub[id] = c
	}
	require.NoError(t, rows.Close())
	captured := map[string]int{}
	for _, c := range n.sim.Captured() {
		captured[c.CustomerRef]++
	}
	declining := map[string]bool{}
	for _, ref := range n.seed.Declining {
		declining[ref] = true
	}
	for _, s := range n.seed.Subscriptions {
		want := 1
		if declining[s.CustomerRef] {
			want = 0
		}
		assert.Equal(t, want, perSub[s.ID], "charge rows of subscription %d", s.ID)
		assert.Equal(t, want, captured[s.CustomerRef], "processor charges of %s", s.CustomerRef)
	}
	rep, err := billing.Reconcile(ctx, n.db, fallBack)
	require.NoError(t, err)
	assert.True(t, rep.OK(), "reconcile: %+v", rep)
}

func (n night) record(t *testing.T) dstsafe.Record {
	t.Helper()
	l, err := sqlledger.New(n.db.DB)
	require.NoError(t, err)
	rec, err := l.Get(context.Background(), billing.JobName, fallBack.String())
	require.NoError(t, err)
	return rec
}

// The postmortem's integration test: the job run twice for the same
// run_date, in the ways a second run happens in production.
func TestRunTwice(t *testing.T) {
	billingtest.ForEach(t, func(t *testing.T, b billingtest.Backend) {
		t.Run("sequentially", func(t *testing.T) {
			n := newNight(t, b, 40, 2)
			for range 2 {
				var out, errOut bytes.Buffer
				require.Equal(t, exitOK, realMain(context.Background(), n.args(), &out, &errOut), errOut.String())
			}
			n.requireBilledOnce(t)
			assert.Equal(t, 1, n.record(t).Attempt)
		})
		t.Run("two goroutines", func(t *testing.T) {
			n := newNight(t, b, 40, 2)
			var wg sync.WaitGroup
			codes := make([]int, 2)
			for i := range codes {
				wg.Go(func() {
					var out, errOut bytes.Buffer
					codes[i] = realMain(context.Background(), n.args(), &out, &errOut)
				})
			}
			wg.Wait()
			assert.Equal(t, []int{exitOK, exitOK}, codes)
			n.requireBilledOnce(t)
		})
		t.Run("two processes", func(t *testing.T) {
			n := newNight(t, b, 40, 2)
			// The first process holds the claim, stuck at the processor on
			// subscription 1, while the second one starts and asks for the
			// same run_date.
			arrived, release := n.sim.Hold(billing.IdempotencyKey(1, fallBack))
			defer release()
			a, outA := n.child(t, "")
			<-arrived
			c, outC := n.child(t, "")
			if b.Name == "sqlite" {
				// SQLite has one writer: the first process's transaction,
				// open across the processor call, holds it, so the second
				// one's claim waits for it. Let the first go on; the second
				// finds the run claimed (running or succeeded) either way.
				release()
			}
			require.NoError(t, c.Wait(), outC.String())
			assert.Contains(t, outC.String(), "run already claimed")
			release()
			require.NoError(t, a.Wait(), outA.String())
			n.requireBilledOnce(t)
			rec := n.record(t)
			assert.Equal(t, dstsafe.StateSucceeded, rec.State)
			assert.Equal(t, 1, rec.Attempt)
		})
	})
}

// TestCrash kills a billing process inside a subscription's transaction,
// then reruns the date: the rerun takes the abandoned claim over, finishes
// the period, and the processor charges nobody twice.
func TestCrash(t *testing.T) {
	for _, hook := range []string{
		"after-charge-row", // the charge row is inserted, the processor not called
		"after-processor",  // the processor charged, the database does not know
	} {
		t.Run(hook, func(t *testing.T) {
			billingtest.ForEach(t, func(t *testing.T, b billingtest.Backend) {
				n := newNight(t, b, 30, 1)
				const victim = 17
				cmd, out := n.child(t, fmt.Sprintf("%s:%d", hook, victim))
				err := cmd.Wait()
				var exit *exec.ExitError
				require.True(t, errors.As(err, &exit), "the child must die: %v\n%s", err, out)
				require.Equal(t, syscall.SIGKILL, exit.Sys().(syscall.WaitStatus).Signal())

				// The killed transaction left nothing: subscriptions before
				// the victim are billed, the victim and the rest are not.
				rep, err := billing.Reconcile(context.Background(), n.db, fallBack)
				require.NoError(t, err)
				assert.Contains(t, rep.Unbilled, int64(victim))
				rec := n.record(t)
				assert.Equal(t, dstsafe.StateRunning, rec.State)
				if hook == "after-processor" {
					captured := map[string]bool{}
					for _, c := range n.sim.Captured() {
						captured[c.CustomerRef] = true
					}
					assert.True(t, captured[n.seed.Subscriptions[victim-1].CustomerRef], "the processor charged the victim before the kill")
				}

				// An operator reruns the date after the dead claim's lease.
				o := n.options()
				o.Clock = clockwork.NewFakeClockAt(time.Now().Add(2 * dstsafe.DefaultLease))
				_, err = runDate(context.Background(), o)
				require.NoError(t, err)
				n.requireBilledOnce(t)
				rec = n.record(t)
				assert.Equal(t, dstsafe.StateSucceeded, rec.State)
				assert.Equal(t, 2, rec.Attempt)
			})
		})
	}
}

// TestRunUnseeded asks "billing run" to bill a database nobody seeded: a
// path or schema that does not exist, a database without the billing
// tables, and one whose tables are empty. The run refuses (exit 1) before
// it claims the date, so the date is not marked billed, and it creates
// nothing.
func TestRunUnseeded(t *testing.T) {
	ctx := context.Background()
	billingtest.ForEach(t, func(t *testing.T, b billingtest.Backend) {
		t.Run("no database", func(t *testing.T) {
			n := night{loc: b.New(t)}
			n.requireRefused(t)
			assert.False(t, exists(t, n.loc), "billing run created %+v", n.loc)
		})
		// The incident of the issue: every replica runs "billing run" at
		// once on a schema nobody created. Each refuses cleanly (exit 1,
		// not seeded, never a catalog's duplicate key), and none creates
		// anything.
		for _, procs := range []int{2, 8} {
			t.Run(fmt.Sprintf("no database, %d processes at once", procs), func(t *testing.T) {
				n := night{loc: b.New(t)}
				for i, out := range startTogether(t, procs, n.args()) {
					var exit *exec.ExitError
					require.True(t, errors.As(out.err, &exit), "process %d: %v\n%s", i, out.err, out.output)
					assert.Equal(t, exitFailed, exit.ExitCode(), "process %d:\n%s", i, out.output)
					assert.Contains(t, out.output, "database not seeded", "process %d", i)
				}
				assert.False(t, exists(t, n.loc), "billing run created %+v", n.loc)
			})
		}
		for _, tc := range []struct {
			name  string
			setup []string
		}{
			{"no tables", []string{`CREATE TABLE unrelated (id INTEGER)`}},
			{"empty tables", nil}, // migrated
		} {
			t.Run(tc.name, func(t *testing.T) {
				db, loc := b.Open(t)
				if loc.PostgresSchema != "" {
					_, err := db.ExecContext(ctx, `CREATE SCHEMA `+loc.PostgresSchema)
					require.NoError(t, err)
				}
				if tc.setup == nil {
					require.NoError(t, billing.Migrate(ctx, db))
				}
				for _, stmt := range tc.setup {
					_, err := db.ExecContext(ctx, stmt)
					require.NoError(t, err)
				}
				n := night{db: db, loc: loc}
				n.requireRefused(t)
				l, err := sqlledger.New(db.DB)
				require.NoError(t, err)
				require.NoError(t, l.Migrate(ctx))
				_, err = l.Get(ctx, billing.JobName, fallBack.String())
				assert.ErrorIs(t, err, dstsafe.ErrNotFound, "the date must not be claimed")
			})
		}
	})
}

// requireRefused runs "billing run" on the night's database, as a command
// and as runDate, and requires both to refuse it as not seeded.
func (n night) requireRefused(t *testing.T) {
	t.Helper()
	var out, errOut bytes.Buffer
	assert.Equal(t, exitFailed, realMain(context.Background(), n.args(), &out, &errOut))
	assert.Empty(t, out.String())
	_, err := runDate(context.Background(), n.options())
	require.ErrorIs(t, err, billing.ErrNotSeeded)
}

// exists reports whether the database at loc was created: the SQLite file,
// or the PostgreSQL schema.
func exists(t *testing.T, loc billingtest.Location) bool {
	t.Helper()
	if loc.SQLitePath != "" {
		_, err := os.Stat(loc.SQLitePath)
		if errors.Is(err, fs.ErrNotExist) {
			return false
		}
		require.NoError(t, err)
		return true
	}
	db, err := billing.OpenPostgres(context.Background(), loc.PostgresDSN, "")
	require.NoError(t, err)
	defer db.Close()
	var found bool
	require.NoError(t, db.QueryRow(`SELECT EXISTS (SELECT 1 FROM pg_namespace WHERE nspname = $1)`, loc.PostgresSchema).Scan(&found))
	return found
}

// TestConcurrentStartFreshDatabase starts billing processes at the same
// instant on a database nobody has created, as every replica does after a
// deploy: "billing run --seed" creates the tables, seeds them once, and
// bills the date once. Every process exits 0, in every round.
func TestConcurrentStartFreshDatabase(t *testing.T) {
	const subscriptions = 20
	rounds := 5
	if os.Getenv("DSTSAFE_LONG") != "" {
		rounds = 25
	}
	billingtest.ForEach(t, func(t *testing.T, b billingtest.Backend) {
		for _, procs := range []int{2, 8} {
			t.Run(fmt.Sprintf("%d processes", procs), func(t *testing.T) {
				for round := range rounds {
					n := night{loc: b.New(t), seed: runSeed(subscriptions, fallBack, chicago), sim: payments.NewSimulator()}
					srv := httptest.NewServer(payments.Handler(n.sim))
					n.url = srv.URL
					outs := startTogether(t, procs, append(n.args(), "--seed", fmt.Sprint(subscriptions)))
					srv.Close()
					billed := 0
					for i, out := range outs {
						require.NoError(t, out.err, "round %d, process %d:\n%s", round, i, out.output)
						if strings.Contains(out.output, fallBack.String()+" is billed") {
							billed++
						} else {
							assert.Contains(t, out.output, "run already claimed", "round %d, process %d", round, i)
						}
					}
					assert.Equal(t, 1, billed, "round %d: processes that billed the date", round)
					n.db = billingtest.Connect(t, n.loc)
					var count int
					require.NoError(t, n.db.QueryRow(`SELECT count(*) FROM subscriptions`).Scan(&count))
					assert.Equal(t, subscriptions, count, "round %d: subscriptions seeded", round)
					n.requireBilledOnce(t)
					rec := n.record(t)
					assert.Equal(t, dstsafe.StateSucceeded, rec.State)
					assert.Equal(t, 1, rec.Attempt)
				}
			})
		}
	})
}

// exited is a child billing process's end.
type exited struct {
	err    error // nil: exit 0
	output string
}

// startTogether runs procs billing processes with args, released at once:
// each child blocks reading a pipe (fd 3) that the test closes once all
// of them have started.
func startTogether(t *testing.T, procs int, args []string) []exited {
	t.Helper()
	r, w, err := os.Pipe()
	require.NoError(t, err)
	defer w.Close()
	cmds := make([]*exec.Cmd, procs)
	outs := make([]*bytes.Buffer, procs)
	for i := range cmds {
		cmd := exec.Command(os.Args[0], args...)
		cmd.Env = append(os.Environ(), "BILLING_TEST_CHILD=1", "BILLING_TEST_BARRIER=1", "DATABASE_URL=")
		cmd.ExtraFiles = []*os.File{r}
		outs[i] = &bytes.Buffer{}
		cmd.Stdout, cmd.Stderr = outs[i], outs[i]
		require.NoError(t, cmd.Start())
		cmds[i] = cmd
	}
	r.Close()
	w.Close() // go
	res := make([]exited, procs)
	for i, cmd := range cmds {
		res[i].err = cmd.Wait()
		res[i].output = outs[i].String()
	}
	return res
}

package sqlledger_test

// Reliability: several OS processes on one database, a holder killed with
// SIGKILL, PostgreSQL restarted under load. The children are this test
// binary re-executed with DSTSAFE_SQLLEDGER_CHILD set (see TestMain).

import (
	"bufio"
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"runtime"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/jonboulle/clockwork"

	"github.com/dstsafe/dstsafe"
	"github.com/dstsafe/dstsafe/dstsafetest"
	"github.com/dstsafe/dstsafe/sqlledger"
)

const (
	childEnv        = "DSTSAFE_SQLLEDGER_CHILD" // mode: "race" or "hold"
	childDialectEnv = "DSTSAFE_SQLLEDGER_CHILD_DIALECT"
	childTargetEnv  = "DSTSAFE_SQLLEDGER_CHILD_TARGET" // SQLite path or PostgreSQL DSN
	childTableEnv   = "DSTSAFE_SQLLEDGER_CHILD_TABLE"
	childArgEnv     = "DSTSAFE_SQLLEDGER_CHILD_ARG" // race: periods; hold: period
)

func TestMain(m *testing.M) {
	if mode := os.Getenv(childEnv); mode != "" {
		os.Exit(runChild(mode))
	}
	os.Exit(m.Run())
}

// target is one database the reliability tests run on.
type target struct {
	dialect string // "sqlite" or "postgres"
	dsn     string // file path or DSN
	table   string
}

// reliabilityTargets returns a fresh migrated SQLite file and, if
// configured, a fresh PostgreSQL table.
func reliabilityTargets(t *testing.T) map[string]func(t *testing.T) target {
	return map[string]func(t *testing.T) target{
		"sqlite": func(t *testing.T) target {
			_, path := openSQLite(t)
			return target{"sqlite", path, sqlledger.DefaultTable}
		},
		"postgres": func(t *testing.T) target {
			db := pgDB(t)
			l := pgLedger(t, db)
			// These tests check exclusion, not durability (the benchmarks
			// measure durable commits): without waiting for the WAL flush
			// of each of 10,000 winning commits, a race takes seconds, not
			// half a minute. Locking and visibility are unchanged.
			dsn := os.Getenv(pgEnv)
			if strings.Contains(dsn, "?") {
				dsn += "&synchronous_commit=off"
			} else {
				dsn += "?synchronous_commit=off"
			}
			return target{"postgres", dsn, l.Table()}
		},
	}
}

// open returns a ledger on tg using clock.
func (tg target) open(t testing.TB, clock dstsafe.Clock) (*sqlledger.Ledger, error) {
	if tg.dialect == "sqlite" {
		// NORMAL: the races check exclusion, not durability; FULL would
		// spend the test's seconds in fsync. A minute of busy_timeout:
		// SQLite's busy handler is not fair (a waiter polls, sleeping up
		// to 100 ms), and under the race detector on a loaded 2-core CI
		// machine one process can be starved past the default 10 s.
		return sqlledger.OpenSQLite(tg.dsn, sqlledger.WithClock(clock),
			sqlledger.WithSynchronous(sqlledger.SyncNormal), sqlledger.WithBusyTimeout(time.Minute))
	}
	db, err := sql.Open("pgx", tg.dsn)
	if err != nil {
		return nil, err
	}
	if t != nil {
		t.Cleanup(func() { db.Close() })
	}
	return sqlledger.New(db, sqlledger.WithTable(tg.table), sqlledger.WithClock(clock))
}

// child is a running child process with a line-based conversation.
type child struct {
	cmd   *exec.Cmd
	in    io.WriteCloser
	out   *bufio.Scanner
	waitC chan error
}

func startChild(t *testing.T, mode string, tg target, arg string) *child {
	t.Helper()
	cmd := exec.Command(os.Args[0], "-test.run=^$")
	cmd.Env = append(os.Environ(),
		childEnv+"="+mode, childDialectEnv+"="+tg.dialect, childTargetEnv+"="+tg.dsn,
		childTableEnv+"="+tg.table, childArgEnv+"="+arg)
	cmd.Stderr = os.Stderr
	in, err := cmd.StdinPipe()
	if err != nil {
		t.Fatal(err)
	}
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	c := &child{cmd: cmd, in: in, out: bufio.NewScanner(out), waitC: make(chan error, 1)}
	c.out.Buffer(nil, 64<<20)
	t.Cleanup(func() {
		c.in.Close()
		if cmd.ProcessState == nil {
			cmd.Process.Kill()
			cmd.Wait()
		}
	})
	return c
}

// line reads the child's next line of output.
func (c *child) line(t *testing.T) string {
	t.Helper()
	if !c.out.Scan() {
		t.Fatalf("child %d ended without output: %v", c.cmd.Process.Pid, c.out.Err())
	}
	return c.out.Text()
}

func (c *child) send(t *testing.T, s string) {
	t.Helper()
	if _, err := io.WriteString(c.in, s+"\n"); err != nil {
		t.Fatalf("to child %d: %v", c.cmd.Process.Pid, err)
	}
}

// raceReport is what a "race" child prints when done.
type raceReport struct {
	Won     map[string]string // period -> owner (goroutine) that won it
	Refused int
	Errors  []string
}

func runChild(mode string) int {
	tg := target{os.Getenv(childDialectEnv), os.Getenv(childTargetEnv), os.Getenv(childTableEnv)}
	l, err := tg.open(nil, dstsafe.RealClock())
	if err != nil {
		fmt.Fprintln(os.Stderr, "child:", err)
		return 2
	}
	defer l.Close()
	in := bufio.NewScanner(os.Stdin)
	ctx := context.Background()
	switch mode {
	case "race":
		n, _ := strconv.Atoi(os.Getenv(childArgEnv))
		// 16 goroutines share a pool: on 2 cores, 48 PostgreSQL backends
		// would spend their time switching; 4 per process keep the race
		// (the goroutines still claim concurrently, and the pool, not
		// the ledger, queues them).
		l.DB().SetMaxOpenConns(4)
		l.DB().SetMaxIdleConns(4)
		fmt.Println("ready")
		in.Scan() // go
		var (
			mu   sync.Mutex
			rep  = raceReport{Won: map[string]string{}}
			next atomic.Int64
			wg   sync.WaitGroup
		)
		// Every period is attempted twice in each process, by two
		// goroutines at nearly the same moment: with 3 processes, 6
		// claims race for each period.
		for g := range 16 {
			owner := fmt.Sprintf("pid%d/g%d", os.Getpid(), g)
			wg.Go(func() {
				for {
					i := next.Add(1) - 1
					if i >= int64(2*n) {
						return
					}
					period := fmt.Sprintf("2024-11-03/%05d", i/2)
					_, err := l.Claim(ctx, dstsafe.ClaimRequest{Job: "billing", Period: period, Owner: owner})
					mu.Lock()
					switch {
					case err == nil:
						rep.Won[period] = owner
					case errors.Is(err, dstsafe.ErrAlreadyClaimed):
						rep.Refused++
					default:
						rep.Errors = append(rep.Errors, err.Error())
					}
					mu.Unlock()
				}
			})
		}
		wg.Wait()
		if err := json.NewEncoder(os.Stdout).Encode(rep); err != nil {
			return 2
		}
		return 0
	case "hold":
		period := os.Getenv(childArgEnv)
		r, err := l.Claim(ctx, dstsafe.ClaimRequest{Job: "settlement", Period: period, Owner: fmt.Sprintf("pid%d", os.Getpid()), Lease: time.Minute})
		if err != nil {
			fmt.Println("error", err)
			return 1
		}
		fmt.Println("claimed", r.Token)
		// Then wait, as a job that hangs; the parent kills us, or tells us
		// to report late (as a zombie woken from a pause would).
		for in.Scan() {
			var err error
			switch in.Text() {
			case "heartbeat":
				_, err = l.Heartbeat(ctx, "settlement", period, r.Token, time.Minute)
			case "finish":
				_, err = l.Finish(ctx, "settlement", period, r.Token, dstsafe.StateSucceeded, "")
			}
			switch {
			case err == nil:
				fmt.Println("ok")
			case errors.Is(err, dstsafe.ErrLeaseLost):
				fmt.Println("lease_lost")
			default:
				fmt.Println("error", err)
			}
		}
		return 0
	}
	fmt.Fprintln(os.Stderr, "child: unknown mode", mode)
	return 2
}

// 3 OS processes x 16 goroutines claim the same periods on one database:
// exactly one winner per period, no period lost, and no error other than
// ErrAlreadyClaimed.
func TestRaceProcesses(t *testing.T) {
	n := 10_000
	switch {
	case os.Getenv("DSTSAFE_LONG") != "":
		n = 50_000
	case raceDetector:
		n = 1_000 // scripts/test runs the 10,000 without -race
	}
	for name, newTarget := range reliabilityTargets(t) {
		t.Run(name, func(t *testing.T) {
			tg := newTarget(t)
			var children []*child
			for range 3 {
				children = append(children, startChild(t, "race", tg, strconv.Itoa(n)))
			}
			for _, c := range children {
				if got := c.line(t); got != "ready" {
					t.Fatalf("child said %q, want ready", got)
				}
			}
			start := time.Now()
			for _, c := range children {
				c.send(t, "go")
			}
			winners := map[string]string{}
			refused := 0
			for _, c := range children {
				var rep raceReport
				if err := json.Unmarshal([]byte(c.line(t)), &rep); err != nil {
					t.Fatal(err)
				}
				if err := c.cmd.Wait(); err != nil {
					t.Fatalf("child %d: %v", c.cmd.Process.Pid, err)
				}
				if len(rep.Errors) > 0 {
					t.Fatalf("child %d: %d errors other than ErrAlreadyClaimed, first: %s", c.cmd.Process.Pid, len(rep.Errors), rep.Errors[0])
				}
				for p, owner := range rep.Won {
					if prev, ok := winners[p]; ok {
						t.Fatalf("period %s won twice: by %s and by %s", p, prev, owner)
					}
					winners[p] = owner
				}
				refused += rep.Refused
			}
			t.Logf("%s: %d periods, %d claims in %v", name, n, 6*n, time.Since(start).Round(time.Millisecond))
			if len(winners) != n {
				t.Fatalf("%d periods won, want %d", len(winners), n)
			}
			if refused != 5*n {
				t.Fatalf("%d claims refused, want %d", refused, 5*n)
			}
			// The database agrees with what the winners were told.
			l, err := tg.open(t, dstsafe.RealClock())
			if err != nil {
				t.Fatal(err)
			}
			defer l.Close()
			recs, err := l.List(context.Background(), "billing", "", "")
			if err != nil {
				t.Fatal(err)
			}
			if len(recs) != n {
				t.Fatalf("%d records, want %d", len(recs), n)
			}
			for _, r := range recs {
				if winners[r.Period] != r.Owner || r.Token != 1 || r.Attempt != 1 {
					t.Fatalf("record %+v, but %q was told it won", r, winners[r.Period])
				}
			}
		})
	}
}

// A holder process dies (SIGKILL) mid-run. Its claim stays running until
// the lease ends, then reads as abandoned; without a retry policy nobody
// reruns it; with one, a takeover fences the dead holder's token. A second
// holder that is merely stalled (a zombie) wakes after the takeover and
// finds its heartbeat and result refused.
func TestCrashedHolder(t *testing.T) {
	for name, newTarget := range reliabilityTargets(t) {
		t.Run(name, func(t *testing.T) {
			ctx := context.Background()
			tg := newTarget(t)

			dead := startChild(t, "hold", tg, "2024-11-03")
			tokenOf := func(c *child) int64 {
				f := strings.Fields(c.line(t))
				if len(f) != 2 || f[0] != "claimed" {
					t.Fatalf("holder said %q", f)
				}
				tok, _ := strconv.ParseInt(f[1], 10, 64)
				return tok
			}
			deadToken := tokenOf(dead)
			if err := dead.cmd.Process.Signal(syscall.SIGKILL); err != nil {
				t.Fatal(err)
			}
			if err := dead.cmd.Wait(); err == nil {
				t.Fatal("killed holder exited cleanly")
			}

			// The survivor measures the lease on its own clock, started at
			// the real time the holder claimed.
			clock := clockwork.NewFakeClockAt(time.Now())
			l, err := tg.open(t, clock)
			if err != nil {
				t.Fatal(err)
			}
			defer l.Close()
			rec, err := l.Get(ctx, "settlement", "2024-11-03")
			if err != nil || rec.State != dstsafe.StateRunning || rec.Token != deadToken {
				t.Fatalf("right after the crash: %+v, %v; want running with the dead holder's token", rec, err)
			}
			plain := dstsafe.ClaimRequest{Job: "settlement", Period: "2024-11-03", Owner: "survivor", Lease: time.Minute}
			if _, err := l.Claim(ctx, plain); !errors.Is(err, dstsafe.ErrAlreadyClaimed) {
				t.Fatalf("claim within the dead holder's lease = %v, want ErrAlreadyClaimed", err)
			}

			clock.Advance(time.Minute + time.Second)
			_, err = l.Claim(ctx, plain)
			var ce *dstsafe.ClaimedError
			if !errors.As(err, &ce) || ce.Existing.State != dstsafe.StateAbandoned {
				t.Fatalf("claim after the lease without a policy = %v, want ErrAlreadyClaimed (abandoned): never rerun silently", err)
			}
			retry := plain
			retry.Retry = dstsafe.RetryPolicy{MaxAttempts: 2, Abandoned: true}
			taken, err := l.Claim(ctx, retry)
			if err != nil || taken.Token <= deadToken || taken.Attempt != 2 {
				t.Fatalf("takeover = %+v, %v; want attempt 2 with a token above %d", taken, err, deadToken)
			}
			if _, err := l.Finish(ctx, "settlement", "2024-11-03", deadToken, dstsafe.StateSucceeded, ""); !errors.Is(err, dstsafe.ErrLeaseLost) {
				t.Fatalf("Finish with the dead token = %v, want ErrLeaseLost", err)
			}

			// The zombie: alive, but stalled past its lease.
			zombie := startChild(t, "hold", tg, "2024-11-04")
			zombieToken := tokenOf(zombie)
			clock.Advance(3 * time.Minute) // past the zombie's lease, by real time it claimed
			retry.Period = "2024-11-04"
			taken, err = l.Claim(ctx, retry)
			if err != nil || taken.Token <= zombieToken {
				t.Fatalf("takeover from the zombie = %+v, %v", taken, err)
			}
			for _, cmd := range []string{"heartbeat", "finish"} {
				zombie.send(t, cmd)
				if got := zombie.line(t); got != "lease_lost" {
					t.Fatalf("zombie %s: %q, want lease_lost", cmd, got)
				}
			}
			rec, err = l.Get(ctx, "settlement", "2024-11-04")
			if err != nil || rec.State != dstsafe.StateRunning || rec.Owner != "survivor" || rec.Token != taken.Token {
				t.Fatalf("after the zombie woke: %+v, %v; want the survivor's running claim", rec, err)
			}
		})
	}
}

// PostgreSQL stops and starts while workers claim and a holder heartbeats:
// the holder's heartbeat error reaches the job as a cancelled context,
// claims fail with errors (never a false ErrAlreadyClaimed win or a double
// win), and after the restart the ledger works again.
func TestPostgresRestart(t *testing.T) {
	ctl := dstsafetest.RequireEnv(t, "DSTSAFE_TEST_POSTGRES_CTL")
	db := pgDB(t)
	db.SetMaxIdleConns(16)
	clock := clockwork.NewFakeClockAt(time.Now())
	l := pgLedger(t, db, sqlledger.WithClock(clock))
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

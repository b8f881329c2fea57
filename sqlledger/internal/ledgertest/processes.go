package ledgertest

// Several OS processes on one database: racing claims, a holder killed
// with SIGKILL, every replica starting at once on a database nobody has
// created. The children are the test binary re-executed with childEnv set
// (see Main): each reads commands on stdin and answers on stdout, one line
// each.

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/jonboulle/clockwork"

	"github.com/dstsafe/dstsafe"
	"github.com/dstsafe/dstsafe/sqlledger"
)

const childEnv = "DSTSAFE_SQLLEDGER_CHILD" // "1" in a child process

// Main is the TestMain of a module that runs the shared tests: in a child
// process started by them it serves commands on stdin with b and exits;
// otherwise it runs the tests.
func Main(m *testing.M, b Backend) {
	if os.Getenv(childEnv) != "" {
		os.Exit(serve(b))
	}
	os.Exit(m.Run())
}

// request is one command to a child, on one line of JSON.
type request struct {
	Op     string // "race", "hold", "heartbeat", "finish", "start"
	Target Target
	// race: claim every period of Periods: each by Claimers goroutines,
	// every one of which claims every period in order (hot), or, with
	// Claimers 0, each twice, by two of 16 goroutines.
	// hold, start: Period.
	Periods  []string
	Claimers int
	Period   string
}

// reply is a child's answer to a request.
type reply struct {
	Won     map[string]string `json:",omitempty"` // race: period -> owner that won it
	Refused int               `json:",omitempty"` // race: claims refused with ErrAlreadyClaimed
	Errors  []string          `json:",omitempty"` // anything else
	Token   int64             `json:",omitempty"` // hold: the claim's token
	Result  string            `json:",omitempty"` // heartbeat, finish, start: "ok", "lease_lost", "claimed"
}

func serve(b Backend) int {
	in := bufio.NewScanner(os.Stdin)
	in.Buffer(nil, 64<<20)
	out := json.NewEncoder(os.Stdout)
	ctx := context.Background()
	var held struct {
		l      *sqlledger.Ledger
		period string
		token  int64
	}
	fmt.Println(`{}`) // ready
	for in.Scan() {
		var req request
		if err := json.Unmarshal(in.Bytes(), &req); err != nil {
			fmt.Fprintln(os.Stderr, "child:", err)
			return 2
		}
		var rep reply
		switch req.Op {
		case "race":
			rep = race(ctx, b, req)
		case "start":
			rep = start(ctx, b, req)
		case "hold":
			l, err := b.Open(req.Target)
			if err == nil {
				var r dstsafe.Record
				r, err = l.Claim(ctx, dstsafe.ClaimRequest{Job: "settlement", Period: req.Period, Owner: fmt.Sprintf("pid%d", os.Getpid()), Lease: time.Minute})
				held.l, held.period, held.token, rep.Token = l, req.Period, r.Token, r.Token
			}
			if err != nil {
				rep.Errors = []string{err.Error()}
			}
		case "heartbeat", "finish":
			// A job that hung, then reports late, as a zombie woken from a
			// pause would.
			var err error
			if req.Op == "heartbeat" {
				_, err = held.l.Heartbeat(ctx, "settlement", held.period, held.token, time.Minute)
			} else {
				_, err = held.l.Finish(ctx, "settlement", held.period, held.token, dstsafe.StateSucceeded, "")
			}
			switch {
			case err == nil:
				rep.Result = "ok"
			case errors.Is(err, dstsafe.ErrLeaseLost):
				rep.Result = "lease_lost"
			default:
				rep.Errors = []string{err.Error()}
			}
		default:
			fmt.Fprintln(os.Stderr, "child: unknown op", req.Op)
			return 2
		}
		if err := out.Encode(rep); err != nil {
			return 2
		}
	}
	return 0
}

// race claims req.Periods through one Ledger of this process.
func race(ctx context.Context, b Backend, req request) reply {
	l, err := b.Open(req.Target)
	if err != nil {
		return reply{Errors: []string{err.Error()}}
	}
	defer l.Close()
	// 16 goroutines share a pool: on 2 cores, 48 PostgreSQL backends
	// would spend their time switching; 4 per process keep the race (the
	// goroutines still claim concurrently, and the pool, not the ledger,
	// queues them).
	l.DB().SetMaxOpenConns(4)
	l.DB().SetMaxIdleConns(4)
	var (
		mu   sync.Mutex
		rep  = reply{Won: map[string]string{}}
		next atomic.Int64
		wg   sync.WaitGroup
	)
	claim := func(period, owner string) {
		_, err := l.Claim(ctx, dstsafe.ClaimRequest{Job: "billing", Period: period, Owner: owner})
		mu.Lock()
		defer mu.Unlock()
		switch {
		case err == nil:
			if prev, ok := rep.Won[period]; ok {
				rep.Errors = append(rep.Errors, fmt.Sprintf("%s won by %s and %s in one process", period, prev, owner))
			}
			rep.Won[period] = owner
		case errors.Is(err, dstsafe.ErrAlreadyClaimed):
			rep.Refused++
		default:
			rep.Errors = append(rep.Errors, err.Error())
		}
	}
	if req.Claimers > 0 {
		// Hot: every goroutine claims every period, all in the same
		// order from the first.
		for g := range req.Claimers {
			owner := fmt.Sprintf("pid%d/g%d", os.Getpid(), g)
			wg.Go(func() {
				for _, p := range req.Periods {
					claim(p, owner)
				}
			})
		}
		wg.Wait()
		return rep
	}
	// Every period twice in this process, by two of 16 goroutines at
	// nearly the same moment.
	for g := range 16 {
		owner := fmt.Sprintf("pid%d/g%d", os.Getpid(), g)
		wg.Go(func() {
			for {
				i := next.Add(1) - 1
				if i >= int64(2*len(req.Periods)) {
					return
				}
				claim(req.Periods[i/2], owner)
			}
		})
	}
	wg.Wait()
	return rep
}

// start is one replica's start-up on req.Target: open, migrate, claim
// req.Period, close.
func start(ctx context.Context, b Backend, req request) reply {
	l, err := b.Open(req.Target)
	if err != nil {
		return reply{Errors: []string{"open: " + err.Error()}}
	}
	defer l.Close()
	if err := l.Migrate(ctx); err != nil {
		return reply{Errors: []string{"migrate: " + err.Error()}}
	}
	_, err = l.Claim(ctx, dstsafe.ClaimRequest{Job: "deploy", Period: req.Period, Owner: fmt.Sprintf("pid%d", os.Getpid())})
	switch {
	case err == nil:
		return reply{Result: "ok"}
	case errors.Is(err, dstsafe.ErrAlreadyClaimed):
		return reply{Result: "claimed"}
	}
	return reply{Errors: []string{"claim: " + err.Error()}}
}

// child is a running child process.
type child struct {
	cmd *exec.Cmd
	in  io.WriteCloser
	out *bufio.Scanner
}

// startChildren starts n children and waits until each is ready.
func startChildren(t *testing.T, n int) []*child {
	t.Helper()
	var cs []*child
	for range n {
		cmd := exec.Command(os.Args[0], "-test.run=^$")
		cmd.Env = append(os.Environ(), childEnv+"=1")
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
		c := &child{cmd: cmd, in: in, out: bufio.NewScanner(out)}
		c.out.Buffer(nil, 64<<20)
		t.Cleanup(func() {
			c.in.Close()
			if cmd.ProcessState == nil {
				cmd.Process.Kill()
				cmd.Wait()
			}
		})
		cs = append(cs, c)
	}
	for _, c := range cs {
		c.recv(t) // ready
	}
	return cs
}

func (c *child) send(t *testing.T, req request) {
	t.Helper()
	b, err := json.Marshal(req)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := c.in.Write(append(b, '\n')); err != nil {
		t.Fatalf("to child %d: %v", c.cmd.Process.Pid, err)
	}
}

func (c *child) recv(t *testing.T) reply {
	t.Helper()
	if !c.out.Scan() {
		t.Fatalf("child %d ended without answering: %v", c.cmd.Process.Pid, c.out.Err())
	}
	var rep reply
	if err := json.Unmarshal(c.out.Bytes(), &rep); err != nil {
		t.Fatalf("child %d said %q: %v", c.cmd.Process.Pid, c.out.Text(), err)
	}
	return rep
}

// 3 OS processes x 16 goroutines claim the same periods on one database:
// exactly one winner per period, no period lost, and no error other than
// ErrAlreadyClaimed. "spread": 10,000 periods, each claimed by 2
// goroutines of each process (6 contenders a period); "hot": all 48
// goroutines claim every one of 100 periods, all in the same order from
// the first, as every replica's claimers do at a due instant.
func testRaceProcesses(t *testing.T, b Backend) {
	n := 10_000
	switch {
	case os.Getenv("DSTSAFE_LONG") != "":
		n = 50_000
	case raceDetector:
		n = 1_000 // scripts/test runs the 10,000 without -race
	}
	t.Run("spread", func(t *testing.T) { raceProcesses(t, b, n, 0) })
	t.Run("hot", func(t *testing.T) { raceProcesses(t, b, 100, 16) })
}

// raceProcesses races 3 child processes for n periods, claimers
// goroutines of each claiming every period (0: see request.Claimers).
func raceProcesses(t *testing.T, b Backend, n, claimers int) {
	tg := b.Fresh(t)
	tg.Relaxed = true
	migrated := b.open(t, tg)
	if err := migrated.Migrate(context.Background()); err != nil {
		t.Fatal(err)
	}
	periods := make([]string, n)
	for i := range periods {
		periods[i] = fmt.Sprintf("2024-11-03/%05d", i)
	}
	const procs = 3
	perPeriod := procs * 2
	if claimers > 0 {
		perPeriod = procs * claimers
	}
	children := startChildren(t, procs)
	start := wallClock.Now()
	for _, c := range children {
		c.send(t, request{Op: "race", Target: tg, Periods: periods, Claimers: claimers})
	}
	winners := map[string]string{}
	refused := 0
	for _, c := range children {
		rep := c.recv(t)
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
	t.Logf("%s: %d periods, %d claims in %v", b.Name, n, perPeriod*n, wallClock.Since(start).Round(time.Millisecond))
	if len(winners) != n {
		t.Fatalf("%d periods won, want %d", len(winners), n)
	}
	if refused != (perPeriod-1)*n {
		t.Fatalf("%d claims refused, want %d", refused, (perPeriod-1)*n)
	}
	// The database agrees with what the winners were told.
	recs, err := migrated.List(context.Background(), "billing", "", "")
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
}

// A holder process dies (SIGKILL) mid-run. Its claim stays running until
// the lease ends, then reads as abandoned; without a retry policy nobody
// reruns it; with one, a takeover fences the dead holder's token. A second
// holder that is merely stalled (a zombie) wakes after the takeover and
// finds its heartbeat and result refused.
func testCrashedHolder(t *testing.T, b Backend) {
	ctx := context.Background()
	tg := b.Fresh(t)
	tg.Relaxed = true
	first := b.open(t, tg)
	if err := first.Migrate(ctx); err != nil {
		t.Fatal(err)
	}
	hold := func(c *child, period string) int64 {
		c.send(t, request{Op: "hold", Target: tg, Period: period})
		rep := c.recv(t)
		if len(rep.Errors) > 0 || rep.Token == 0 {
			t.Fatalf("holder of %s: %+v", period, rep)
		}
		return rep.Token
	}
	cs := startChildren(t, 2)
	dead, zombie := cs[0], cs[1]
	deadToken := hold(dead, "2024-11-03")
	if err := dead.cmd.Process.Signal(syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	if err := dead.cmd.Wait(); err == nil {
		t.Fatal("killed holder exited cleanly")
	}

	// The survivor measures the lease on its own clock, started at the
	// real time the holder claimed.
	clock := clockwork.NewFakeClockAt(wallClock.Now())
	l := b.open(t, tg, sqlledger.WithClock(clock))
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
	zombieToken := hold(zombie, "2024-11-04")
	clock.Advance(3 * time.Minute) // past the zombie's lease, by real time it claimed
	retry.Period = "2024-11-04"
	taken, err = l.Claim(ctx, retry)
	if err != nil || taken.Token <= zombieToken {
		t.Fatalf("takeover from the zombie = %+v, %v", taken, err)
	}
	for _, op := range []string{"heartbeat", "finish"} {
		zombie.send(t, request{Op: op})
		if rep := zombie.recv(t); rep.Result != "lease_lost" {
			t.Fatalf("zombie %s: %+v, want lease_lost", op, rep)
		}
	}
	rec, err = l.Get(ctx, "settlement", "2024-11-04")
	if err != nil || rec.State != dstsafe.StateRunning || rec.Owner != "survivor" || rec.Token != taken.Token {
		t.Fatalf("after the zombie woke: %+v, %v; want the survivor's running claim", rec, err)
	}
}

// Every replica of a service starts at the same moment after a deploy,
// on a database nobody has created yet (a new SQLite file, a new
// PostgreSQL schema): each opens the ledger, migrates it and claims the
// same period. Every process succeeds, in every round, and exactly one
// wins the period. The processes are started once and given a fresh
// target each round, all at once: 100 rounds (25 under the race
// detector, which scripts/test runs besides the 100 without it; 500 with
// DSTSAFE_LONG=1).
func testFreshStart(t *testing.T, b Backend) {
	rounds := 100
	switch {
	case os.Getenv("DSTSAFE_LONG") != "":
		rounds = 500
	case raceDetector:
		rounds = 25
	}
	for _, procs := range []int{2, 8} {
		t.Run(fmt.Sprintf("processes=%d", procs), func(t *testing.T) {
			children := startChildren(t, procs)
			began := wallClock.Now()
			for round := range rounds {
				tg := b.Fresh(t)
				req := request{Op: "start", Target: tg, Period: fmt.Sprintf("round-%03d", round)}
				for _, c := range children {
					c.send(t, req)
				}
				won := 0
				for i, c := range children {
					rep := c.recv(t)
					if len(rep.Errors) > 0 {
						t.Fatalf("round %d, process %d of %d: %s", round, i, procs, strings.Join(rep.Errors, "; "))
					}
					if rep.Result == "ok" {
						won++
					}
				}
				if won != 1 {
					t.Fatalf("round %d: %d processes won the period, want 1", round, won)
				}
			}
			t.Logf("%s: %d processes x %d rounds, 0 failures, in %v", b.Name, procs, rounds, wallClock.Since(began).Round(time.Millisecond))
		})
	}
}

package redisledger_test

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/jonboulle/clockwork"
	"github.com/redis/go-redis/v9"

	"github.com/dstsafe/dstsafe"
	"github.com/dstsafe/dstsafe/internal/testkit"
	"github.com/dstsafe/dstsafe/redisledger"
)

// Every replica of a scheduler asks for the same periods at the same
// moment: 3 OS processes x 16 goroutines claim the same periods. Exactly
// one claim wins each period, no period is lost, and every other claim
// fails with ErrAlreadyClaimed and nothing else.
//
// "spread": 10,000 periods, 2 goroutines of each process claim each
// (60,000 claims, 6 contenders a period, all 48 goroutines busy
// throughout); DSTSAFE_LONG=1 makes all 16 claim every period (480,000
// claims, about a minute on a 2-core machine). "hot": all 48 goroutines
// race for every one of 200 periods, all starting at the first, in the
// same order (9,600 claims, 48 at once on each period).
func TestRaceProcesses(t *testing.T) {
	const workers = 16
	contenders := 2
	if os.Getenv("DSTSAFE_LONG") == "1" {
		contenders = workers
	}
	t.Run("spread", func(t *testing.T) { raceProcesses(t, 10_000, workers, contenders, false) })
	t.Run("hot", func(t *testing.T) { raceProcesses(t, 200, workers, workers, true) })
}

// raceProcesses runs 3 child processes of workers goroutines each on the
// same periods, contenders goroutines of each process claiming each.
func raceProcesses(t *testing.T, periods, workers, contenders int, hot bool) {
	const procs = 3
	c := testClient(t)
	prefix := testPrefix(t, c)
	addr := os.Getenv(redisAddrEnv)

	children := make([]*child, procs)
	for i := range children {
		children[i] = startChild(t, childConfig{
			Mode: "race", Addr: addr, Prefix: prefix, Owner: fmt.Sprint("proc", i),
			Clock: testkit.SuiteStart, Job: "billing", Periods: periods, Workers: workers, Contenders: contenders, Hot: hot,
		})
	}
	for _, ch := range children {
		if got := ch.line(t); got != "ready" {
			t.Fatalf("child said %q, want ready", got)
		}
	}
	for _, ch := range children { // all start together
		ch.send(t, "go")
	}
	winners := map[string]string{}
	refused := 0
	for i, ch := range children {
		var res raceResult
		noErr(t, json.Unmarshal([]byte(ch.line(t)), &res), "child %d result", i)
		ch.wait(t)
		if res.Other > 0 {
			t.Errorf("child %d: %d errors other than ErrAlreadyClaimed, first: %s", i, res.Other, res.FirstErr)
		}
		refused += res.Refused
		for p, owner := range res.Won {
			if prev, dup := winners[p]; dup {
				t.Errorf("period %s claimed twice: by %s and by %s", p, prev, owner)
			}
			winners[p] = owner
		}
	}
	if len(winners) != periods {
		t.Errorf("%d periods won, want %d", len(winners), periods)
	}
	if want := procs*contenders*periods - periods; refused != want {
		t.Errorf("%d claims refused with ErrAlreadyClaimed, want %d", refused, want)
	}

	l := mustNew(c, redisledger.WithKeyPrefix(prefix), redisledger.WithClock(clockwork.NewFakeClockAt(testkit.SuiteStart)))
	recs, err := l.List(context.Background(), "billing", "", "")
	noErr(t, err, "List")
	if len(recs) != periods {
		t.Errorf("List: %d records, want %d", len(recs), periods)
	}
	for _, r := range recs {
		if r.Owner != winners[r.Period] || r.Token != 1 || r.Attempt != 1 || r.State != dstsafe.StateRunning {
			t.Errorf("record %+v, want running, token 1, owner %q (the winner)", r, winners[r.Period])
		}
	}
}

// A holder process dies by SIGKILL in the middle of a run. Its claim stays
// running until the lease is over (by the parent's fake clock), then reads
// abandoned; nobody reruns it unless the job's policy takes abandoned
// periods over, and a takeover fences the dead holder's token. A holder
// that was only paused (a zombie) and comes back is refused its finish,
// although by its own clock its lease has not ended: the token fences, not
// the clock.
func TestCrashedHolder(t *testing.T) {
	const lease = 5 * time.Minute
	c := testClient(t)
	ctx := context.Background()

	for _, killed := range []bool{true, false} {
		name := map[bool]string{true: "killed", false: "zombie"}[killed]
		t.Run(name, func(t *testing.T) {
			prefix := testPrefix(t, c)
			clock := clockwork.NewFakeClockAt(testkit.SuiteStart)
			l := mustNew(c, redisledger.WithKeyPrefix(prefix), redisledger.WithClock(clock))
			holder := startChild(t, childConfig{
				Mode: "hold", Addr: os.Getenv(redisAddrEnv), Prefix: prefix, Owner: "holder",
				Clock: testkit.SuiteStart, Job: "billing", Periods: 2, Lease: lease,
			})
			var period string
			var token int64
			if _, err := fmt.Sscanf(holder.line(t), "holding %s %d", &period, &token); err != nil {
				t.Fatalf("holder: %v", err)
			}
			if killed {
				noErr(t, holder.cmd.Process.Signal(syscall.SIGKILL), "SIGKILL")
				if err := holder.cmd.Wait(); err == nil {
					t.Fatal("holder exited cleanly after SIGKILL")
				}
			}

			// The periods it finished stay done for any policy.
			all := dstsafe.RetryPolicy{MaxAttempts: 100, Failed: true, Abandoned: true}
			for _, p := range []string{"2024-11-01", "2024-11-02"} {
				_, err := l.Claim(ctx, dstsafe.ClaimRequest{Job: "billing", Period: p, Owner: "rescuer", Retry: all})
				var claimed *dstsafe.ClaimedError
				if !errors.As(err, &claimed) || claimed.Existing.State != dstsafe.StateSucceeded {
					t.Errorf("claim of finished %s: %v, want refused (succeeded)", p, err)
				}
			}
			// Within the lease the held period is running: nobody gets it.
			_, err := l.Claim(ctx, dstsafe.ClaimRequest{Job: "billing", Period: period, Owner: "rescuer", Retry: all})
			if claimed := new(dstsafe.ClaimedError); !errors.As(err, &claimed) || claimed.Existing.State != dstsafe.StateRunning || claimed.Existing.Owner != "holder" {
				t.Fatalf("claim within the lease: %v, want refused (running, holder)", err)
			}

			clock.Advance(lease + time.Microsecond)
			r, err := l.Get(ctx, "billing", period)
			noErr(t, err, "Get")
			if r.State != dstsafe.StateAbandoned || r.Owner != "holder" || r.Token != token {
				t.Fatalf("after the lease: %+v, want abandoned by holder", r)
			}

			// No silent rerun: only a policy that takes over abandoned
			// periods, with attempts left, gets it.
			for _, tc := range []struct {
				name  string
				retry dstsafe.RetryPolicy
			}{
				{"zero policy (money-moving default)", dstsafe.RetryPolicy{}},
				{"failed only", dstsafe.RetryPolicy{MaxAttempts: 3, Failed: true}},
				{"abandoned, one attempt in all", dstsafe.RetryPolicy{MaxAttempts: 1, Abandoned: true}},
			} {
				_, err := l.Claim(ctx, dstsafe.ClaimRequest{Job: "billing", Period: period, Owner: "rescuer", Retry: tc.retry})
				var claimed *dstsafe.ClaimedError
				if !errors.As(err, &claimed) || claimed.Existing.State != dstsafe.StateAbandoned {
					t.Errorf("%s: %v, want refused (abandoned)", tc.name, err)
				}
			}
			taken, err := l.Claim(ctx, dstsafe.ClaimRequest{Job: "billing", Period: period, Owner: "rescuer",
				Retry: dstsafe.RetryPolicy{MaxAttempts: 2, Abandoned: true}})
			noErr(t, err, "takeover")
			if taken.Token <= token || taken.Attempt != 2 || taken.Owner != "rescuer" {
				t.Fatalf("takeover %+v, want attempt 2 with a token above %d", taken, token)
			}

			// The old token is fenced, whether a zombie process or someone
			// on its behalf presents it.
			if killed {
				_, err = l.Heartbeat(ctx, "billing", period, token, lease)
				isErr(t, err, dstsafe.ErrLeaseLost, "heartbeat with the dead token")
				_, err = l.Finish(ctx, "billing", period, token, dstsafe.StateSucceeded, "")
				isErr(t, err, dstsafe.ErrLeaseLost, "finish with the dead token")
			} else {
				holder.send(t, "finish")
				if got := holder.line(t); got != "finish: lease lost" {
					t.Errorf("zombie holder: %q, want its finish refused", got)
				}
				holder.wait(t)
			}
			r, err = l.Get(ctx, "billing", period)
			noErr(t, err, "Get")
			if r.State != dstsafe.StateRunning || r.Token != taken.Token || r.Owner != "rescuer" {
				t.Errorf("after the old holder's attempts: %+v, want the rescuer's running claim", r)
			}
			_, err = l.Finish(ctx, "billing", period, taken.Token, dstsafe.StateSucceeded, "")
			noErr(t, err, "rescuer's finish")
		})
	}
}

// redisServer is a redis-server process of the test's own, so that it can
// be stopped and restarted. It keeps an append-only file fsynced on every
// write, as a ledger's Redis should: a restart loses nothing.
type redisServer struct {
	t    *testing.T
	dir  string
	port int
	cmd  *exec.Cmd
}

func startRedisServer(t *testing.T) *redisServer {
	t.Helper()
	bin, err := exec.LookPath("redis-server")
	if err != nil {
		// scripts/test installs it with the server it starts; without it
		// this test cannot run, and under CI that is a failure.
		if os.Getenv("CI") == "true" {
			t.Fatalf("redis-server not found (CI=true): %v", err)
		}
		t.Skipf("redis-server not found: %v", err)
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	noErr(t, err, "finding a free port")
	port := ln.Addr().(*net.TCPAddr).Port
	noErr(t, ln.Close(), "closing port probe")
	s := &redisServer{t: t, dir: t.TempDir(), port: port}
	s.start(bin)
	t.Cleanup(func() {
		if s.cmd != nil {
			s.stop()
		}
	})
	return s
}

func (s *redisServer) addr() string { return net.JoinHostPort("127.0.0.1", strconv.Itoa(s.port)) }

// start runs redis-server and returns when it accepts connections.
func (s *redisServer) start(bin string) {
	s.t.Helper()
	cmd := exec.Command(bin, "--port", strconv.Itoa(s.port), "--bind", "127.0.0.1", "--dir", s.dir,
		"--save", "", "--appendonly", "yes", "--appendfsync", "always", "--daemonize", "no", "--logfile", "")
	out, err := cmd.StdoutPipe()
	noErr(s.t, err, "stdout pipe")
	noErr(s.t, cmd.Start(), "starting redis-server")
	log := &strings.Builder{}
	sc := bufio.NewScanner(out)
	for sc.Scan() {
		fmt.Fprintln(log, sc.Text())
		if strings.Contains(sc.Text(), "Ready to accept connections") {
			s.cmd = cmd
			go func() { // keep draining, or the server blocks on a full pipe
				for sc.Scan() {
				}
			}()
			return
		}
	}
	_ = cmd.Wait()
	s.t.Fatalf("redis-server did not start:\n%s", log)
}

// stop shuts the server down (SIGTERM: it fsyncs and exits) and waits.
func (s *redisServer) stop() {
	s.t.Helper()
	noErr(s.t, s.cmd.Process.Signal(syscall.SIGTERM), "SIGTERM redis-server")
	_ = s.cmd.Wait()
	s.cmd = nil
}

// Redis goes away in the middle of a run and comes back: the holder's
// heartbeat and the workers' claims fail with errors (not with a sentinel
// that would pass for "already claimed" or "lease lost"), no period is
// claimed twice, and after the restart the ledger works again, with every
// claim made before the outage still there.
func TestServerRestart(t *testing.T) {
	testkit.RequireEnv(t, redisAddrEnv)
	srv := startRedisServer(t)
	bin := srv.cmd.Path
	c := redis.NewClient(&redis.Options{Addr: srv.addr(), PoolSize: 8})
	t.Cleanup(func() { _ = c.Close() })
	clock := clockwork.NewFakeClockAt(testkit.SuiteStart)
	l := mustNew(c, redisledger.WithClock(clock))
	ctx := context.Background()

	hold, err := l.Claim(ctx, dstsafe.ClaimRequest{Job: "billing", Period: "held", Owner: "holder"})
	noErr(t, err, "holder's claim")

	const workers, periods = 4, 2000
	var (
		mu       sync.Mutex
		wins     = map[string][]string{} // period -> owners told they won
		failed   = map[string]bool{}     // periods some claim of failed with an outage error
		badErrs  []error                 // sentinels other than ErrAlreadyClaimed
		done     atomic.Int64            // claims answered, either way
		sawError = make(chan struct{}, workers*periods)
		wg       sync.WaitGroup
	)
	stopAt := make(chan struct{})
	var stopOnce sync.Once
	for w := range workers {
		wg.Go(func() {
			owner := fmt.Sprint("w", w)
			for i := range periods {
				p := fmt.Sprintf("%05d", (i+w*periods/workers)%periods)
				cctx, cancel := context.WithTimeout(ctx, 10*time.Second)
				_, err := l.Claim(cctx, dstsafe.ClaimRequest{Job: "billing", Period: p, Owner: owner})
				cancel()
				mu.Lock()
				switch {
				case err == nil:
					wins[p] = append(wins[p], owner)
				case errors.Is(err, dstsafe.ErrAlreadyClaimed):
				case errors.Is(err, dstsafe.ErrLeaseLost), errors.Is(err, dstsafe.ErrNotFound), errors.Is(err, dstsafe.ErrInvalidArgument):
					badErrs = append(badErrs, err)
				default:
					failed[p] = true
					sawError <- struct{}{}
				}
				mu.Unlock()
				if done.Add(1) == periods/2 {
					stopOnce.Do(func() { close(stopAt) })
				}
			}
		})
	}

	<-stopAt // half the claims answered: pull the plug
	srv.stop()
	<-sawError // the outage reached a worker
	hbCtx, cancel := context.WithTimeout(ctx, 10*time.Second)
	_, hbErr := l.Heartbeat(hbCtx, "billing", "held", hold.Token, 0)
	cancel()
	if hbErr == nil || errors.Is(hbErr, dstsafe.ErrLeaseLost) || errors.Is(hbErr, dstsafe.ErrNotFound) {
		t.Errorf("heartbeat during the outage: %v, want the connection error", hbErr)
	}
	srv.start(bin)
	wg.Wait()

	if len(badErrs) > 0 {
		t.Errorf("%d sentinel errors during the outage, first: %v", len(badErrs), badErrs[0])
	}
	if len(failed) == 0 {
		t.Fatal("no claim failed: the outage was not observed")
	}
	t.Logf("%d periods saw outage errors", len(failed))

	// After the restart: the holder still holds, and may finish.
	_, err = l.Heartbeat(ctx, "billing", "held", hold.Token, 0)
	noErr(t, err, "heartbeat after the restart")
	_, err = l.Claim(ctx, dstsafe.ClaimRequest{Job: "billing", Period: "held", Owner: "thief"})
	isErr(t, err, dstsafe.ErrAlreadyClaimed, "claim of the held period after the restart")
	_, err = l.Finish(ctx, "billing", "held", hold.Token, dstsafe.StateSucceeded, "")
	noErr(t, err, "finish after the restart")

	// A sweep claims what the outage left unclaimed; nothing is claimed
	// twice, and every record belongs to the one claim told it won (or,
	// where the reply was lost in the outage, to a claim that got an error).
	for i := range periods {
		p := fmt.Sprintf("%05d", i)
		_, err := l.Claim(ctx, dstsafe.ClaimRequest{Job: "billing", Period: p, Owner: "sweeper"})
		switch {
		case err == nil:
			if len(wins[p]) > 0 || !failed[p] {
				t.Errorf("sweeper won %s, which %v had won (or which never failed)", p, wins[p])
			}
			wins[p] = append(wins[p], "sweeper")
		case !errors.Is(err, dstsafe.ErrAlreadyClaimed):
			t.Errorf("sweep %s: %v", p, err)
		}
	}
	recs, err := l.List(ctx, "billing", "0", "a")
	noErr(t, err, "List")
	if len(recs) != periods {
		t.Errorf("%d records, want %d", len(recs), periods)
	}
	orphans := 0
	for _, r := range recs {
		switch won := wins[r.Period]; {
		case len(won) > 1:
			t.Errorf("period %s claimed %d times: %v", r.Period, len(won), won)
		case len(won) == 1 && (r.Owner != won[0] || r.Token != 1):
			t.Errorf("period %s: record %+v, but %s was told it won", r.Period, r, won[0])
		case len(won) == 0:
			if !failed[r.Period] {
				t.Errorf("period %s has a record nobody won and no claim of it failed", r.Period)
			}
			orphans++
		}
	}
	t.Logf("%d periods claimed by a call that got an error (reply lost in the outage)", orphans)
}

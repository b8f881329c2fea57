package redisledger_test

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
	"testing"
	"time"

	"github.com/jonboulle/clockwork"
	"github.com/redis/go-redis/v9"

	"github.com/dstsafe/dstsafe"
	"github.com/dstsafe/dstsafe/redisledger"
)

// childEnv, when set, makes the test binary a child process of a
// reliability test instead of running tests: its value is a childConfig.
const childEnv = "DSTSAFE_REDISLEDGER_CHILD"

func TestMain(m *testing.M) {
	if cfg := os.Getenv(childEnv); cfg != "" {
		os.Exit(runChild(cfg))
	}
	os.Exit(m.Run())
}

// childConfig tells a child process what to do.
type childConfig struct {
	Mode    string    // "race" or "hold"
	Addr    string    // Redis address
	Prefix  string    // key prefix of the test
	Owner   string    // owner name (race: prefix of the goroutines' names)
	Clock   time.Time // the child's fake clock starts here: the parent's
	Job     string    //
	Periods int       // race: periods to claim; hold: periods to run before the held one
	Hot     bool      // race: every goroutine starts at the first period, with all the others
	Workers int       // race: goroutines
	// Contenders is how many of a race child's goroutines claim each
	// period (all of them run throughout, each claiming its share).
	Contenders int
	Lease      time.Duration
}

// raceResult is what a race child reports on stdout when it is done.
type raceResult struct {
	Won      map[string]string // period -> owner (goroutine) that won it
	Refused  int               // ErrAlreadyClaimed
	Other    int               // any other error
	FirstErr string            // the first other error
}

func racePeriod(i int) string { return fmt.Sprintf("2024-11-03T%05d", i) }

func runChild(cfgJSON string) int {
	var cfg childConfig
	if err := json.Unmarshal([]byte(cfgJSON), &cfg); err != nil {
		fmt.Fprintln(os.Stderr, "child config:", err)
		return 2
	}
	c := redis.NewClient(&redis.Options{Addr: cfg.Addr, PoolSize: max(cfg.Workers, 4)})
	defer c.Close()
	clock := clockwork.NewFakeClockAt(cfg.Clock)
	l := mustNew(c, redisledger.WithKeyPrefix(cfg.Prefix), redisledger.WithClock(clock))
	in := bufio.NewScanner(os.Stdin)
	var err error
	switch cfg.Mode {
	case "race":
		err = childRace(l, cfg, in)
	case "hold":
		err = childHold(l, cfg, in)
	default:
		err = fmt.Errorf("unknown mode %q", cfg.Mode)
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, "child:", err)
		return 1
	}
	return 0
}

// childRace waits for "go" on stdin, then claims every period from
// cfg.Contenders of its cfg.Workers goroutines, each goroutine starting at
// a different period, and prints a raceResult. Every child runs the same
// goroutines in the same order, so the processes collide on each period.
func childRace(l *redisledger.Ledger, cfg childConfig, in *bufio.Scanner) error {
	fmt.Println("ready")
	if !in.Scan() || in.Text() != "go" {
		return errors.New("no go signal")
	}
	var (
		mu  sync.Mutex
		res = raceResult{Won: map[string]string{}}
		wg  sync.WaitGroup
	)
	ctx := context.Background()
	for g := range cfg.Workers {
		wg.Go(func() {
			owner := fmt.Sprintf("%s/%d", cfg.Owner, g)
			start := g * cfg.Periods / cfg.Workers
			if cfg.Hot {
				start = 0
			}
			var won []string
			refused, other, first := 0, 0, ""
			for i := range cfg.Periods {
				n := (start + i) % cfg.Periods
				if (n-g+cfg.Workers)%cfg.Workers >= cfg.Contenders {
					continue // not one of this period's contenders
				}
				p := racePeriod(n)
				_, err := l.Claim(ctx, dstsafe.ClaimRequest{Job: cfg.Job, Period: p, Owner: owner})
				var claimed *dstsafe.ClaimedError
				switch {
				case err == nil:
					won = append(won, p)
				case errors.As(err, &claimed) && claimed.Existing.Token == 1 && claimed.Existing.Owner != owner:
					refused++
				default:
					if other == 0 {
						first = fmt.Sprintf("%s: %v", p, err)
					}
					other++
				}
			}
			mu.Lock()
			defer mu.Unlock()
			for _, p := range won {
				if prev, dup := res.Won[p]; dup {
					res.Other++
					res.FirstErr = fmt.Sprintf("%s won twice in one process: %s and %s", p, prev, owner)
				}
				res.Won[p] = owner
			}
			res.Refused += refused
			res.Other += other
			if res.FirstErr == "" {
				res.FirstErr = first
			}
		})
	}
	wg.Wait()
	return json.NewEncoder(os.Stdout).Encode(res)
}

// childHold runs cfg.Periods periods to success, then claims one more,
// prints "holding <period> <token>" and waits. Told "finish", it tries to
// finish the held period and prints "finish: ok" or "finish: lease lost".
// Usually it is killed instead.
func childHold(l *redisledger.Ledger, cfg childConfig, in *bufio.Scanner) error {
	ctx := context.Background()
	for i := range cfg.Periods + 1 {
		p := fmt.Sprintf("2024-11-%02d", i+1)
		r, err := l.Claim(ctx, dstsafe.ClaimRequest{Job: cfg.Job, Period: p, Owner: cfg.Owner, Lease: cfg.Lease})
		if err != nil {
			return err
		}
		if _, err := l.Heartbeat(ctx, cfg.Job, p, r.Token, cfg.Lease); err != nil {
			return err
		}
		if i < cfg.Periods {
			if _, err := l.Finish(ctx, cfg.Job, p, r.Token, dstsafe.StateSucceeded, ""); err != nil {
				return err
			}
			continue
		}
		fmt.Printf("holding %s %d\n", p, r.Token)
		if !in.Scan() || in.Text() != "finish" {
			return errors.New("no finish command")
		}
		_, err = l.Finish(ctx, cfg.Job, p, r.Token, dstsafe.StateSucceeded, "")
		switch {
		case err == nil:
			fmt.Println("finish: ok")
		case errors.Is(err, dstsafe.ErrLeaseLost):
			fmt.Println("finish: lease lost")
		default:
			return err
		}
	}
	return nil
}

// child is a running child process.
type child struct {
	cmd    *exec.Cmd
	stdin  io.WriteCloser
	stdout *bufio.Scanner
	stderr *strings.Builder
}

// startChild re-executes the test binary as a child with cfg. It is killed
// at the end of the test if it is still running.
func startChild(t *testing.T, cfg childConfig) *child {
	t.Helper()
	b, err := json.Marshal(cfg)
	noErr(t, err, "child config")
	cmd := exec.Command(os.Args[0], "-test.run=^$")
	cmd.Env = append(os.Environ(), childEnv+"="+string(b))
	stdin, err := cmd.StdinPipe()
	noErr(t, err, "stdin pipe")
	stdout, err := cmd.StdoutPipe()
	noErr(t, err, "stdout pipe")
	ch := &child{cmd: cmd, stdin: stdin, stdout: bufio.NewScanner(stdout), stderr: &strings.Builder{}}
	ch.stdout.Buffer(nil, 16<<20) // a race result is one long JSON line
	cmd.Stderr = ch.stderr
	noErr(t, cmd.Start(), "starting child")
	t.Cleanup(func() {
		if cmd.ProcessState == nil {
			_ = cmd.Process.Kill()
			_ = cmd.Wait()
		}
	})
	return ch
}

// line returns the child's next line of output; the test stops if there is
// none.
func (c *child) line(t *testing.T) string {
	t.Helper()
	if !c.stdout.Scan() {
		err := c.cmd.Wait()
		t.Fatalf("child %d ended (%v) without output; stderr:\n%s", c.cmd.Process.Pid, err, c.stderr)
	}
	return c.stdout.Text()
}

// send writes a line to the child's stdin.
func (c *child) send(t *testing.T, s string) {
	t.Helper()
	_, err := io.WriteString(c.stdin, s+"\n")
	noErr(t, err, "writing to child")
}

// wait waits for the child to exit and fails the test unless it exited 0.
func (c *child) wait(t *testing.T) {
	t.Helper()
	if err := c.cmd.Wait(); err != nil {
		t.Fatalf("child %d: %v; stderr:\n%s", c.cmd.Process.Pid, err, c.stderr)
	}
}

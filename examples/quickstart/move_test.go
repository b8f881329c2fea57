package main

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/jonboulle/clockwork"

	"github.com/dstsafe/dstsafe"
	"github.com/dstsafe/dstsafe/sqlledger"
	"github.com/dstsafe/dstsafe/sqlledger/sqlite"
)

// The quickstart as a service process, for TestMoveToExecAndBack: run by
// this test binary itself when these variables are set, on a fake clock
// from SERVICE_FROM for SERVICE_FOR, billing into the file SERVICE_OUT.
const (
	envServiceDir  = "QUICKSTART_SERVICE_DIR"
	envServiceFrom = "QUICKSTART_SERVICE_FROM"
	envServiceFor  = "QUICKSTART_SERVICE_FOR"
	envServiceOut  = "QUICKSTART_SERVICE_OUT"
)

func TestMain(m *testing.M) {
	if dir := os.Getenv(envServiceDir); dir != "" {
		if err := runService(dir); err != nil {
			fmt.Fprintln(os.Stderr, "service:", err)
			os.Exit(1)
		}
		os.Exit(0)
	}
	os.Exit(m.Run())
}

// runService is the quickstart's run with the clock a parameter: the
// same jobs (addBillingJobs), the same ledger file, simulated.
func runService(dir string) error {
	from, err := time.Parse(time.RFC3339, os.Getenv(envServiceFrom))
	if err != nil {
		return err
	}
	d, err := time.ParseDuration(os.Getenv(envServiceFor))
	if err != nil {
		return err
	}
	clock := clockwork.NewFakeClockAt(from)
	ledger, err := sqlite.OpenSQLite(filepath.Join(dir, "ledger.db"), sqlledger.WithClock(clock))
	if err != nil {
		return err
	}
	defer ledger.Close()
	if err := ledger.Migrate(context.Background()); err != nil {
		return err
	}
	var mu sync.Mutex
	s := dstsafe.NewScheduler(dstsafe.WithLedger(ledger), dstsafe.WithClock(clock), dstsafe.WithOwner("quickstart"))
	err = addBillingJobs(s, func(_ context.Context, zone string, run dstsafe.Run) error {
		mu.Lock()
		defer mu.Unlock()
		return appendLine(os.Getenv(envServiceOut), fmt.Sprintf("service %s %s %s", zone, run.RunDate, run.Period))
	})
	if err != nil {
		return err
	}
	_, err = dstsafe.Simulate(context.Background(), s, d)
	return err
}

func appendLine(path, line string) error {
	f, err := os.OpenFile(path, os.O_APPEND|os.O_CREATE|os.O_WRONLY, 0o600)
	if err != nil {
		return err
	}
	_, err = fmt.Fprintln(f, line)
	return errors.Join(err, f.Close())
}

// The quickstart's ByDate billing job moves from the in-process Scheduler
// to `dstsafe exec` and back, each side an OS process on the quickstart's
// SQLite ledger: the service bills 12-01 to 12-03; exec, given only the
// job's name (the registered schedule and its date key), bills 12-04 and
// 12-05, a second trigger of 12-05 finding it claimed; the service,
// restarted, resumes after exec's 12-05 and bills 12-06 and 12-07. Each
// date once, every period keyed by its date.
func TestMoveToExecAndBack(t *testing.T) {
	if testing.Short() {
		t.Skip("builds the dstsafe binary")
	}
	dir, out := t.TempDir(), filepath.Join(t.TempDir(), "bills")
	bin := filepath.Join(t.TempDir(), "dstsafe")
	if b, err := exec.Command("go", "build", "-C", "../../cmd", "-o", bin, "./dstsafe").CombinedOutput(); err != nil {
		t.Fatalf("go build dstsafe: %v\n%s", err, b)
	}
	self, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	service := func(from string, d time.Duration) {
		t.Helper()
		cmd := exec.Command(self, "-test.run=^$")
		cmd.Env = append(os.Environ(), envServiceDir+"="+dir, envServiceFrom+"="+from, envServiceFor+"="+d.String(), envServiceOut+"="+out)
		if b, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("service from %s: %v\n%s", from, err, b)
		}
	}
	trigger := func(now string, extra ...string) {
		t.Helper()
		args := append([]string{"exec", "--ledger", "sqlite://" + filepath.Join(dir, "ledger.db"), "--job", "billing/America/Chicago"}, extra...)
		args = append(args, "--", "sh", "-c", `echo "exec America/Chicago {{.RunDate}} {{.Period}}" >> "$0"`, out)
		cmd := exec.Command(bin, args...)
		cmd.Env = append(os.Environ(), "DSTSAFE_NOW="+now)
		var stderr bytes.Buffer
		cmd.Stderr = &stderr
		if err := cmd.Run(); err != nil {
			t.Fatalf("exec at %s: %v\n%s", now, err, stderr.String())
		}
	}

	service("2026-12-01T00:00:00Z", 60*time.Hour) // bills 12-01 to 12-03, 01:30 CST is 07:30Z
	trigger("2026-12-04T07:30:02Z")
	trigger("2026-12-05T07:30:01Z")
	trigger("2026-12-05T07:31:00Z", "--schedule", "CRON_TZ=America/Chicago 30 1 * * *") // claimed: the registered key
	service("2026-12-05T12:00:00Z", 48*time.Hour)                                       // bills 12-06, 12-07

	b, err := os.ReadFile(out)
	if err != nil {
		t.Fatal(err)
	}
	var chicago []string
	for _, line := range strings.Split(strings.TrimSpace(string(b)), "\n") {
		if f := strings.Fields(line); len(f) == 4 && f[1] == "America/Chicago" {
			chicago = append(chicago, f[0]+" "+f[2]+" "+f[3])
		}
	}
	want := []string{
		"service 2026-12-01 2026-12-01", "service 2026-12-02 2026-12-02", "service 2026-12-03 2026-12-03",
		"exec 2026-12-04 2026-12-04", "exec 2026-12-05 2026-12-05",
		"service 2026-12-06 2026-12-06", "service 2026-12-07 2026-12-07",
	}
	if !slices.Equal(chicago, want) {
		t.Fatalf("Chicago bills:\n%s\nwant:\n%s", strings.Join(chicago, "\n"), strings.Join(want, "\n"))
	}
	ledger, err := sqlite.OpenSQLite(filepath.Join(dir, "ledger.db"))
	if err != nil {
		t.Fatal(err)
	}
	defer ledger.Close()
	recs, err := ledger.List(context.Background(), "billing/America/Chicago", "", "")
	if err != nil {
		t.Fatal(err)
	}
	var periods []string
	for _, r := range recs {
		periods = append(periods, r.Period+" "+r.State.String())
	}
	wantRecs := []string{"2026-12-01 succeeded", "2026-12-02 succeeded", "2026-12-03 succeeded", "2026-12-04 succeeded",
		"2026-12-05 succeeded", "2026-12-06 succeeded", "2026-12-07 succeeded"}
	if !slices.Equal(periods, wantRecs) {
		t.Fatalf("records %q, want %q", periods, wantRecs)
	}
}

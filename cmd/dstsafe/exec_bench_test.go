package main

import (
	"bytes"
	"os/exec"
	"path/filepath"
	"syscall"
	"testing"
	"time"

	"github.com/dstsafe/dstsafe/internal/testkit"
)

// BenchmarkExecOverhead measures what wrapping a command with dstsafe exec
// costs, side by side with running true directly and with the floors any
// Go binary doing exec's work pays before it does anything:
//
//   - true: the command alone.
//   - go-empty: an empty Go program (testdata/startup/empty): the runtime's
//     start.
//   - go-core: parsing a zoned schedule and finding an occurrence with the
//     core module only (testdata/startup/core): exec's nothing-due work in
//     the smallest binary that can do it.
//   - go-drivers: the same with the three ledger backends linked
//     (testdata/startup/drivers): their package initialisers, before any
//     ledger is opened; connect-postgres and connect-redis add one
//     connection and ping, the set-up exec's PostgreSQL and Redis runs
//     include.
//   - help: dstsafe --help, the whole binary's start.
//   - nothing-due: exec of an instant that is no occurrence (--poll: exit
//     0), which never opens the ledger.
//   - sqlite, postgres, redis: exec claiming a new period (a new day per
//     iteration, --scheduled-time), running true and finishing the period.
//
// Two figures per row: ms/op, wall time per run, and cpu-ms/op, the
// children's user+system CPU time per run (getrusage), which a loaded
// machine disturbs less. docs/exec.md quotes them:
//
//	bash -c 'source scripts/services.sh && cd cmd/dstsafe && go test -run - -bench ExecOverhead -benchtime 50x -count 2'
func BenchmarkExecOverhead(b *testing.B) {
	truePath, err := exec.LookPath("true")
	if err != nil {
		b.Fatal(err)
	}
	dir := b.TempDir()
	probe := func(name string) string {
		path := filepath.Join(dir, name)
		out, err := exec.Command("go", "build", "-o", path, "./testdata/startup/"+name).CombinedOutput()
		if err != nil {
			b.Fatalf("go build ./testdata/startup/%s: %v\n%s", name, err, out)
		}
		return path
	}
	bin := dstsafeBinary(b)
	runs := func(args func() []string) func(b *testing.B) {
		return func(b *testing.B) {
			var cpu time.Duration
			for b.Loop() {
				a := args()
				c0 := childCPU()
				cmd := exec.Command(a[0], a[1:]...)
				var stderr bytes.Buffer
				cmd.Stderr = &stderr
				if err := cmd.Run(); err != nil {
					b.Fatalf("%v: %v\n%s", cmd.Args, err, stderr.Bytes())
				}
				cpu += childCPU() - c0
			}
			b.ReportMetric(float64(b.Elapsed().Microseconds())/1000/float64(b.N), "ms/op")
			b.ReportMetric(float64(cpu.Microseconds())/1000/float64(b.N), "cpu-ms/op")
		}
	}
	fixed := func(a ...string) func(b *testing.B) { return runs(func() []string { return a }) }

	b.Run("true", fixed(truePath))
	b.Run("go-empty", fixed(probe("empty")))
	b.Run("go-core", fixed(probe("core")))
	drivers := probe("drivers")
	b.Run("go-drivers", fixed(drivers))
	b.Run("connect-postgres", func(b *testing.B) {
		fixed(drivers, "postgres", testkit.RequireEnv(b, "DSTSAFE_TEST_POSTGRES_DSN"))(b)
	})
	b.Run("connect-redis", func(b *testing.B) {
		fixed(drivers, "redis", testkit.RequireEnv(b, "DSTSAFE_TEST_REDIS_ADDR"))(b)
	})
	b.Run("help", fixed(bin, "--help"))
	b.Run("nothing-due", func(b *testing.B) {
		l := execSQLite(b)
		args := append([]string{bin, "exec"}, l.flags...)
		args = append(args, "--job", "bench", "--schedule", "30 1 * * *", "--poll", "--now", "2024-01-01T12:00:00Z", "--", truePath)
		fixed(args...)(b)
	})
	for _, be := range execBackends {
		b.Run(be.name, func(b *testing.B) {
			l := be.open(b)
			day := time.Date(2024, 1, 1, 1, 30, 0, 0, time.UTC)
			runs(func() []string {
				args := append([]string{bin, "exec"}, l.flags...)
				args = append(args, "--job", "bench", "--schedule", "30 1 * * *",
					"--scheduled-time", day.Format(time.RFC3339), "--", truePath)
				day = day.AddDate(0, 0, 1)
				return args
			})(b)
		})
	}
}

// childCPU is the user+system CPU time of this process's waited-for
// children so far.
func childCPU() time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_CHILDREN, &ru); err != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

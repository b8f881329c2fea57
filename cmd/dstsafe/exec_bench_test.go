package main

import (
	"os"
	"os/exec"
	"testing"
	"time"
)

// BenchmarkExecOverhead measures what wrapping a command with dstsafe exec
// costs: the built binary claiming a new period, running true and
// finishing the period, against running true directly. Each iteration is
// a new day's period (--scheduled-time), so every run claims and
// finishes. Wall time per run; ms/op is the figure docs/exec.md quotes.
//
//	bash -c 'source scripts/services.sh && cd cmd/dstsafe && go test -run - -bench ExecOverhead -benchtime 30x -count 2'
func BenchmarkExecOverhead(b *testing.B) {
	truePath, err := exec.LookPath("true")
	if err != nil {
		b.Fatal(err)
	}
	b.Run("direct", func(b *testing.B) {
		for b.Loop() {
			if err := exec.Command(truePath).Run(); err != nil {
				b.Fatal(err)
			}
		}
		reportMs(b)
	})
	bin := dstsafeBinary(b)
	// Nothing due: the trigger's instant is no occurrence and exec says so
	// (--poll: exit 0) without opening the ledger, so this is exec's own
	// start-up cost.
	b.Run("nothing-due", func(b *testing.B) {
		l := execSQLite(b)
		for b.Loop() {
			args := append([]string{"exec"}, l.flags...)
			args = append(args, "--job", "bench", "--schedule", "30 1 * * *", "--poll", "--now", "2024-01-01T12:00:00Z", "--", truePath)
			if err := exec.Command(bin, args...).Run(); err != nil {
				b.Fatal(err)
			}
		}
		reportMs(b)
	})
	for _, be := range execBackends {
		b.Run(be.name, func(b *testing.B) {
			l := be.open(b)
			day := time.Date(2024, 1, 1, 1, 30, 0, 0, time.UTC)
			for b.Loop() {
				args := append([]string{"exec"}, l.flags...)
				args = append(args, "--job", "bench", "--schedule", "30 1 * * *",
					"--scheduled-time", day.Format(time.RFC3339), "--", truePath)
				cmd := exec.Command(bin, args...)
				cmd.Stderr = os.Stderr
				if err := cmd.Run(); err != nil {
					b.Fatalf("%v: %v", cmd.Args, err)
				}
				day = day.AddDate(0, 0, 1)
			}
			reportMs(b)
		})
	}
}

func reportMs(b *testing.B) {
	b.ReportMetric(float64(b.Elapsed().Microseconds())/1000/float64(b.N), "ms/op")
}

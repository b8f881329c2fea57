package dstsafe_test

import (
	"context"
	"testing"
	"time"

	"github.com/dstsafe/dstsafe"
)

// A year at 20 s steps (1.58 M steps, the postmortem worker's poll) with
// ten jobs: five fixed-time daily jobs across zones with transitions, three
// hourly and two quarter-hourly, on a MemoryLedger. Target: < 5 s per op on
// 2 cores.
func BenchmarkSimulateYearStep20s10Jobs(b *testing.B) {
	specs := []struct{ spec, zone string }{
		{"30 1 * * *", "America/Chicago"},
		{"30 2 * * *", "America/New_York"},
		{"30 1 * * *", "Europe/London"},
		{"30 2 * * *", "Australia/Sydney"},
		{"15 2 * * *", "Australia/Lord_Howe"},
		{"0 * * * *", "America/Chicago"},
		{"5 * * * *", "Europe/Dublin"},
		{"10 * * * *", "Asia/Kolkata"},
		{"*/15 * * * *", "America/Sao_Paulo"},
		{"*/15 * * * *", "Pacific/Apia"},
	}
	start := time.Date(2024, 1, 1, 0, 0, 0, 0, time.UTC)
	var fires int
	for b.Loop() {
		s, _, _ := newSim(b, start)
		for i, sp := range specs {
			if err := s.Add(string(rune('a'+i)), mustCron(b, sp.spec, dstsafe.WithLocation(zone(b, sp.zone))), nop); err != nil {
				b.Fatal(err)
			}
		}
		got, err := dstsafe.Simulate(context.Background(), s, 365*24*time.Hour, dstsafe.WithStep(20*time.Second))
		if err != nil {
			b.Fatal(err)
		}
		fires = len(got)
	}
	b.ReportMetric(float64(fires), "fires/op")
	b.ReportMetric(float64(365*24*time.Hour/(20*time.Second)), "steps/op")
}

// A century of a daily job in jump mode: 36,525 runs. Target: < 1 s per op.
func BenchmarkSimulateCenturyJumpDaily(b *testing.B) {
	start := time.Date(2000, 1, 1, 0, 0, 0, 0, time.UTC)
	sched := mustCron(b, "30 1 * * *", dstsafe.WithLocation(zone(b, "America/Chicago")))
	var fires int
	for b.Loop() {
		s, _, _ := newSim(b, start)
		if err := s.Add("billing", sched, nop); err != nil {
			b.Fatal(err)
		}
		got, err := dstsafe.Simulate(context.Background(), s, 36525*24*time.Hour)
		if err != nil {
			b.Fatal(err)
		}
		fires = len(got)
	}
	b.ReportMetric(float64(fires), "fires/op")
}

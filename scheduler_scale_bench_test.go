package dstsafe_test

import (
	"context"
	"fmt"
	"os"
	"runtime"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/dstsafe/dstsafe"
)

// scaleZones are the zones the scaling benchmark spreads its jobs over,
// four of them with transitions in the simulated window's year.
var scaleZones = []string{
	"America/Chicago", "America/New_York", "Europe/London", "Europe/Dublin",
	"Australia/Sydney", "Asia/Kolkata", "Asia/Tokyo", "UTC",
}

// scaleRow is one line of the table BenchmarkSchedulerScale prints.
type scaleRow struct {
	n                          int
	parsePerJob, addPerJob     time.Duration
	primePerJob                time.Duration
	cpuPerFire                 time.Duration
	heapPerJob                 float64
	perFire                    time.Duration
	fires                      int
	simulated, wallPerInterval time.Duration
}

// BenchmarkSchedulerScale measures the Scheduler's cost against the number
// of jobs, as a user builds them: N daily jobs parsed from
// "CRON_TZ=<zone> M H * * *" (8 zones, minutes and hours spread), a
// MemoryLedger, Simulate in jump mode 3 days at a time after a first
// second that resumes every job (timed apart: once per start). Targets: the time
// per fire flat in N (at 100,000 jobs at most 2x that at 100) and at most
// 10 µs; at most 1 KiB of heap per job after Add; Add of 100,000 jobs under
// 1 s. It prints the table the README shows:
//
//	go test -run '^$' -bench SchedulerScale -benchtime 1x .
//
// DSTSAFE_SCALE_N="100,1000" picks other sizes.
func BenchmarkSchedulerScale(b *testing.B) {
	sizes := []int{100, 1_000, 10_000, 100_000}
	if env := os.Getenv("DSTSAFE_SCALE_N"); env != "" {
		sizes = nil
		for _, f := range strings.Split(env, ",") {
			n, err := strconv.Atoi(strings.TrimSpace(f))
			if err != nil {
				b.Fatalf("DSTSAFE_SCALE_N: %v", err)
			}
			sizes = append(sizes, n)
		}
	}
	var rows []scaleRow
	for _, n := range sizes {
		b.Run(fmt.Sprintf("jobs=%d", n), func(b *testing.B) {
			row := scaleRun(b, n)
			rows = append(rows, row)
		})
	}
	if len(rows) == 0 {
		return
	}
	var t strings.Builder
	t.WriteString("\n| N jobs | parse / job | Add / job | heap after Add | first start / job | wall time per fire | CPU per fire | fires |\n")
	t.WriteString("| ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: |\n")
	us := func(d time.Duration) float64 { return float64(d.Nanoseconds()) / 1e3 }
	for _, r := range rows {
		fmt.Fprintf(&t, "| %d | %.1f µs | %.2f µs | %.0f B/job | %.1f µs | %.2f µs | %.2f µs | %d |\n", r.n,
			us(r.parsePerJob), us(r.addPerJob), r.heapPerJob, us(r.primePerJob), us(r.perFire), us(r.cpuPerFire), r.fires)
	}
	fmt.Print(t.String())
}

// scaleRun builds the scheduler of n jobs once, then simulates 3 days per
// benchmark iteration on the same scheduler, so setup is not timed.
func scaleRun(b *testing.B, n int) scaleRow {
	start := time.Date(2024, 11, 1, 0, 0, 0, 0, time.UTC)
	s, _, _ := newSim(b, start)
	specs := make([]string, n)
	for i := range n {
		z := scaleZones[i%len(scaleZones)]
		m := i / len(scaleZones)
		specs[i] = fmt.Sprintf("CRON_TZ=%s %d %d * * *", z, m%60, m/60%24)
	}
	names := make([]string, n)
	for i := range n {
		names[i] = "job-" + strconv.Itoa(i)
	}

	runtime.GC()
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	t0 := time.Now()
	crons := make([]*dstsafe.Cron, n)
	for i, spec := range specs {
		crons[i] = mustCron(b, spec)
	}
	parsed := time.Since(t0)
	t1 := time.Now()
	for i, c := range crons {
		if err := s.Add(names[i], c, nop); err != nil {
			b.Fatal(err)
		}
	}
	added := time.Since(t1)
	crons = nil
	runtime.GC()
	runtime.ReadMemStats(&after)
	heap := float64(int64(after.HeapAlloc)-int64(before.HeapAlloc)) / float64(n)

	// The first Run reads every job's latest record (none here): timed
	// apart, as it happens once per start, not per fire.
	t2 := time.Now()
	warm, err := dstsafe.Simulate(context.Background(), s, time.Second)
	if err != nil {
		b.Fatal(err)
	}
	primed := time.Since(t2)

	const window = 72 * time.Hour
	fires := len(warm)
	var spent time.Duration
	var m0, m1 runtime.MemStats
	runtime.ReadMemStats(&m0)
	var cpu time.Duration
	for b.Loop() {
		t, c := time.Now(), processCPU()
		got, err := dstsafe.Simulate(context.Background(), s, window)
		spent += time.Since(t)
		cpu += processCPU() - c
		if err != nil {
			b.Fatal(err)
		}
		fires += len(got)
	}
	runtime.ReadMemStats(&m1)
	if fires > len(warm) {
		b.ReportMetric(float64(m1.Mallocs-m0.Mallocs)/float64(fires-len(warm)), "allocs/fire")
		b.ReportMetric(float64(m1.TotalAlloc-m0.TotalAlloc)/float64(fires-len(warm)), "B/fire")
	}
	if want := scaleFires(b, n, start, start.Add(time.Second+time.Duration(b.N)*window)); fires != want {
		b.Fatalf("%d jobs: %d fires, the time package says %d", n, fires, want)
	}
	row := scaleRow{n: n, parsePerJob: parsed / time.Duration(n), addPerJob: added / time.Duration(n),
		primePerJob: primed / time.Duration(n), heapPerJob: heap, fires: fires, simulated: window}
	if fires > len(warm) {
		row.perFire = spent / time.Duration(fires-len(warm))
		row.cpuPerFire = cpu / time.Duration(fires-len(warm))
	}
	b.ReportMetric(float64(row.perFire.Nanoseconds())/1e3, "µs/fire")
	b.ReportMetric(float64(row.cpuPerFire.Nanoseconds())/1e3, "cpu-µs/fire")
	b.ReportMetric(heap, "heapB/job")
	b.ReportMetric(float64(row.addPerJob.Nanoseconds())/1e3, "add-µs/job")
	b.ReportMetric(float64(fires), "fires")
	runtime.KeepAlive(s)
	return row
}

// scaleFires counts the fires of scaleRun's jobs in [from, to] with the
// time package alone: each job's H:M on every local date, at its first
// reading in a fold (no job of the window falls in a gap).
func scaleFires(b *testing.B, n int, from, to time.Time) int {
	locs := make([]*time.Location, len(scaleZones))
	for i, z := range scaleZones {
		loc, err := time.LoadLocation(z)
		if err != nil {
			b.Fatal(err)
		}
		locs[i] = loc
	}
	total := 0
	for i := range n {
		loc := locs[i%len(locs)]
		m := i / len(scaleZones)
		h, mi := m/60%24, m%60
		for day := from.AddDate(0, 0, -2); !day.After(to.AddDate(0, 0, 2)); day = day.AddDate(0, 0, 1) {
			y, mo, d := day.In(loc).Date()
			t := time.Date(y, mo, d, h, mi, 0, 0, loc)
			if e := t.Add(-time.Hour); e.Hour() == h && e.Minute() == mi && e.Day() == d {
				t = e // the first of two readings
			}
			if !t.Before(from) && !t.After(to) {
				total++
			}
		}
	}
	return total
}

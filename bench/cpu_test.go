package bench

import (
	"runtime"
	"testing"
)

// cpuTimer measures the CPU time of a benchmark loop on its own OS thread.
// ns/op is wall time: on a loaded machine (other builds, other tests) it
// grows with every time slice the benchmark waits for, and a ratio of two
// wall times taken seconds apart says little. cpu-ns/op counts only the
// time the loop ran, so ratio summaries prefer it.
type cpuTimer struct {
	start int64
	ok    bool
}

// startCPU locks the benchmark goroutine to its thread, turns on alloc
// reporting and starts the clock. Call it right before `for b.Loop()`.
func startCPU(b *testing.B) cpuTimer {
	b.Helper()
	runtime.LockOSThread()
	b.ReportAllocs()
	start, ok := threadCPU()
	return cpuTimer{start, ok}
}

// stop reports cpu-ns/op; call it right after the loop.
func (c cpuTimer) stop(b *testing.B) {
	b.Helper()
	end, ok := threadCPU()
	runtime.UnlockOSThread()
	if c.ok && ok && b.N > 0 {
		b.ReportMetric(float64(end-c.start)/float64(b.N), "cpu-ns/op")
	}
}

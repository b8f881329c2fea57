package dstsafeotel_test

import (
	"testing"
	"time"

	"github.com/dstsafe/dstsafe"
	"github.com/dstsafe/dstsafe/event"
)

// BenchmarkObserve is the cost a Scheduler pays per event on the SDK: a
// succeeded run touches dstsafe.events, dstsafe.runs and
// dstsafe.run.duration.
func BenchmarkObserve(b *testing.B) {
	o, _ := sdkObserver(b)
	e := dstsafe.Event{Type: event.Succeeded, Job: "billing", Period: "2024-11-03", Kind: dstsafe.Fold,
		Duration: 42 * time.Second}
	b.ReportAllocs()
	for b.Loop() {
		o.Observe(e)
	}
}

// BenchmarkObserveParallel: every job's goroutine reporting at once.
func BenchmarkObserveParallel(b *testing.B) {
	o, _ := sdkObserver(b)
	b.ReportAllocs()
	b.RunParallel(func(pb *testing.PB) {
		e := dstsafe.Event{Type: event.Started, Job: "sync", Kind: dstsafe.Unique, Late: time.Millisecond}
		for pb.Next() {
			o.Observe(e)
		}
	})
}

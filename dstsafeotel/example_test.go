package dstsafeotel_test

import (
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"
	"time"

	"github.com/dstsafe/dstsafe"
	"github.com/dstsafe/dstsafe/dstsafeotel"
	"github.com/dstsafe/dstsafe/event"
	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/promhttp"
	otelprom "go.opentelemetry.io/otel/exporters/prometheus"
	sdkmetric "go.opentelemetry.io/otel/sdk/metric"
)

// The Observer on the SDK with the Prometheus exporter, and what a
// Prometheus server scraping /metrics reads after the 2024-11-03 fold in
// America/Chicago: the fixed-time billing job ran once, at the first
// 01:30; the */30 sync job ran both 01:30s, an hour of real time apart,
// each with kind "fold"; a second replica found billing's period claimed.
func ExampleNew() {
	reg := prometheus.NewRegistry()
	exporter, err := otelprom.New(otelprom.WithRegisterer(reg),
		otelprom.WithoutTargetInfo(), otelprom.WithoutScopeInfo()) // no host-dependent labels
	if err != nil {
		panic(err)
	}
	provider := sdkmetric.NewMeterProvider(sdkmetric.WithReader(exporter))
	defer provider.Shutdown(context.Background())

	obs, err := dstsafeotel.New(provider,
		dstsafeotel.WithLatenessBuckets(1, 60), dstsafeotel.WithDurationBuckets(1, 60)) // short output
	if err != nil {
		panic(err)
	}
	// What a Scheduler reports (dstsafe.WithObserver(obs)), written out.
	run := func(job, period string, late, took time.Duration) {
		for _, typ := range []event.Type{event.Due, event.Claimed, event.Started, event.Succeeded} {
			obs.Observe(dstsafe.Event{Type: typ, Job: job, Period: period, Kind: dstsafe.Fold, Late: late, Duration: took})
		}
	}
	run("billing", "2024-11-03", 200*time.Millisecond, 42*time.Second)
	obs.Observe(dstsafe.Event{Type: event.ClaimedElsewhere, Job: "billing", Period: "2024-11-03", Kind: dstsafe.Fold})
	run("sync", "2024-11-03T01:30-05:00", 100*time.Millisecond, 300*time.Millisecond)
	run("sync", "2024-11-03T01:30-06:00", 100*time.Millisecond, 500*time.Millisecond)

	rec := httptest.NewRecorder()
	promhttp.HandlerFor(reg, promhttp.HandlerOpts{}).ServeHTTP(rec, httptest.NewRequest(http.MethodGet, "/metrics", nil))
	fmt.Print(rec.Body.String())
	// Output:
	// # HELP dstsafe_events_total Events of the dstsafe Scheduler, by job, kind and event type.
	// # TYPE dstsafe_events_total counter
	// dstsafe_events_total{event="claimed",job="billing",kind="fold"} 1
	// dstsafe_events_total{event="claimed",job="sync",kind="fold"} 2
	// dstsafe_events_total{event="claimed-elsewhere",job="billing",kind="fold"} 1
	// dstsafe_events_total{event="due",job="billing",kind="fold"} 1
	// dstsafe_events_total{event="due",job="sync",kind="fold"} 2
	// dstsafe_events_total{event="started",job="billing",kind="fold"} 1
	// dstsafe_events_total{event="started",job="sync",kind="fold"} 2
	// dstsafe_events_total{event="succeeded",job="billing",kind="fold"} 1
	// dstsafe_events_total{event="succeeded",job="sync",kind="fold"} 2
	// # HELP dstsafe_run_duration_seconds How long a run took, by job, kind and outcome.
	// # TYPE dstsafe_run_duration_seconds histogram
	// dstsafe_run_duration_seconds_bucket{job="billing",kind="fold",outcome="succeeded",le="1"} 0
	// dstsafe_run_duration_seconds_bucket{job="billing",kind="fold",outcome="succeeded",le="60"} 1
	// dstsafe_run_duration_seconds_bucket{job="billing",kind="fold",outcome="succeeded",le="+Inf"} 1
	// dstsafe_run_duration_seconds_sum{job="billing",kind="fold",outcome="succeeded"} 42
	// dstsafe_run_duration_seconds_count{job="billing",kind="fold",outcome="succeeded"} 1
	// dstsafe_run_duration_seconds_bucket{job="sync",kind="fold",outcome="succeeded",le="1"} 2
	// dstsafe_run_duration_seconds_bucket{job="sync",kind="fold",outcome="succeeded",le="60"} 2
	// dstsafe_run_duration_seconds_bucket{job="sync",kind="fold",outcome="succeeded",le="+Inf"} 2
	// dstsafe_run_duration_seconds_sum{job="sync",kind="fold",outcome="succeeded"} 0.8
	// dstsafe_run_duration_seconds_count{job="sync",kind="fold",outcome="succeeded"} 2
	// # HELP dstsafe_run_lateness_seconds How long after its due instant a run started.
	// # TYPE dstsafe_run_lateness_seconds histogram
	// dstsafe_run_lateness_seconds_bucket{job="billing",kind="fold",le="1"} 1
	// dstsafe_run_lateness_seconds_bucket{job="billing",kind="fold",le="60"} 1
	// dstsafe_run_lateness_seconds_bucket{job="billing",kind="fold",le="+Inf"} 1
	// dstsafe_run_lateness_seconds_sum{job="billing",kind="fold"} 0.2
	// dstsafe_run_lateness_seconds_count{job="billing",kind="fold"} 1
	// dstsafe_run_lateness_seconds_bucket{job="sync",kind="fold",le="1"} 2
	// dstsafe_run_lateness_seconds_bucket{job="sync",kind="fold",le="60"} 2
	// dstsafe_run_lateness_seconds_bucket{job="sync",kind="fold",le="+Inf"} 2
	// dstsafe_run_lateness_seconds_sum{job="sync",kind="fold"} 0.2
	// dstsafe_run_lateness_seconds_count{job="sync",kind="fold"} 2
	// # HELP dstsafe_runs_total Attempts at a period that ended on this Scheduler, by job, kind and outcome.
	// # TYPE dstsafe_runs_total counter
	// dstsafe_runs_total{job="billing",kind="fold",outcome="claimed-elsewhere"} 1
	// dstsafe_runs_total{job="billing",kind="fold",outcome="succeeded"} 1
	// dstsafe_runs_total{job="sync",kind="fold",outcome="succeeded"} 2
}

// Package dstsafeotel records what a dstsafe Scheduler does as
// OpenTelemetry metrics: it implements [dstsafe.Observer] on any
// [metric.MeterProvider] (the SDK's, wired to the Prometheus exporter, an
// OTLP exporter, or the global provider).
//
//	obs, err := dstsafeotel.New(provider) // nil: otel.GetMeterProvider()
//	s := dstsafe.NewScheduler(dstsafe.WithObserver(obs), ...)
//
// # Metrics
//
// Four instruments on the meter "github.com/dstsafe/dstsafe/dstsafeotel".
// Names and units follow the OpenTelemetry semantic conventions (dotted
// lower-case names, UCUM units, no "total" in a counter's name); the
// Prometheus exporter turns them into the names in the last column.
//
//	name                  instrument        unit     attributes          records
//	dstsafe.events        Int64Counter      {event}  job, kind, event    every Event: 1
//	dstsafe.runs          Int64Counter      {run}    job, kind, outcome  how an attempt at a period ended here: 1
//	dstsafe.run.lateness  Float64Histogram  s        job, kind           event.Started: Late, its start minus its due instant
//	dstsafe.run.duration  Float64Histogram  s        job, kind, outcome  event.Succeeded, event.Failed: Duration
//
//	Prometheus: dstsafe_events_total, dstsafe_runs_total,
//	            dstsafe_run_lateness_seconds, dstsafe_run_duration_seconds
//
// The attribute values are the core's own words, as its logs and JSON spell
// them:
//
//   - job: Event.Job, the name the job was added with.
//   - kind: the occurrence's [dstsafe.Kind], "unique", "fold" or "gap";
//     absent on event.Paused and event.Resumed, which are about a job, not a
//     period.
//   - event: Event.Type's name ([event.Type.String]): "due",
//     "claimed", "claimed-elsewhere", "started", "succeeded", "failed",
//     "skipped", "lease-lost", "late", "paused", "resumed"; "invalid" for a
//     Type the core does not define.
//   - outcome: on dstsafe.runs, the event that ended the attempt:
//     "succeeded", "failed", "skipped", "claimed-elsewhere" (another replica
//     or an earlier run has the period) or "lease-lost"; on
//     dstsafe.run.duration, "succeeded" or "failed".
//
// Never the period key, the wall reading, the due instant, the reason or
// the error: the first three grow without bound (one new value per period,
// forever) and the last two are free text (Pause takes an operator's
// reason). The number of series is at most jobs × 3 kinds × 11 events for
// dstsafe.events and jobs × 3 × 5 for dstsafe.runs. dstsafe.runs is the one
// to alert on (failed or lease-lost rising, succeeded short of one per
// period across the replicas); dstsafe.events shows the whole path,
// misfires ("late") and pauses included.
//
// # Daylight-saving time
//
// The kind attribute says which occurrences fell in a transition: a fixed-
// time job (30 1 * * *) runs once on the fall-back night, with kind "fold";
// a periodic job (*/30 * * * *) runs both readings of the repeated hour,
// each counted with kind "fold"; a run shifted out of a spring-forward gap
// (02:30 run at 03:30 CDT) has kind "gap". Lateness is measured from the
// resolved due instant, never from the wall reading, so a run shifted by the
// gap is not an hour late, and the second 01:30 of a fold is late only by
// how long after its own instant it started.
//
// # Buckets
//
// The histograms advise the SDK of bucket boundaries in seconds, from 5 ms
// to an hour for durations and from 1 ms to a day for lateness (a catch-up
// after downtime starts hours late); [WithDurationBuckets] and
// [WithLatenessBuckets] change them, and an SDK view overrides both.
package dstsafeotel

package dstsafeotel

import (
	"context"
	"errors"
	"fmt"
	"math"
	"slices"
	"sync"
	"time"

	"github.com/dstsafe/dstsafe"
	"github.com/dstsafe/dstsafe/event"
	"go.opentelemetry.io/otel"
	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/metric"
)

// ScopeName is the instrumentation scope (the meter's name) of the metrics.
const ScopeName = "github.com/dstsafe/dstsafe/dstsafeotel"

// The metrics' names, as the package overview lists them.
const (
	MetricEvents   = "dstsafe.events"
	MetricRuns     = "dstsafe.runs"
	MetricLateness = "dstsafe.run.lateness"
	MetricDuration = "dstsafe.run.duration"
)

// The attribute keys. No other key is ever recorded.
const (
	AttrJob     = attribute.Key("job")
	AttrKind    = attribute.Key("kind")
	AttrEvent   = attribute.Key("event")
	AttrOutcome = attribute.Key("outcome")
)

// The default bucket boundaries, in seconds.
var (
	defaultDurationBuckets = []float64{0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60, 300, 900, 3600}
	defaultLatenessBuckets = []float64{0.001, 0.01, 0.1, 0.5, 1, 5, 15, 60, 300, 900, 3600, 14400, 86400}
)

// ErrBuckets is returned (wrapped) by New when bucket boundaries given to
// WithDurationBuckets or WithLatenessBuckets are not finite and strictly
// increasing.
var ErrBuckets = errors.New("dstsafeotel: bucket boundaries must be finite and strictly increasing")

// Observer is a [dstsafe.Observer] that records every Event in the metrics
// of the package overview. It is safe for concurrent use; Observe does no
// I/O (the exporter reads the SDK's aggregates when it is scraped) and
// allocates nothing once a series exists. Build one with New; a nil or
// zero Observer records nothing.
type Observer struct {
	events   metric.Int64Counter
	runs     metric.Int64Counter
	lateness metric.Float64Histogram
	duration metric.Float64Histogram

	// series caches the attribute sets of each (job, kind, type), so
	// that Observe allocates nothing once a series exists. It holds as many
	// entries as the metrics have series: bounded by the jobs.
	series sync.Map // seriesKey -> *seriesAttrs
}

var _ dstsafe.Observer = (*Observer)(nil)

type seriesKey struct {
	job  string
	kind dstsafe.Kind
	typ  event.Type
}

// seriesAttrs holds what one (job, kind, type) records: options with a
// precomputed attribute.Set for each instrument it touches (nil for none),
// as slices so that passing them allocates nothing.
type seriesAttrs struct {
	events, runs       []metric.AddOption
	lateness, duration []metric.RecordOption
}

// An Option configures New. A nil Option is ignored.
type Option func(*config)

type config struct {
	durationBuckets, latenessBuckets []float64
}

// WithDurationBuckets sets the bucket boundaries, in seconds, that the
// dstsafe.run.duration histogram advises. Defaults to 5 ms, 10 ms, 25 ms,
// 50 ms, 100 ms, 250 ms, 500 ms, 1 s, 2.5 s, 5 s, 10 s, 30 s, 1 min, 5 min,
// 15 min and 1 h; none (a nil or empty list) means the default. New fails
// with ErrBuckets unless they are finite and strictly increasing.
func WithDurationBuckets(bounds ...float64) Option {
	bounds = append([]float64(nil), bounds...) // the caller's slice may change
	return func(c *config) {
		if len(bounds) > 0 {
			c.durationBuckets = bounds
		}
	}
}

// WithLatenessBuckets sets the bucket boundaries, in seconds, that the
// dstsafe.run.lateness histogram advises. Defaults to 1 ms, 10 ms, 100 ms,
// 500 ms, 1 s, 5 s, 15 s, 1 min, 5 min, 15 min, 1 h, 4 h and 1 day; none (a
// nil or empty list) means the default. New fails with ErrBuckets unless
// they are finite and strictly increasing.
func WithLatenessBuckets(bounds ...float64) Option {
	bounds = append([]float64(nil), bounds...) // the caller's slice may change
	return func(c *config) {
		if len(bounds) > 0 {
			c.latenessBuckets = bounds
		}
	}
}

// New returns an Observer that records on a meter of mp named ScopeName.
// A nil mp means otel.GetMeterProvider(), the global provider (which
// forwards to the one otel.SetMeterProvider installs, even later).
//
// It fails if bucket boundaries are invalid (ErrBuckets) or if mp refuses
// an instrument; errors are prefixed "dstsafeotel:".
func New(mp metric.MeterProvider, opts ...Option) (*Observer, error) {
	cfg := config{durationBuckets: defaultDurationBuckets, latenessBuckets: defaultLatenessBuckets}
	for _, opt := range opts {
		if opt != nil {
			opt(&cfg)
		}
	}
	if err := checkBuckets("dstsafe.run.duration", cfg.durationBuckets); err != nil {
		return nil, err
	}
	if err := checkBuckets("dstsafe.run.lateness", cfg.latenessBuckets); err != nil {
		return nil, err
	}
	if mp == nil {
		mp = otel.GetMeterProvider()
	}
	m := mp.Meter(ScopeName)

	o := &Observer{}
	var errs [4]error
	o.events, errs[0] = m.Int64Counter(MetricEvents,
		metric.WithUnit("{event}"),
		metric.WithDescription("Events of the dstsafe Scheduler, by job, kind and event type."))
	o.runs, errs[1] = m.Int64Counter(MetricRuns,
		metric.WithUnit("{run}"),
		metric.WithDescription("Attempts at a period that ended on this Scheduler, by job, kind and outcome."))
	o.lateness, errs[2] = m.Float64Histogram(MetricLateness,
		metric.WithUnit("s"),
		metric.WithDescription("How long after its due instant a run started."),
		metric.WithExplicitBucketBoundaries(cfg.latenessBuckets...))
	o.duration, errs[3] = m.Float64Histogram(MetricDuration,
		metric.WithUnit("s"),
		metric.WithDescription("How long a run took, by job, kind and outcome."),
		metric.WithExplicitBucketBoundaries(cfg.durationBuckets...))
	if err := errors.Join(errs[:]...); err != nil {
		return nil, fmt.Errorf("dstsafeotel: %w", err)
	}
	return o, nil
}

func checkBuckets(name string, b []float64) error {
	for i, v := range b {
		if math.IsNaN(v) || math.IsInf(v, 0) || (i > 0 && v <= b[i-1]) {
			return fmt.Errorf("%w: %s: %v", ErrBuckets, name, b)
		}
	}
	return nil
}

// Observe records e: 1 on dstsafe.events; 1 on dstsafe.runs when e ends an
// attempt (succeeded, failed, skipped, claimed-elsewhere, lease-lost);
// e.Late on dstsafe.run.lateness for event.Started; e.Duration on
// dstsafe.run.duration for event.Succeeded and event.Failed. Negative
// durations count as 0. Only e.Type, e.Job and e.Kind become attributes.
func (o *Observer) Observe(e dstsafe.Event) {
	if o == nil || o.events == nil {
		return
	}
	s := o.attrs(seriesKey{job: e.Job, kind: e.Kind, typ: e.Type})
	// Observe is given no context; metrics need none (no span, so no
	// exemplar).
	ctx := context.Background()
	o.events.Add(ctx, 1, s.events...)
	if s.runs != nil {
		o.runs.Add(ctx, 1, s.runs...)
	}
	if s.lateness != nil {
		o.lateness.Record(ctx, seconds(e.Late), s.lateness...)
	}
	if s.duration != nil {
		o.duration.Record(ctx, seconds(e.Duration), s.duration...)
	}
}

func (o *Observer) attrs(k seriesKey) *seriesAttrs {
	if s, ok := o.series.Load(k); ok {
		return s.(*seriesAttrs)
	}
	s, _ := o.series.LoadOrStore(k, newSeriesAttrs(k))
	return s.(*seriesAttrs)
}

func newSeriesAttrs(k seriesKey) *seriesAttrs {
	base := []attribute.KeyValue{AttrJob.String(k.job)}
	switch k.kind {
	case dstsafe.Unique, dstsafe.Fold, dstsafe.Gap:
		base = append(base, AttrKind.String(k.kind.String()))
	}
	set := func(kv ...attribute.KeyValue) metric.MeasurementOption {
		return metric.WithAttributeSet(attribute.NewSet(append(slices.Clone(base), kv...)...))
	}
	s := &seriesAttrs{events: []metric.AddOption{set(AttrEvent.String(k.typ.String()))}}
	switch k.typ {
	case event.Succeeded, event.Failed:
		outcome := set(AttrOutcome.String(k.typ.String()))
		s.runs = []metric.AddOption{outcome}
		s.duration = []metric.RecordOption{outcome}
	case event.Skipped, event.ClaimedElsewhere, event.LeaseLost:
		s.runs = []metric.AddOption{set(AttrOutcome.String(k.typ.String()))}
	case event.Started:
		s.lateness = []metric.RecordOption{set()}
	}
	return s
}

func seconds(d time.Duration) float64 {
	return max(d, 0).Seconds()
}

package dstsafeotel_test

import (
	"context"
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"testing"

	"github.com/dstsafe/dstsafe/dstsafeotel"
	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/promhttp"
	"github.com/stretchr/testify/require"
	"go.opentelemetry.io/otel/attribute"
	otelprom "go.opentelemetry.io/otel/exporters/prometheus"
	sdkmetric "go.opentelemetry.io/otel/sdk/metric"
	"go.opentelemetry.io/otel/sdk/metric/metricdata"
)

// point is one series as the SDK aggregated it: Value for a counter,
// Count, Sum, Bounds and Buckets for a histogram.
type point struct {
	Value   int64
	Count   uint64
	Sum     float64
	Bounds  []float64
	Buckets []uint64
}

// points maps "metric{k=v,...}" (keys sorted) to its point.
type points map[string]point

// sdkObserver returns an Observer on a real SDK MeterProvider and the
// ManualReader that reads it.
func sdkObserver(tb testing.TB, opts ...dstsafeotel.Option) (*dstsafeotel.Observer, *sdkmetric.ManualReader) {
	tb.Helper()
	r := sdkmetric.NewManualReader()
	mp := sdkmetric.NewMeterProvider(sdkmetric.WithReader(r))
	tb.Cleanup(func() { _ = mp.Shutdown(context.Background()) })
	o, err := dstsafeotel.New(mp, opts...)
	require.NoError(tb, err)
	return o, r
}

// collect reads every series of the dstsafeotel scope from r.
func collect(tb testing.TB, r *sdkmetric.ManualReader) points {
	tb.Helper()
	var rm metricdata.ResourceMetrics
	require.NoError(tb, r.Collect(context.Background(), &rm))
	got := points{}
	for _, sm := range rm.ScopeMetrics {
		require.Equal(tb, dstsafeotel.ScopeName, sm.Scope.Name)
		for _, m := range sm.Metrics {
			switch d := m.Data.(type) {
			case metricdata.Sum[int64]:
				require.True(tb, d.IsMonotonic, m.Name)
				for _, dp := range d.DataPoints {
					got[series(m.Name, dp.Attributes.ToSlice())] = point{Value: dp.Value}
				}
			case metricdata.Histogram[float64]:
				for _, dp := range d.DataPoints {
					got[series(m.Name, dp.Attributes.ToSlice())] = point{Count: dp.Count, Sum: dp.Sum,
						Bounds: dp.Bounds, Buckets: dp.BucketCounts}
				}
			default:
				tb.Fatalf("%s: unexpected aggregation %T", m.Name, m.Data)
			}
		}
	}
	return got
}

// series names a series "metric{k=v,...}" with its keys sorted (the SDK's
// attribute.Set sorts them already; the sort keeps the test independent
// of that).
func series(name string, kvs []attribute.KeyValue) string {
	var s []string
	for _, kv := range kvs {
		s = append(s, string(kv.Key)+"="+kv.Value.Emit())
	}
	slices.Sort(s)
	return name + "{" + strings.Join(s, ",") + "}"
}

// counts keeps only the counter values of p, by series.
func (p points) counts() map[string]int64 {
	c := map[string]int64{}
	for k, v := range p {
		if v.Bounds == nil {
			c[k] = v.Value
		}
	}
	return c
}

// promObserver returns an Observer on an SDK MeterProvider whose reader is
// the Prometheus exporter, registered on a fresh registry, and a scrape
// function that returns the registry's text exposition as a Prometheus
// server would get it over HTTP.
func promObserver(tb testing.TB, opts ...dstsafeotel.Option) (*dstsafeotel.Observer, func() string) {
	tb.Helper()
	reg := prometheus.NewRegistry()
	exp, err := otelprom.New(otelprom.WithRegisterer(reg), otelprom.WithoutTargetInfo(), otelprom.WithoutScopeInfo())
	require.NoError(tb, err)
	mp := sdkmetric.NewMeterProvider(sdkmetric.WithReader(exp))
	tb.Cleanup(func() { _ = mp.Shutdown(context.Background()) })
	o, err := dstsafeotel.New(mp, opts...)
	require.NoError(tb, err)
	h := promhttp.HandlerFor(reg, promhttp.HandlerOpts{})
	return o, func() string {
		rec := httptest.NewRecorder()
		req := httptest.NewRequest(http.MethodGet, "/metrics", nil)
		req.Header.Set("Accept", "text/plain")
		h.ServeHTTP(rec, req)
		require.Equal(tb, http.StatusOK, rec.Code)
		return rec.Body.String()
	}
}

// sdkAttributes returns every attribute of every data point r reads.
func sdkAttributes(tb testing.TB, r *sdkmetric.ManualReader) []attribute.KeyValue {
	tb.Helper()
	var rm metricdata.ResourceMetrics
	require.NoError(tb, r.Collect(context.Background(), &rm))
	var kvs []attribute.KeyValue
	for _, sm := range rm.ScopeMetrics {
		for _, m := range sm.Metrics {
			switch d := m.Data.(type) {
			case metricdata.Sum[int64]:
				for _, dp := range d.DataPoints {
					kvs = append(kvs, dp.Attributes.ToSlice()...)
				}
			case metricdata.Histogram[float64]:
				for _, dp := range d.DataPoints {
					kvs = append(kvs, dp.Attributes.ToSlice()...)
				}
			}
		}
	}
	return kvs
}

package dstsafeotel_test

import (
	"context"
	"errors"
	"math"
	"os"
	"os/exec"
	"strings"
	"testing"
	"time"

	"github.com/dstsafe/dstsafe"
	"github.com/dstsafe/dstsafe/dstsafeotel"
	"github.com/dstsafe/dstsafe/event"
	"github.com/stretchr/testify/require"
	"go.opentelemetry.io/otel"
	"go.opentelemetry.io/otel/metric"
	"go.opentelemetry.io/otel/metric/noop"
	sdkmetric "go.opentelemetry.io/otel/sdk/metric"
)

// hist is a histogram point with only its count and sum (the buckets are
// TestBuckets').
func hist(count uint64, sum float64) point { return point{Count: count, Sum: sum} }

func (p points) withoutBuckets() points {
	q := points{}
	for k, v := range p {
		v.Bounds, v.Buckets = nil, nil
		q[k] = v
	}
	return q
}

// Each row is one event of a real night, alone on a fresh Observer, and
// every series it must leave behind, written from the package overview's
// table.
func TestObserve(t *testing.T) {
	chicago := func(s string) time.Time { // an instant, written with its offset
		at, err := time.Parse(time.RFC3339, s)
		require.NoError(t, err)
		return at
	}
	tests := []struct {
		name string
		e    dstsafe.Event
		want points
	}{
		{
			// 2024-11-03 01:30 CDT, the first of the two 01:30s: the
			// billing job comes due...
			name: "due in a fold",
			e: dstsafe.Event{Type: event.Due, Job: "billing", Period: "2024-11-03T01:30", Kind: dstsafe.Fold,
				Due: chicago("2024-11-03T01:30:00-05:00"), At: chicago("2024-11-03T01:30:00-05:00")},
			want: points{"dstsafe.events{event=due,job=billing,kind=fold}": {Value: 1}},
		},
		{
			// ...is claimed...
			name: "claimed",
			e: dstsafe.Event{Type: event.Claimed, Job: "billing", Period: "2024-11-03T01:30", Kind: dstsafe.Fold,
				Attempt: 1},
			want: points{"dstsafe.events{event=claimed,job=billing,kind=fold}": {Value: 1}},
		},
		{
			// ...starts 250 ms after its instant...
			name: "started 250 ms late",
			e: dstsafe.Event{Type: event.Started, Job: "billing", Period: "2024-11-03T01:30", Kind: dstsafe.Fold,
				Late: 250 * time.Millisecond, Attempt: 1},
			want: points{
				"dstsafe.events{event=started,job=billing,kind=fold}": {Value: 1},
				"dstsafe.run.lateness{job=billing,kind=fold}":         hist(1, 0.25),
			},
		},
		{
			// ...and charges everyone in 42 s.
			name: "succeeded in 42 s",
			e: dstsafe.Event{Type: event.Succeeded, Job: "billing", Period: "2024-11-03T01:30", Kind: dstsafe.Fold,
				Duration: 42 * time.Second, Attempt: 1},
			want: points{
				"dstsafe.events{event=succeeded,job=billing,kind=fold}":         {Value: 1},
				"dstsafe.runs{job=billing,kind=fold,outcome=succeeded}":         {Value: 1},
				"dstsafe.run.duration{job=billing,kind=fold,outcome=succeeded}": hist(1, 42),
			},
		},
		{
			// The second replica finds 01:30 claimed.
			name: "claimed elsewhere",
			e: dstsafe.Event{Type: event.ClaimedElsewhere, Job: "billing", Period: "2024-11-03T01:30",
				Kind: dstsafe.Fold},
			want: points{
				"dstsafe.events{event=claimed-elsewhere,job=billing,kind=fold}": {Value: 1},
				"dstsafe.runs{job=billing,kind=fold,outcome=claimed-elsewhere}": {Value: 1},
			},
		},
		{
			// 2024-03-10 02:30 never happens in Chicago: the fixed-time job
			// runs at 03:30 CDT and fails after 1.5 s.
			name: "failed in a gap",
			e: dstsafe.Event{Type: event.Failed, Job: "report", Period: "2024-03-10T02:30", Kind: dstsafe.Gap,
				Duration: 1500 * time.Millisecond, Err: errors.New("smtp: 421 try later"), Attempt: 1},
			want: points{
				"dstsafe.events{event=failed,job=report,kind=gap}":         {Value: 1},
				"dstsafe.runs{job=report,kind=gap,outcome=failed}":         {Value: 1},
				"dstsafe.run.duration{job=report,kind=gap,outcome=failed}": hist(1, 1.5),
			},
		},
		{
			// A paused job's period on an ordinary day is skipped.
			name: "skipped while paused",
			e: dstsafe.Event{Type: event.Skipped, Job: "report", Period: "2024-03-11T02:30", Kind: dstsafe.Unique,
				Reason: "paused", Late: time.Hour},
			want: points{
				"dstsafe.events{event=skipped,job=report,kind=unique}": {Value: 1},
				"dstsafe.runs{job=report,kind=unique,outcome=skipped}": {Value: 1},
			},
		},
		{
			// A run whose heartbeat could not reach the ledger.
			name: "lease lost",
			e: dstsafe.Event{Type: event.LeaseLost, Job: "sync", Period: "2024-11-03T01:15", Kind: dstsafe.Fold,
				Err: dstsafe.ErrLeaseLost, Attempt: 2},
			want: points{
				"dstsafe.events{event=lease-lost,job=sync,kind=fold}": {Value: 1},
				"dstsafe.runs{job=sync,kind=fold,outcome=lease-lost}": {Value: 1},
			},
		},
		{
			// A catch-up after 3 h of downtime: late, not yet started (the
			// event.Started that follows records the lateness).
			name: "late",
			e: dstsafe.Event{Type: event.Late, Job: "sync", Period: "2024-06-01T09:00", Kind: dstsafe.Unique,
				Late: 3 * time.Hour},
			want: points{"dstsafe.events{event=late,job=sync,kind=unique}": {Value: 1}},
		},
		{
			// An operator pauses billing: no period, so no kind.
			name: "paused",
			e:    dstsafe.Event{Type: event.Paused, Job: "billing", Reason: "INC-2291 double charges"},
			want: points{"dstsafe.events{event=paused,job=billing}": {Value: 1}},
		},
		{
			name: "resumed",
			e:    dstsafe.Event{Type: event.Resumed, Job: "billing", Reason: "fixed in v2.3.1"},
			want: points{"dstsafe.events{event=resumed,job=billing}": {Value: 1}},
		},
		{
			// A type the core does not define is still counted, once.
			name: "invalid type",
			e:    dstsafe.Event{Type: 0, Job: "billing", Kind: dstsafe.Unique},
			want: points{"dstsafe.events{event=invalid,job=billing,kind=unique}": {Value: 1}},
		},
		{
			// Negative durations (a clock stepped back) count as 0.
			name: "negative duration",
			e: dstsafe.Event{Type: event.Succeeded, Job: "billing", Kind: dstsafe.Unique,
				Duration: -time.Second},
			want: points{
				"dstsafe.events{event=succeeded,job=billing,kind=unique}":         {Value: 1},
				"dstsafe.runs{job=billing,kind=unique,outcome=succeeded}":         {Value: 1},
				"dstsafe.run.duration{job=billing,kind=unique,outcome=succeeded}": hist(1, 0),
			},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			o, r := sdkObserver(t)
			o.Observe(tt.e)
			require.Equal(t, tt.want, collect(t, r).withoutBuckets())
		})
	}
}

// spec is what one event must record, by the package overview's table,
// written separately from Observe's switch so that the sweep compares two
// readings of the table.
func spec(e dstsafe.Event) points {
	kind := ""
	if e.Kind == dstsafe.Unique || e.Kind == dstsafe.Fold || e.Kind == dstsafe.Gap {
		kind = ",kind=" + e.Kind.String()
	}
	name := e.Type.String()
	p := points{"dstsafe.events{event=" + name + ",job=" + e.Job + kind + "}": {Value: 1}}
	outcome := map[event.Type]bool{event.Succeeded: true, event.Failed: true,
		event.Skipped: true, event.ClaimedElsewhere: true, event.LeaseLost: true}
	if outcome[e.Type] {
		p["dstsafe.runs{job="+e.Job+kind+",outcome="+name+"}"] = point{Value: 1}
	}
	if e.Type == event.Succeeded || e.Type == event.Failed {
		p["dstsafe.run.duration{job="+e.Job+kind+",outcome="+name+"}"] = hist(1, e.Duration.Seconds())
	}
	if e.Type == event.Started {
		p["dstsafe.run.lateness{job="+e.Job+kind+"}"] = hist(1, e.Late.Seconds())
	}
	return p
}

// Every event.Type, defined or not, with every Kind, defined or not, on one
// Observer: the sum of what each records alone.
func TestObserveEveryTypeAndKind(t *testing.T) {
	o, r := sdkObserver(t)
	want := points{}
	n := 0
	for typ := event.Type(0); typ <= event.ZoneData+1; typ++ {
		for _, kind := range []dstsafe.Kind{0, dstsafe.Unique, dstsafe.Fold, dstsafe.Gap, 7} {
			n++
			// Distinct durations so that a sum from the wrong series shows.
			e := dstsafe.Event{Type: typ, Job: "job", Kind: kind, Late: time.Duration(n) * time.Second,
				Duration: time.Duration(n) * time.Millisecond}
			o.Observe(e)
			want.add(spec(e))
		}
	}
	got := collect(t, r)
	requireTotals(t, want, got)
	// Every type (0 and the first past the last invalid) × 5 kinds (0 and
	// 7 with no kind attribute): one event each.
	require.Equal(t, int64(n), sum(got, "dstsafe.events"))
	require.Equal(t, int64(5*5), sum(got, "dstsafe.runs"))
}

// add adds q's counts and sums into p.
func (p points) add(q points) {
	for k, v := range q {
		w := p[k]
		w.Value += v.Value
		w.Count += v.Count
		w.Sum += v.Sum
		p[k] = w
	}
}

// requireTotals checks that got has exactly want's series, with its
// counter values, histogram counts and sums (to rounding).
func requireTotals(tb testing.TB, want, got points) {
	tb.Helper()
	require.Len(tb, got, len(want))
	for k, w := range want {
		g, ok := got[k]
		require.True(tb, ok, "missing %s", k)
		require.Equal(tb, w.Value, g.Value, k)
		require.Equal(tb, w.Count, g.Count, k)
		require.InDelta(tb, w.Sum, g.Sum, 1e-9*max(1, w.Sum), k)
	}
}

func sum(p points, metric string) int64 {
	var n int64
	for k, v := range p {
		if len(k) > len(metric) && k[:len(metric)+1] == metric+"{" {
			n += v.Value
		}
	}
	return n
}

// The histograms advise the documented boundaries, or the ones given.
func TestBuckets(t *testing.T) {
	started := dstsafe.Event{Type: event.Started, Job: "j", Kind: dstsafe.Unique, Late: 90 * time.Second}
	done := dstsafe.Event{Type: event.Succeeded, Job: "j", Kind: dstsafe.Unique, Duration: 2 * time.Second}
	const lateness = "dstsafe.run.lateness{job=j,kind=unique}"
	const duration = "dstsafe.run.duration{job=j,kind=unique,outcome=succeeded}"

	t.Run("defaults", func(t *testing.T) {
		o, r := sdkObserver(t)
		o.Observe(started)
		o.Observe(done)
		got := collect(t, r)
		// The package overview's lists: 1 ms .. 1 day, 5 ms .. 1 h.
		require.Equal(t, []float64{0.001, 0.01, 0.1, 0.5, 1, 5, 15, 60, 300, 900, 3600, 14400, 86400},
			got[lateness].Bounds)
		require.Equal(t, []float64{0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60, 300, 900, 3600},
			got[duration].Bounds)
		// 90 s falls in (60, 300]; 2 s in (1, 2.5].
		require.Equal(t, uint64(1), got[lateness].Buckets[8])
		require.Equal(t, uint64(1), got[duration].Buckets[8])
	})
	t.Run("given", func(t *testing.T) {
		o, r := sdkObserver(t, nil, dstsafeotel.WithLatenessBuckets(60, 3600), dstsafeotel.WithDurationBuckets(1, 10))
		o.Observe(started)
		o.Observe(done)
		got := collect(t, r)
		require.Equal(t, []float64{60, 3600}, got[lateness].Bounds)
		require.Equal(t, []uint64{0, 1, 0}, got[lateness].Buckets)
		require.Equal(t, []float64{1, 10}, got[duration].Bounds)
		require.Equal(t, []uint64{0, 1, 0}, got[duration].Buckets)
	})
	t.Run("none means the default", func(t *testing.T) {
		o, r := sdkObserver(t, dstsafeotel.WithLatenessBuckets(), dstsafeotel.WithDurationBuckets(nil...))
		o.Observe(started)
		o.Observe(done)
		got := collect(t, r)
		require.Len(t, got[lateness].Bounds, 13)
		require.Len(t, got[duration].Bounds, 16)
	})
	t.Run("the caller's slice is copied", func(t *testing.T) {
		b := []float64{1, 10}
		opt := dstsafeotel.WithDurationBuckets(b...)
		b[0] = 100 // after the option, before New: New must not see it
		o, r := sdkObserver(t, opt)
		o.Observe(done)
		require.Equal(t, []float64{1, 10}, collect(t, r)[duration].Bounds)
	})
	for _, bad := range [][]float64{{1, 1}, {10, 1}, {math.NaN()}, {1, math.Inf(1)}, {math.Inf(-1), 0}} {
		for name, opt := range map[string]dstsafeotel.Option{
			"duration": dstsafeotel.WithDurationBuckets(bad...),
			"lateness": dstsafeotel.WithLatenessBuckets(bad...),
		} {
			o, err := dstsafeotel.New(sdkmetric.NewMeterProvider(), opt)
			require.ErrorIs(t, err, dstsafeotel.ErrBuckets, "%s %v", name, bad)
			require.Nil(t, o)
		}
	}
}

// New(nil) records on the global provider, even one set after it. otel's
// global provider hands its instruments over to the first provider set,
// once per process, so the check runs in a child process of its own:
// under -count=2 a second run in this one would find the hand-over done.
func TestNewNilProvider(t *testing.T) {
	if os.Getenv("DSTSAFEOTEL_GLOBAL_CHILD") != "1" {
		cmd := exec.Command(os.Args[0], "-test.run=^TestNewNilProvider$", "-test.count=1")
		cmd.Env = append(os.Environ(), "DSTSAFEOTEL_GLOBAL_CHILD=1")
		out, err := cmd.CombinedOutput()
		require.NoError(t, err, "%s", out)
		require.Contains(t, string(out), "PASS")
		return
	}
	prev := otel.GetMeterProvider()
	t.Cleanup(func() { otel.SetMeterProvider(prev) })

	before, err := dstsafeotel.New(nil)
	require.NoError(t, err)
	r := sdkmetric.NewManualReader()
	mp := sdkmetric.NewMeterProvider(sdkmetric.WithReader(r))
	t.Cleanup(func() { _ = mp.Shutdown(context.Background()) })
	otel.SetMeterProvider(mp)
	after, err := dstsafeotel.New(nil)
	require.NoError(t, err)

	before.Observe(dstsafe.Event{Type: event.Due, Job: "a", Kind: dstsafe.Unique})
	after.Observe(dstsafe.Event{Type: event.Due, Job: "b", Kind: dstsafe.Unique})
	require.Equal(t, map[string]int64{
		"dstsafe.events{event=due,job=a,kind=unique}": 1,
		"dstsafe.events{event=due,job=b,kind=unique}": 1,
	}, collect(t, r).counts())
}

// A provider that refuses an instrument makes New fail, with the
// provider's error wrapped. (The SDK refuses only invalid names, and
// merely logs a view's invalid buckets, so a provider of the API's own
// noop kind that refuses histograms stands in.)
func TestNewProviderRefuses(t *testing.T) {
	o, err := dstsafeotel.New(refusingProvider{})
	require.ErrorIs(t, err, errRefused)
	require.True(t, strings.HasPrefix(err.Error(), "dstsafeotel: "), err.Error())
	require.Nil(t, o)
}

var errRefused = errors.New("no histograms here")

type refusingProvider struct{ noop.MeterProvider }

func (refusingProvider) Meter(string, ...metric.MeterOption) metric.Meter { return refusingMeter{} }

type refusingMeter struct{ noop.Meter }

func (refusingMeter) Float64Histogram(string, ...metric.Float64HistogramOption) (metric.Float64Histogram, error) {
	return noop.Float64Histogram{}, errRefused
}

// A nil or zero Observer records nothing and does not panic.
func TestZeroObserver(t *testing.T) {
	e := dstsafe.Event{Type: event.Succeeded, Job: "j", Kind: dstsafe.Unique, Duration: time.Second}
	var nilObs *dstsafeotel.Observer
	require.NotPanics(t, func() { nilObs.Observe(e) })
	require.NotPanics(t, func() { new(dstsafeotel.Observer).Observe(e) })
	var _ dstsafe.Observer = nilObs
}

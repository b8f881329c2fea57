package dstsafeotel_test

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"regexp"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/dstsafe/dstsafe"
	"github.com/dstsafe/dstsafe/dstsafetest"
	"github.com/dstsafe/dstsafe/event"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"go.opentelemetry.io/otel/sdk/metric/metricdata"
)

var (
	everyType = []event.Type{event.Due, event.Claimed, event.ClaimedElsewhere,
		event.Started, event.Succeeded, event.Failed, event.Skipped,
		event.LeaseLost, event.Late, event.Paused, event.Resumed, event.ClockSkew, event.ZoneData}
	everyKind = []dstsafe.Kind{dstsafe.Unique, dstsafe.Fold, dstsafe.Gap}
)

// nightEvents returns n events of every type and kind in turn, one job,
// each for a different period of a */15 job walked in real time through
// America/Chicago from 2024-11-02 (so across the fold), with every
// unbounded field distinct: period key, wall reading, due and start
// instants, reason, error (pauses and resumes without a period, as the
// core sends them). It returns the texts no attribute may hold.
func nightEvents(tb testing.TB, n int) ([]dstsafe.Event, []string) {
	tb.Helper()
	chicago := dstsafetest.Zone(tb, "America/Chicago")
	start := time.Date(2024, 11, 2, 12, 0, 0, 0, time.UTC) // 07:00 CDT, far from the transition
	var events []dstsafe.Event
	var secret []string
	for i := range n {
		due := start.Add(time.Duration(i) * 15 * time.Minute).In(chicago)
		// The offset makes the two 01:30s of the fold distinct keys, as
		// a periodic job's periods are.
		period := due.Format("2006-01-02T15:04-07:00")
		e := dstsafe.Event{
			Type:   everyType[i%len(everyType)],
			Job:    "sync",
			Period: period,
			Wall: dstsafe.Wall{Year: due.Year(), Month: due.Month(), Day: due.Day(), Hour: due.Hour(),
				Minute: due.Minute()},
			Kind:     everyKind[(i/len(everyType))%len(everyKind)],
			Due:      due,
			At:       due.Add(time.Duration(i) * time.Millisecond),
			Late:     time.Duration(i) * time.Millisecond,
			Duration: time.Duration(i) * time.Second,
			Attempt:  1 + i%3,
			Reason:   fmt.Sprintf("operator note %d", i),
			Err:      fmt.Errorf("upstream %d: %w", i, errors.ErrUnsupported),
		}
		secret = append(secret, e.Period, e.Wall.String(), e.Due.Format(time.RFC3339), e.At.Format(time.RFC3339Nano),
			e.Reason, e.Err.Error())
		if e.Type == event.Paused || e.Type == event.Resumed {
			// About the job, not a period (observer.go).
			e.Period, e.Wall, e.Kind, e.Due = "", dstsafe.Wall{}, 0, time.Time{}
		}
		events = append(events, e)
	}
	return events, secret
}

// No period, nor any other unbounded or free-text field of an Event,
// reaches an attribute: every key is one of the four documented, no value
// holds any of those texts, and 2,000 distinct periods leave exactly the
// series that one event of each (type, kind) leaves.
func TestNoPeriodInAttributes(t *testing.T) {
	events, secret := nightEvents(t, 2000)
	allowed := map[string]bool{"job": true, "kind": true, "event": true, "outcome": true}

	// One event of each (type, kind): the series a job can ever have.
	o1, r1 := sdkObserver(t)
	for _, e := range events[:len(everyType)*len(everyKind)] {
		o1.Observe(e)
	}
	few := slices.Sorted(maps.Keys(collect(t, r1)))
	require.Len(t, few, (len(everyType)-2)*len(everyKind)+2+ // dstsafe.events: paused, resumed have no kind
		5*len(everyKind)+ // dstsafe.runs
		len(everyKind)+ // dstsafe.run.lateness
		2*len(everyKind)) // dstsafe.run.duration

	o, r := sdkObserver(t)
	obs, scrape := promObserver(t)
	for _, e := range events {
		o.Observe(e)
		obs.Observe(e)
	}
	got := collect(t, r)
	require.Equal(t, few, slices.Sorted(maps.Keys(got)), "2,000 periods made series of their own")

	var values []string
	for _, kv := range sdkAttributes(t, r) {
		require.True(t, allowed[string(kv.Key)], "attribute %q", kv.Key)
		values = append(values, kv.Value.Emit())
	}
	text := scrape()
	labels := regexp.MustCompile(`([a-z_]+)="([^"]*)"`).FindAllStringSubmatch(text, -1)
	require.NotEmpty(t, labels)
	for _, l := range labels {
		require.True(t, allowed[l[1]] || l[1] == "le", "label %q in the scrape", l[1])
	}
	all := strings.Join(values, "\n")
	for _, s := range secret {
		if strings.Contains(all, s) || strings.Contains(text, s) {
			t.Fatalf("%q is in an attribute value", s)
		}
	}
	// The scrape has a line per series (and per bucket), not per period.
	require.Less(t, strings.Count(text, "\n"), 300)
}

// Observers are called from every job's goroutine at once: 8 goroutines,
// 3 jobs, every type and kind, 24,000 events, and every count adds up.
func TestObserveConcurrent(t *testing.T) {
	const goroutines, each = 8, 3000
	o, r := sdkObserver(t)
	events, _ := nightEvents(t, each)
	jobs := []string{"billing", "sync", "report"}
	var wg sync.WaitGroup
	for g := range goroutines {
		wg.Go(func() {
			for i, e := range events {
				e.Job = jobs[(g+i)%len(jobs)]
				o.Observe(e)
			}
		})
	}
	// Meanwhile a reader collects, as a Prometheus scrape would.
	wg.Go(func() {
		for range 20 {
			var rm metricdata.ResourceMetrics
			assert.NoError(t, r.Collect(context.Background(), &rm))
		}
	})
	wg.Wait()

	want := points{}
	for g := range goroutines {
		for i, e := range events {
			e.Job = jobs[(g+i)%len(jobs)]
			want.add(spec(e))
		}
	}
	got := collect(t, r)
	requireTotals(t, want, got)
	require.Equal(t, int64(goroutines*each), sum(got, "dstsafe.events"))
}

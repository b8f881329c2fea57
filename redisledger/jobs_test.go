package redisledger_test

import (
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/jonboulle/clockwork"

	"github.com/dstsafe/dstsafe"
	"github.com/dstsafe/dstsafe/internal/testkit"
	"github.com/dstsafe/dstsafe/redisledger"
)

// A ledger written by a dstsafe before the jobs set existed has its jobs
// only in its keys: the first Jobs finds them all by one SCAN (over more
// keys than one SCAN page), records them, and does not scan again. A
// prefix holding glob characters matches only itself, never a sibling
// prefix the pattern would otherwise cover.
func TestJobsOfLedgerWrittenBeforeTheSet(t *testing.T) {
	c := testClient(t)
	ctx := context.Background()
	base := testPrefix(t, c)
	prefix := base + "ops*[1]:"
	clock := clockwork.NewFakeClockAt(testkit.SuiteStart)
	old, err := redisledger.New(c, redisledger.WithKeyPrefix(prefix), redisledger.WithClock(clock))
	noErr(t, err, "New")
	var want []string
	for j := range 30 {
		job := fmt.Sprintf("tenant-%02d", j)
		want = append(want, job)
		for d := range 40 { // 2024-10-01 .. 2024-11-09: 1,200 records and 30 indexes
			period := dstsafe.Date{Year: 2024, Month: 10, Day: 1}.AddDays(d).String()
			if _, err := old.Claim(ctx, dstsafe.ClaimRequest{Job: job, Period: period, Owner: "w"}); err != nil {
				t.Fatal(err)
			}
		}
	}
	if _, err := old.SetPause(ctx, "export", dstsafe.Pause{Paused: true, By: "ops"}); err != nil {
		t.Fatal(err)
	}
	want = append(want, "export")
	slices.Sort(want)
	// A sibling prefix that "ops*[1]:" as a glob would match.
	sibling, err := redisledger.New(c, redisledger.WithKeyPrefix(base+"opsX1:"), redisledger.WithClock(clock))
	noErr(t, err, "New")
	if _, err := sibling.Claim(ctx, dstsafe.ClaimRequest{Job: "intruder", Period: "2024-11-03", Owner: "w"}); err != nil {
		t.Fatal(err)
	}
	// Before the set: delete it and its marker, as an old dstsafe left them.
	noErr(t, c.Del(ctx, prefix+"jobs", prefix+"jobs:scanned").Err(), "DEL")

	l, err := redisledger.New(c, redisledger.WithKeyPrefix(prefix))
	noErr(t, err, "New")
	got, err := l.Jobs(ctx)
	noErr(t, err, "Jobs")
	if !slices.Equal(got, want) {
		t.Fatalf("Jobs of a ledger written before the set = %v\nwant %v", got, want)
	}
	n, err := c.Exists(ctx, prefix+"jobs:scanned").Result()
	noErr(t, err, "EXISTS")
	if n != 1 {
		t.Errorf("the scan did not mark the set complete")
	}
	// Scanned once: a key written behind the set's back (an old replica,
	// after the scan) is not found by a second scan.
	noErr(t, c.Set(ctx, prefix+"{5:ghost}:pause", `{"paused":true,"by":"old","since":"2024-11-03T06:30:00Z"}`, 0).Err(), "SET")
	got, err = l.Jobs(ctx)
	noErr(t, err, "Jobs")
	if !slices.Equal(got, want) {
		t.Errorf("second Jobs = %v, want %v (no second scan)", got, want)
	}
}

// A registration written by a release from before job limits has no
// limit fields: it reads as no limits, and a registration of this release
// that says none keeps them so. Limits are stored under their documented
// fields, in UTC to the nanosecond, and left out when none.
func TestJobLimitsLayout(t *testing.T) {
	l, c, prefix, _ := newTestLedger(t)
	ctx := context.Background()
	const fp = "cron1;America/Chicago;2025b;first;shift;date;0;0;30 1 * * *"
	old := `{"schedule":"` + fp + `","spec":"CRON_TZ=America/Chicago 30 1 * * *","period_key":"date",` +
		`"zone":"America/Chicago","zone_data":"2025b","first_seen":"2024-11-01T12:00:00Z",` +
		`"last_seen":"2024-11-01T12:00:00Z","changed":"2024-11-01T12:00:00Z","owners":["billing-1"]}`
	noErr(t, c.Set(ctx, prefix+"{7:billing}:job", old, 0).Err(), "SET")
	info, err := l.LookupJob(ctx, "billing")
	noErr(t, err, "LookupJob of an old registration")
	if info.Limits != (dstsafe.JobLimits{}) || info.Schedule != fp {
		t.Fatalf("old registration read as %+v, want its schedule and no limits", info)
	}
	_, err = l.RegisterJob(ctx, dstsafe.JobRegistration{Job: "billing", Owner: "exec@host", Schedule: fp})
	noErr(t, err, "RegisterJob without limits")
	raw, err := c.Get(ctx, prefix+"{7:billing}:job").Result()
	noErr(t, err, "GET")
	for _, f := range []string{"max_runs", "bounds_start", "bounds_end"} {
		if strings.Contains(raw, `"`+f+`"`) {
			t.Errorf("a registration without limits stores %s: %s", f, raw)
		}
	}

	end := time.Date(2024, 12, 31, 23, 59, 59, 999_999_999, time.FixedZone("CST", -6*3600))
	_, err = l.RegisterJob(ctx, dstsafe.JobRegistration{Job: "billing", Owner: "billing-2", Schedule: fp,
		Limits: &dstsafe.JobLimits{MaxRuns: 2, End: end}})
	noErr(t, err, "RegisterJob with limits")
	raw, err = c.Get(ctx, prefix+"{7:billing}:job").Result()
	noErr(t, err, "GET")
	var v map[string]any
	noErr(t, json.Unmarshal([]byte(raw), &v), "registration is not JSON: %s", raw)
	if v["max_runs"] != float64(2) || v["bounds_end"] != "2025-01-01T05:59:59.999999999Z" {
		t.Errorf("stored limits: max_runs %v, bounds_end %v; want 2, 2025-01-01T05:59:59.999999999Z", v["max_runs"], v["bounds_end"])
	}
	if _, ok := v["bounds_start"]; ok {
		t.Errorf("an open start stored as %v", v["bounds_start"])
	}
}

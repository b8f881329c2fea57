package dstsafeui_test

import (
	"context"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/jonboulle/clockwork"

	"github.com/dstsafe/dstsafe"
	"github.com/dstsafe/dstsafe/dstsafeui"
)

// A job whose claims carry no fingerprint, registered in the ledger's
// JobRegistry: the pages take its schedule from the registration, and
// compute its missing periods from it.
func TestRegistrySchedule(t *testing.T) {
	ctx := context.Background()
	clock := clockwork.NewFakeClockAt(time.Date(2024, 11, 1, 12, 0, 0, 0, time.UTC))
	l := dstsafe.NewMemoryLedger(clock)
	c, err := dstsafe.ParseCron("CRON_TZ=America/Chicago 30 1 * * *")
	if err != nil {
		t.Fatal(err)
	}
	fp := fingerprint(t, c, 24*time.Hour)
	if _, err := l.RegisterJob(ctx, dstsafe.JobRegistration{Job: "billing", Owner: "replica-a", Schedule: fp,
		Spec: "CRON_TZ=America/Chicago 30 1 * * *", PeriodKey: "wall", Zone: "America/Chicago"}); err != nil {
		t.Fatal(err)
	}
	// Only 2024-11-02 has a record, made without a fingerprint.
	r, err := l.Claim(ctx, dstsafe.ClaimRequest{Job: "billing", Period: "2024-11-02T01:30:00", Owner: "replica-a"})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := l.Finish(ctx, "billing", r.Period, r.Token, dstsafe.StateSucceeded, ""); err != nil {
		t.Fatal(err)
	}
	// The maintenance counter WithMaxRuns keeps is no job of its own.
	if r, err = l.Claim(ctx, dstsafe.ClaimRequest{Job: "billing/max-runs", Period: "0", Owner: "replica-a"}); err != nil {
		t.Fatal(err)
	}
	clock.Advance(time.Date(2024, 11, 4, 18, 0, 0, 0, time.UTC).Sub(clock.Now())) // 12:00 CST on the 4th
	h := dstsafeui.Handler(l, dstsafeui.Options{Clock: clock})

	jobs := local.do(h, "GET", "/", nil).Body.String()
	if strings.Contains(jobs, "max-runs") {
		t.Errorf("the jobs page lists the internal billing/max-runs key")
	}
	// Due by 2024-11-04 12:00 CST since 2024-11-01: the 1st (01:30 CDT,
	// before the clock's start but in the window), 2nd, 3rd (once), 4th.
	body := local.do(h, "GET", "/audit?job=billing&from=2024-11-01&to=2024-11-05", nil).Body.String()
	for _, want := range []string{`data-period="2024-11-01T01:30:00" data-state="missing"`, `data-period="2024-11-03T01:30:00" data-state="missing"`,
		`data-period="2024-11-04T01:30:00" data-state="missing"`} {
		if !strings.Contains(body, want) {
			t.Errorf("audit page lacks %s", want)
		}
	}
	if strings.Contains(body, `data-period="2024-11-02T01:30:00"`) || strings.Count(body, `data-state="missing"`) != 3 {
		t.Errorf("audit page: want 3 missing periods and none for the succeeded 2024-11-02:\n%s", body)
	}
	if !strings.Contains(body, "CRON_TZ=America/Chicago 30 1 * * *") {
		t.Errorf("audit page does not show the registered spec")
	}
	if job := local.do(h, "GET", "/job?name=billing", nil).Body.String(); !strings.Contains(job, `<p class="sub" id="owners">registered by replica-a · first seen 2024-11-01 12:00:00 UTC`) {
		t.Errorf("job page does not show the registration's owners:\n%s", job)
	}
}

// Skip records a missing period as skipped by the UI's operator, and a
// retry of a succeeded one is refused (409) and changes nothing.
func TestSkipAndRefusedRetry(t *testing.T) {
	l, clock := memFilled(t)
	h := dstsafeui.Handler(l, dstsafeui.Options{Clock: clock, AllowActions: true, By: "ops@bastion"})
	// The missing period's page, from the schedule of the job's records.
	page := local.do(h, "GET", "/period?job=billing&period=2024-11-08T01%3A30%3A00", nil)
	if body := page.Body.String(); page.Code != 200 || !strings.Contains(body, `id="period-state">missing<`) || !strings.Contains(body, `id="skip"`) {
		t.Fatalf("billing 2024-11-08's page: %d, want a missing period with a skip form\n%s", page.Code, body)
	}
	c, token := session(t, h, local, "/job?name=billing")
	rec := c.do(h, "POST", "/action", url.Values{"action": {"skip"}, "job": {"billing"}, "period": {"2024-11-08T01:30:00"},
		"reason": {"charged by hand"}, "csrf": {token}})
	if rec.Code != 303 {
		t.Fatalf("skip: %d\n%s", rec.Code, rec.Body)
	}
	r, err := l.Get(context.Background(), "billing", "2024-11-08T01:30:00")
	if err != nil || r.State != dstsafe.StateSkipped || r.Owner != "ops@bastion" || r.Reason != "charged by hand" {
		t.Errorf("after skip: %+v, %v", r, err)
	}
	rec = c.do(h, "POST", "/action", url.Values{"action": {"retry"}, "job": {"billing"}, "period": {"2024-11-03T01:30:00"},
		"reason": {"again"}, "csrf": {token}})
	if rec.Code != 409 {
		t.Errorf("retry of a succeeded period: %d, want 409", rec.Code)
	}
	if r, _ := l.Get(context.Background(), "billing", "2024-11-03T01:30:00"); r.Released || r.State != dstsafe.StateSucceeded || r.Attempt != 1 {
		t.Errorf("after a refused retry: %+v", r)
	}
}

// fingerprint is the fingerprint a Scheduler claims c's periods with,
// simulated for d from 2024-01-01 00:00 UTC (d must hold a period).
func fingerprint(t *testing.T, c *dstsafe.Cron, d time.Duration) string {
	clock := clockwork.NewFakeClockAt(time.Date(2024, 1, 1, 0, 0, 0, 0, time.UTC))
	l := dstsafe.NewMemoryLedger(clock)
	s := dstsafe.NewScheduler(dstsafe.WithClock(clock), dstsafe.WithLedger(l))
	if err := s.Add("x", c, func(context.Context, dstsafe.Run) error { return nil }); err != nil {
		t.Fatal(err)
	}
	if _, err := dstsafe.Simulate(context.Background(), s, d); err != nil {
		t.Fatal(err)
	}
	recs, _ := l.List(context.Background(), "x", "", "")
	if len(recs) == 0 || recs[0].Schedule == "" {
		t.Fatal("no fingerprint")
	}
	return recs[0].Schedule
}

// A range of more than 100,000 periods is refused with a 400 that asks
// for a shorter one: 70 days of a per-minute job are 100,800.
func TestPageBound(t *testing.T) {
	ctx := context.Background()
	clock := clockwork.NewFakeClockAt(time.Date(2024, 1, 1, 0, 0, 0, 0, time.UTC))
	l := dstsafe.NewMemoryLedger(clock)
	c, err := dstsafe.ParseCron("* * * * *")
	if err != nil {
		t.Fatal(err)
	}
	r, err := l.Claim(ctx, dstsafe.ClaimRequest{Job: "minutely", Period: "2024-01-01T00:00:00", Owner: "a", Schedule: fingerprint(t, c, time.Minute)})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := l.Finish(ctx, "minutely", r.Period, r.Token, dstsafe.StateSucceeded, ""); err != nil {
		t.Fatal(err)
	}
	h := dstsafeui.Handler(l, dstsafeui.Options{Clock: clock})
	if rec := local.do(h, "GET", "/job?name=minutely&from=2024-01-01&to=2024-03-11", nil); rec.Code != 400 || !strings.Contains(rec.Body.String(), "more than 100000 periods") {
		t.Errorf("70 days of a per-minute job (100,800 periods): %d, want 400 saying more than 100000\n%s", rec.Code, rec.Body)
	}
	if rec := local.do(h, "GET", "/job?name=minutely&from=2024-01-01&to=2024-01-02", nil); rec.Code != 200 {
		t.Errorf("a day of it: %d, want 200", rec.Code)
	}
}

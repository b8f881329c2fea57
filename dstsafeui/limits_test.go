package dstsafeui_test

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/jonboulle/clockwork"

	"github.com/dstsafe/dstsafe"
	"github.com/dstsafe/dstsafe/dstsafeui"
)

// The job page shows the limits the job was registered with, in the
// schedule's zone: two runs from the second 01:00 of the Chicago
// fall-back night (07:00Z, 01:00 CST); none shown for a job without.
func TestJobPageLimits(t *testing.T) {
	ctx := context.Background()
	clock := clockwork.NewFakeClockAt(time.Date(2024, 11, 1, 12, 0, 0, 0, time.UTC))
	l := dstsafe.NewMemoryLedger(clock)
	c, err := dstsafe.ParseCron("CRON_TZ=America/Chicago 30 1 * * *")
	if err != nil {
		t.Fatal(err)
	}
	fp := fingerprint(t, c, 24*time.Hour)
	for job, lim := range map[string]*dstsafe.JobLimits{
		"billing": {MaxRuns: 2, Start: time.Date(2024, 11, 3, 7, 0, 0, 0, time.UTC)},
		"report":  nil,
	} {
		if _, err := l.RegisterJob(ctx, dstsafe.JobRegistration{Job: job, Owner: "replica-a", Schedule: fp,
			Spec: "CRON_TZ=America/Chicago 30 1 * * *", PeriodKey: "wall", Zone: "America/Chicago", Limits: lim}); err != nil {
			t.Fatal(err)
		}
	}
	h := dstsafeui.Handler(l, dstsafeui.Options{Clock: clock})
	want := `<p class="sub" id="limits">limits, both ends included: max runs 2 · from 2024-11-03 01:00:00 CST (-06:00)</p>`
	if page := local.do(h, "GET", "/job?name=billing", nil).Body.String(); !strings.Contains(page, want) {
		t.Errorf("billing's page lacks %s:\n%s", want, page)
	}
	if page := local.do(h, "GET", "/job?name=report", nil).Body.String(); strings.Contains(page, `id="limits"`) {
		t.Errorf("report's page shows limits it was not registered with:\n%s", page)
	}
}

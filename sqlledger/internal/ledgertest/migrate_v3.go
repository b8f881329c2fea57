package ledgertest

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/jonboulle/clockwork"

	"github.com/dstsafe/dstsafe"
	"github.com/dstsafe/dstsafe/sqlledger"
)

// A database at schema version 3 (the release before job limits), with
// the billing job registered, is upgraded in place by replicas starting
// at once. Until then the new release's registry calls fail with
// ErrNotMigrated (permanent) while claims work; after it the
// registration is what it was, with no limits, and limits registered
// then are kept to the nanosecond. A replica still on version 3 writes
// only its own columns: a job it registers has no limits, and one it
// registers again keeps the limits stored.
func testMigrateUpgradeV3(t *testing.T, b Backend) {
	ctx := context.Background()
	first := time.Date(2024, 11, 1, 12, 0, 0, 0, time.UTC)
	clock := clockwork.NewFakeClockAt(time.Date(2024, 11, 3, 6, 30, 0, 0, time.UTC)) // 01:30 CDT
	old, tg := b.Unmigrated(t, sqlledger.WithClock(clock), AtVersion(3))
	if err := old.Migrate(ctx); err != nil {
		t.Fatalf("Migrate to version 3: %v", err)
	}
	ph, ts := "$%d", func(t time.Time) any { return t }
	if old.Dialect() == sqlledger.SQLite {
		ph, ts = "?%d", func(t time.Time) any { return t.UnixMicro() }
	}
	marks := func(n int) string {
		var m []string
		for i := 1; i <= n; i++ {
			m = append(m, fmt.Sprintf(ph, i))
		}
		return strings.Join(m, ", ")
	}
	// The statements version 3 registers with: its columns only.
	v3Insert := `INSERT INTO ` + old.Table() + `_jobs (job_name, schedule, spec, period_key, zone, zone_data,
    first_seen, last_seen, changed, owners, revision) VALUES (` + marks(11) + `)`
	v3Update := fmt.Sprintf(`UPDATE %s_jobs SET last_seen = %s, owners = %s, revision = revision + 1 WHERE job_name = %s`,
		old.Table(), fmt.Sprintf(ph, 1), fmt.Sprintf(ph, 2), fmt.Sprintf(ph, 3))
	const (
		fp   = "cron1;America/Chicago;2025b;first;shift;date;0;0;30 1 * * *"
		spec = "CRON_TZ=America/Chicago 30 1 * * *"
	)
	if _, err := old.DB().ExecContext(ctx, v3Insert, "billing", fp, spec, "date", "America/Chicago", "2025b",
		ts(first), ts(first), ts(first), `["billing-1"]`, int64(1)); err != nil {
		t.Fatalf("register as version 3 did: %v", err)
	}
	if err := old.Close(); err != nil {
		t.Fatal(err)
	}

	replicas := make([]*sqlledger.Ledger, 3)
	for i := range replicas {
		replicas[i] = b.open(t, tg, sqlledger.WithClock(clock))
	}
	l := replicas[0]
	_, err := l.LookupJob(ctx, "billing")
	if !errors.Is(err, sqlledger.ErrNotMigrated) || !errors.Is(err, dstsafe.ErrPermanent) {
		t.Fatalf("LookupJob on a version-3 database = %v, want ErrNotMigrated and ErrPermanent", err)
	}
	_, err = l.RegisterJob(ctx, dstsafe.JobRegistration{Job: "billing", Owner: "billing-2", Schedule: fp,
		Limits: &dstsafe.JobLimits{MaxRuns: 2}})
	if !errors.Is(err, sqlledger.ErrNotMigrated) {
		t.Fatalf("RegisterJob on a version-3 database = %v, want ErrNotMigrated", err)
	}
	if _, err := l.Claim(ctx, dstsafe.ClaimRequest{Job: "billing", Period: "2024-11-03", Owner: "billing-2", ID: "a"}); err != nil {
		t.Fatalf("Claim on a version-3 database: %v", err)
	}
	var wg sync.WaitGroup
	errs := make([]error, len(replicas))
	for i, r := range replicas {
		wg.Go(func() { errs[i] = r.Migrate(ctx) })
	}
	wg.Wait()
	for i, err := range errs {
		if err != nil {
			t.Fatalf("replica %d upgrading at once: %v", i, err)
		}
	}
	if v, err := l.Version(ctx); err != nil || v != 4 {
		t.Fatalf("Version after the upgrade = %d, %v; want 4", v, err)
	}
	info, err := replicas[1].LookupJob(ctx, "billing")
	if err != nil || info.Schedule != fp || info.Spec != spec || info.PeriodKey != "date" || info.Zone != "America/Chicago" ||
		info.ZoneData != "2025b" || !info.FirstSeen.Equal(first) || len(info.Owners) != 1 || info.Owners[0] != "billing-1" ||
		info.Limits != (dstsafe.JobLimits{}) {
		t.Fatalf("the version-3 registration after the upgrade = %+v, %v; want it as written, no limits", info, err)
	}

	// The first replica of the new release registers the job's limits:
	// the fall-back night's second 01:00 (07:00Z) a nanosecond late, to
	// the end of the year in Chicago (UTC-6).
	start := time.Date(2024, 11, 3, 7, 0, 0, 1, time.UTC)
	end := time.Date(2025, 1, 1, 5, 59, 59, 999_999_999, time.UTC)
	want := dstsafe.JobLimits{MaxRuns: 2, Start: start, End: end}
	chicago := time.FixedZone("CST", -6*3600)
	if _, err := replicas[2].RegisterJob(ctx, dstsafe.JobRegistration{Job: "billing", Owner: "billing-2", Schedule: fp,
		Limits: &dstsafe.JobLimits{MaxRuns: 2, Start: start, End: end.In(chicago)}}); err != nil {
		t.Fatalf("RegisterJob after the upgrade: %v", err)
	}
	if info, err := l.LookupJob(ctx, "billing"); err != nil || info.Limits != want {
		t.Fatalf("limits after the upgrade = %+v, %v; want %+v (UTC, to the nanosecond)", info.Limits, err, want)
	}

	// A replica still on version 3 registers the job again, and a job of
	// its own.
	clock.Advance(time.Minute)
	if _, err := l.DB().ExecContext(ctx, v3Update, ts(clock.Now()), `["billing-old","billing-2","billing-1"]`, "billing"); err != nil {
		t.Fatalf("register again as version 3 does: %v", err)
	}
	if _, err := l.DB().ExecContext(ctx, v3Insert, "report", fp, spec, "date", "America/Chicago", "2025b",
		ts(clock.Now()), ts(clock.Now()), ts(clock.Now()), `["billing-old"]`, int64(1)); err != nil {
		t.Fatalf("register as version 3 does: %v", err)
	}
	if info, err := l.LookupJob(ctx, "billing"); err != nil || info.Limits != want || info.Owners[0] != "billing-old" {
		t.Fatalf("billing after a version-3 replica registered it = %+v, %v; want the limits kept", info, err)
	}
	if info, err := l.LookupJob(ctx, "report"); err != nil || info.Limits != (dstsafe.JobLimits{}) {
		t.Fatalf("a job a version-3 replica registered = %+v, %v; want no limits", info, err)
	}
	if err := replicas[1].Migrate(ctx); err != nil {
		t.Fatal(err)
	}
	if info, err := l.LookupJob(ctx, "billing"); err != nil || info.Limits != want {
		t.Fatalf("LookupJob after a second Migrate = %+v, %v", info, err)
	}
}

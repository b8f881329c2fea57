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

func testMigrate(t *testing.T, b Backend) {
	ctx := context.Background()
	l, _ := b.Unmigrated(t)
	if v, err := l.Version(ctx); err != nil || v != 0 {
		t.Fatalf("Version before Migrate = %d, %v; want 0", v, err)
	}
	// Forgetting Migrate is an error that says so, not a lost claim.
	_, err := l.Claim(ctx, dstsafe.ClaimRequest{Job: "billing", Period: "2024-11-03", Owner: "w"})
	if !errors.Is(err, sqlledger.ErrNotMigrated) {
		t.Fatalf("Claim before Migrate = %v, want ErrNotMigrated", err)
	}
	if errors.Is(err, dstsafe.ErrAlreadyClaimed) {
		t.Fatalf("Claim before Migrate = %v, must not look like a refusal", err)
	}
	// Every replica runs Migrate at start-up, at the same time.
	var wg sync.WaitGroup
	errs := make([]error, 8)
	for i := range errs {
		wg.Go(func() { errs[i] = l.Migrate(ctx) })
	}
	wg.Wait()
	for i, err := range errs {
		if err != nil {
			t.Fatalf("concurrent Migrate %d: %v", i, err)
		}
	}
	if v, err := l.Version(ctx); err != nil || v != sqlledger.SchemaVersion {
		t.Fatalf("Version after Migrate = %d, %v; want %d", v, err, sqlledger.SchemaVersion)
	}
	if _, err := l.Claim(ctx, dstsafe.ClaimRequest{Job: "billing", Period: "2024-11-03", Owner: "w"}); err != nil {
		t.Fatalf("Claim after Migrate: %v", err)
	}
	// Migrating again keeps the records.
	if err := l.Migrate(ctx); err != nil {
		t.Fatal(err)
	}
	if _, err := l.Get(ctx, "billing", "2024-11-03"); err != nil {
		t.Fatalf("Get after a second Migrate: %v", err)
	}
}

func testMigrateSchemaTooNew(t *testing.T, b Backend) {
	ctx := context.Background()
	l, _ := b.Unmigrated(t)
	db := l.DB()
	if err := l.Migrate(ctx); err != nil {
		t.Fatal(err)
	}
	// A newer release migrated this database, then was rolled back.
	q := fmt.Sprintf(`INSERT INTO %s_schema (version, about, applied_at) VALUES (%d, 'from the future', %s)`,
		l.Table(), sqlledger.SchemaVersion+1, map[sqlledger.Dialect]string{sqlledger.SQLite: "0", sqlledger.PostgreSQL: "now()"}[l.Dialect()])
	if _, err := db.ExecContext(ctx, q); err != nil {
		t.Fatal(err)
	}
	if err := l.Migrate(ctx); !errors.Is(err, sqlledger.ErrSchemaTooNew) {
		t.Fatalf("Migrate on a newer schema = %v, want ErrSchemaTooNew", err)
	}
}

// A database migrated by the previous release (schema version 1), with
// records of every kind, is upgraded in place by every replica of the new
// release starting at once, each with its own pool: one applies version
// 2, the others find it done. The records keep what they had and read as
// no schedule, never released; a holder from before the upgrade still
// finishes its run; the new columns and the pause table then work.
func testMigrateUpgrade(t *testing.T, b Backend) {
	ctx := context.Background()
	clock := clockwork.NewFakeClockAt(time.Date(2024, 11, 3, 6, 30, 0, 0, time.UTC)) // 01:30 CDT
	old, tg := b.Unmigrated(t, sqlledger.WithClock(clock), AtVersion(1))
	if err := old.Migrate(ctx); err != nil {
		t.Fatalf("Migrate to version 1: %v", err)
	}
	if v, err := old.Version(ctx); err != nil || v != 1 {
		t.Fatalf("Version of the old database = %d, %v; want 1", v, err)
	}
	// Rows as version 1 wrote them: its columns only.
	ph, ts := "$%d", func(t time.Time) any { return t }
	if old.Dialect() == sqlledger.SQLite {
		ph, ts = "?%d", func(t time.Time) any { return t.UnixMicro() }
	}
	var marks []string
	for i := 1; i <= 10; i++ {
		marks = append(marks, fmt.Sprintf(ph, i))
	}
	insert := `INSERT INTO ` + old.Table() + ` (job_name, period, status, owner, token, attempt, started_at, finished_at, lease_until, reason)
VALUES (` + strings.Join(marks, ", ") + `)`
	t0 := clock.Now().Add(-24 * time.Hour)
	rows := []struct {
		period, status string
		finished       any
		reason         string
	}{
		{"2024-11-01", "succeeded", ts(t0.Add(time.Minute)), ""},
		{"2024-11-02", "failed", ts(t0.Add(time.Minute)), "card processor down"},
		{"2024-11-03", "running", nil, ""}, // claimed at 01:30 CDT, its holder still running
	}
	for i, r := range rows {
		started := t0.Add(time.Duration(i) * 24 * time.Hour)
		if _, err := old.DB().ExecContext(ctx, insert, "billing", r.period, r.status, "billing-1", int64(1), 1,
			ts(started), r.finished, ts(started.Add(time.Hour)), r.reason); err != nil {
			t.Fatalf("insert a version-1 row: %v", err)
		}
	}
	if err := old.Close(); err != nil {
		t.Fatal(err)
	}

	replicas := make([]*sqlledger.Ledger, 4)
	for i := range replicas {
		replicas[i] = b.open(t, tg, sqlledger.WithClock(clock))
	}
	if _, err := replicas[0].Get(ctx, "billing", "2024-11-01"); !errors.Is(err, sqlledger.ErrNotMigrated) {
		t.Fatalf("Get on a version-1 database = %v, want ErrNotMigrated", err)
	}
	var wg sync.WaitGroup
	errs := make([]error, len(replicas))
	for i, l := range replicas {
		wg.Go(func() { errs[i] = l.Migrate(ctx) })
	}
	wg.Wait()
	for i, err := range errs {
		if err != nil {
			t.Fatalf("replica %d upgrading at once: %v", i, err)
		}
	}
	l := replicas[1]
	if v, err := l.Version(ctx); err != nil || v != sqlledger.SchemaVersion {
		t.Fatalf("Version after the upgrade = %d, %v; want %d", v, err, sqlledger.SchemaVersion)
	}
	var steps int
	if err := l.DB().QueryRowContext(ctx, `SELECT COUNT(*) FROM `+l.Table()+`_schema`).Scan(&steps); err != nil || steps != sqlledger.SchemaVersion {
		t.Fatalf("%s_schema has %d rows, %v; want one per version (%d)", l.Table(), steps, err, sqlledger.SchemaVersion)
	}

	recs, err := l.List(ctx, "billing", "", "")
	if err != nil {
		t.Fatalf("List after the upgrade: %v", err)
	}
	want := []dstsafe.State{dstsafe.StateSucceeded, dstsafe.StateFailed, dstsafe.StateRunning}
	if len(recs) != len(want) {
		t.Fatalf("List after the upgrade: %d records, want %d: %+v", len(recs), len(want), recs)
	}
	for i, r := range recs {
		if r.Period != rows[i].period || r.State != want[i] || r.Owner != "billing-1" || r.Token != 1 || r.Reason != rows[i].reason ||
			r.Schedule != "" || r.Released || r.ReleasedBy != "" || r.ReleaseReason != "" {
			t.Errorf("record %d after the upgrade = %+v, want %s %s by billing-1, no schedule, not released", i, r, rows[i].period, want[i])
		}
	}
	// The holder from before the upgrade finishes its run.
	if f, err := replicas[2].Finish(ctx, "billing", "2024-11-03", 1, dstsafe.StateSucceeded, ""); err != nil || f.State != dstsafe.StateSucceeded {
		t.Fatalf("Finish by the holder from before the upgrade = %+v, %v", f, err)
	}
	// The failed period is released and taken over once; the new claim
	// keeps its schedule; pauses are kept.
	if r, err := l.Release(ctx, "billing", "2024-11-02", "ops", "processor back"); err != nil || !r.Released || r.Reason != "card processor down" {
		t.Fatalf("Release after the upgrade = %+v, %v", r, err)
	}
	const fp = "cron1;America/Chicago;2025b;first;shift;wall;0;0;30 1 * * *"
	r, err := replicas[3].Claim(ctx, dstsafe.ClaimRequest{Job: "billing", Period: "2024-11-02", Owner: "billing-2", Schedule: fp})
	if err != nil || r.Attempt != 2 || r.Schedule != fp || r.ReleasedBy != "ops" {
		t.Fatalf("takeover of the released period = %+v, %v; want attempt 2 with its schedule", r, err)
	}
	if p, err := l.SetPause(ctx, "billing", dstsafe.Pause{Paused: true, By: "ops"}); err != nil || !p.Paused {
		t.Fatalf("SetPause after the upgrade = %+v, %v", p, err)
	}
	if p, err := replicas[0].GetPause(ctx, "billing"); err != nil || !p.Paused || p.By != "ops" {
		t.Fatalf("GetPause through another replica = %+v, %v", p, err)
	}
	// Migrating again changes nothing.
	if err := replicas[0].Migrate(ctx); err != nil {
		t.Fatal(err)
	}
	if got, err := l.Get(ctx, "billing", "2024-11-02"); err != nil || got.Schedule != fp || got.Attempt != 2 {
		t.Fatalf("Get after a second Migrate = %+v, %v", got, err)
	}
}

// A database at schema version 2 (the release before claim IDs and the
// job registry), with a run in progress, is upgraded in place by
// replicas starting at once. Until then the new release's calls fail
// with ErrNotMigrated, which is permanent (never a claim lost or
// refused); after it the running holder finishes, its record reads as a
// claim without an ID, and claims with IDs and registrations work.
func testMigrateUpgradeV2(t *testing.T, b Backend) {
	ctx := context.Background()
	clock := clockwork.NewFakeClockAt(time.Date(2024, 11, 3, 6, 30, 0, 0, time.UTC)) // 01:30 CDT
	old, tg := b.Unmigrated(t, sqlledger.WithClock(clock), AtVersion(2))
	if err := old.Migrate(ctx); err != nil {
		t.Fatalf("Migrate to version 2: %v", err)
	}
	ph, ts := "$%d", func(t time.Time) any { return t }
	if old.Dialect() == sqlledger.SQLite {
		ph, ts = "?%d", func(t time.Time) any { return t.UnixMicro() }
	}
	var marks []string
	for i := 1; i <= 11; i++ {
		marks = append(marks, fmt.Sprintf(ph, i))
	}
	// The row version 2 wrote for a claim still running.
	insert := `INSERT INTO ` + old.Table() + ` (job_name, period, status, owner, token, attempt, started_at, finished_at, lease_until, reason, schedule)
VALUES (` + strings.Join(marks, ", ") + `)`
	const fp = "cron1;America/Chicago;2025b;first;shift;date;0;0;30 1 * * *"
	if _, err := old.DB().ExecContext(ctx, insert, "billing", "2024-11-03", "running", "billing-1", int64(1), 1,
		ts(clock.Now()), nil, ts(clock.Now().Add(time.Hour)), "", fp); err != nil {
		t.Fatalf("insert a version-2 row: %v", err)
	}
	if err := old.Close(); err != nil {
		t.Fatal(err)
	}

	replicas := make([]*sqlledger.Ledger, 3)
	for i := range replicas {
		replicas[i] = b.open(t, tg, sqlledger.WithClock(clock))
	}
	l := replicas[0]
	_, err := l.Claim(ctx, dstsafe.ClaimRequest{Job: "billing", Period: "2024-11-04", Owner: "billing-2", ID: "x"})
	if !errors.Is(err, sqlledger.ErrNotMigrated) || !errors.Is(err, dstsafe.ErrPermanent) {
		t.Fatalf("Claim on a version-2 database = %v, want ErrNotMigrated and ErrPermanent", err)
	}
	_, err = l.RegisterJob(ctx, dstsafe.JobRegistration{Job: "billing", Owner: "billing-2", Schedule: fp})
	if !errors.Is(err, sqlledger.ErrNotMigrated) {
		t.Fatalf("RegisterJob on a version-2 database = %v, want ErrNotMigrated", err)
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
	if v, err := l.Version(ctx); err != nil || v != sqlledger.SchemaVersion {
		t.Fatalf("Version after the upgrade = %d, %v; want %d", v, err, sqlledger.SchemaVersion)
	}
	got, err := l.Get(ctx, "billing", "2024-11-03")
	if err != nil || got.State != dstsafe.StateRunning || got.Owner != "billing-1" || got.ClaimID != "" || got.Schedule != fp {
		t.Fatalf("the version-2 record after the upgrade = %+v, %v; want running by billing-1, no claim ID, its schedule", got, err)
	}
	// A claim with an ID cannot pass for the old attempt, which had none.
	_, err = replicas[1].Claim(ctx, dstsafe.ClaimRequest{Job: "billing", Period: "2024-11-03", Owner: "billing-1", ID: "billing-1/2024-11-03"})
	if !errors.Is(err, dstsafe.ErrAlreadyClaimed) {
		t.Fatalf("a claim with an ID of the version-2 attempt = %v, want ErrAlreadyClaimed", err)
	}
	if _, err := replicas[2].Finish(ctx, "billing", "2024-11-03", 1, dstsafe.StateSucceeded, ""); err != nil {
		t.Fatalf("Finish by the holder from before the upgrade: %v", err)
	}
	req := dstsafe.ClaimRequest{Job: "billing", Period: "2024-11-04", Owner: "billing-2", ID: "billing-2/2024-11-04"}
	first, err := replicas[1].Claim(ctx, req)
	if err != nil {
		t.Fatal(err)
	}
	again, err := replicas[2].Claim(ctx, req)
	if err != nil || again.Token != first.Token || again.ClaimID != req.ID {
		t.Fatalf("retried claim after the upgrade = %+v, %v; want its own attempt (token %d)", again, err, first.Token)
	}
	info, err := replicas[1].RegisterJob(ctx, dstsafe.JobRegistration{Job: "billing", Owner: "billing-2", Schedule: fp})
	if err != nil || info.Schedule != fp {
		t.Fatalf("RegisterJob after the upgrade = %+v, %v", info, err)
	}
	if err := replicas[0].Migrate(ctx); err != nil {
		t.Fatal(err)
	}
	if info, err := l.LookupJob(ctx, "billing"); err != nil || info.Schedule != fp {
		t.Fatalf("LookupJob after a second Migrate = %+v, %v", info, err)
	}
}

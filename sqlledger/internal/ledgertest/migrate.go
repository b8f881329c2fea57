package ledgertest

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"testing"

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

package main

import (
	"context"
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"testing"
)

// openLedger creates the data directory and the ledger file, and migrates
// it; a second open (a restart, a second replica) finds it migrated.
func TestOpenLedger(t *testing.T) {
	ctx := context.Background()
	dir := filepath.Join(t.TempDir(), "data")
	for range 2 {
		ledger, err := openLedger(ctx, dir)
		if err != nil {
			t.Fatal(err)
		}
		if err := ledger.Close(); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := os.Stat(filepath.Join(dir, "ledger.db")); err != nil {
		t.Fatal(err)
	}
	// A directory that cannot be created: an error, never a nil ledger.
	file := filepath.Join(t.TempDir(), "file")
	if err := os.WriteFile(file, nil, 0o600); err != nil {
		t.Fatal(err)
	}
	l, err := openLedger(ctx, filepath.Join(file, "data"))
	var pe *fs.PathError
	if l != nil || !errors.As(err, &pe) {
		t.Fatalf("openLedger under a file = %v, %v; want a *fs.PathError", l, err)
	}
}

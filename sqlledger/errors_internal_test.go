package sqlledger

import (
	"context"
	"errors"
	"fmt"
	"io"
	"testing"

	"github.com/jackc/pgx/v5/pgconn"

	"github.com/dstsafe/dstsafe"
)

// mapErr on PostgreSQL's errors as pgx reports them, including those the
// test server (trust authentication) cannot produce.
func TestMapErrPostgres(t *testing.T) {
	tests := []struct {
		name       string
		err        error
		permanent  bool
		notMigrate bool
	}{
		{"undefined_table: never migrated", &pgconn.PgError{Code: "42P01"}, true, true},
		{"undefined_column: migrated by an older version", &pgconn.PgError{Code: "42703"}, true, true},
		{"invalid_password", &pgconn.PgError{Code: "28P01"}, true, false},
		{"no such role, pg_hba refused", &pgconn.PgError{Code: "28000"}, true, false},
		{"admin_shutdown: the server restarts", &pgconn.PgError{Code: "57P01"}, false, false},
		{"serialization_failure", &pgconn.PgError{Code: "40001"}, false, false},
		{"connection dropped mid-reply", io.ErrUnexpectedEOF, false, false},
		{"deadline", context.DeadlineExceeded, false, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			err := mapErr("claim", "billing", "2024-11-03", fmt.Errorf("driver: %w", tt.err))
			if got := errors.Is(err, dstsafe.ErrPermanent); got != tt.permanent {
				t.Errorf("errors.Is(%v, ErrPermanent) = %v, want %v", err, got, tt.permanent)
			}
			if got := errors.Is(err, ErrNotMigrated); got != tt.notMigrate {
				t.Errorf("errors.Is(%v, ErrNotMigrated) = %v, want %v", err, got, tt.notMigrate)
			}
			if !errors.Is(err, tt.err) {
				t.Errorf("%v does not wrap the driver's %v", err, tt.err)
			}
		})
	}
}

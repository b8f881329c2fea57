package main

import (
	"context"
	"fmt"
	"time"

	"github.com/dstsafe/dstsafe"
	"github.com/dstsafe/dstsafe/sqlledger"
)

// storeNow is the ledger store's own now, which a pause or resume is
// stamped with (Pause.Since): PostgreSQL's clock_timestamp(), Redis's
// TIME, and for SQLite the clock of the host that holds the file, as
// SQLite reads it (strftime 'now'), which is also the clock of every
// service writing that file. Never the CLI's clock: an operator's
// laptop or bastion that runs ahead would stamp a resume in the future,
// and every period due before that instant would be skipped as paused;
// one that runs behind would let periods due while the job was paused
// that no replica recorded run as catch-up.
func storeNow(ctx context.Context, l dstsafe.ControlLedger, f *ledgerFlags) (time.Time, error) {
	var (
		t   time.Time
		err error
	)
	switch {
	case f.redisClient != nil:
		t, err = f.redisClient.Time(ctx).Result()
	default:
		sl, ok := l.(*sqlledger.Ledger)
		if !ok {
			return time.Time{}, fmt.Errorf("reading the store's clock: %T is not a SQL ledger", l)
		}
		if sl.Dialect() == sqlledger.SQLite {
			var s string
			if err = sl.DB().QueryRowContext(ctx, `SELECT strftime('%Y-%m-%dT%H:%M:%fZ', 'now')`).Scan(&s); err == nil {
				t, err = time.Parse(time.RFC3339Nano, s)
			}
			break
		}
		err = sl.DB().QueryRowContext(ctx, `SELECT clock_timestamp()`).Scan(&t)
	}
	if err != nil {
		return time.Time{}, fmt.Errorf("reading the store's clock for the pause state: %w", err)
	}
	return t.UTC().Truncate(time.Microsecond), nil
}

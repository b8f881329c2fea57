package sqlledger_test

import (
	"fmt"
	"testing"

	"github.com/dstsafe/dstsafe/dstsafetest"
	"github.com/dstsafe/dstsafe/sqlledger"
)

// Claims per second at 1 and 8 workers. Targets on a 2-core machine:
// SQLite (WAL, synchronous NORMAL) >= 20,000/s; PostgreSQL >= 4,000/s at 8
// workers with durable commits (fsync and synchronous_commit on, as
// scripts/services.sh runs it). SQLite FULL is reported for reference.
func BenchmarkClaim(b *testing.B) {
	backends := []struct {
		name string
		open func(b *testing.B) *sqlledger.Ledger
	}{
		{"sqlite-normal", func(b *testing.B) *sqlledger.Ledger {
			l, _ := openSQLite(b, sqlledger.WithSynchronous(sqlledger.SyncNormal))
			return l
		}},
		{"sqlite-full", func(b *testing.B) *sqlledger.Ledger {
			l, _ := openSQLite(b)
			return l
		}},
		{"postgres", func(b *testing.B) *sqlledger.Ledger {
			db := pgDB(b)
			db.SetMaxIdleConns(8)
			return pgLedger(b, db)
		}},
	}
	for _, be := range backends {
		for _, workers := range []int{1, 8} {
			b.Run(fmt.Sprintf("%s/workers=%d", be.name, workers), func(b *testing.B) {
				dstsafetest.BenchmarkClaims(b, be.open(b), workers)
			})
		}
	}
}

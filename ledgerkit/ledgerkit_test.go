package ledgerkit_test

import (
	"testing"

	"github.com/jonboulle/clockwork"

	"github.com/dstsafe/dstsafe"
	"github.com/dstsafe/dstsafe/dstsafetest"
)

// The example's backend, built on the kit alone, passes the conformance
// suite, its closed store included: the kit is all a backend needs.
func TestTableLedger(t *testing.T) {
	dstsafetest.RunLedgerTests(t, func(t *testing.T, clock *clockwork.FakeClock) dstsafe.Ledger {
		return newTableLedger(clock)
	}, dstsafetest.WithBrokenLedger("closed store", func(t *testing.T, clock *clockwork.FakeClock) dstsafe.Ledger {
		l := newTableLedger(clock)
		l.db.Close()
		return l
	}))
}

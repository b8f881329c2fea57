package billing_test

import (
	"fmt"
	"path/filepath"
	"sync"
	"testing"

	"github.com/dstsafe/dstsafe/examples/billing/internal/billing"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestOpenSQLiteNewFileConcurrently opens one new file from 8 connections
// at once, 100 times: each open switches the file to WAL, which SQLite
// refuses with SQLITE_BUSY, without waiting, while another connection
// holds the file; OpenSQLite retries within the busy timeout, so every
// open succeeds. (The processes of TestConcurrentStartFreshDatabase do
// the same across processes.)
func TestOpenSQLiteNewFileConcurrently(t *testing.T) {
	const opens, rounds = 8, 100
	for round := range rounds {
		path := filepath.Join(t.TempDir(), fmt.Sprintf("r%d.db", round))
		errs := make([]error, opens)
		var wg sync.WaitGroup
		start := make(chan struct{})
		for i := range opens {
			wg.Go(func() {
				<-start
				db, err := billing.OpenSQLite(path)
				if err == nil {
					var mode string
					err = db.QueryRow(`PRAGMA journal_mode`).Scan(&mode)
					assert.Equal(t, "wal", mode)
					db.Close()
				}
				errs[i] = err
			})
		}
		close(start)
		wg.Wait()
		for i, err := range errs {
			require.NoError(t, err, "round %d, open %d", round, i)
		}
	}
}

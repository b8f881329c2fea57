package dstsaferiver_test

import (
	"context"
	"database/sql"
	"testing"

	"github.com/riverqueue/river"
	"github.com/riverqueue/river/riverdriver/riversqlite"
	"github.com/riverqueue/river/rivertype"
	"github.com/stretchr/testify/require"

	"github.com/dstsafe/dstsafe"
	"github.com/dstsafe/dstsafe/dstsaferiver"
	"github.com/dstsafe/dstsafe/sqlledger"
)

// A ledger nobody migrated refuses every claim for good
// (dstsafe.ErrPermanent): the job is cancelled at its first attempt with
// the ledger's error, not retried by river for weeks, and the work never
// runs. Both workers, on SQLite.
func TestPermanentLedgerErrorCancelsJob(t *testing.T) {
	for name, newWorker := range map[string]func(l *sqlledger.Ledger, ran *bool) river.Worker[ReportArgs]{
		"NewWorker": func(l *sqlledger.Ledger, ran *bool) river.Worker[ReportArgs] {
			return dstsaferiver.NewWorker(l, func(context.Context, dstsafe.Run, *river.Job[ReportArgs]) error {
				*ran = true
				return nil
			}, &dstsaferiver.WorkerOptions{Logger: discard})
		},
		"NewTxWorker": func(l *sqlledger.Ledger, ran *bool) river.Worker[ReportArgs] {
			return dstsaferiver.NewTxWorker[*riversqlite.Driver](l, func(context.Context, *sql.Tx, dstsafe.Run, *river.Job[ReportArgs]) error {
				*ran = true
				return nil
			}, &dstsaferiver.WorkerOptions{Logger: discard})
		},
	} {
		t.Run(name, func(t *testing.T) {
			db := openSQLite(t)
			ledger, err := sqlledger.New(db, sqlledger.WithDialect(sqlledger.SQLite)) // never migrated
			require.NoError(t, err)
			var ran bool
			client, next := startClient(t, db, newWorker(ledger, &ran))
			args, opts := dstsaferiver.ForPeriod("report", occurrence(t), ReportArgs{}, nil)
			_, err = client.Insert(context.Background(), args, opts)
			require.NoError(t, err)

			e := next()
			require.Equal(t, river.EventKindJobCancelled, e.Kind, "job %s after a claim on a ledger never migrated", e.Job.State)
			require.Equal(t, rivertype.JobStateCancelled, e.Job.State)
			require.Equal(t, 1, e.Job.Attempt)
			require.False(t, ran, "the work ran without a claim")
			require.Len(t, e.Job.Errors, 1, "the ledger's error, recorded on the job")
		})
	}
}

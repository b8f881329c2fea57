package dstsafe_test

import (
	"context"
	"testing"
	"time"

	"github.com/jonboulle/clockwork"
	"github.com/stretchr/testify/require"

	"github.com/dstsafe/dstsafe"
)

// The nil rule (doc.go, "Nil arguments"): a nil clock, logger, observer or
// owner given to an option is ignored, as if the option were not given
// (a nil ledger or catch-up policy is an error: scheduler_loud_test.go); a nil
// *time.Location is an error naming the argument where the function
// returns errors, and a panic naming the function where it cannot.
func TestNilArguments(t *testing.T) {
	t.Run("options ignore nil", func(t *testing.T) {
		fc := clockwork.NewFakeClockAt(time.Date(2024, 6, 1, 0, 0, 0, 0, time.UTC))
		ledger := dstsafe.NewMemoryLedger(fc)
		// The nil options come after the real ones: if nil replaced the
		// setting, Simulate would find the real clock (ErrInvalidArgument)
		// and the records would be in another ledger.
		s := dstsafe.NewScheduler(dstsafe.WithClock(fc), dstsafe.WithClock(nil),
			dstsafe.WithLedger(ledger), dstsafe.WithObserver(nil),
			dstsafe.WithLogger(quiet()), dstsafe.WithLogger(nil), dstsafe.WithOwner("a"), dstsafe.WithOwner(""), nil)
		require.NoError(t, s.Add("hourly", mustCron(t, "0 * * * *"), nop, nil))
		fires, err := dstsafe.Simulate(simCtx(t), s, time.Hour, nil)
		require.NoError(t, err)
		require.Len(t, fires, 2)
		rec, err := ledger.Get(context.Background(), "hourly", "2024-06-01T01:00:00")
		require.NoError(t, err)
		require.Equal(t, "a", rec.Owner)
	})
	t.Run("defaults when nil is all there is", func(t *testing.T) {
		require.NotPanics(t, func() {
			s := dstsafe.NewScheduler(dstsafe.WithClock(nil), dstsafe.WithLogger(nil))
			_, err := dstsafe.Simulate(simCtx(t), s, time.Hour)
			require.ErrorIs(t, err, dstsafe.ErrInvalidArgument, "the default clock is the real one")
		})
	})
	t.Run("ParseCron WithLocation(nil)", func(t *testing.T) {
		_, err := dstsafe.ParseCron("30 1 * * *", dstsafe.WithLocation(nil))
		require.ErrorIs(t, err, dstsafe.ErrInvalidArgument)
		var pe *dstsafe.ParseError
		require.ErrorAs(t, err, &pe)
		require.Equal(t, "option", pe.Field)
		require.Contains(t, pe.Reason, "WithLocation")
		// A prefix does not excuse it: nil is a bug wherever it comes from.
		_, err = dstsafe.ParseCron("CRON_TZ=UTC 30 1 * * *", dstsafe.WithLocation(nil))
		require.ErrorIs(t, err, dstsafe.ErrInvalidArgument)
	})
	t.Run("Add with a nil location option", func(t *testing.T) {
		s := dstsafe.NewScheduler(dstsafe.WithLogger(quiet()))
		for name, opt := range map[string]dstsafe.JobOption{
			"WithRunDateLocation":  dstsafe.WithRunDateLocation(nil),
			"WithScheduleLocation": dstsafe.WithScheduleLocation(nil),
		} {
			err := s.Add("billing", mustCron(t, "30 1 * * *"), nop, opt)
			require.ErrorIs(t, err, dstsafe.ErrInvalidArgument, name)
			var je *dstsafe.JobError
			require.ErrorAs(t, err, &je)
			require.Equal(t, "billing", je.Job)
			var ae *dstsafe.ArgError
			require.ErrorAs(t, err, &ae)
			require.Equal(t, name, ae.Func)
			require.Equal(t, "loc", ae.Arg)
		}
	})
	t.Run("Resolve", func(t *testing.T) {
		w := dstsafe.Wall{Year: 2024, Month: time.March, Day: 10, Hour: 2, Minute: 30}
		_, err := dstsafe.Resolve(w, nil, dstsafe.Compatible)
		require.ErrorIs(t, err, dstsafe.ErrInvalidArgument)
		var ae *dstsafe.ArgError
		require.ErrorAs(t, err, &ae)
		require.Equal(t, "Resolve", ae.Func)
		require.Equal(t, "loc", ae.Arg)
		require.EqualError(t, ae, "dstsafe: Resolve: loc: nil *time.Location")
		_, err = dstsafe.Resolve(w, time.UTC, dstsafe.Disambiguation(7))
		require.ErrorIs(t, err, dstsafe.ErrInvalidArgument)
		require.ErrorAs(t, err, &ae)
		require.Equal(t, "d", ae.Arg)
	})
	t.Run("panics name the function", func(t *testing.T) {
		w := dstsafe.Wall{Year: 2024, Month: time.March, Day: 10, Hour: 2, Minute: 30}
		for name, call := range map[string]func(){
			"Lookup":      func() { dstsafe.Lookup(w, nil) },
			"Transitions": func() { dstsafe.Transitions(nil, time.Unix(0, 0), time.Unix(1e9, 0)) },
			"DateOf":      func() { dstsafe.DateOf(time.Unix(0, 0), nil) },
		} {
			require.PanicsWithValue(t, "dstsafe: "+name+": nil *time.Location", call)
		}
	})
}

// Fire embeds the Run the job function was given, field for field.
func TestFireEmbedsRun(t *testing.T) {
	s, _, _ := newSim(t, time.Date(2024, 11, 2, 12, 0, 0, 0, time.UTC))
	var runs []dstsafe.Run
	chicago := zone(t, "America/Chicago")
	require.NoError(t, s.Add("billing", mustCron(t, "30 1 * * *", dstsafe.WithLocation(chicago)), func(_ context.Context, r dstsafe.Run) error {
		runs = append(runs, r)
		return nil
	}))
	fires, err := dstsafe.Simulate(simCtx(t), s, 24*time.Hour)
	require.NoError(t, err)
	require.Len(t, fires, 1)
	require.Equal(t, runs[0], fires[0].Run)
	require.Equal(t, dstsafe.Fold, fires[0].Kind)
	require.True(t, fires[0].Started.Equal(fires[0].Due))
}

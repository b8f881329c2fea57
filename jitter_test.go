package dstsafe_test

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/dstsafe/dstsafe"
	"github.com/dstsafe/dstsafe/dstsafetest"
)

// The two Chicago nights of the postmortem, with a day on each side.
var chicagoNights = []struct {
	name  string
	start time.Time
}{
	{"2024-11-03 fold", time.Date(2024, 11, 2, 12, 0, 0, 0, time.UTC)}, // 01:00-02:00 read twice
	{"2024-03-10 gap", time.Date(2024, 3, 9, 12, 0, 0, 0, time.UTC)},   // 02:00-03:00 never read
}

// A jittered job fires the same periods as without jitter (key, wall,
// kind and due unchanged, across both nights: a fold's two readings, a
// gap's shifted one), each started a delay in [0, max) after it is due;
// the delays are the same for another Scheduler on another ledger and
// across a restart, and they differ between periods.
func TestJitterNeverMovesAPeriod(t *testing.T) {
	chicago := zone(t, "America/Chicago")
	for _, night := range chicagoNights {
		for _, tc := range []struct {
			spec string
			max  time.Duration
		}{
			{"*/30 * * * *", 10 * time.Minute},
			{"30 1 * * *", 2 * time.Hour},
			{"30 2 * * *", 2 * time.Hour},
		} {
			t.Run(night.name+"/"+tc.spec, func(t *testing.T) {
				sim := func(opts ...dstsafe.JobOption) []dstsafe.Fire {
					s, _, _ := newSim(t, night.start)
					require.NoError(t, s.Add("sync", mustCron(t, tc.spec, dstsafe.WithLocation(chicago)), nop, opts...))
					fires, err := dstsafe.Simulate(simCtx(t), s, 48*time.Hour)
					require.NoError(t, err)
					return fires
				}
				plain, jittered, again := sim(), sim(dstsafe.WithJitter(tc.max)), sim(dstsafe.WithJitter(tc.max))
				require.NotEmpty(t, plain)
				// The window ends at start+48h: a period due just before it
				// may start after it with jitter.
				require.GreaterOrEqual(t, len(plain), len(jittered))
				require.LessOrEqual(t, len(plain)-len(jittered), 1+int(tc.max/(30*time.Minute)))
				delays := map[time.Duration]bool{}
				for i, f := range jittered {
					p := plain[i]
					require.Equal(t, p.Period, f.Period)
					require.Equal(t, p.Wall, f.Wall)
					require.Equal(t, p.Kind, f.Kind)
					require.True(t, p.Due.Equal(f.Due), "due %v moved to %v", p.Due, f.Due)
					d := f.Started.Sub(f.Due)
					require.True(t, d >= 0 && d < tc.max, "%v started %v after due", f, d)
					require.True(t, again[i].Started.Equal(f.Started), "another scheduler rolled %v again", f)
					delays[d] = true
				}
				if len(jittered) > 2 {
					require.Greater(t, len(delays), len(jittered)/2, "delays barely vary")
				}
				dstsafetest.RequireOncePerPeriod(t, jittered)

				// A restart halfway through keeps every delay.
				s, clock, ledger := newSim(t, night.start)
				require.NoError(t, s.Add("sync", mustCron(t, tc.spec, dstsafe.WithLocation(chicago)), nop, dstsafe.WithJitter(tc.max)))
				first, err := dstsafe.Simulate(simCtx(t), s, 20*time.Hour)
				require.NoError(t, err)
				s2 := dstsafe.NewScheduler(dstsafe.WithClock(clock), dstsafe.WithLedger(ledger), dstsafe.WithLogger(quiet()))
				require.NoError(t, s2.Add("sync", mustCron(t, tc.spec, dstsafe.WithLocation(chicago)), nop, dstsafe.WithJitter(tc.max)))
				second, err := dstsafe.Simulate(simCtx(t), s2, 28*time.Hour)
				require.NoError(t, err)
				both := append(first, second...)
				want := jittered
				if restart := night.start.Add(20 * time.Hour); len(first) == 0 {
					// The job had no record: the restarted one starts at the
					// restart, and a period due before it whose jittered start
					// was still to come is not its (issue 21: a job runs no
					// period due before it started).
					want = slices.DeleteFunc(slices.Clone(jittered), func(f dstsafe.Fire) bool {
						return f.Due.Before(restart) && !f.Started.Before(restart)
					})
				}
				require.Equal(t, len(want), len(both))
				for i, f := range both {
					require.Equal(t, want[i].Period, f.Period)
					require.True(t, want[i].Started.Equal(f.Started), "restart rolled %v again: %v", want[i], f.Started)
				}
			})
		}
	}
}

// The delays spread over [0, max): of 2,000 daily periods, each quarter
// of the range gets between 20% and 30%.
func TestJitterSpread(t *testing.T) {
	const n, max = 2000, time.Hour
	start := time.Date(2024, 1, 1, 0, 0, 0, 0, time.UTC)
	s, _, _ := newSim(t, start)
	require.NoError(t, s.Add("report", mustCron(t, "0 6 * * *"), nop, dstsafe.WithJitter(max)))
	d, err := s.Describe(context.Background(), "report", n)
	require.NoError(t, err)
	require.Len(t, d.Next, n)
	var quarter [4]int
	for _, u := range d.Next {
		j := u.Start.Sub(u.At)
		require.True(t, j >= 0 && j < max && j%time.Millisecond == 0, "delay %v", j)
		quarter[j*4/max]++
	}
	for i, q := range quarter {
		require.InDelta(t, n/4, q, n/20, "quarter %d of [0, 1h) got %d of %d", i, q, n)
	}
}

// plainOnly hides every method of a schedule but Next: a Schedule that is
// not an OccurrenceSchedule, as a robfig/cron one is.
type plainOnly struct{ s dstsafe.Schedule }

func (p plainOnly) Next(t time.Time) time.Time { return p.s.Next(t) }

// occurrencesOnly hides that a schedule is a *Cron: an OccurrenceSchedule
// the runner knows nothing else about.
type occurrencesOnly struct{ c *dstsafe.Cron }

func (o occurrencesOnly) Next(t time.Time) time.Time { return o.c.Next(t) }
func (o occurrencesOnly) NextOccurrence(t time.Time) (dstsafe.Occurrence, bool) {
	return o.c.NextOccurrence(t)
}

// WithJitter is refused when max is not less than the schedule's shortest
// interval, which the transitions shorten, and accepted a millisecond
// below it. The shortest interval is the oracle's (time package only) over
// two years from the Add.
func TestJitterRefusedAtTheShortestInterval(t *testing.T) {
	chicago, lordHowe := zone(t, "America/Chicago"), zone(t, "Australia/Lord_Howe")
	jan2024 := time.Date(2024, 1, 1, 0, 0, 0, 0, time.UTC)
	for _, tc := range []struct {
		name  string
		zone  string
		start time.Time
		sched dstsafe.Schedule
		opts  []dstsafe.JobOption
		walls func(from, to int64) []int64
		p     policy
	}{
		// 23 h: 2024-03-09 01:30 CST to 2024-03-10 01:30 CDT.
		{"daily 01:30", "America/Chicago", jan2024, mustCron(t, "30 1 * * *", dstsafe.WithLocation(chicago)), nil,
			daily(1, 30), fixedPolicy},
		// 1 h: both 01:30s of 2024-11-03.
		{"daily 01:30 FoldBoth", "America/Chicago", jan2024,
			mustCron(t, "30 1 * * *", dstsafe.WithLocation(chicago), dstsafe.WithFold(dstsafe.FoldBoth)), nil,
			daily(1, 30), fixedPolicy.with(dstsafe.FoldBoth, 0)},
		// 23.5 h: 2024-03-10 03:00 CDT (at the transition) to 03-11 02:30 CDT.
		{"daily 02:30 GapAtTransition", "America/Chicago", jan2024,
			mustCron(t, "30 2 * * *", dstsafe.WithLocation(chicago), dstsafe.WithGap(dstsafe.GapAtTransition)), nil,
			daily(2, 30), fixedPolicy.with(0, dstsafe.GapAtTransition)},
		{"every 15 minutes", "America/Chicago", jan2024, mustCron(t, "*/15 * * * *", dstsafe.WithLocation(chicago)), nil,
			every(15), periodicPolicy},
		// The Lord_Howe gap of 2025-10-05 (02:00 -> 02:30) shifts 02:00 and
		// 02:20 to 02:30 and 02:50, 5 minutes after the real 02:45. 72 runs
		// a day: the first 20,000 end in July 2025, so only the walk around
		// the offset changes sees it.
		{"Lord_Howe GapShift", "Australia/Lord_Howe", time.Date(2024, 10, 7, 0, 0, 0, 0, time.UTC),
			mustCron(t, "0,20,45 * * * *", dstsafe.WithLocation(lordHowe), dstsafe.WithGap(dstsafe.GapShift)), nil,
			minutesOfHour(0, 20, 45), periodicPolicy.with(0, dstsafe.GapShift)},
		{"Lord_Howe GapShift, any OccurrenceSchedule", "Australia/Lord_Howe", time.Date(2024, 10, 7, 0, 0, 0, 0, time.UTC),
			occurrencesOnly{mustCron(t, "0,20,45 * * * *", dstsafe.WithLocation(lordHowe), dstsafe.WithGap(dstsafe.GapShift))}, nil,
			minutesOfHour(0, 20, 45), periodicPolicy.with(0, dstsafe.GapShift)},
		// An RFC 5545 rule (ParseRRule), FoldBoth: the same hour.
		{"RRULE daily 01:30 FoldBoth", "America/Chicago", jan2024,
			mustRRule(t, "DTSTART:20231231T013000\nRRULE:FREQ=DAILY", dstsafe.WithLocation(chicago), dstsafe.WithFold(dstsafe.FoldBoth)), nil,
			daily(1, 30), fixedPolicy.with(dstsafe.FoldBoth, 0)},
		// A plain Schedule (robfig/cron's shape) read in its zone.
		{"plain Schedule, FoldBoth", "America/Chicago", jan2024,
			plainOnly{mustCron(t, "30 1 * * *", dstsafe.WithLocation(chicago), dstsafe.WithFold(dstsafe.FoldBoth))},
			[]dstsafe.JobOption{dstsafe.WithScheduleLocation(chicago)},
			daily(1, 30), fixedPolicy.with(dstsafe.FoldBoth, 0)},
		// Bounds before the spring night: every day is 24 h long.
		{"daily 01:30 within a summer", "America/Chicago", jan2024, mustCron(t, "30 1 * * *", dstsafe.WithLocation(chicago)),
			[]dstsafe.JobOption{dstsafe.WithBounds(time.Date(2024, 4, 1, 0, 0, 0, 0, time.UTC), time.Date(2024, 10, 1, 0, 0, 0, 0, time.UTC))},
			daily(1, 30), fixedPolicy},
	} {
		t.Run(tc.name, func(t *testing.T) {
			from, to := tc.start, tc.start.AddDate(2, 0, 0)
			fires := oracleFires(t, tc.zone, tc.walls, tc.p, from, to)
			if tc.name == "daily 01:30 within a summer" {
				fires = inRange(fires, time.Date(2024, 4, 1, 0, 0, 0, 0, time.UTC), time.Date(2024, 10, 1, 0, 0, 0, 0, time.UTC))
			}
			want := shortest(fires)
			require.Positive(t, want)
			t.Logf("shortest interval %v", want)
			s, _, _ := newSim(t, tc.start)
			add := func(name string, jitter time.Duration) error {
				return s.Add(name, tc.sched, nop, append(tc.opts, dstsafe.WithJitter(jitter))...)
			}
			err := add("at", want)
			require.ErrorIs(t, err, dstsafe.ErrInvalidArgument)
			var ae *dstsafe.ArgError
			require.ErrorAs(t, err, &ae)
			require.Equal(t, "WithJitter", ae.Func)
			require.NoError(t, add("below", want-time.Millisecond))
			require.ErrorIs(t, s.Update("below", tc.sched, append(tc.opts, dstsafe.WithJitter(want))...), dstsafe.ErrInvalidArgument)
		})
	}
}

// A negative jitter is refused; a schedule with a single occurrence takes
// any jitter.
func TestJitterArguments(t *testing.T) {
	s, _, _ := newSim(t, time.Date(2024, 1, 1, 0, 0, 0, 0, time.UTC))
	err := s.Add("a", mustCron(t, "0 0 * * *"), nop, dstsafe.WithJitter(-time.Second))
	require.ErrorIs(t, err, dstsafe.ErrInvalidArgument)
	once := mustCron(t, "0 0 * * *")
	bounds := dstsafe.WithBounds(time.Date(2024, 1, 2, 0, 0, 0, 0, time.UTC), time.Date(2024, 1, 2, 12, 0, 0, 0, time.UTC))
	require.NoError(t, s.Add("b", once, nop, bounds, dstsafe.WithJitter(1000*time.Hour)))
	var ae *dstsafe.ArgError
	require.True(t, errors.As(err, &ae), fmt.Sprint(err))
}

// At tiny maxima every delay still lies in [0, max), and every value of
// it is drawn: 1ns jitter is no jitter at all, 2ns is 0 or 1ns, 3ns one of
// 0, 1 and 2ns; from a millisecond on the delays are whole milliseconds
// below max (1ms: 0 only; 1ms+1ns: 0 or 1ms). Checked over 2,000 upcoming
// periods of a job due every second (Describe's jittered starts) and over
// the runs of ten simulated minutes (the starts the runner uses).
func TestJitterTinyMaxima(t *testing.T) {
	start := time.Date(2024, 11, 3, 6, 0, 0, 0, time.UTC) // 01:00 CDT, the fold's first hour
	for _, tc := range []struct {
		max  time.Duration
		want []time.Duration // every delay in [0, max) jitter can take
	}{
		{time.Nanosecond, []time.Duration{0}},
		{2 * time.Nanosecond, []time.Duration{0, 1}},
		{3 * time.Nanosecond, []time.Duration{0, 1, 2}},
		{time.Millisecond, []time.Duration{0}},
		{time.Millisecond + time.Nanosecond, []time.Duration{0, time.Millisecond}},
		{2 * time.Millisecond, []time.Duration{0, time.Millisecond}},
	} {
		t.Run(tc.max.String(), func(t *testing.T) {
			every := mustCron(t, "* * * * * *", dstsafe.WithSeconds())
			s, _, _ := newSim(t, start)
			require.NoError(t, s.Add("poll", every, nop, dstsafe.WithJitter(tc.max)))
			seen := map[time.Duration]int{}
			d, err := s.Describe(context.Background(), "poll", 2000)
			require.NoError(t, err)
			require.Len(t, d.Next, 2000)
			for _, u := range d.Next {
				j := u.Start.Sub(u.At)
				require.Contains(t, tc.want, j, "%s: delay %v with max %v", u.Period, j, tc.max)
				seen[j]++
			}
			fires, err := dstsafe.Simulate(simCtx(t), s, 10*time.Minute)
			require.NoError(t, err)
			require.GreaterOrEqual(t, len(fires), 600)
			for _, f := range fires {
				j := f.Started.Sub(f.Due)
				require.Contains(t, tc.want, j, "%s: started %v after due with max %v", f.Period, j, tc.max)
				seen[j]++
			}
			for _, j := range tc.want {
				require.Positive(t, seen[j], "delay %v never drawn with max %v: %v", j, tc.max, seen)
			}
		})
	}
}

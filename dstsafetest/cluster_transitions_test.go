package dstsafetest_test

import (
	"fmt"
	"os"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/dstsafe/dstsafe/dstsafetest"
)

var longRun = os.Getenv("DSTSAFE_LONG") != ""

// documentedMaxClockOffset is the default bound of dstsafe.WithMaxClockOffset,
// as its doc states it.
const documentedMaxClockOffset = 5 * time.Second

// transition is one offset change of a zone, found with the time package
// alone (independently of dstsafe): the instant, and the UTC offsets in
// seconds before and after.
type transition struct {
	at            time.Time
	before, after int
}

// transitions lists loc's offset changes in [from, to): an hourly scan,
// then a bisection to the second (Lord_Howe's changes are 30 minutes).
func transitions(loc *time.Location, from, to time.Time) []transition {
	off := func(t time.Time) int { _, o := t.In(loc).Zone(); return o }
	var out []transition
	for t := from; t.Before(to); t = t.Add(time.Hour) {
		a, b := off(t), off(t.Add(time.Hour))
		if a == b {
			continue
		}
		lo, hi := t, t.Add(time.Hour) // off(lo) == a, off(hi) == b
		for hi.Sub(lo) > time.Second {
			mid := lo.Add(hi.Sub(lo) / 2)
			if off(mid) == a {
				lo = mid
			} else {
				hi = mid
			}
		}
		out = append(out, transition{at: hi, before: a, after: b})
	}
	return out
}

// dailySpec is a fixed-time daily job at the middle of the wall readings
// a transition skips (a gap) or repeats (a fold): 02:30 for Chicago's
// spring gap, 01:30 for its fold, 00:30 for Havana's midnight ones, 02:15
// for Lord_Howe's half-hour gap.
func dailySpec(tr transition) string {
	lo, hi := tr.before, tr.after
	if hi < lo {
		lo, hi = hi, lo
	}
	mid := tr.at.Add(time.Duration(lo+(hi-lo)/2) * time.Second).UTC() // a wall reading in the affected span
	return fmt.Sprintf("%d %d * * *", mid.Minute(), mid.Hour())
}

type clusterCase struct {
	zone  string
	at    time.Time // the transition, or the middle of a control window
	daily string
	days  int // expected periods of the daily job in the window
	note  string
}

// clusterCases lists every 2024-2026 transition of the zones of issue 22,
// a control window for the zones that have none (Apia and Sao_Paulo keep
// one offset since 2021 and 2019), and Apia's skipped 2011-12-30.
func clusterCases(t *testing.T) []clusterCase {
	from := time.Date(2024, 1, 1, 0, 0, 0, 0, time.UTC)
	to := time.Date(2027, 1, 1, 0, 0, 0, 0, time.UTC)
	var cases []clusterCase
	for _, name := range []string{"America/Chicago", "Europe/London", "Australia/Lord_Howe", "Pacific/Apia",
		"America/Sao_Paulo", "America/Havana", "America/Santiago"} {
		loc := dstsafetest.Zone(t, name)
		trs := transitions(loc, from, to)
		switch name {
		case "Pacific/Apia", "America/Sao_Paulo":
			require.Empty(t, trs, "%s: no DST in 2024-2026", name)
			// Control: 01:00 on the Sunday of Apia's last fall-back
			// (2021-04-04, 04:00 +14 -> 03:00 +13), in 2025, in both zones.
			at := time.Date(2025, 4, 6, 1, 0, 0, 0, loc)
			cases = append(cases, clusterCase{zone: name, at: at, daily: "30 1 * * *", days: 3, note: "control: no transition"})
			continue
		}
		require.Len(t, trs, 6, "%s: two transitions a year", name)
		for _, tr := range trs {
			kind := "gap"
			if tr.after < tr.before {
				kind = "fold"
			}
			cases = append(cases, clusterCase{zone: name, at: tr.at, daily: dailySpec(tr), days: 3,
				note: fmt.Sprintf("%s %+ds", kind, tr.after-tr.before)})
		}
	}
	// Apia skipped Friday 2011-12-30: 23:59:59 on the 29th (-10) was
	// followed by 00:00 on the 31st (+14). The daily 01:30 of the 30th
	// shifts by the 24-hour gap onto the 31st's own 01:30: both readings
	// resolve to one instant, which fires once.
	cases = append(cases, clusterCase{zone: "Pacific/Apia", at: time.Date(2011, 12, 30, 10, 0, 0, 0, time.UTC),
		daily: "30 1 * * *", days: -1, note: "skipped day 2011-12-30"})
	return cases
}

// clusterScenario is one way of running a case's window.
type clusterScenario struct {
	name     string
	replicas []dstsafetest.ReplicaSpec
	crashes  func(at time.Time) []dstsafetest.Crash
	refuses  int // replica that must refuse for skew, or -1
}

func clusterScenarios() []clusterScenario {
	maxOff := documentedMaxClockOffset
	return []clusterScenario{
		// Skews up to the documented maximum, inclusive: no refusal, no
		// double, no loss; one replica drifts 10 ppm back towards true time.
		{name: "skew-within", refuses: -1, replicas: []dstsafetest.ReplicaSpec{
			{}, {Offset: maxOff}, {Offset: -maxOff + 3*time.Second, DriftPPM: -10}}},
		// One replica a second beyond the maximum: every claim it makes is
		// refused, the other two run every period once.
		{name: "skew-beyond", refuses: 1, replicas: []dstsafetest.ReplicaSpec{
			{}, {Offset: maxOff + time.Second}, {Offset: -2 * time.Second}}},
		// Crashes around the transition, each restarted: the fastest
		// replica (r1, 2 s ahead) claims first.
		{name: "crash-at-fire", refuses: -1, replicas: skewed(), crashes: func(at time.Time) []dstsafetest.Crash {
			return []dstsafetest.Crash{{Replica: 1, Point: dstsafetest.CrashAtFire, At: at.Add(-2 * time.Hour), Job: "daily", RestartAfter: 10 * time.Minute}}
		}},
		{name: "crash-after-claim", refuses: -1, replicas: skewed(), crashes: func(at time.Time) []dstsafetest.Crash {
			return []dstsafetest.Crash{{Replica: 1, Point: dstsafetest.CrashAfterClaim, At: at.Add(-2 * time.Hour), Job: "daily", RestartAfter: 10 * time.Minute}}
		}},
		{name: "crash-mid-run", refuses: -1, replicas: skewed(), crashes: func(at time.Time) []dstsafetest.Crash {
			return []dstsafetest.Crash{{Replica: 1, Point: dstsafetest.CrashMidRun, At: at, Job: "quarter", RestartAfter: 5 * time.Minute}}
		}},
	}
}

func skewed() []dstsafetest.ReplicaSpec {
	return []dstsafetest.ReplicaSpec{{}, {Offset: 2 * time.Second, DriftPPM: 5}, {Offset: -2 * time.Second}}
}

// Every 2024-2026 transition of Chicago, London, Lord_Howe, Havana and
// Santiago, a control window for Apia and Sao_Paulo, and Apia's skipped
// day, each run by three replicas with skews within and beyond the
// maximum offset and with crashes: every period of a fixed-time daily job
// in the transition hour, a job every 15 minutes (at :07, :22, :37 and
// :52, never beside the others) and a ByDate midnight job runs
// exactly once, none lost, within a day either side (DSTSAFE_LONG=1: the
// whole of 2024-2026 for each zone, once, with skews within the maximum).
func TestClusterTransitions(t *testing.T) {
	if longRun {
		first := map[string]string{}
		for _, c := range clusterCases(t) {
			if _, ok := first[c.zone]; !ok {
				first[c.zone] = c.daily
			}
		}
		for _, zone := range []string{"America/Chicago", "Europe/London", "Australia/Lord_Howe", "Pacific/Apia",
			"America/Sao_Paulo", "America/Havana", "America/Santiago"} {
			t.Run(zone+"/2024-2026", func(t *testing.T) {
				res, err := dstsafetest.SimulateCluster(simCtx(t), dstsafetest.Cluster{
					Start: time.Date(2024, 1, 1, 0, 0, 0, 0, time.UTC),
					// No drift here: 10 ppm over three years is 16 minutes.
					Replicas: []dstsafetest.ReplicaSpec{{}, {Offset: documentedMaxClockOffset}, {Offset: -documentedMaxClockOffset}},
					Setup:    clusterJobs(zone, first[zone]),
				}, time.Date(2027, 1, 1, 0, 0, 0, 0, time.UTC).Sub(time.Date(2024, 1, 1, 0, 0, 0, 0, time.UTC)))
				require.NoError(t, err)
				require.Empty(t, res.RunErrors)
				dstsafetest.RequireClusterOnce(t, res)
				require.Empty(t, res.Refusals)
			})
		}
	}
	for _, c := range clusterCases(t) {
		for _, sc := range clusterScenarios() {
			t.Run(fmt.Sprintf("%s/%s/%s", c.zone, c.at.UTC().Format("2006-01-02T15:04"), sc.name), func(t *testing.T) {
				var crashes []dstsafetest.Crash
				if sc.crashes != nil {
					crashes = sc.crashes(c.at)
				}
				res, err := dstsafetest.SimulateCluster(simCtx(t), dstsafetest.Cluster{
					Start:    c.at.Add(-26 * time.Hour),
					Replicas: sc.replicas,
					Setup:    clusterJobs(c.zone, c.daily),
					Crashes:  crashes,
				}, 52*time.Hour)
				require.NoError(t, err)
				require.Empty(t, res.RunErrors)
				dstsafetest.RequireClusterOnce(t, res, c.note)
				if c.days >= 0 {
					dstsafetest.RequireClusterExpected(t, res, "daily", c.days, c.note)
				}
				require.Len(t, res.Crashes, len(crashes), "every crash happened")
				if sc.refuses >= 0 {
					dstsafetest.RequireSkewRefused(t, res, sc.refuses)
				} else {
					require.Empty(t, res.Refusals)
				}
			})
		}
	}
}

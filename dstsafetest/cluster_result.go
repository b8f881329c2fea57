package dstsafetest

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/dstsafe/dstsafe"
	"github.com/dstsafe/dstsafe/event"
)

// ClusterResult is what a SimulateCluster run did.
type ClusterResult struct {
	// Start and End bound the window; Settle is the margin at each end
	// within which a period need not run.
	Start, End time.Time
	Settle     time.Duration
	// Periods lists every period that was expected or did any work, by
	// job (in the order jobs were first added), then due instant.
	Periods []PeriodResult
	// Violations lists every period that did not run exactly once:
	// empty when the cluster kept its promise.
	Violations []Violation
	// Executions lists every return of a job function, by true instant.
	Executions []Execution
	// Fires lists every run each replica's scheduler started (its
	// dstsafe.Fire, as Simulate returns them), crashed replicas' included.
	Fires []ReplicaFire
	// Crashes lists the crashes that happened, in order.
	Crashes []CrashRecord
	// Events lists the events the operator must see: clock skew
	// refusals, periods recorded under other zone data, lost leases.
	Events []ReplicaEvent
	// Refusals lists every claim the ledger refused for clock skew
	// (dstsafe.ErrClockSkew), with who did the period's work instead.
	Refusals []SkewRefusal
	// RunErrors are errors a replica's Run returned other than its crash.
	RunErrors []error
}

// SkewRefusal is one claim the ledger refused because the replica's clock
// was further from the store's than the maximum offset.
type SkewRefusal struct {
	Replica     int
	Owner       string
	Job, Period string
	// Offset is the replica's clock minus the store's (positive: ahead).
	Offset time.Duration
	// At is the true instant of the refusal.
	At time.Time
	// DoneBy names the owners whose executions did the period's work.
	DoneBy []string
}

// Execution is one return of a job's function on a replica.
type Execution struct {
	Replica int
	Owner   string
	Run     dstsafe.Run
	// Started and At are the replica's clock reading when the function
	// was called and the true instant it returned; for an interrupted
	// run, the true instant of the crash (the same in every run of the
	// same Cluster).
	Started, At time.Time
	Err         error
	// Interrupted: the replica crashed during the run (CrashMidRun, or a
	// CrashAtInstant while it slept), so the outcome was never recorded:
	// the work may have happened, and the period is not done.
	Interrupted bool
}

// Completed reports whether the execution did the period's work: the
// function returned nil on a replica that was not crashed by then.
func (e Execution) Completed() bool { return e.Err == nil && !e.Interrupted }

// ReplicaFire is a run a replica's scheduler started.
type ReplicaFire struct {
	Replica int
	Owner   string
	dstsafe.Fire
}

// CrashRecord is a crash that happened.
type CrashRecord struct {
	Replica     int
	Owner       string
	Point       CrashPoint
	At          time.Time // true instant
	Job, Period string    // the Crash's, as given
}

// ReplicaEvent is an Observer event a replica emitted.
type ReplicaEvent struct {
	Replica int
	Owner   string
	dstsafe.Event
	trueAt time.Time
}

// PeriodResult is one period of one job.
type PeriodResult struct {
	Job, Period string
	// Due is the period's instant by the first replica whose schedule has
	// it (zero if no schedule has it: an unexpected period).
	Due time.Time
	// Expected: the period lies within the window less Settle in some
	// replica's schedule, so it must run exactly once.
	Expected bool
	// Completed counts the executions that did its work (Execution.Completed).
	Completed int
	// Executions lists every execution of it, completed or not.
	Executions []Execution
	// Recorded names the owner of the success the ledger holds for the
	// period when the simulation ends (a Get of the period, by the true
	// clock): empty when it holds none (no record, or one running, failed
	// or abandoned), whatever Finish answered during the run.
	Recorded []string
}

// ViolationKind says how a period broke "exactly once".
type ViolationKind uint8

const (
	// ViolationTwice: the period's work was done more than once.
	ViolationTwice ViolationKind = iota + 1
	// ViolationLost: an expected period's work was never done.
	ViolationLost
	// ViolationUnrecorded: the work was done once but the ledger, read at
	// the end, holds no success for the period (never recorded, or
	// recorded and lost later), so a takeover or backfill would run it
	// again.
	ViolationUnrecorded
	// ViolationUnexpected: a period no replica's schedule has within the
	// window was run.
	ViolationUnexpected
	// ViolationWrongZone: replicas schedule the period at different
	// instants in zones of different names (one replica configured with
	// UTC, the others with America/Chicago): whoever claims first runs it
	// at its own instant, hours off for the others. Replicas with
	// different data for one zone name are not this: their periods are
	// reported as event.ZoneData (ClusterResult.Events).
	ViolationWrongZone
)

func (k ViolationKind) String() string {
	switch k {
	case ViolationTwice:
		return "ran twice"
	case ViolationLost:
		return "lost"
	case ViolationUnrecorded:
		return "unrecorded"
	case ViolationUnexpected:
		return "unexpected"
	case ViolationWrongZone:
		return "scheduled in different zones"
	}
	return fmt.Sprintf("ViolationKind(%d)", uint8(k))
}

// Violation is one period that did not run exactly once.
type Violation struct {
	Kind        ViolationKind
	Job, Period string
	Due         time.Time
	// Count is how many executions did the work.
	Count int
	// Replicas names the owners of those executions (of every execution,
	// for a lost period: the interrupted ones).
	Replicas []string
	// Executions are the period's executions.
	Executions []Execution
	// Zones, for ViolationWrongZone, lists each zone the replicas
	// schedule the period in with its instant there
	// ("America/Chicago 2024-11-03T06:30:00Z by r0").
	Zones []string
}

func (v Violation) String() string {
	var b strings.Builder
	fmt.Fprintf(&b, "job %s period %s", v.Job, v.Period)
	if !v.Due.IsZero() {
		fmt.Fprintf(&b, " (due %s)", v.Due.Format(time.RFC3339))
	}
	fmt.Fprintf(&b, ": %s, done %d times", v.Kind, v.Count)
	if len(v.Zones) > 0 {
		fmt.Fprintf(&b, " (%s)", strings.Join(v.Zones, ", "))
	}
	if len(v.Replicas) > 0 {
		fmt.Fprintf(&b, " by %s", strings.Join(v.Replicas, ", "))
	}
	for _, e := range v.Executions {
		fmt.Fprintf(&b, "\n    %s at %s", e.Owner, e.At.UTC().Format(time.RFC3339Nano))
		switch {
		case e.Interrupted:
			b.WriteString(" (interrupted by a crash)")
		case e.Err != nil:
			b.WriteString(" error: " + e.Err.Error())
		}
	}
	return b.String()
}

// keepEvent says which events ClusterResult.Events keeps.
func keepEvent(t event.Type) bool {
	return t == event.LeaseLost || t == event.ClockSkew || t == event.ZoneData
}

func (cr *clusterRun) settle() time.Duration {
	if cr.c.Settle > 0 {
		return cr.c.Settle
	}
	var worst time.Duration
	for _, rs := range cr.replicas {
		for _, t := range []time.Time{cr.c.Start, cr.end} {
			e := rs.local(cr.c.Start, t).Sub(t)
			worst = max(worst, e, -e)
		}
	}
	return worst + dstsafe.DefaultLease
}

func (cr *clusterRun) result() *ClusterResult {
	cr.mu.Lock()
	defer cr.mu.Unlock()
	settle := cr.settle()
	res := &ClusterResult{Start: cr.c.Start, End: cr.end, Settle: settle, Crashes: cr.crashLog, RunErrors: cr.runErrs}
	lo, hi := cr.c.Start.Add(settle), cr.end.Add(-settle)

	periods := map[periodKey]*PeriodResult{}
	var keys []periodKey
	get := func(k periodKey) *PeriodResult {
		p := periods[k]
		if p == nil {
			p = &PeriodResult{Job: k.job, Period: k.period}
			periods[k] = p
			keys = append(keys, k)
		}
		return p
	}
	// zonesOf: per expected period, the zone names the replicas' schedules
	// put it in, with its instant there (by the first replica).
	zonesOf := map[periodKey]map[string]zoneDue{}
	jobRank := map[string]int{}
	for i, job := range cr.jobOrder {
		jobRank[job] = i
		js := cr.jobs[job]
		replicas := make([]int, 0, len(js.byReplica))
		for i := range js.byReplica {
			replicas = append(replicas, i)
		}
		slices.Sort(replicas)
		for _, ri := range replicas {
			os, ok := js.byReplica[ri].(dstsafe.OccurrenceSchedule)
			if !ok || hi.Before(lo) {
				continue
			}
			for o, ok := os.NextOccurrence(lo.Add(-time.Nanosecond)); ok && !o.At.After(hi); o, ok = os.NextOccurrence(o.At) {
				k := periodKey{job, o.Period}
				p := get(k)
				p.Expected = true
				z := zonesOf[k]
				if z == nil {
					z = map[string]zoneDue{}
					zonesOf[k] = z
				}
				if _, ok := z[o.At.Location().String()]; !ok {
					z[o.At.Location().String()] = zoneDue{at: o.At, replica: cr.replicas[ri].name}
				}
				if p.Due.IsZero() {
					p.Due = o.At
				}
			}
		}
	}
	execs := slices.Clone(cr.execs)
	// Runs that end together end in an order the Go scheduler picks: the
	// result must not depend on it.
	slices.SortStableFunc(execs, func(a, b Execution) int {
		return cmp.Or(a.At.Compare(b.At), cmp.Compare(a.Replica, b.Replica), strings.Compare(a.Owner, b.Owner),
			strings.Compare(a.Run.Job, b.Run.Job), strings.Compare(a.Run.Period, b.Run.Period), cmp.Compare(a.Run.Attempt, b.Run.Attempt))
	})
	res.Executions = execs
	for _, e := range execs {
		p := get(periodKey{e.Run.Job, e.Run.Period})
		p.Executions = append(p.Executions, e)
		if e.Completed() {
			p.Completed++
		}
		if p.Due.IsZero() {
			p.Due = e.Run.Due
		}
	}
	// What the ledger holds at the end, not what Finish answered: a store
	// that accepted a success and lost it later (a failover, a restore)
	// leaves the period to be run again.
	for _, k := range keys {
		p := periods[k]
		if !p.Expected && len(p.Executions) == 0 {
			continue
		}
		rec, err := cr.ledger.Get(context.Background(), k.job, k.period)
		switch {
		case err == nil && rec.State == dstsafe.StateSucceeded:
			p.Recorded = []string{rec.Owner}
		case err != nil && !errors.Is(err, dstsafe.ErrNotFound):
			res.RunErrors = append(res.RunErrors, fmt.Errorf("dstsafetest: ledger Get %s %s at the end: %w", k.job, k.period, err))
		}
	}
	slices.SortFunc(keys, func(a, b periodKey) int {
		if c := cmp.Compare(jobRank[a.job], jobRank[b.job]); c != 0 {
			return c
		}
		pa, pb := periods[a], periods[b]
		if c := pa.Due.Compare(pb.Due); c != 0 {
			return c
		}
		return strings.Compare(a.period, b.period)
	})
	for _, k := range keys {
		p := periods[k]
		res.Periods = append(res.Periods, *p)
		inWindow := !p.Due.Before(lo) && !p.Due.After(hi)
		var kind ViolationKind
		switch {
		case p.Completed > 1:
			kind = ViolationTwice
		case p.Expected && p.Completed == 0:
			kind = ViolationLost
		case p.Completed == 1 && len(p.Recorded) == 0:
			kind = ViolationUnrecorded
		case wrongZone(zonesOf[k]):
			kind = ViolationWrongZone
		case !p.Expected && inWindow && p.Completed > 0:
			kind = ViolationUnexpected
		default:
			continue
		}
		v := Violation{Kind: kind, Job: p.Job, Period: p.Period, Due: p.Due, Count: p.Completed, Executions: p.Executions}
		if kind == ViolationWrongZone {
			for name, zd := range zonesOf[k] {
				v.Zones = append(v.Zones, fmt.Sprintf("%s %s by %s", name, zd.at.UTC().Format(time.RFC3339), zd.replica))
			}
			slices.Sort(v.Zones)
		}
		for _, e := range p.Executions {
			if e.Completed() || kind == ViolationLost {
				v.Replicas = append(v.Replicas, e.Owner)
			}
		}
		res.Violations = append(res.Violations, v)
	}
	fires := slices.Clone(cr.fires)
	slices.SortStableFunc(fires, func(a, b ReplicaFire) int {
		return cmp.Or(a.Due.Compare(b.Due), strings.Compare(a.Job, b.Job), cmp.Compare(a.Replica, b.Replica),
			strings.Compare(a.Owner, b.Owner), cmp.Compare(a.Attempt, b.Attempt), a.Started.Compare(b.Started))
	})
	res.Fires = fires
	events := slices.Clone(cr.events)
	slices.SortStableFunc(events, func(a, b ReplicaEvent) int {
		return cmp.Or(a.trueAt.Compare(b.trueAt), cmp.Compare(a.Replica, b.Replica), strings.Compare(a.Owner, b.Owner),
			strings.Compare(a.Job, b.Job), strings.Compare(a.Period, b.Period), cmp.Compare(a.Type, b.Type))
	})
	res.Events = events
	for _, e := range events {
		if e.Type != event.ClockSkew {
			continue
		}
		r := SkewRefusal{Replica: e.Replica, Owner: e.Owner, Job: e.Job, Period: e.Period, Offset: e.Offset, At: e.trueAt}
		if p := periods[periodKey{e.Job, e.Period}]; p != nil {
			for _, x := range p.Executions {
				if x.Completed() {
					r.DoneBy = append(r.DoneBy, x.Owner)
				}
			}
		}
		res.Refusals = append(res.Refusals, r)
	}
	return res
}

// zoneDue is a period's instant in one zone, and the replica that
// scheduled it there first.
type zoneDue struct {
	at      time.Time
	replica string
}

// wrongZone reports whether the replicas put a period in zones of
// different names at different instants (one zone name with other data is
// event.ZoneData's business, not this).
func wrongZone(zones map[string]zoneDue) bool {
	var first time.Time
	for _, z := range zones {
		switch {
		case first.IsZero():
			first = z.at
		case !z.at.Equal(first):
			return true
		}
	}
	return false
}

// RequireClusterOnce fails unless every period of every job ran exactly
// once in res: none twice, none lost, none done without a recorded
// success, none unexpected. On failure it lists every violation with the
// replicas and instants of its executions, and stops the test (FailNow).
func RequireClusterOnce(t TestingT, res *ClusterResult, msgAndArgs ...any) {
	t.Helper()
	if res == nil {
		require.Fail(t, "nil *ClusterResult", msgAndArgs...)
		return
	}
	if len(res.Violations) == 0 {
		return
	}
	var b strings.Builder
	fmt.Fprintf(&b, "%d of %d periods did not run exactly once:\n", len(res.Violations), len(res.Periods))
	for _, v := range res.Violations {
		b.WriteString("  ")
		b.WriteString(v.String())
		b.WriteByte('\n')
	}
	if len(res.Crashes) > 0 {
		b.WriteString("crashes:\n")
		for _, c := range res.Crashes {
			fmt.Fprintf(&b, "  %s %s at %s\n", c.Owner, c.Point, c.At.UTC().Format(time.RFC3339Nano))
		}
	}
	require.Fail(t, b.String(), msgAndArgs...)
}

// RequireClusterExpected fails unless res expected exactly n periods of
// job: a guard that the window and schedule were what the test meant
// (RequireClusterOnce passes vacuously on an empty window).
func RequireClusterExpected(t TestingT, res *ClusterResult, job string, n int, msgAndArgs ...any) {
	t.Helper()
	got := 0
	for _, p := range res.Periods {
		if p.Job == job && p.Expected {
			got++
		}
	}
	if got != n {
		require.Fail(t, fmt.Sprintf("job %s: want %d expected periods, got %d", job, n, got), msgAndArgs...)
	}
}

// RequireSkewRefused fails unless the replica at index replica had at
// least one claim refused for clock skew and did no period's work, while
// every period it was refused was done by another replica: "the skewed
// replica refuses, the others carry on". Pair it with RequireClusterOnce.
func RequireSkewRefused(t TestingT, res *ClusterResult, replica int, msgAndArgs ...any) {
	t.Helper()
	var bad []string
	n := 0
	for _, r := range res.Refusals {
		if r.Replica != replica {
			continue
		}
		n++
		if len(r.DoneBy) == 0 && res.expected(r.Job, r.Period) {
			bad = append(bad, fmt.Sprintf("job %s period %s: refused by %s (offset %v), done by nobody", r.Job, r.Period, r.Owner, r.Offset))
		}
	}
	if n == 0 {
		bad = append(bad, fmt.Sprintf("replica %d had no claim refused for clock skew", replica))
	}
	for _, e := range res.Executions {
		if e.Replica == replica && e.Completed() {
			bad = append(bad, fmt.Sprintf("replica %d (%s) did the work of job %s period %s at %s", replica, e.Owner,
				e.Run.Job, e.Run.Period, e.At.UTC().Format(time.RFC3339Nano)))
		}
	}
	if len(bad) > 0 {
		require.Fail(t, "skewed replica did not refuse as it should:\n  "+strings.Join(bad, "\n  "), msgAndArgs...)
	}
}

func (res *ClusterResult) expected(job, period string) bool {
	for _, p := range res.Periods {
		if p.Job == job && p.Period == period {
			return p.Expected
		}
	}
	return false
}

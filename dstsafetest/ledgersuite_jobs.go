package dstsafetest

// The dstsafe.JobRegistry part of the suite: one job, one identity. A
// job's schedule, period key kind and zone are stored once, by the
// ledger's clock; another schedule under the name is refused naming both
// and stores nothing, unless the registration takes the name over.

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/jonboulle/clockwork"

	"github.com/dstsafe/dstsafe"
	"github.com/dstsafe/dstsafe/ledgerkit"
)

// notRegistrySkip is the capability skip of the registry subtests.
const notRegistrySkip = "capability: the Ledger is not a dstsafe.JobRegistry"

// registryTests are the subtests of dstsafe.JobRegistry. Each skips,
// naming the capability, for a Ledger that is not one.
func (s suite) registryTests() []subtest {
	return []subtest{
		{"JobRegisterNew", s.testJobRegisterNew},
		{"JobRegisterAgain", s.testJobRegisterAgain},
		{"JobZoneDataOnly", s.testJobZoneDataOnly},
		{"JobConflict", s.testJobConflict},
		{"JobTakeOver", s.testJobTakeOver},
		{"JobPlainSchedule", s.testJobPlainSchedule},
		{"JobOwnersBounded", s.testJobOwnersBounded},
		{"JobLookupNotFound", s.testJobLookupNotFound},
		{"JobBadKeys", s.testJobBadKeys},
		{"JobConcurrent", s.testJobConcurrent},
		{"JobCanceledContext", s.testJobCanceledContext},
		{"JobKnown", s.testJobKnown},
		{"JobLimits", s.testJobLimits},
		{"JobLimitsKeptOnConflict", s.testJobLimitsKeptOnConflict},
		{"JobLimitsTakeOver", s.testJobLimitsTakeOver},
		{"JobBadLimits", s.testJobBadLimits},
	}
}

// registrySetup is setup for a subtest of dstsafe.JobRegistry: it skips
// when the Ledger is not one.
func (s suite) registrySetup(t *testing.T) (dstsafe.JobRegistry, *clockwork.FakeClock) {
	t.Helper()
	l, clock := s.setup(t)
	jr, ok := l.(dstsafe.JobRegistry)
	if !ok {
		t.Skipf("%s (%T)", notRegistrySkip, l)
	}
	return jr, clock
}

// Fingerprints of the Chicago bill (cron1;zone;zone data;fold;gap;key;
// seconds;origin;spec): at 01:30 with the 2024a and 2025b tz data, and
// moved to 02:00.
const (
	billAt0130    = "cron1;America/Chicago;2024a;first;shift;date;0;0;30 1 * * *"
	billAt0130New = "cron1;America/Chicago;2025b;first;shift;date;0;0;30 1 * * *"
	billAt0200    = "cron1;America/Chicago;2024a;first;shift;date;0;0;0 2 * * *"
	specAt0130    = "CRON_TZ=America/Chicago 30 1 * * *"
	specAt0200    = "CRON_TZ=America/Chicago 0 2 * * *"
)

func billing(owner string) dstsafe.JobRegistration {
	return dstsafe.JobRegistration{Job: "billing", Owner: owner, Schedule: billAt0130, Spec: specAt0130,
		PeriodKey: "date", Zone: "America/Chicago", ZoneData: "2024a"}
}

func register(t *testing.T, l dstsafe.JobRegistry, reg dstsafe.JobRegistration) dstsafe.JobInfo {
	t.Helper()
	info, err := l.RegisterJob(context.Background(), reg)
	must.NoError(t, err, "RegisterJob(%+v)", reg)
	requireInfoUTC(t, info)
	return info
}

func lookup(t *testing.T, l dstsafe.JobRegistry, job string) dstsafe.JobInfo {
	t.Helper()
	info, err := l.LookupJob(context.Background(), job)
	must.NoError(t, err, "LookupJob(%q)", job)
	requireInfoUTC(t, info)
	return info
}

func requireInfoUTC(t *testing.T, info dstsafe.JobInfo) {
	t.Helper()
	for name, ts := range map[string]time.Time{"FirstSeen": info.FirstSeen, "LastSeen": info.LastSeen, "Changed": info.Changed,
		"Limits.Start": info.Limits.Start, "Limits.End": info.Limits.End} {
		if !ts.IsZero() || !strings.HasPrefix(name, "Limits.") {
			must.Equal(t, time.UTC, ts.Location(), "%s %v is not in UTC", name, ts)
		}
	}
}

// sameInfo checks got against want field by field, instants by instant.
func sameInfo(t *testing.T, want, got dstsafe.JobInfo, what string) {
	t.Helper()
	check.Equal(t, want.Job, got.Job, "%s: Job", what)
	check.Equal(t, want.Schedule, got.Schedule, "%s: Schedule", what)
	check.Equal(t, want.Spec, got.Spec, "%s: Spec", what)
	check.Equal(t, want.PeriodKey, got.PeriodKey, "%s: PeriodKey", what)
	check.Equal(t, want.Zone, got.Zone, "%s: Zone", what)
	check.Equal(t, want.ZoneData, got.ZoneData, "%s: ZoneData", what)
	sameInstant(t, want.FirstSeen, got.FirstSeen, what+": FirstSeen")
	sameInstant(t, want.LastSeen, got.LastSeen, what+": LastSeen")
	sameInstant(t, want.Changed, got.Changed, what+": Changed")
	check.Equal(t, want.Owners, got.Owners, "%s: Owners", what)
	check.Equal(t, want.Limits.MaxRuns, got.Limits.MaxRuns, "%s: Limits.MaxRuns", what)
	sameInstant(t, want.Limits.Start, got.Limits.Start, what+": Limits.Start")
	sameInstant(t, want.Limits.End, got.Limits.End, what+": Limits.End")
}

// The first deploy of the billing service registers its job: everything
// it says is stored, seen and changed now by the ledger's clock.
func (s suite) testJobRegisterNew(t *testing.T) {
	l, clock := s.registrySetup(t)
	at := now(clock)
	want := dstsafe.JobInfo{Job: "billing", Schedule: billAt0130, Spec: specAt0130, PeriodKey: "date",
		Zone: "America/Chicago", ZoneData: "2024a", FirstSeen: at, LastSeen: at, Changed: at, Owners: []string{"billing-1"}}
	sameInfo(t, want, register(t, l, billing("billing-1")), "RegisterJob")
	sameInfo(t, want, lookup(t, l, "billing"), "LookupJob")
}

// Replicas and restarts register the job again with the same schedule:
// LastSeen moves, FirstSeen and Changed stay, the owner goes first.
func (s suite) testJobRegisterAgain(t *testing.T) {
	l, clock := s.registrySetup(t)
	first := now(clock)
	register(t, l, billing("billing-1"))
	clock.Advance(time.Minute)
	register(t, l, billing("billing-2"))
	clock.Advance(time.Hour)
	later := now(clock)
	got := register(t, l, billing("billing-1")) // billing-1 restarted
	want := dstsafe.JobInfo{Job: "billing", Schedule: billAt0130, Spec: specAt0130, PeriodKey: "date",
		Zone: "America/Chicago", ZoneData: "2024a", FirstSeen: first, LastSeen: later, Changed: first,
		Owners: []string{"billing-1", "billing-2"}}
	sameInfo(t, want, got, "RegisterJob again")
	sameInfo(t, want, lookup(t, l, "billing"), "LookupJob")
}

// A replica deployed with newer tz data computes another fingerprint for
// the same schedule: the same job, its zone data updated, Changed kept.
func (s suite) testJobZoneDataOnly(t *testing.T) {
	l, clock := s.registrySetup(t)
	first := now(clock)
	register(t, l, billing("billing-1"))
	clock.Advance(time.Minute)
	reg := billing("billing-2")
	reg.Schedule, reg.ZoneData = billAt0130New, "2025b"
	got := register(t, l, reg)
	check.Equal(t, billAt0130New, got.Schedule, "Schedule")
	check.Equal(t, "2025b", got.ZoneData, "ZoneData")
	sameInstant(t, first, got.Changed, "Changed after a zone data update")
	sameInstant(t, now(clock), got.LastSeen, "LastSeen")
	sameInfo(t, got, lookup(t, l, "billing"), "LookupJob")
}

// A second service registers "billing" at 02:00: refused, naming the
// schedule registered (with its spec and since when) and the one refused;
// nothing is stored, not even LastSeen or the owner.
func (s suite) testJobConflict(t *testing.T) {
	l, clock := s.registrySetup(t)
	before := register(t, l, billing("billing-1"))
	clock.Advance(time.Hour)
	reg := dstsafe.JobRegistration{Job: "billing", Owner: "invoices-1", Schedule: billAt0200, Spec: specAt0200,
		PeriodKey: "date", Zone: "America/Chicago", ZoneData: "2024a"}
	_, err := l.RegisterJob(context.Background(), reg)
	must.ErrorIs(t, err, dstsafe.ErrJobConflict)
	var ce *dstsafe.JobConflictError
	must.ErrorAs(t, err, &ce)
	sameInfo(t, before, ce.Registered, "JobConflictError.Registered")
	check.Equal(t, billAt0200, ce.Schedule, "JobConflictError.Schedule")
	check.Equal(t, specAt0200, ce.Spec, "JobConflictError.Spec")
	sameInfo(t, before, lookup(t, l, "billing"), "LookupJob after a refused registration")
}

// Scheduler.Update moves the bill to 02:00: the takeover replaces the
// schedule and everything that describes it, Changed is now, FirstSeen
// stays; the old schedule is then the one refused.
func (s suite) testJobTakeOver(t *testing.T) {
	l, clock := s.registrySetup(t)
	first := now(clock)
	register(t, l, billing("billing-1"))
	clock.Advance(24 * time.Hour)
	at := now(clock)
	reg := dstsafe.JobRegistration{Job: "billing", Owner: "billing-1", Schedule: billAt0200, Spec: specAt0200,
		PeriodKey: "wall", Zone: "America/Chicago", ZoneData: "2024a", TakeOver: true}
	want := dstsafe.JobInfo{Job: "billing", Schedule: billAt0200, Spec: specAt0200, PeriodKey: "wall",
		Zone: "America/Chicago", ZoneData: "2024a", FirstSeen: first, LastSeen: at, Changed: at, Owners: []string{"billing-1"}}
	sameInfo(t, want, register(t, l, reg), "RegisterJob with TakeOver")
	sameInfo(t, want, lookup(t, l, "billing"), "LookupJob after the takeover")
	_, err := l.RegisterJob(context.Background(), billing("billing-2"))
	must.ErrorIs(t, err, dstsafe.ErrJobConflict, "the old schedule after the takeover")
	// A takeover with the schedule in force changes nothing but LastSeen.
	clock.Advance(time.Minute)
	got := register(t, l, reg)
	sameInstant(t, at, got.Changed, "Changed after a takeover with the same schedule")
}

// A plain Schedule has no fingerprint: its registration never conflicts
// and never replaces a known schedule; a job first registered plain takes
// the first fingerprint it is given without a conflict.
func (s suite) testJobPlainSchedule(t *testing.T) {
	l, clock := s.registrySetup(t)
	register(t, l, billing("billing-1"))
	clock.Advance(time.Minute)
	got := register(t, l, dstsafe.JobRegistration{Job: "billing", Owner: "adhoc"})
	check.Equal(t, billAt0130, got.Schedule, "Schedule after a plain registration")
	check.Equal(t, specAt0130, got.Spec, "Spec after a plain registration")
	check.Equal(t, []string{"adhoc", "billing-1"}, got.Owners)

	first := now(clock)
	plain := register(t, l, dstsafe.JobRegistration{Job: "report", Owner: "w1"})
	check.Equal(t, "", plain.Schedule)
	clock.Advance(time.Minute)
	reg := billing("w2")
	reg.Job = "report"
	got = register(t, l, reg)
	check.Equal(t, billAt0130, got.Schedule, "the first fingerprint of a plain job")
	sameInstant(t, first, got.FirstSeen, "FirstSeen")
	sameInstant(t, now(clock), got.Changed, "Changed when the fingerprint was first given")
}

// Owners are kept most recent first, each once, at most 16: a fleet of
// 20 pods rolling keeps the 16 latest.
func (s suite) testJobOwnersBounded(t *testing.T) {
	l, clock := s.registrySetup(t)
	for i := range 20 {
		register(t, l, billing(fmt.Sprintf("billing-%02d", i)))
		clock.Advance(time.Second)
	}
	register(t, l, billing("billing-10")) // a restart: moves to the front, once
	var want []string
	want = append(want, "billing-10")
	for i := 19; len(want) < 16; i-- {
		if i != 10 {
			want = append(want, fmt.Sprintf("billing-%02d", i))
		}
	}
	check.Equal(t, want, lookup(t, l, "billing").Owners)
}

func (s suite) testJobLookupNotFound(t *testing.T) {
	l, _ := s.registrySetup(t)
	_, err := l.LookupJob(context.Background(), "billing")
	must.ErrorIs(t, err, dstsafe.ErrNotFound, "LookupJob of a job never registered")
	// A job with records but no registration is not registered either.
	claim(t, l, dstsafe.ClaimRequest{Job: "billing", Period: "2024-11-03", Owner: "w"})
	_, err = l.LookupJob(context.Background(), "billing")
	must.ErrorIs(t, err, dstsafe.ErrNotFound, "LookupJob of a job with records only")
}

// Keys are held to the Ledger's rules: a *KeyError naming the field,
// nothing stored.
func (s suite) testJobBadKeys(t *testing.T) {
	l, _ := s.registrySetup(t)
	ctx := context.Background()
	long := strings.Repeat("x", ledgerkit.MaxKeyLen+1)
	mod := func(f func(*dstsafe.JobRegistration)) dstsafe.JobRegistration {
		r := billing("billing-1")
		f(&r)
		return r
	}
	for _, tc := range []struct {
		field string
		reg   dstsafe.JobRegistration
	}{
		{"job", mod(func(r *dstsafe.JobRegistration) { r.Job = "" })},
		{"job", mod(func(r *dstsafe.JobRegistration) { r.Job = "bill\x00ing" })},
		{"owner", mod(func(r *dstsafe.JobRegistration) { r.Owner = "" })},
		{"owner", mod(func(r *dstsafe.JobRegistration) { r.Owner = "\xff" })},
		{"schedule", mod(func(r *dstsafe.JobRegistration) { r.Schedule = long })},
		{"spec", mod(func(r *dstsafe.JobRegistration) { r.Spec = "30 1 * * *\x00" })},
		{"zone", mod(func(r *dstsafe.JobRegistration) { r.Zone = long })},
	} {
		_, err := l.RegisterJob(ctx, tc.reg)
		var ke *dstsafe.KeyError
		must.ErrorAs(t, err, &ke, "RegisterJob with a bad %s", tc.field)
		check.Equal(t, tc.field, ke.Field)
		must.ErrorIs(t, err, dstsafe.ErrInvalidArgument)
	}
	_, err := l.LookupJob(ctx, "")
	var ke *dstsafe.KeyError
	must.ErrorAs(t, err, &ke, "LookupJob of an empty job")
	_, err = l.LookupJob(ctx, "billing")
	must.ErrorIs(t, err, dstsafe.ErrNotFound, "a refused registration stored something")
}

// Every replica of two services starts at once, each registering
// "billing": 8 at 01:30 and 8 at 02:00, interleaved. Exactly one schedule
// is stored; every registration with it succeeds (its owner kept), every
// one with the other is refused naming the stored one.
func (s suite) testJobConcurrent(t *testing.T) {
	l, _ := s.registrySetup(t)
	const n = 16
	var (
		wg   sync.WaitGroup
		errs [n]error
		got  [n]dstsafe.JobInfo
	)
	start := make(chan struct{})
	for i := range n {
		reg := billing(fmt.Sprintf("svc%d-%d", i%2, i))
		if i%2 == 1 {
			reg.Schedule, reg.Spec = billAt0200, specAt0200
		}
		wg.Go(func() {
			<-start
			got[i], errs[i] = l.RegisterJob(context.Background(), reg)
		})
	}
	close(start)
	waitGroup(t, &wg, "%d registrations of billing at once", n)
	stored := lookup(t, l, "billing")
	winner := 0
	if stored.Schedule == billAt0200 {
		winner = 1
	}
	must.True(t, stored.Schedule == billAt0130 || stored.Schedule == billAt0200, "stored schedule %q", stored.Schedule)
	for i := range n {
		if i%2 == winner {
			check.NoError(t, errs[i], "registration %d of the stored schedule", i)
			check.True(t, slices.Contains(stored.Owners, fmt.Sprintf("svc%d-%d", i%2, i)), "owner of registration %d missing from %v", i, stored.Owners)
			continue
		}
		var ce *dstsafe.JobConflictError
		check.ErrorAs(t, errs[i], &ce, "registration %d of the other schedule", i)
		if ce != nil {
			check.Equal(t, stored.Schedule, ce.Registered.Schedule, "registration %d refused naming", i)
		}
		check.True(t, !slices.Contains(stored.Owners, fmt.Sprintf("svc%d-%d", i%2, i)), "refused owner %d stored: %v", i, stored.Owners)
	}
	check.Equal(t, n/2, len(stored.Owners), "owners: %v", stored.Owners)
}

func (s suite) testJobCanceledContext(t *testing.T) {
	l, _ := s.registrySetup(t)
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	_, err := l.RegisterJob(ctx, billing("billing-1"))
	must.ErrorIs(t, err, context.Canceled, "RegisterJob")
	_, err = l.LookupJob(ctx, "billing")
	must.ErrorIs(t, err, context.Canceled, "LookupJob")
	_, err = l.LookupJob(context.Background(), "billing")
	must.ErrorIs(t, err, dstsafe.ErrNotFound, "a registration with a canceled ctx stored something")
}

// A registered job is a job the ledger knows (ControlLedger.Jobs), before
// its first period: an operator can pause it by name.
func (s suite) testJobKnown(t *testing.T) {
	l, _ := s.registrySetup(t)
	cl, ok := l.(dstsafe.ControlLedger)
	if !ok {
		t.Skipf("%s (%T)", notControlSkip, l)
	}
	register(t, l, billing("billing-1"))
	register(t, l, dstsafe.JobRegistration{Job: "report", Owner: "w"})
	claim(t, l, dstsafe.ClaimRequest{Job: "export", Period: "2024-11-03", Owner: "w"})
	check.Equal(t, []string{"billing", "export", "report"}, jobs(t, cl), "Jobs")
}

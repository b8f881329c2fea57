package dstsafe_test

import (
	"io/fs"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/dstsafe/dstsafe"
	"github.com/dstsafe/dstsafe/dstsafetest"
)

// fires returns the first n occurrences strictly after from.
func fires(tb testing.TB, c *dstsafe.Cron, from time.Time, n int) []dstsafe.Occurrence {
	tb.Helper()
	var out []dstsafe.Occurrence
	for len(out) < n {
		o, ok := c.NextOccurrence(from)
		if !ok {
			break
		}
		if !o.At.After(from) {
			tb.Fatalf("%s: NextOccurrence(%v) = %v, not after", c, from, o.At)
		}
		out = append(out, o)
		from = o.At
	}
	return out
}

type wantFire struct {
	at   string // RFC 3339 instant
	wall string // scheduled wall reading
	kind dstsafe.Kind
}

// The famous nights, written out by hand. Each sequence starts from the
// given instant and lists the next fires in order.
var nextCases = []struct {
	name string
	zone string
	spec string
	opts []dstsafe.CronOption
	from string
	want []wantFire
}{
	{
		// The postmortem: a daily 01:30 job on the fall-back night. It
		// fires once, at the first 01:30 (CDT), not again at 01:30 CST.
		name: "chicago fall 01:30 fixed", zone: "America/Chicago", spec: "30 1 * * *",
		from: "2024-11-02T12:00:00Z",
		want: []wantFire{
			{"2024-11-03T01:30:00-05:00", "2024-11-03T01:30:00", dstsafe.Fold},
			{"2024-11-04T01:30:00-06:00", "2024-11-04T01:30:00", dstsafe.Unique},
		},
	},
	{
		// Spring forward: 02:30 does not exist; it fires once at 03:30 CDT
		// (shifted by the gap), never before the gap.
		name: "chicago spring 02:30 fixed", zone: "America/Chicago", spec: "30 2 * * *",
		from: "2024-03-09T12:00:00Z",
		want: []wantFire{
			{"2024-03-10T03:30:00-05:00", "2024-03-10T02:30:00", dstsafe.Gap},
			{"2024-03-11T02:30:00-05:00", "2024-03-11T02:30:00", dstsafe.Unique},
		},
	},
	{
		name: "chicago spring 02:30 at transition", zone: "America/Chicago", spec: "30 2 * * *",
		opts: []dstsafe.CronOption{dstsafe.WithGap(dstsafe.GapAtTransition)},
		from: "2024-03-09T12:00:00Z",
		want: []wantFire{
			{"2024-03-10T03:00:00-05:00", "2024-03-10T02:30:00", dstsafe.Gap},
			{"2024-03-11T02:30:00-05:00", "2024-03-11T02:30:00", dstsafe.Unique},
		},
	},
	{
		name: "chicago spring 02:30 skip", zone: "America/Chicago", spec: "30 2 * * *",
		opts: []dstsafe.CronOption{dstsafe.WithGap(dstsafe.GapSkip)},
		from: "2024-03-09T12:00:00Z",
		want: []wantFire{
			{"2024-03-11T02:30:00-05:00", "2024-03-11T02:30:00", dstsafe.Unique},
		},
	},
	{
		name: "chicago fall 01:30 last", zone: "America/Chicago", spec: "30 1 * * *",
		opts: []dstsafe.CronOption{dstsafe.WithFold(dstsafe.FoldLast)},
		from: "2024-11-02T12:00:00Z",
		want: []wantFire{
			{"2024-11-03T01:30:00-06:00", "2024-11-03T01:30:00", dstsafe.Fold},
			{"2024-11-04T01:30:00-06:00", "2024-11-04T01:30:00", dstsafe.Unique},
		},
	},
	{
		name: "chicago fall 01:30 both", zone: "America/Chicago", spec: "30 1 * * *",
		opts: []dstsafe.CronOption{dstsafe.WithFold(dstsafe.FoldBoth)},
		from: "2024-11-02T12:00:00Z",
		want: []wantFire{
			{"2024-11-03T01:30:00-05:00", "2024-11-03T01:30:00", dstsafe.Fold},
			{"2024-11-03T01:30:00-06:00", "2024-11-03T01:30:00", dstsafe.Fold},
			{"2024-11-04T01:30:00-06:00", "2024-11-04T01:30:00", dstsafe.Unique},
		},
	},
	{
		// A periodic job follows real time: every quarter hour of both
		// passes through 01:00-02:00.
		name: "chicago fall */30 periodic", zone: "America/Chicago", spec: "*/30 * * * *",
		from: "2024-11-03T05:45:00Z", // 00:45 CDT
		want: []wantFire{
			{"2024-11-03T01:00:00-05:00", "2024-11-03T01:00:00", dstsafe.Fold},
			{"2024-11-03T01:30:00-05:00", "2024-11-03T01:30:00", dstsafe.Fold},
			{"2024-11-03T01:00:00-06:00", "2024-11-03T01:00:00", dstsafe.Fold},
			{"2024-11-03T01:30:00-06:00", "2024-11-03T01:30:00", dstsafe.Fold},
			{"2024-11-03T02:00:00-06:00", "2024-11-03T02:00:00", dstsafe.Unique},
		},
	},
	{
		// ... and skips the readings that do not exist.
		name: "chicago spring */30 periodic", zone: "America/Chicago", spec: "*/30 * * * *",
		from: "2024-03-10T07:15:00Z", // 01:15 CST
		want: []wantFire{
			{"2024-03-10T01:30:00-06:00", "2024-03-10T01:30:00", dstsafe.Unique},
			{"2024-03-10T03:00:00-05:00", "2024-03-10T03:00:00", dstsafe.Unique},
			{"2024-03-10T03:30:00-05:00", "2024-03-10T03:30:00", dstsafe.Unique},
		},
	},
	{
		// @hourly is periodic: 01:00 fires twice, 02:00 once.
		name: "chicago fall @hourly", zone: "America/Chicago", spec: "@hourly",
		from: "2024-11-03T05:30:00Z",
		want: []wantFire{
			{"2024-11-03T01:00:00-05:00", "2024-11-03T01:00:00", dstsafe.Fold},
			{"2024-11-03T01:00:00-06:00", "2024-11-03T01:00:00", dstsafe.Fold},
			{"2024-11-03T02:00:00-06:00", "2024-11-03T02:00:00", dstsafe.Unique},
		},
	},
	{
		// Two readings, one instant: 02:30 shifts onto 03:30, which the
		// spec names anyway. It fires once, as the 03:30 reading.
		name: "chicago spring 02:30 and 03:30", zone: "America/Chicago", spec: "30 2,3 * * *",
		from: "2024-03-10T07:00:00Z",
		want: []wantFire{
			{"2024-03-10T03:30:00-05:00", "2024-03-10T03:30:00", dstsafe.Unique},
			{"2024-03-11T02:30:00-05:00", "2024-03-11T02:30:00", dstsafe.Unique},
		},
	},
	{
		// Samoa skipped Friday 2011-12-30: a daily noon job fires on the
		// 29th and the 31st and does not hang (robfig/cron and gocron do).
		name: "apia skipped day", zone: "Pacific/Apia", spec: "0 12 * * *",
		from: "2011-12-29T00:00:00Z",
		want: []wantFire{
			{"2011-12-29T12:00:00-10:00", "2011-12-29T12:00:00", dstsafe.Unique},
			{"2011-12-31T12:00:00+14:00", "2011-12-31T12:00:00", dstsafe.Unique},
			{"2012-01-01T12:00:00+14:00", "2012-01-01T12:00:00", dstsafe.Unique},
		},
	},
	{
		// A job on the skipped Friday only.
		name: "apia friday only", zone: "Pacific/Apia", spec: "0 12 * * FRI",
		from: "2011-12-20T00:00:00Z",
		want: []wantFire{
			{"2011-12-23T12:00:00-10:00", "2011-12-23T12:00:00", dstsafe.Unique},
			{"2011-12-31T12:00:00+14:00", "2011-12-30T12:00:00", dstsafe.Gap},
			{"2012-01-06T12:00:00+14:00", "2012-01-06T12:00:00", dstsafe.Unique},
		},
	},
	{
		// Havana has no midnight on 2024-03-10: the midnight job runs at
		// the first instant of the day, 01:00 CDT.
		name: "havana midnight gap", zone: "America/Havana", spec: "@midnight",
		from: "2024-03-09T06:00:00Z",
		want: []wantFire{
			{"2024-03-10T01:00:00-04:00", "2024-03-10T00:00:00", dstsafe.Gap},
			{"2024-03-11T00:00:00-04:00", "2024-03-11T00:00:00", dstsafe.Unique},
		},
	},
	{
		// ... and two midnights on 2024-11-03: it bills once.
		name: "havana midnight fold", zone: "America/Havana", spec: "0 0 * * *",
		from: "2024-11-02T12:00:00Z",
		want: []wantFire{
			{"2024-11-03T00:00:00-04:00", "2024-11-03T00:00:00", dstsafe.Fold},
			{"2024-11-04T00:00:00-05:00", "2024-11-04T00:00:00", dstsafe.Unique},
		},
	},
	{
		name: "beirut midnight gap", zone: "Asia/Beirut", spec: "0 0 * * *",
		from: "2024-03-30T12:00:00Z",
		want: []wantFire{
			{"2024-03-31T01:00:00+03:00", "2024-03-31T00:00:00", dstsafe.Gap},
			{"2024-04-01T00:00:00+03:00", "2024-04-01T00:00:00", dstsafe.Unique},
		},
	},
	{
		// Cairo falls back at 24:00 on 2024-10-31: 23:30 happens twice.
		name: "cairo 24:00 fold", zone: "Africa/Cairo", spec: "30 23 * * *",
		from: "2024-10-31T12:00:00Z",
		want: []wantFire{
			{"2024-10-31T23:30:00+03:00", "2024-10-31T23:30:00", dstsafe.Fold},
			{"2024-11-01T23:30:00+02:00", "2024-11-01T23:30:00", dstsafe.Unique},
		},
	},
	{
		// Lord Howe moves by 30 minutes: 02:15 is skipped on 2024-10-06
		// and fires 30 minutes later.
		name: "lord howe 30-minute gap", zone: "Australia/Lord_Howe", spec: "15 2 * * *",
		from: "2024-10-04T12:00:00Z",
		want: []wantFire{
			{"2024-10-05T02:15:00+10:30", "2024-10-05T02:15:00", dstsafe.Unique},
			{"2024-10-06T02:45:00+11:00", "2024-10-06T02:15:00", dstsafe.Gap},
			{"2024-10-07T02:15:00+11:00", "2024-10-07T02:15:00", dstsafe.Unique},
		},
	},
	{
		name: "lord howe 30-minute fold", zone: "Australia/Lord_Howe", spec: "45 1 * * *",
		from: "2024-04-06T00:00:00Z",
		want: []wantFire{
			{"2024-04-07T01:45:00+11:00", "2024-04-07T01:45:00", dstsafe.Fold},
			{"2024-04-08T01:45:00+10:30", "2024-04-08T01:45:00", dstsafe.Unique},
		},
	},
	{
		// Dublin's negative DST moves the clocks like London's.
		name: "dublin fold", zone: "Europe/Dublin", spec: "30 1 * * *",
		from: "2024-10-26T12:00:00Z",
		want: []wantFire{
			{"2024-10-27T01:30:00+01:00", "2024-10-27T01:30:00", dstsafe.Fold},
			{"2024-10-28T01:30:00Z", "2024-10-28T01:30:00", dstsafe.Unique},
		},
	},
	{
		name: "volgograd non-DST change", zone: "Europe/Volgograd", spec: "30 1 * * *",
		from: "2020-12-26T12:00:00Z",
		want: []wantFire{
			{"2020-12-27T01:30:00+04:00", "2020-12-27T01:30:00", dstsafe.Fold},
			{"2020-12-28T01:30:00+03:00", "2020-12-28T01:30:00", dstsafe.Unique},
		},
	},
	{
		// Past the last explicit transition: the POSIX rule of 2100.
		name: "chicago 2100", zone: "America/Chicago", spec: "30 2 * * *",
		from: "2100-03-13T12:00:00Z",
		want: []wantFire{
			{"2100-03-14T03:30:00-05:00", "2100-03-14T02:30:00", dstsafe.Gap},
			{"2100-03-15T02:30:00-05:00", "2100-03-15T02:30:00", dstsafe.Unique},
		},
	},
	{
		// Quartz: last Friday of the month, second Monday, last weekday.
		name: "last friday", zone: "America/Chicago", spec: "0 9 * * 5L",
		from: "2024-01-01T00:00:00Z",
		want: []wantFire{
			{"2024-01-26T09:00:00-06:00", "2024-01-26T09:00:00", dstsafe.Unique},
			{"2024-02-23T09:00:00-06:00", "2024-02-23T09:00:00", dstsafe.Unique},
			{"2024-03-29T09:00:00-05:00", "2024-03-29T09:00:00", dstsafe.Unique},
		},
	},
	{
		name: "second monday", zone: "UTC", spec: "0 9 * * MON#2",
		from: "2024-01-01T00:00:00Z",
		want: []wantFire{
			{"2024-01-08T09:00:00Z", "2024-01-08T09:00:00", dstsafe.Unique},
			{"2024-02-12T09:00:00Z", "2024-02-12T09:00:00", dstsafe.Unique},
		},
	},
	{
		name: "last weekday", zone: "UTC", spec: "0 17 LW * *",
		from: "2024-03-01T00:00:00Z",
		want: []wantFire{
			{"2024-03-29T17:00:00Z", "2024-03-29T17:00:00", dstsafe.Unique}, // the 31st is a Sunday
			{"2024-04-30T17:00:00Z", "2024-04-30T17:00:00", dstsafe.Unique},
			{"2024-05-31T17:00:00Z", "2024-05-31T17:00:00", dstsafe.Unique},
			{"2024-06-28T17:00:00Z", "2024-06-28T17:00:00", dstsafe.Unique}, // the 30th is a Sunday
		},
	},
	{
		name: "last day", zone: "UTC", spec: "0 0 L * *",
		from: "2024-01-31T00:00:00Z",
		want: []wantFire{
			{"2024-02-29T00:00:00Z", "2024-02-29T00:00:00", dstsafe.Unique},
			{"2024-03-31T00:00:00Z", "2024-03-31T00:00:00", dstsafe.Unique},
		},
	},
	{
		// 15W: the weekday nearest the 15th. 2024-06-15 is a Saturday.
		name: "nearest weekday", zone: "UTC", spec: "0 0 15W * *",
		from: "2024-06-01T00:00:00Z",
		want: []wantFire{
			{"2024-06-14T00:00:00Z", "2024-06-14T00:00:00", dstsafe.Unique},
			{"2024-07-15T00:00:00Z", "2024-07-15T00:00:00", dstsafe.Unique},
		},
	},
	{
		// Vixie cron: both day fields restricted means either matches.
		name: "dom or dow", zone: "UTC", spec: "0 0 13 * FRI",
		from: "2024-09-01T00:00:00Z",
		want: []wantFire{
			{"2024-09-06T00:00:00Z", "2024-09-06T00:00:00", dstsafe.Unique},
			{"2024-09-13T00:00:00Z", "2024-09-13T00:00:00", dstsafe.Unique},
			{"2024-09-20T00:00:00Z", "2024-09-20T00:00:00", dstsafe.Unique},
		},
	},
	{
		name: "leap day", zone: "UTC", spec: "0 0 29 2 *",
		from: "2097-01-01T00:00:00Z",
		want: []wantFire{
			{"2104-02-29T00:00:00Z", "2104-02-29T00:00:00", dstsafe.Unique}, // 2100 is not a leap year
		},
	},
	{
		name: "every 90m anchored", zone: "UTC", spec: "@every 90m",
		from: "2024-01-01T00:00:00Z",
		want: []wantFire{
			{"2024-01-01T01:30:00Z", "2024-01-01T01:30:00", dstsafe.Unique},
			{"2024-01-01T03:00:00Z", "2024-01-01T03:00:00", dstsafe.Unique},
		},
	},
	{
		name: "seconds field", zone: "UTC", spec: "*/20 0 12 * * *",
		opts: []dstsafe.CronOption{dstsafe.WithSeconds()},
		from: "2024-01-01T00:00:00Z",
		want: []wantFire{
			{"2024-01-01T12:00:00Z", "2024-01-01T12:00:00", dstsafe.Unique},
			{"2024-01-01T12:00:20Z", "2024-01-01T12:00:20", dstsafe.Unique},
			{"2024-01-01T12:00:40Z", "2024-01-01T12:00:40", dstsafe.Unique},
			{"2024-01-02T12:00:00Z", "2024-01-02T12:00:00", dstsafe.Unique},
		},
	},
}

func TestNextTable(t *testing.T) {
	for _, c := range nextCases {
		t.Run(c.name, func(t *testing.T) {
			loc := time.UTC
			if c.zone != "UTC" {
				loc = dstsafetest.Zone(t, c.zone)
			}
			cr := mustCron(t, c.spec, append([]dstsafe.CronOption{dstsafe.WithLocation(loc)}, c.opts...)...)
			got := fires(t, cr, mustTime(t, c.from), len(c.want))
			require.Len(t, got, len(c.want))
			for i, w := range c.want {
				assert.True(t, got[i].At.Equal(mustTime(t, w.at)), "fire %d at %v, want %s", i, got[i].At, w.at)
				_, off := got[i].At.Zone()
				_, wantOff := mustTime(t, w.at).Zone()
				assert.Equal(t, wantOff, off, "fire %d offset", i)
				assert.Equal(t, w.wall, got[i].Wall.String(), "fire %d wall", i)
				assert.Equal(t, w.kind, got[i].Kind, "fire %d kind", i)
				assert.Same(t, loc, got[i].At.Location())
				// Next agrees with NextOccurrence.
				prev := mustTime(t, c.from)
				if i > 0 {
					prev = got[i-1].At
				}
				assert.True(t, cr.Next(prev).Equal(got[i].At))
			}
		})
	}
}

func TestNextZonePrefix(t *testing.T) {
	for _, spec := range []string{"CRON_TZ=America/Chicago 30 1 * * *", "TZ=America/Chicago 30 1 * * *", "  CRON_TZ=America/Chicago   30 1 * * *  "} {
		c, err := dstsafe.ParseCron(spec)
		require.NoError(t, err, spec)
		assert.Equal(t, "America/Chicago", c.Location().String())
		got := c.Next(mustTime(t, "2024-11-02T12:00:00Z"))
		assert.True(t, got.Equal(mustTime(t, "2024-11-03T01:30:00-05:00")), "%s: %v", spec, got)
	}
	// Without a prefix: UTC, never the machine's zone, whatever TZ says.
	t.Setenv("TZ", "America/Chicago")
	c, err := dstsafe.ParseCron("30 1 * * *")
	require.NoError(t, err)
	assert.Equal(t, time.UTC, c.Location())
	assert.True(t, c.Next(mustTime(t, "2024-01-01T00:00:00Z")).Equal(mustTime(t, "2024-01-01T01:30:00Z")))
	// The prefix wins over WithLocation.
	c, err = dstsafe.ParseCron("CRON_TZ=Asia/Kolkata 0 0 * * *", dstsafe.WithLocation(time.UTC))
	require.NoError(t, err)
	assert.Equal(t, "Asia/Kolkata", c.Location().String())
}

func TestPeriodKeys(t *testing.T) {
	chicago := dstsafetest.Zone(t, "America/Chicago")
	c := mustCron(t, "*/30 1 * * *", dstsafe.WithLocation(chicago))
	got := fires(t, c, mustTime(t, "2024-11-03T05:45:00Z"), 4)
	var keys []string
	for _, o := range got {
		keys = append(keys, o.Period)
	}
	// Both readings of the repeated hour fire; the second is keyed apart.
	assert.Equal(t, []string{"2024-11-03T01:00:00", "2024-11-03T01:30:00", "2024-11-03T01:00:00;fold=1", "2024-11-03T01:30:00;fold=1"}, keys)

	d := mustCron(t, "30 2 * * *", dstsafe.WithLocation(chicago), dstsafe.WithPeriodKey(dstsafe.ByDate))
	o, ok := d.NextOccurrence(mustTime(t, "2024-03-09T12:00:00Z"))
	require.True(t, ok)
	assert.Equal(t, "2024-03-10", o.Period) // the scheduled date, though it fires at 03:30
	assert.Equal(t, dstsafe.ByDate, d.PeriodKey())

	e := mustCron(t, "@every 1h", dstsafe.WithLocation(chicago))
	got = fires(t, e, mustTime(t, "2024-11-03T05:30:00Z"), 3)
	assert.Equal(t, "2024-11-03T01:00:00", got[0].Period)
	assert.Equal(t, "2024-11-03T01:00:00;fold=1", got[1].Period)
	assert.Equal(t, "2024-11-03T02:00:00", got[2].Period)
}

func TestFixedAndPolicies(t *testing.T) {
	cases := []struct {
		spec  string
		fixed bool
		fold  dstsafe.FoldPolicy
		gap   dstsafe.GapPolicy
	}{
		{"30 1 * * *", true, dstsafe.FoldFirst, dstsafe.GapShift},
		{"0,30 1-3 * * *", true, dstsafe.FoldFirst, dstsafe.GapShift},
		{"@daily", true, dstsafe.FoldFirst, dstsafe.GapShift},
		{"@weekly", true, dstsafe.FoldFirst, dstsafe.GapShift},
		{"*/15 * * * *", false, dstsafe.FoldBoth, dstsafe.GapSkip},
		{"0 * * * *", false, dstsafe.FoldBoth, dstsafe.GapSkip},
		{"0 */2 * * *", false, dstsafe.FoldBoth, dstsafe.GapSkip},
		{"? 1 * * *", false, dstsafe.FoldBoth, dstsafe.GapSkip},
		{"@hourly", false, dstsafe.FoldBoth, dstsafe.GapSkip},
		{"@every 1h", false, dstsafe.FoldBoth, dstsafe.GapSkip},
	}
	for _, c := range cases {
		cr, err := dstsafe.ParseCron(c.spec)
		require.NoError(t, err, c.spec)
		assert.Equal(t, c.fixed, cr.Fixed(), c.spec)
		assert.Equal(t, c.fold, cr.FoldPolicy(), c.spec)
		assert.Equal(t, c.gap, cr.GapPolicy(), c.spec)
	}
	cr, err := dstsafe.ParseCron("*/15 * * * *", dstsafe.WithFold(dstsafe.FoldFirst), dstsafe.WithGap(dstsafe.GapShift))
	require.NoError(t, err)
	assert.Equal(t, dstsafe.FoldFirst, cr.FoldPolicy())
	assert.Equal(t, dstsafe.GapShift, cr.GapPolicy())
	cr, err = dstsafe.ParseCron("0 0 * * * *", dstsafe.WithSeconds())
	require.NoError(t, err)
	assert.False(t, cr.Fixed(), "hour starts with *")
}

func TestParseCronErrors(t *testing.T) {
	cases := []struct {
		spec  string
		opts  []dstsafe.CronOption
		field string
	}{
		{"", nil, "spec"},
		{"   ", nil, "spec"},
		{"* * * *", nil, "spec"},
		{"* * * * * *", nil, "spec"},
		{"0 * * * *", []dstsafe.CronOption{dstsafe.WithSeconds()}, "spec"},
		{"60 * * * *", nil, "minute"},
		{"-1 * * * *", nil, "minute"},
		{"* 24 * * *", nil, "hour"},
		{"* * 0 * *", nil, "day-of-month"},
		{"* * 32 * *", nil, "day-of-month"},
		{"* * * 13 *", nil, "month"},
		{"* * * 0 *", nil, "month"},
		{"* * * * 8", nil, "day-of-week"},
		{"* * * FOO *", nil, "month"},
		{"* * * * FUNDAY", nil, "day-of-week"},
		{"5-1 * * * *", nil, "minute"},
		{"*/0 * * * *", nil, "minute"},
		{"*/-5 * * * *", nil, "minute"},
		{"1,,2 * * * *", nil, "minute"},
		{"1-2-3 * * * *", nil, "minute"},
		{"a * * * *", nil, "minute"},
		{"L * * * *", nil, "minute"},
		{"* * * * L", nil, "day-of-week"},
		{"* * 32W * *", nil, "day-of-month"},
		{"* * * * MON#6", nil, "day-of-week"},
		{"* * * * 8#1", nil, "day-of-week"},
		{"* * * * 8L", nil, "day-of-week"},
		{"60 * * * * *", []dstsafe.CronOption{dstsafe.WithSeconds()}, "second"},
		{"@fortnightly", nil, "descriptor"},
		{"@every", nil, "every"},
		{"@every 0s", nil, "every"},
		{"@every 500ms", nil, "every"},
		{"@every 1.5s", nil, "every"},
		{"@every -1h", nil, "every"},
		{"@every banana", nil, "every"},
		{"CRON_TZ=Mars/Olympus 0 0 * * *", nil, "zone"},
		{"TZ=0 0 0 * * *", nil, "zone"}, // robfig/cron panics on this one
		{"CRON_TZ=UTC+5 0 0 * * *", nil, "zone"},
		{"CRON_TZ=GMT-03:00 0 0 * * *", nil, "zone"},
		{"CRON_TZ=+05:30 0 0 * * *", nil, "zone"},
		{"CRON_TZ=Local 0 0 * * *", nil, "zone"},
		{"CRON_TZ= 0 0 * * *", nil, "zone"},
		{"CRON_TZ=America/Chicago", nil, "spec"},
		{"CRON_TZ=America/Chicago ", nil, "spec"},
		{"0 0 * * *", []dstsafe.CronOption{dstsafe.WithFold(dstsafe.FoldPolicy(9))}, "option"},
		{"0 0 * * *", []dstsafe.CronOption{dstsafe.WithGap(dstsafe.GapPolicy(9))}, "option"},
		{"0 0 * * *", []dstsafe.CronOption{dstsafe.WithPeriodKey(dstsafe.PeriodKey(9))}, "option"},
		{"@every 1h", []dstsafe.CronOption{dstsafe.WithFold(dstsafe.FoldFirst)}, "option"},
	}
	for _, c := range cases {
		cr, err := dstsafe.ParseCron(c.spec, c.opts...)
		assert.Nil(t, cr, c.spec)
		var pe *dstsafe.ParseError
		if assert.ErrorAs(t, err, &pe, "%q", c.spec) {
			assert.Equal(t, c.field, pe.Field, "%q: %v", c.spec, err)
			assert.Equal(t, c.spec, pe.Spec)
			assert.True(t, strings.HasPrefix(err.Error(), "dstsafe: "), err.Error())
		}
	}
	_, err := dstsafe.ParseCron("CRON_TZ=UTC+5 0 0 * * *")
	assert.Contains(t, err.Error(), "IANA", "fixed offsets point to IANA names")
}

func TestParseCronAccepts(t *testing.T) {
	for _, spec := range []string{
		"* * * * *", "? ? ? ? ?", "0 0 1 1 *", "0-59/15 0-23 1-31 1-12 0-6", "5/15 * * * *",
		"0 9 * JAN-MAR MON-FRI", "0 9 * jan-mar mon-fri", "0 9 * * 7", "0 9 * * 1-7",
		"0 9 L * *", "0 9 LW * *", "0 9 1W,15W * *", "0 9 * * FRIL", "0 9 * * 1#1,5#3",
		"0 9 1,L * *", "@yearly", "@annually", "@monthly", "@weekly", "@daily", "@midnight", "@hourly",
		"@every 1h30m", "CRON_TZ=Etc/GMT-5 0 0 * * *", "CRON_TZ=UTC 30 7 * * *",
	} {
		_, err := dstsafe.ParseCron(spec)
		assert.NoError(t, err, spec)
	}
	// Sunday is 0 or 7.
	a := mustCron(t, "0 0 * * 7", dstsafe.WithLocation(time.UTC))
	b := mustCron(t, "0 0 * * 0", dstsafe.WithLocation(time.UTC))
	from := mustTime(t, "2024-01-01T00:00:00Z")
	assert.True(t, a.Next(from).Equal(b.Next(from)))
	assert.Equal(t, time.Sunday, a.Next(from).Weekday())
}

func TestNeverFires(t *testing.T) {
	for _, spec := range []string{"0 0 30 2 *", "0 0 31 4 *", "0 0 31 2,4,6,9,11 *"} {
		c := mustCron(t, spec, dstsafe.WithLocation(time.UTC))
		assert.True(t, c.Never(), spec)
		assert.True(t, c.Next(mustTime(t, "2024-01-01T00:00:00Z")).IsZero(), spec)
		_, ok := c.NextOccurrence(mustTime(t, "2024-01-01T00:00:00Z"))
		assert.False(t, ok)
	}
	// Vixie's rule: with a weekday the 30th of February never matches, but Mondays do.
	c := mustCron(t, "0 0 30 2 MON", dstsafe.WithLocation(time.UTC))
	assert.False(t, c.Never())
	assert.Equal(t, time.Monday, c.Next(mustTime(t, "2024-01-01T00:00:00Z")).Weekday())
}

func TestEveryOrigin(t *testing.T) {
	origin := mustTime(t, "2024-01-01T00:07:00Z")
	c, err := dstsafe.ParseCron("@every 15m", dstsafe.WithEveryOrigin(origin))
	require.NoError(t, err)
	// Restarting at any instant does not shift the grid.
	for _, from := range []string{"2024-06-01T10:00:00Z", "2024-06-01T10:21:59Z", "2024-06-01T10:22:00Z"} {
		got := c.Next(mustTime(t, from))
		assert.Equal(t, 0, int(got.Sub(origin)%(15*time.Minute)), from)
		assert.True(t, got.After(mustTime(t, from)))
		assert.LessOrEqual(t, got.Sub(mustTime(t, from)), 15*time.Minute)
	}
	// Before the origin too.
	got := c.Next(mustTime(t, "2023-12-31T23:59:00Z"))
	assert.True(t, got.Equal(origin), "%v", got)
}

func TestNextSubSecondAndExtremes(t *testing.T) {
	c := mustCron(t, "* * * * * *", dstsafe.WithLocation(time.UTC), dstsafe.WithSeconds())
	from := mustTime(t, "2024-01-01T00:00:00.5Z")
	assert.True(t, c.Next(from).Equal(mustTime(t, "2024-01-01T00:00:01Z")))
	from = mustTime(t, "2024-01-01T00:00:00Z")
	assert.True(t, c.Next(from).Equal(mustTime(t, "2024-01-01T00:00:01Z")))
	// Far future and far past terminate.
	d := mustCron(t, "30 2 * * *", dstsafe.WithLocation(dstsafetest.Zone(t, "America/Chicago")))
	assert.False(t, d.Next(time.Date(9000, 3, 1, 0, 0, 0, 0, time.UTC)).IsZero())
	assert.False(t, d.Next(time.Date(1, 1, 1, 0, 0, 0, 0, time.UTC)).IsZero())
	assert.True(t, d.Next(time.Date(300000, 1, 1, 0, 0, 0, 0, time.UTC)).IsZero())
}

// robfig/cron v3 panics with TZ=0; ParseCron must never panic on input.
func TestParseCronNeverPanics(t *testing.T) {
	for _, spec := range []string{"TZ=0", "TZ=0 * * * * *", "CRON_TZ=", "@", "@every", "*/", "/", "-", ",", "#", "L", "W", "LW", "1#", "#1", "\x00", "TZ=\x00 * * * * *"} {
		assert.NotPanics(t, func() { _, _ = dstsafe.ParseCron(spec) }, spec)
		assert.NotPanics(t, func() { _, _ = dstsafe.ParseCron("0 0 " + spec + " * *") }, spec)
		assert.NotPanics(t, func() { _, _ = dstsafe.ParseCron("0 0 * * " + spec) }, spec)
	}
}

// The cached zone tables end in 2400; schedules must not notice the seam.
// Sydney falls back in April 2400, right after the table's last period.
func TestNextAcrossTableEnd(t *testing.T) {
	for _, zone := range []string{"Australia/Sydney", "America/Chicago", "Australia/Lord_Howe", "Europe/London"} {
		loc := dstsafetest.Zone(t, zone)
		for _, spec := range []string{"30 1 * * *", "30 2 * * *", "*/30 * * * *", "45 1 * * *", "15 2 * * *"} {
			c := mustCron(t, spec, dstsafe.WithLocation(loc))
			from := time.Date(2399, 9, 1, 0, 0, 0, 0, time.UTC)
			prev := from
			seen := map[string]int{}
			for prev.Before(time.Date(2401, 6, 1, 0, 0, 0, 0, time.UTC)) {
				o, ok := c.NextOccurrence(prev)
				require.True(t, ok)
				require.True(t, o.At.After(prev))
				seen[o.Period]++
				require.Equal(t, 1, seen[o.Period], "%s %s: period %s fired twice (at %v)", zone, spec, o.Period, o.At)
				if c.Fixed() {
					// Exactly one fire per civil date.
					require.Equal(t, 1, countDate(seen, o.Wall.DateString()), "%s %s: %s", zone, spec, o.Wall)
				}
				prev = o.At
			}
		}
	}
}

func countDate(seen map[string]int, date string) int {
	n := 0
	for k, v := range seen {
		if strings.HasPrefix(k, date) {
			n += v
		}
	}
	return n
}

// A zone table that ends exactly at a fall-back transition: the readings
// repeated just after the seam must still count as second readings.
func TestNextAcrossTableSeamAtFold(t *testing.T) {
	data, err := fs.ReadFile(dstsafetest.ZoneinfoFS(), "America/Chicago")
	require.NoError(t, err)
	for _, seam := range []string{"2024-11-03T07:00:00Z", "2024-03-10T08:00:00Z", "2024-11-03T07:20:00Z"} {
		// A fresh *time.Location each time: the table is cached per pointer.
		loc, err := time.LoadLocationFromTZData("America/Chicago", data)
		require.NoError(t, err)
		require.True(t, dstsafe.InstallZoneTable(loc, mustTime(t, seam).Unix()))

		for _, sc := range []struct {
			spec string
			opts []dstsafe.CronOption
		}{
			{"30 1 * * *", nil}, {"30 2 * * *", nil}, {"*/30 * * * *", nil},
			// Weekly: one search walks from days before the seam across it.
			{"30 2 * * SUN", nil}, {"30 1 * * SUN", []dstsafe.CronOption{dstsafe.WithFold(dstsafe.FoldLast)}},
			{"30 1 * * SUN", []dstsafe.CronOption{dstsafe.WithFold(dstsafe.FoldBoth)}}, {"30 2 * * SUN", []dstsafe.CronOption{dstsafe.WithGap(dstsafe.GapAtTransition)}},
		} {
			spec := sc.spec
			c := mustCron(t, spec, append([]dstsafe.CronOption{dstsafe.WithLocation(loc)}, sc.opts...)...)
			ref := mustCron(t, spec, append([]dstsafe.CronOption{dstsafe.WithLocation(dstsafetest.Zone(t, "America/Chicago"))}, sc.opts...)...)
			// Start more than two days before the seam, so that Next walks
			// the table up to its end rather than scanning a fresh window.
			from := mustTime(t, seam).Add(-6 * 24 * time.Hour)
			a, b := from, from
			for a.Before(mustTime(t, seam).Add(72 * time.Hour)) {
				oa, ok := c.NextOccurrence(a)
				require.True(t, ok)
				ob, _ := ref.NextOccurrence(b)
				require.True(t, oa.At.Equal(ob.At), "seam %s, %s: %v, want %v", seam, spec, oa.At, ob.At)
				require.Equal(t, ob.Period, oa.Period)
				require.Equal(t, ob.Kind, oa.Kind)
				a, b = oa.At, ob.At
			}
		}
	}
}

func TestParseCronHugeStepTerminates(t *testing.T) {
	c, err := dstsafe.ParseCron("*/9223372036854775807 * * * *")
	require.NoError(t, err)
	// The step leaves minute 0 alone: hourly.
	assert.Equal(t, mustTime(t, "2024-01-01T01:00:00Z"), c.Next(mustTime(t, "2024-01-01T00:00:00Z")))
	assert.Equal(t, mustTime(t, "2024-01-01T02:00:00Z"), c.Next(mustTime(t, "2024-01-01T01:00:00Z")))
}

// TestParseCronPlusSign: a number is what strconv.Atoi reads, as robfig/cron
// v3 has it ("+5" and "05" are 5; bench/ checks robfig agrees on the
// standard fields), in the Quartz extensions too; a minus sign is refused.
func TestParseCronPlusSign(t *testing.T) {
	for _, tc := range []struct{ spec, same string }{
		{"+1 * * * *", "1 * * * *"},
		{"*/+15 +09 * * *", "*/15 9 * * *"},
		{"0 0 +1-+5,+20 * *", "0 0 1-5,20 * *"},
		{"0 0 +15W * *", "0 0 15W * *"},
		{"0 0 * * MON#+2", "0 0 * * MON#2"},
		{"0 0 * * +5L", "0 0 * * 5L"},
	} {
		a, b := mustCron(t, tc.spec), mustCron(t, tc.same)
		at, bt := mustTime(t, "2024-01-01T00:00:00Z"), mustTime(t, "2024-01-01T00:00:00Z")
		for k := range 30 {
			at, bt = a.Next(at), b.Next(bt)
			require.True(t, at.Equal(bt), "%q fire %d at %v, %q at %v", tc.spec, k, at, tc.same, bt)
		}
	}
	for _, spec := range []string{"0 0 -15W * *", "0 0 * * MON#-2", "0 0 * * -5L", "0 0 * * MON#++2"} {
		var pe *dstsafe.ParseError
		_, err := dstsafe.ParseCron(spec)
		require.ErrorAs(t, err, &pe, spec)
	}
}

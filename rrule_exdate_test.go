package dstsafe_test

import (
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/dstsafe/dstsafe"
)

// An EXDATE that names an instant (in UTC, or in another zone) excludes the
// instance at that instant, including one a gap shifted: RFC 5545 §3.3.5
// reads a wall time in a gap with the offset before the gap, and
// python-dateutil excludes it. dstsafe converted the EXDATE to the rule
// zone's wall reading of the instant (03:30 CDT) and ran the 02:30
// instance.
func TestRRuleExdateNamesAGapInstant(t *testing.T) {
	chicago := zone(t, "America/Chicago")
	for _, tc := range []struct {
		name, exdate string
		want         []time.Time // every instance from 03-08 on, for four days
	}{
		{
			// 2024-03-10 02:30 does not happen in Chicago (02:00 CST -> 03:00
			// CDT). Read with the offset before the gap, -06:00, it is
			// 08:30Z; GapShift runs it at 03:30 CDT, the same 08:30Z.
			name: "UTC, the gap's instance", exdate: "EXDATE:20240310T083000Z",
			want: []time.Time{
				time.Date(2024, 3, 8, 8, 30, 0, 0, time.UTC),  // 02:30 CST
				time.Date(2024, 3, 9, 8, 30, 0, 0, time.UTC),  // 02:30 CST
				time.Date(2024, 3, 11, 7, 30, 0, 0, time.UTC), // 02:30 CDT
			},
		},
		{
			// The same instant named in New York (EDT, -04:00 after its own
			// gap at 07:00Z): 04:30 EDT is 08:30Z.
			name: "another zone, the gap's instance", exdate: "EXDATE;TZID=America/New_York:20240310T043000",
			want: []time.Time{
				time.Date(2024, 3, 8, 8, 30, 0, 0, time.UTC),
				time.Date(2024, 3, 9, 8, 30, 0, 0, time.UTC),
				time.Date(2024, 3, 11, 7, 30, 0, 0, time.UTC),
			},
		},
		{
			// 07:30Z is 01:30 CST on 03-10: no instance there, nothing excluded.
			name: "UTC, an instant with no instance", exdate: "EXDATE:20240310T073000Z",
			want: []time.Time{
				time.Date(2024, 3, 8, 8, 30, 0, 0, time.UTC),
				time.Date(2024, 3, 9, 8, 30, 0, 0, time.UTC),
				time.Date(2024, 3, 10, 8, 30, 0, 0, time.UTC), // 02:30 shifted to 03:30 CDT
				time.Date(2024, 3, 11, 7, 30, 0, 0, time.UTC),
			},
		},
		{
			// An ordinary day in UTC still works: 03-09 02:30 CST is 08:30Z.
			name: "UTC, an ordinary instance", exdate: "EXDATE:20240309T083000Z",
			want: []time.Time{
				time.Date(2024, 3, 8, 8, 30, 0, 0, time.UTC),
				time.Date(2024, 3, 10, 8, 30, 0, 0, time.UTC),
				time.Date(2024, 3, 11, 7, 30, 0, 0, time.UTC),
			},
		},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r, err := dstsafe.ParseRRule("DTSTART;TZID=America/Chicago:20240301T023000\nRRULE:FREQ=DAILY\n" + tc.exdate)
			require.NoError(t, err)
			var got []time.Time
			from, end := time.Date(2024, 3, 8, 0, 0, 0, 0, chicago), time.Date(2024, 3, 12, 0, 0, 0, 0, chicago)
			for at := r.Next(from); at.Before(end); at = r.Next(at) {
				got = append(got, at.UTC())
			}
			require.Equal(t, tc.want, got)
		})
	}
}

package dstsafe_test

import (
	"errors"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/dstsafe/dstsafe"
)

// The white space after a CRON_TZ= or TZ= prefix is a field separator
// like any other (ParseCron's doc): a tab, several spaces, a newline, a
// vertical tab; white space around the whole spec is ignored. Each
// accepted form is the 01:30 Chicago job: on the fall-back night it
// fires at the first 01:30 (CDT, -05:00).
func TestZonePrefixWhitespace(t *testing.T) {
	at0130 := time.Date(2024, 11, 3, 6, 30, 0, 0, time.UTC) // 01:30 CDT
	at0000 := time.Date(2024, 11, 3, 5, 0, 0, 0, time.UTC)  // 00:00 CDT
	for _, tc := range []struct {
		spec string
		want time.Time
	}{
		{"CRON_TZ=America/Chicago 30 1 * * *", at0130},
		{"CRON_TZ=America/Chicago\t30 1 * * *", at0130},                                  // crontab files tab-separate
		{"CRON_TZ=America/Chicago    30 1 * * *", at0130},                                // aligned columns
		{"CRON_TZ=America/Chicago \t 30 1 * * *", at0130},                                // a tab among spaces
		{"CRON_TZ=America/Chicago\n30 1 * * *", at0130},                                  // a YAML block scalar's line break
		{"CRON_TZ=America/Chicago\v30\v1\v*\v*\v*", at0130},                              // what separates fields separates the prefix
		{"CRON_TZ=America/Chicago\u00a030 1 * * *", at0130},                              // a no-break space pasted from a web page
		{"TZ=America/Chicago\t\t30\t1\t*\t*\t*", at0130},                                 // tabs throughout
		{" \t CRON_TZ=America/Chicago 30 1 * * * \n", at0130},                            // around the whole spec
		{"CRON_TZ=America/Chicago\t@daily", at0000},                                      // then a descriptor
		{"TZ=America/Chicago  @every 1h", time.Date(2024, 11, 2, 13, 0, 0, 0, time.UTC)}, // on the hour of real time
	} {
		c, err := dstsafe.ParseCron(tc.spec)
		require.NoError(t, err, "%q", tc.spec)
		require.Equal(t, "America/Chicago", c.Location().String(), "%q", tc.spec)
		got := c.Next(time.Date(2024, 11, 2, 12, 0, 0, 0, time.UTC))
		require.True(t, got.Equal(tc.want), "%q: Next = %v, want %v", tc.spec, got, tc.want)
	}
}

// What is not a prefix and fields is refused with a *ParseError naming
// the part at fault.
func TestZonePrefixRefused(t *testing.T) {
	for _, tc := range []struct {
		spec  string
		field string
	}{
		{"CRON_TZ=", "spec"},                              // no zone, no fields
		{"CRON_TZ=America/Chicago", "spec"},               // no fields
		{"TZ=America/Chicago \t ", "spec"},                // only white space after it
		{"CRON_TZ= America/Chicago 30 1 * * *", "zone"},   // the zone must follow "=" directly
		{"CRON_TZ=\t30 1 * * *", "zone"},                  // an empty zone name
		{"CRON_TZ=America/Chicago,30 1 * * *", "zone"},    // a comma separates nothing
		{"CRON_TZ =America/Chicago 30 1 * * *", "spec"},   // not a prefix: six fields
		{"cron_tz=America/Chicago 30 1 * * *", "spec"},    // the prefix is upper case
		{"CRON_TZ=America/Chicago 30 1 * *", "spec"},      // four fields
		{"CRON_TZ=America/Chicago\t30 1 * * * *", "spec"}, // six fields without WithSeconds
		{"CRON_TZ=Local\t30 1 * * *", "zone"},             // the machine's zone
		{"TZ=America/Chicago\tTZ=UTC 30 1 * * *", "spec"}, // one prefix only
		{"CRON_TZ=America/Chicago\t30\t1\t*\t*\tX", "day-of-week"},
	} {
		_, err := dstsafe.ParseCron(tc.spec)
		var pe *dstsafe.ParseError
		require.True(t, errors.As(err, &pe), "%q: err = %v, want a *ParseError", tc.spec, err)
		require.Equal(t, tc.field, pe.Field, "%q: %v", tc.spec, err)
		require.Equal(t, tc.spec, pe.Spec)
	}
}

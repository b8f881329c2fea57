package dstsafe_test

import (
	"context"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/dstsafe/dstsafe"
)

// The postmortem's test: the 01:30 America/Chicago billing job, simulated
// across each transition night with a 20 s poll like the original worker,
// runs exactly once per run date.
func TestPostmortemBillingOncePerRunDate(t *testing.T) {
	chicago := zone(t, "America/Chicago")
	for _, tc := range []struct {
		name  string
		start time.Time
	}{
		{"2024 fall back", time.Date(2024, 11, 2, 12, 0, 0, 0, time.UTC)},     // 01:30 happens twice on 11-03 (CDT then CST)
		{"2024 spring forward", time.Date(2024, 3, 9, 12, 0, 0, 0, time.UTC)}, // 02:00-03:00 skipped on 03-10; 01:30 is fine
		{"2025 fall back", time.Date(2025, 11, 1, 12, 0, 0, 0, time.UTC)},     // 01:30 twice on 11-02
		{"2025 spring forward", time.Date(2025, 3, 8, 12, 0, 0, 0, time.UTC)}, // gap on 03-09
	} {
		t.Run(tc.name, func(t *testing.T) {
			s, _, _ := newSim(t, tc.start)
			require.NoError(t, s.Add("billing", mustCron(t, "CRON_TZ=America/Chicago 30 1 * * *"), nop))
			fires, err := dstsafe.Simulate(context.Background(), s, 48*time.Hour, dstsafe.WithStep(20*time.Second))
			require.NoError(t, err)
			require.Len(t, fires, 2, "fires: %v", fires)
			seen := map[dstsafe.Date]int{}
			for _, f := range fires {
				seen[f.RunDate]++
				// Expectation from time.Time, not from the code under test: the
				// first 01:30 of that date in Chicago.
				y, m, d := f.Due.In(chicago).Date()
				want := time.Date(y, m, d, 1, 30, 0, 0, chicago)
				require.True(t, f.Due.Equal(want), "fire %v due %v, want %v", f, f.Due, want)
				require.Equal(t, dstsafe.Date{Year: y, Month: m, Day: d}, f.RunDate)
			}
			for d, n := range seen {
				require.Equal(t, 1, n, "run date %v fired %d times", d, n)
			}
		})
	}
}

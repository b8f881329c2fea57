package dstsafe

import (
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

func TestCivilDayArithmetic(t *testing.T) {
	// Cross-check the calendar arithmetic against the time package over
	// a wide span, proleptic Gregorian on both sides.
	for days := int64(-800_000); days <= 800_000; days += 97 {
		tm := time.Unix(days*secondsPerDay, 0).UTC()
		y, m, d := civilFromDays(days)
		require.Equal(t, []int{tm.Year(), int(tm.Month()), tm.Day()}, []int{y, int(m), d}, "day %d", days)
		require.Equal(t, days, daysFromCivil(y, m, d))
		require.Equal(t, tm.Weekday(), weekdayOf(days))
	}
}

func TestCivilFromDaysFastMatchesSlow(t *testing.T) {
	for _, z := range []int64{-12_699_422, -12_699_421, -1, 0, 1, 59, 60, 365, 10956, 1 << 29, 1<<29 + 1} {
		y1, m1, d1 := civilFromDays(z)
		y2, m2, d2 := civilFromDaysSlow(z)
		require.Equal(t, []int{y2, int(m2), d2}, []int{y1, int(m1), d1}, "day %d", z)
	}
	for z := int64(-12_699_422); z < 1<<29; z += 9973 {
		y1, m1, d1 := civilFromDays(z)
		y2, m2, d2 := civilFromDaysSlow(z)
		if y1 != y2 || m1 != m2 || d1 != d2 {
			t.Fatalf("day %d: fast %d-%d-%d, slow %d-%d-%d", z, y1, m1, d1, y2, m2, d2)
		}
	}
}

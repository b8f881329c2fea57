package dstsafe_test

import (
	"encoding/json"
	"flag"
	"io"
	"testing"
	"time"

	"github.com/dstsafe/dstsafe"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func mkDate(y int, m time.Month, d int) dstsafe.Date { return dstsafe.Date{Year: y, Month: m, Day: d} }

func TestParseDate(t *testing.T) {
	for _, c := range []struct {
		in   string
		want dstsafe.Date
	}{
		{"2024-11-03", mkDate(2024, 11, 3)}, // Chicago's fall-back day
		{"2024-02-29", mkDate(2024, 2, 29)}, // leap day
		{"2000-02-29", mkDate(2000, 2, 29)}, // divisible by 400: leap
		{"0001-01-01", mkDate(1, 1, 1)},
		{"9999-12-31", mkDate(9999, 12, 31)},
	} {
		got, err := dstsafe.ParseDate(c.in)
		require.NoError(t, err, c.in)
		assert.Equal(t, c.want, got, c.in)
		assert.Equal(t, c.in, got.String(), "String round-trips")
		assert.True(t, got.IsValid(), c.in)
	}
	for _, bad := range []string{
		"", "2024-02-30", "2023-02-29", "1900-02-29", // not calendar days
		"2024-13-01", "2024-00-10", "2024-11-00",
		"2024-11-3", "24-11-03", "2024/11/03", "2024-11-03T00:00", " 2024-11-03",
	} {
		_, err := dstsafe.ParseDate(bad)
		assert.ErrorIs(t, err, dstsafe.ErrInvalidArgument, "%q", bad)
	}
}

func TestDateIsValid(t *testing.T) {
	assert.False(t, dstsafe.Date{}.IsValid(), "the zero Date")
	assert.False(t, mkDate(2024, 2, 30).IsValid())
	assert.False(t, mkDate(2024, 13, 1).IsValid())
	assert.True(t, mkDate(-44, 3, 15).IsValid(), "the proleptic calendar goes back")
}

func TestDateString(t *testing.T) {
	assert.Equal(t, "0042-01-02", mkDate(42, 1, 2).String())
	assert.Equal(t, "-0044-03-15", mkDate(-44, 3, 15).String())
	assert.Equal(t, "12024-11-03", mkDate(12024, 11, 3).String())
	// The ByDate period key of a wall reading on that day.
	assert.Equal(t, dstsafe.Wall{Year: 2024, Month: 11, Day: 3, Hour: 1, Minute: 30}.DateString(), mkDate(2024, 11, 3).String())
}

func TestDateAddDays(t *testing.T) {
	for _, c := range []struct {
		d    dstsafe.Date
		n    int
		want dstsafe.Date
	}{
		{mkDate(2024, 11, 3), 1, mkDate(2024, 11, 4)},        // the fall-back day has 25 hours, still one day
		{mkDate(2024, 3, 9), 1, mkDate(2024, 3, 10)},         // and the spring-forward day 23
		{mkDate(2024, 2, 28), 1, mkDate(2024, 2, 29)},        // leap day
		{mkDate(2023, 2, 28), 1, mkDate(2023, 3, 1)},         // no leap day
		{mkDate(2024, 12, 31), 1, mkDate(2025, 1, 1)},        // new year
		{mkDate(2025, 1, 1), -1, mkDate(2024, 12, 31)},       // backwards
		{mkDate(2024, 1, 1), 366, mkDate(2025, 1, 1)},        // 2024 has 366 days
		{mkDate(1970, 1, 1), -719468, mkDate(0, 3, 1)},       // day 0 of the civil algorithm
		{mkDate(2000, 1, 1), 146097, mkDate(2400, 1, 1)},     // one Gregorian cycle
		{mkDate(2011, 12, 29), 1, mkDate(2011, 12, 30)},      // the day Apia skipped is still a date
		{mkDate(2024, 2, 30), 0, mkDate(2024, 3, 1)},         // out of range: counts on, as time.Date does
		{mkDate(2024, 3, 0), 0, mkDate(2024, 2, 29)},         // day 0 is the day before the 1st
		{mkDate(2024, 6, 15), -365 * 3, mkDate(2021, 6, 16)}, // 2024's leap day is in range
	} {
		assert.Equal(t, c.want, c.d.AddDays(c.n), "%v + %d days", c.d, c.n)
	}
}

func TestDateAddMonths(t *testing.T) {
	for _, c := range []struct {
		d    dstsafe.Date
		n    int
		want dstsafe.Date
	}{
		{mkDate(2024, 1, 31), 1, mkDate(2024, 2, 29)},   // clamped to the leap day
		{mkDate(2023, 1, 31), 1, mkDate(2023, 2, 28)},   // clamped, no leap day
		{mkDate(2024, 1, 31), 2, mkDate(2024, 3, 31)},   // not clamped: counted from d
		{mkDate(2024, 1, 31), 3, mkDate(2024, 4, 30)},   // April has 30
		{mkDate(2024, 11, 3), 1, mkDate(2024, 12, 3)},   // the billing night, next month
		{mkDate(2024, 12, 15), 1, mkDate(2025, 1, 15)},  // over the year
		{mkDate(2024, 1, 15), -1, mkDate(2023, 12, 15)}, // backwards over the year
		{mkDate(2024, 1, 15), -12, mkDate(2023, 1, 15)},
		{mkDate(2024, 1, 15), -13, mkDate(2022, 12, 15)},
		{mkDate(2024, 3, 31), -1, mkDate(2024, 2, 29)},
		{mkDate(2024, 2, 29), 12, mkDate(2025, 2, 28)}, // a leap day a year on
		{mkDate(2024, 2, 29), 48, mkDate(2028, 2, 29)},
		{mkDate(2024, 5, 31), 0, mkDate(2024, 5, 31)},
	} {
		assert.Equal(t, c.want, c.d.AddMonths(c.n), "%v + %d months", c.d, c.n)
	}
	// Clamping does not carry over between calls.
	assert.Equal(t, mkDate(2024, 3, 29), mkDate(2024, 1, 31).AddMonths(1).AddMonths(1))
}

func TestDateCompare(t *testing.T) {
	ordered := []dstsafe.Date{mkDate(2023, 12, 31), mkDate(2024, 1, 1), mkDate(2024, 1, 2), mkDate(2024, 2, 1), mkDate(2025, 1, 1)}
	for i, a := range ordered {
		for j, b := range ordered {
			want := 0
			switch {
			case i < j:
				want = -1
			case i > j:
				want = 1
			}
			assert.Equal(t, want, a.Compare(b), "%v vs %v", a, b)
			assert.Equal(t, i < j, a.Before(b), "%v before %v", a, b)
			assert.Equal(t, i > j, a.After(b), "%v after %v", a, b)
		}
	}
}

func TestDateWeekday(t *testing.T) {
	assert.Equal(t, time.Sunday, mkDate(2024, 11, 3).Weekday()) // US fall-back Sundays
	assert.Equal(t, time.Sunday, mkDate(2024, 3, 10).Weekday())
	assert.Equal(t, time.Thursday, mkDate(1970, 1, 1).Weekday())
	assert.Equal(t, time.Saturday, mkDate(2000, 1, 1).Weekday())
	assert.Equal(t, time.Friday, mkDate(2011, 12, 30).Weekday(), "Apia skipped a Friday")
}

func TestDateText(t *testing.T) {
	type run struct {
		RunDate dstsafe.Date `json:"run_date"`
	}
	b, err := json.Marshal(run{mkDate(2024, 11, 3)})
	require.NoError(t, err)
	assert.JSONEq(t, `{"run_date":"2024-11-03"}`, string(b))
	var r run
	require.NoError(t, json.Unmarshal(b, &r))
	assert.Equal(t, mkDate(2024, 11, 3), r.RunDate)

	r.RunDate = mkDate(2024, 1, 1)
	assert.ErrorIs(t, json.Unmarshal([]byte(`{"run_date":"2024-02-30"}`), &r), dstsafe.ErrInvalidArgument)
	assert.Equal(t, mkDate(2024, 1, 1), r.RunDate, "unchanged after an error")

	fs := flag.NewFlagSet("test", flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	var d dstsafe.Date
	fs.TextVar(&d, "date", mkDate(2024, 11, 3), "")
	require.NoError(t, fs.Parse(nil))
	assert.Equal(t, mkDate(2024, 11, 3), d, "default")
	require.NoError(t, fs.Parse([]string{"--date", "2024-03-10"}))
	assert.Equal(t, mkDate(2024, 3, 10), d)
	assert.Error(t, fs.Parse([]string{"--date", "tomorrow"}))
}

func TestDateSQL(t *testing.T) {
	v, err := mkDate(2024, 11, 3).Value()
	require.NoError(t, err)
	assert.Equal(t, "2024-11-03", v)

	for _, src := range []any{
		"2024-11-03",
		[]byte("2024-11-03"),
		time.Date(2024, 11, 3, 0, 0, 0, 0, time.UTC), // PostgreSQL DATE
		// A timestamp's date in its own zone: 23:30 CDT is already the 4th in UTC.
		time.Date(2024, 11, 3, 23, 30, 0, 0, time.FixedZone("CST", -6*3600)),
	} {
		var d dstsafe.Date
		require.NoError(t, d.Scan(src), "%T %v", src, src)
		assert.Equal(t, mkDate(2024, 11, 3), d, "%T %v", src, src)
	}
	var d dstsafe.Date
	assert.Error(t, d.Scan(42))
	assert.ErrorIs(t, d.Scan("2024-11-31"), dstsafe.ErrInvalidArgument)
}

// AddDays and AddMonths agree with the time package over four centuries
// (time.Date at noon UTC normalises without DST).
func TestDateArithmeticAgreesWithTime(t *testing.T) {
	for d := mkDate(1999, 12, 1); d.Year < 2401; d = d.AddDays(7) {
		tm := time.Date(d.Year, d.Month, d.Day, 12, 0, 0, 0, time.UTC)
		for _, n := range []int{-400, -1, 1, 30, 1000} {
			assert.Equal(t, dstsafe.DateOf(tm.AddDate(0, 0, n), time.UTC), d.AddDays(n))
		}
		assert.Equal(t, tm.Weekday(), d.Weekday())
		// time's AddDate rolls Jan 31 + 1 month over to March: clamp it back.
		next := tm.AddDate(0, 1, 0)
		if next.Day() != d.Day {
			next = next.AddDate(0, 0, -next.Day())
		}
		assert.Equal(t, dstsafe.DateOf(next, time.UTC), d.AddMonths(1))
		if t.Failed() {
			t.FailNow()
		}
	}
}

func TestCivilDayArithmetic(t *testing.T) {
	// Cross-check the calendar arithmetic against the time package over
	// a wide span, proleptic Gregorian on both sides.
	for days := int64(-800_000); days <= 800_000; days += 97 {
		tm := time.Unix(days*dstsafe.SecondsPerDay, 0).UTC()
		y, m, d := dstsafe.CivilFromDays(days)
		require.Equal(t, []int{tm.Year(), int(tm.Month()), tm.Day()}, []int{y, int(m), d}, "day %d", days)
		require.Equal(t, days, dstsafe.DaysFromCivil(y, m, d))
		require.Equal(t, tm.Weekday(), dstsafe.WeekdayOf(days))
	}
}

func TestCivilFromDaysFastMatchesSlow(t *testing.T) {
	for _, z := range []int64{-12_699_422, -12_699_421, -1, 0, 1, 59, 60, 365, 10956, 1 << 29, 1<<29 + 1} {
		y1, m1, d1 := dstsafe.CivilFromDays(z)
		y2, m2, d2 := dstsafe.CivilFromDaysSlow(z)
		require.Equal(t, []int{y2, int(m2), d2}, []int{y1, int(m1), d1}, "day %d", z)
	}
	for z := int64(-12_699_422); z < 1<<29; z += 9973 {
		y1, m1, d1 := dstsafe.CivilFromDays(z)
		y2, m2, d2 := dstsafe.CivilFromDaysSlow(z)
		if y1 != y2 || m1 != m2 || d1 != d2 {
			t.Fatalf("day %d: fast %d-%d-%d, slow %d-%d-%d", z, y1, m1, d1, y2, m2, d2)
		}
	}
}

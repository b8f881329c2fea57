package dstsafe_test

import (
	"testing"
	"time"

	"github.com/dstsafe/dstsafe"
)

// mustTime parses an RFC 3339 instant.
func mustTime(tb testing.TB, s string) time.Time {
	tb.Helper()
	t, err := time.Parse(time.RFC3339Nano, s)
	if err != nil {
		tb.Fatal(err)
	}
	return t
}

func wall(y int, mo time.Month, d, h, mi, s int) dstsafe.Wall {
	return dstsafe.Wall{Year: y, Month: mo, Day: d, Hour: h, Minute: mi, Second: s}
}

func date(y int, m time.Month, d int) dstsafe.Date { return dstsafe.Date{Year: y, Month: m, Day: d} }

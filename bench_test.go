package dstsafe_test

import (
	"testing"
	"time"

	"github.com/dstsafe/dstsafe"
	"github.com/dstsafe/dstsafe/dstsafetest"
)

// The side-by-side comparison with robfig/cron and gocron lives in the
// bench/ module; these track the core alone.

func BenchmarkCronNext(b *testing.B) {
	chicago := dstsafetest.Zone(b, "America/Chicago")
	for _, bc := range []struct{ name, spec, from string }{
		{"fixed-daily", "30 1 * * *", "2024-06-01T12:00:00Z"},
		{"fixed-daily-fold", "30 1 * * *", "2024-11-03T06:00:00Z"},
		{"periodic-15m", "*/15 * * * *", "2024-06-01T12:07:00Z"},
		{"monthly", "0 0 1 * *", "2024-06-02T00:00:00Z"},
		{"last-friday", "0 9 * * 5L", "2024-06-02T00:00:00Z"},
	} {
		c := mustCron(b, bc.spec, dstsafe.WithLocation(chicago))
		from := mustTime(b, bc.from)
		b.Run(bc.name, func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				_ = c.Next(from)
			}
		})
	}
}

func BenchmarkLookup(b *testing.B) {
	chicago := dstsafetest.Zone(b, "America/Chicago")
	for _, bc := range []struct {
		name string
		w    dstsafe.Wall
	}{
		{"unique", wall(2024, 6, 1, 12, 0, 0)},
		{"fold", wall(2024, 11, 3, 1, 30, 0)},
		{"gap", wall(2024, 3, 10, 2, 30, 0)},
		{"2100", wall(2100, 6, 1, 12, 0, 0)},
	} {
		b.Run(bc.name+"/Lookup", func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				_ = dstsafe.Lookup(bc.w, chicago)
			}
		})
		b.Run(bc.name+"/Resolve", func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				_, _ = dstsafe.Resolve(bc.w, chicago, dstsafe.Compatible)
			}
		})
		b.Run(bc.name+"/time.Date", func(b *testing.B) {
			b.ReportAllocs()
			w := bc.w
			for b.Loop() {
				_ = time.Date(w.Year, w.Month, w.Day, w.Hour, w.Minute, w.Second, w.Nanosecond, chicago)
			}
		})
	}
}

package bench

import (
	"testing"
	"time"

	"github.com/dstsafe/dstsafe"
)

var (
	sinkResolution dstsafe.Resolution
	sinkErr        error
)

// resolveWalls are wall readings in America/Chicago.
var resolveWalls = []struct {
	name string
	w    dstsafe.Wall
}{
	// An ordinary summer afternoon.
	{"unique", dstsafe.Wall{Year: 2024, Month: time.June, Day: 12, Hour: 10, Minute: 4, Second: 5}},
	// 01:30 on 2024-11-03 happens twice (CDT, then CST).
	{"fold", dstsafe.Wall{Year: 2024, Month: time.November, Day: 3, Hour: 1, Minute: 30}},
	// 02:30 on 2024-03-10 never happens (02:00 CST -> 03:00 CDT).
	{"gap", dstsafe.Wall{Year: 2024, Month: time.March, Day: 10, Hour: 2, Minute: 30}},
	// Past the last explicit transition: the zone's POSIX rule decides.
	{"unique-2100", dstsafe.Wall{Year: 2100, Month: time.June, Day: 15, Hour: 10, Minute: 4, Second: 5}},
	// The fold of 2100-11-07 (first Sunday of November), from the rule.
	{"fold-2100", dstsafe.Wall{Year: 2100, Month: time.November, Day: 7, Hour: 1, Minute: 30}},
}

// BenchmarkResolve times turning a wall reading into an instant: a bare
// time.Date (which picks an offset it does not guarantee), dstsafe.Lookup
// and dstsafe.Resolve with Compatible. Target: both <= 2x time.Date and
// 0 allocs/op.
func BenchmarkResolve(b *testing.B) {
	loc, err := time.LoadLocation("America/Chicago")
	if err != nil {
		b.Fatal(err)
	}
	for _, c := range resolveWalls {
		w := c.w
		b.Run(c.name, func(b *testing.B) {
			b.Run("time.Date", func(b *testing.B) {
				cpu := startCPU(b)
				for b.Loop() {
					sinkTime = time.Date(w.Year, w.Month, w.Day, w.Hour, w.Minute, w.Second, w.Nanosecond, loc)
				}
				cpu.stop(b)
			})
			b.Run("Lookup", func(b *testing.B) {
				cpu := startCPU(b)
				for b.Loop() {
					sinkResolution = dstsafe.Lookup(w, loc)
				}
				cpu.stop(b)
			})
			b.Run("Resolve", func(b *testing.B) {
				cpu := startCPU(b)
				for b.Loop() {
					sinkTime, sinkErr = dstsafe.Resolve(w, loc, dstsafe.Compatible)
				}
				cpu.stop(b)
			})
		})
	}
}

package bench

import (
	"testing"
	"time"
)

var sinkTime time.Time

// BenchmarkNext times one Next call from a fixed instant, for each spec and
// start, in dstsafe, robfig/cron v3 and gocron v2, so run.sh can divide
// the numbers of one run: target dstsafe <= robfig/10 and 0 allocs/op.
func BenchmarkNext(b *testing.B) {
	for _, s := range nextSpecs {
		b.Run(s.name, func(b *testing.B) {
			for _, st := range nextStarts {
				b.Run(st.name, func(b *testing.B) {
					b.Run("dstsafe", func(b *testing.B) {
						c := parseDstsafe(b, s)
						cpu := startCPU(b)
						for b.Loop() {
							sinkTime = c.Next(st.at)
						}
						cpu.stop(b)
					})
					b.Run("robfig", func(b *testing.B) {
						c := parseRobfig(b, s)
						cpu := startCPU(b)
						for b.Loop() {
							sinkTime = c.Next(st.at)
						}
						cpu.stop(b)
					})
					b.Run("gocron", func(b *testing.B) {
						c := parseGocron(b, s, st.at)
						cpu := startCPU(b)
						for b.Loop() {
							sinkTime = c.Next(st.at)
						}
						cpu.stop(b)
					})
				})
			}
		})
	}
}

package dstsafevet_test

import (
	"testing"
	"time"

	"github.com/dstsafe/dstsafe/cmd/dstsafevet"
)

// The cronspec analyzer and dstsafe check run WindowRisks once per zoned
// spec literal over three years of transitions.
func BenchmarkWindowRisks(b *testing.B) {
	c, err := dstsafevet.ParseSpec("CRON_TZ=America/Chicago 30 1 * * *")
	if err != nil {
		b.Fatal(err)
	}
	from := time.Date(2024, time.January, 1, 0, 0, 0, 0, time.UTC)
	b.ReportAllocs()
	for b.Loop() {
		if len(dstsafevet.WindowRisks(c, from, from.AddDate(3, 0, 0))) != 3 {
			b.Fatal("want the three November folds")
		}
	}
}

package wallclock

import (
	"testing"
	"time"
)

// Test files are skipped by default: this is not reported.
func TestDue(t *testing.T) {
	now := time.Now()
	if now.Hour() == 1 && now.Minute() == 30 {
		t.Log("01:30")
	}
}

package redisledger

import (
	"testing"
	"time"

	"github.com/dstsafe/dstsafe"
)

// A record written before the schedule fingerprint was kept (the JSON has
// no "schedule") still reads, with an empty Schedule, and is written back
// without one.
func TestDecodeRecordWithoutSchedule(t *testing.T) {
	old := `{"job":"billing","period":"2024-11-03","state":"succeeded","owner":"host-a",` +
		`"token":1,"attempt":1,"started_at":"2024-11-03T06:30:00Z",` +
		`"lease_until":"2024-11-03T06:31:00Z","finished_at":"2024-11-03T06:30:41Z",` +
		`"claim":"9c1e4f0a2b7d3e18"}`
	e, err := decode("dstsafe:{7:billing}:run:2024-11-03", old)
	if err != nil {
		t.Fatalf("decode: %v", err)
	}
	want := dstsafe.Record{
		Job: "billing", Period: "2024-11-03", State: dstsafe.StateSucceeded, Owner: "host-a",
		Token: 1, Attempt: 1,
		StartedAt:  time.Date(2024, 11, 3, 6, 30, 0, 0, time.UTC),
		LeaseUntil: time.Date(2024, 11, 3, 6, 31, 0, 0, time.UTC),
		FinishedAt: time.Date(2024, 11, 3, 6, 30, 41, 0, time.UTC),
	}
	if e.rec != want {
		t.Fatalf("decode(old record) = %+v, want %+v", e.rec, want)
	}
	again, err := encode(e.rec, e.claim)
	if err != nil || again != old {
		t.Fatalf("encode(old record) = %s, %v; want it unchanged: %s", again, err, old)
	}
}

package redisledger

import (
	"testing"
	"time"

	"github.com/dstsafe/dstsafe"
)

// Two different (job, period) pairs never share a record key, and no
// record key is an index key, whatever the names contain: separators,
// braces, digits that look like the length prefix.
func FuzzKeysUnambiguous(f *testing.F) {
	seeds := [][4]string{
		{"a", "b}:run:c", "a}:run:b", "c"}, // naive concatenation collides
		{"a", "periods", "a", "run:periods"},
		{"1:a", "x", "a", "x"},       // a job that looks length-prefixed
		{"a:run", "x", "a", "run:x"}, // separator inside the job
		{"{", "}", "}", "{"},         // braces
		{"billing", "2024-11-03", "billing", "2024-11-03T01:30-05:00"},
	}
	for _, s := range seeds {
		f.Add(s[0], s[1], s[2], s[3])
	}
	l := &Ledger{prefix: DefaultKeyPrefix}
	f.Fuzz(func(t *testing.T, job1, period1, job2, period2 string) {
		k1, k2 := l.recordKey(job1, period1), l.recordKey(job2, period2)
		if (job1 != job2 || period1 != period2) && k1 == k2 {
			t.Errorf("(%q, %q) and (%q, %q) share key %q", job1, period1, job2, period2, k1)
		}
		if k1 == l.indexKey(job2) {
			t.Errorf("record key of (%q, %q) is the index key of %q", job1, period1, job2)
		}
	})
}

// decode never panics, whatever is stored under a ledger key, and what
// encode writes decodes to the same record.
func FuzzDecode(f *testing.F) {
	r := dstsafe.Record{
		Job: "billing", Period: "2024-11-03", State: dstsafe.StateFailed, Owner: "host-a",
		Token: 3, Attempt: 2, Reason: "card declined", Schedule: "CRON_TZ=America/Chicago 30 1 * * *",
		StartedAt:  time.Date(2024, 11, 3, 6, 30, 0, 123456000, time.UTC),
		LeaseUntil: time.Date(2024, 11, 3, 6, 31, 0, 123456000, time.UTC),
		FinishedAt: time.Date(2024, 11, 3, 6, 30, 41, 0, time.UTC),
	}
	good, err := encode(r, "00112233aabbccdd")
	if err != nil {
		f.Fatal(err)
	}
	e, err := decode("k", good)
	if err != nil || e.rec != r || e.claim != "00112233aabbccdd" || e.raw != good {
		f.Fatalf("round trip: %+v, %v", e, err)
	}
	for _, s := range []string{good, "", "1", "null", `{"state":"running"}`, `{"state":"running","token":1,"attempt":1,"started_at":"x"}`} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, raw string) {
		e, err := decode("k", raw)
		if err != nil {
			return
		}
		again, err := encode(e.rec, e.claim)
		if err != nil {
			return // an instant JSON cannot hold
		}
		if e2, err := decode("k", again); err != nil || e2.rec != e.rec {
			t.Errorf("%q decodes to %+v, which re-encodes to %q: %+v, %v", raw, e.rec, again, e2.rec, err)
		}
	})
}

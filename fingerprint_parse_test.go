package dstsafe_test

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/jonboulle/clockwork"

	"github.com/dstsafe/dstsafe"
)

// A record's schedule fingerprint parses back into the schedule that made
// it: the same occurrences, fold and gap included, so a reader of the
// ledger (dstsafe ui) computes a job's expected periods without the spec.
func TestParseFingerprint(t *testing.T) {
	chicago, err := time.LoadLocation("America/Chicago")
	if err != nil {
		t.Fatal(err)
	}
	cases := []struct {
		name string
		spec string
		opts []dstsafe.CronOption
	}{
		// 01:30 happens twice on 2024-11-03: one period, at 01:30 CDT.
		{"billing", "CRON_TZ=America/Chicago 30 1 * * *", nil},
		// Both readings of 01:15 fire, each its own period.
		{"periodic", "CRON_TZ=America/Chicago */15 * * * *", nil},
		{"by date, fold last", "30 1 * * *", []dstsafe.CronOption{dstsafe.WithLocation(chicago), dstsafe.WithPeriodKey(dstsafe.ByDate), dstsafe.WithFold(dstsafe.FoldLast)}},
		{"seconds", "CRON_TZ=America/Chicago 10 30 1 * * *", []dstsafe.CronOption{dstsafe.WithSeconds()}},
	}
	start := time.Date(2024, 11, 3, 5, 0, 0, 0, time.UTC) // 00:00 CDT
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			c, err := dstsafe.ParseCron(tc.spec, tc.opts...)
			if err != nil {
				t.Fatal(err)
			}
			clock := clockwork.NewFakeClockAt(start)
			l := dstsafe.NewMemoryLedger(clock)
			s := dstsafe.NewScheduler(dstsafe.WithClock(clock), dstsafe.WithLedger(l))
			if err := s.Add("job", c, func(context.Context, dstsafe.Run) error { return nil }); err != nil {
				t.Fatal(err)
			}
			if _, err := dstsafe.Simulate(simCtx(t), s, 24*time.Hour); err != nil {
				t.Fatal(err)
			}
			recs, err := l.List(context.Background(), "job", "", "")
			if err != nil || len(recs) == 0 || recs[0].Schedule == "" {
				t.Fatalf("records %v, %v: want at least one with a fingerprint", recs, err)
			}
			back, err := dstsafe.ParseFingerprint(recs[0].Schedule)
			if err != nil {
				t.Fatalf("ParseFingerprint(%q): %v", recs[0].Schedule, err)
			}
			if back.Location().String() != c.Location().String() || back.PeriodKey() != c.PeriodKey() || back.FoldPolicy() != c.FoldPolicy() {
				t.Errorf("parsed back %s in %s (key %v, fold %v), want %s in %s (key %v, fold %v)",
					back, back.Location(), back.PeriodKey(), back.FoldPolicy(), c, c.Location(), c.PeriodKey(), c.FoldPolicy())
			}
			// Over the fall-back night and the spring-forward one.
			for _, from := range []time.Time{start, time.Date(2024, 3, 10, 6, 0, 0, 0, time.UTC)} {
				a, b := from, from
				for i := 0; i < 12; i++ {
					oa, oka := c.NextOccurrence(a)
					ob, okb := back.NextOccurrence(b)
					if oka != okb || !oa.At.Equal(ob.At) || oa.Period != ob.Period || oa.Kind != ob.Kind {
						t.Fatalf("occurrence %d after %s: parsed back %+v, want %+v", i, from, ob, oa)
					}
					a, b = oa.At, ob.At
				}
			}
		})
	}
}

func TestParseFingerprintInvalid(t *testing.T) {
	for _, fp := range []string{
		"",
		"cron1#0123456789abcdef0123456789abcdef;2024a", // hashed: too long to keep as text
		"cron2;UTC;x;first;shift;wall;0;0;30 1 * * *",  // a version this build does not know
		"cron1;Mars/Olympus;x;first;shift;wall;0;0;30 1 * * *",
		"cron1;UTC;x;sideways;shift;wall;0;0;30 1 * * *",
		"cron1;UTC;x;first;shift;wall;0;0;61 1 * * *",
	} {
		if _, err := dstsafe.ParseFingerprint(fp); !errors.Is(err, dstsafe.ErrInvalidArgument) {
			t.Errorf("ParseFingerprint(%q) = %v, want ErrInvalidArgument", fp, err)
		}
	}
}

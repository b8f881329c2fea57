package bench

import (
	"context"
	"log/slog"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/dstsafe/dstsafe"
	"github.com/jonboulle/clockwork"
	"github.com/robfig/cron/v3"
)

// A robfig/cron schedule is a plain dstsafe.Schedule and runs under the
// Scheduler. robfig fires at both readings of 01:30 on 2024-11-03
// (06:30Z, CDT, and 07:30Z, CST); read in the job's zone both are
// 2024-11-03T01:30:00, so the ledger refuses the second.
func TestRobfigScheduleUnderScheduler(t *testing.T) {
	chicago, err := time.LoadLocation("America/Chicago")
	if err != nil {
		t.Skipf("no tz database: %v", err)
	}
	spec, err := cron.ParseStandard("30 1 * * *")
	if err != nil {
		t.Fatal(err)
	}
	spec.(*cron.SpecSchedule).Location = chicago

	clock := clockwork.NewFakeClockAt(time.Date(2024, 11, 2, 12, 0, 0, 0, time.UTC))
	logs := &recordingHandler{}
	s := dstsafe.NewScheduler(dstsafe.WithClock(clock), dstsafe.WithLedger(dstsafe.NewMemoryLedger(clock)),
		dstsafe.WithLogger(slog.New(logs)))
	nop := func(context.Context, dstsafe.Run) error { return nil }
	if err := s.Add("billing", spec, nop, dstsafe.WithScheduleLocation(chicago)); err != nil {
		t.Fatal(err)
	}
	fires, err := dstsafe.Simulate(context.Background(), s, 48*time.Hour)
	if err != nil {
		t.Fatal(err)
	}
	want := []time.Time{
		time.Date(2024, 11, 3, 6, 30, 0, 0, time.UTC), // 01:30 CDT, the first reading
		time.Date(2024, 11, 4, 7, 30, 0, 0, time.UTC), // 01:30 CST the next day
	}
	if len(fires) != len(want) {
		t.Fatalf("fires = %v, want %v", fires, want)
	}
	for i, f := range fires {
		if !f.Due.Equal(want[i]) {
			t.Errorf("fire %d due %v, want %v", i, f.Due, want[i])
		}
	}
	if fires[0].Kind != dstsafe.Fold {
		t.Errorf("first fire kind = %v, want fold", fires[0].Kind)
	}
	if got := spec.Next(fires[0].Due).Sub(fires[0].Due); got != time.Hour {
		t.Errorf("robfig's next after the first 01:30 is %v later, want the second 01:30 an hour later", got)
	}
	if !logs.has("already claimed", "billing", "2024-11-03T01:30:00") {
		t.Errorf("no log of the refused second 01:30; logs: %v", logs.lines())
	}
}

// recordingHandler keeps every log record as its message and attributes.
type recordingHandler struct {
	mu   sync.Mutex
	recs []map[string]string
}

func (h *recordingHandler) Enabled(context.Context, slog.Level) bool { return true }
func (h *recordingHandler) WithAttrs([]slog.Attr) slog.Handler       { return h }
func (h *recordingHandler) WithGroup(string) slog.Handler            { return h }
func (h *recordingHandler) Handle(_ context.Context, r slog.Record) error {
	m := map[string]string{"msg": r.Message}
	r.Attrs(func(a slog.Attr) bool { m[a.Key] = a.Value.String(); return true })
	h.mu.Lock()
	h.recs = append(h.recs, m)
	h.mu.Unlock()
	return nil
}

// has reports a record whose message contains msg, for job and period.
func (h *recordingHandler) has(msg, job, period string) bool {
	h.mu.Lock()
	defer h.mu.Unlock()
	for _, m := range h.recs {
		if strings.Contains(m["msg"], msg) && (m["job"] == job || strings.HasPrefix(m["msg"], job+".")) && m["period"] == period {
			return true
		}
	}
	return false
}

func (h *recordingHandler) lines() []map[string]string {
	h.mu.Lock()
	defer h.mu.Unlock()
	return h.recs
}

package browsertest_test

import (
	"context"
	"net/http/httptest"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/jonboulle/clockwork"

	"github.com/dstsafe/dstsafe"
	"github.com/dstsafe/dstsafe/dstsafeui"
	"github.com/dstsafe/dstsafe/sqlledger"
	"github.com/dstsafe/dstsafe/sqlledger/sqlite"
)

// An hourly Chicago job's page over 417 local days (2023-01-01 to
// 2024-02-22, both 2023 transitions: 10,008 periods, each with a record),
// against the List query of the same records that `dstsafe ledger list`
// makes: page-ms/op is the whole page (List included), list-ms/op the
// query alone, page/list their ratio; the -cpu- metrics are the CPU time
// the process spent on each (GC included), which a machine busy with
// other work does not inflate as it does wall time.
//
//	go test -run '^$' -bench JobPage10k -benchtime 20x ./dstsafeui/browsertest
func BenchmarkJobPage10k(b *testing.B) {
	for _, backend := range []string{"memory", "sqlite"} {
		b.Run(backend, func(b *testing.B) {
			ctx := context.Background()
			c, err := dstsafe.ParseCron("CRON_TZ=America/Chicago 0 * * * *")
			if err != nil {
				b.Fatal(err)
			}
			from := time.Date(2023, 1, 1, 6, 0, 0, 0, time.UTC) // 00:00 CST
			to := time.Date(2024, 2, 22, 6, 0, 0, 0, time.UTC)
			clock := clockwork.NewFakeClockAt(from)
			var l dstsafe.ControlLedger
			if backend == "memory" {
				l = dstsafe.NewMemoryLedger(clock)
			} else {
				sl, err := sqlite.OpenSQLite(filepath.Join(b.TempDir(), "ledger.db"), sqlledger.WithClock(clock))
				if err != nil {
					b.Fatal(err)
				}
				defer sl.Close()
				if err := sl.Migrate(ctx); err != nil {
					b.Fatal(err)
				}
				l = sl
			}
			fp := fingerprintOf(b, c)
			n := 0
			for after := from.Add(-time.Nanosecond); ; {
				o, ok := c.NextOccurrence(after)
				if !ok || !o.At.Before(to) {
					break
				}
				after = o.At
				clock.Advance(o.At.Sub(clock.Now()))
				r, err := l.Claim(ctx, dstsafe.ClaimRequest{Job: "hourly", Period: o.Period, Owner: "replica-a", Schedule: fp})
				if err != nil {
					b.Fatal(err)
				}
				state, reason := dstsafe.StateSucceeded, ""
				if n%97 == 0 {
					state, reason = dstsafe.StateFailed, "upstream timeout"
				}
				if _, err := l.Finish(ctx, "hourly", o.Period, r.Token, state, reason); err != nil {
					b.Fatal(err)
				}
				n++
			}
			if n != 10008 {
				b.Fatalf("%d periods, want 10,008 (417 days of 24 hours; 2023's two transitions cancel out)", n)
			}
			clock.Advance(time.Hour)
			h := dstsafeui.Handler(l, dstsafeui.Options{Clock: clock})
			page := func() string {
				req := httptest.NewRequest("GET", "/job?name=hourly&from=2023-01-01&to=2024-02-22", nil)
				req.RemoteAddr, req.Host = "127.0.0.1:1", "127.0.0.1:8080"
				rec := httptest.NewRecorder()
				h.ServeHTTP(rec, req)
				if rec.Code != 200 {
					b.Fatalf("job page: %d\n%s", rec.Code, rec.Body)
				}
				return rec.Body.String()
			}
			body := page()
			if got := strings.Count(body, `<a class="p `); got != n {
				b.Fatalf("the page draws %d periods, want %d", got, n)
			}
			b.ResetTimer()
			var list, render, listCPU, renderCPU time.Duration
			for i := 0; i < b.N; i++ {
				t0, c0 := time.Now(), cpuTime()
				recs, err := l.List(ctx, "hourly", "2022-12-30", "2024-02-24")
				if err != nil || len(recs) != n {
					b.Fatalf("List: %d records, %v", len(recs), err)
				}
				t1, c1 := time.Now(), cpuTime()
				page()
				t2, c2 := time.Now(), cpuTime()
				list += t1.Sub(t0)
				render += t2.Sub(t1)
				listCPU += c1 - c0
				renderCPU += c2 - c1
			}
			ms := func(d time.Duration) float64 { return float64(d) / float64(time.Millisecond) / float64(b.N) }
			b.ReportMetric(ms(render), "page-ms/op")
			b.ReportMetric(ms(list), "list-ms/op")
			b.ReportMetric(float64(render)/float64(list), "page/list")
			b.ReportMetric(ms(renderCPU), "page-cpu-ms/op")
			b.ReportMetric(ms(listCPU), "list-cpu-ms/op")
			b.ReportMetric(float64(len(body))/1e6, "MB/page")
		})
	}
}

// fingerprintOf is the fingerprint a Scheduler claims c's periods with,
// read back from a claim it makes.
func fingerprintOf(b *testing.B, c *dstsafe.Cron) string {
	clock := clockwork.NewFakeClockAt(time.Date(2023, 1, 1, 0, 0, 0, 0, time.UTC))
	l := dstsafe.NewMemoryLedger(clock)
	s := dstsafe.NewScheduler(dstsafe.WithClock(clock), dstsafe.WithLedger(l))
	if err := s.Add("x", c, func(context.Context, dstsafe.Run) error { return nil }); err != nil {
		b.Fatal(err)
	}
	if _, err := dstsafe.Simulate(context.Background(), s, 2*time.Hour); err != nil {
		b.Fatal(err)
	}
	recs, err := l.List(context.Background(), "x", "", "")
	if err != nil || len(recs) == 0 || recs[0].Schedule == "" {
		b.Fatalf("no fingerprint: %v, %v", recs, err)
	}
	return recs[0].Schedule
}

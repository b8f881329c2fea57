package dstsafeui_test

import (
	"context"
	"fmt"
	"net/http/httptest"
	"strings"
	"time"

	"github.com/jonboulle/clockwork"

	"github.com/dstsafe/dstsafe"
	"github.com/dstsafe/dstsafe/dstsafeui"
)

// A service mounts the pages next to its own. Here a billing job ran
// across the fall-back night; its page shows one period on 2024-11-03.
func ExampleHandler() {
	clock := clockwork.NewFakeClockAt(time.Date(2024, 11, 2, 5, 0, 0, 0, time.UTC)) // 00:00 CDT
	ledger := dstsafe.NewMemoryLedger(clock)
	s := dstsafe.NewScheduler(dstsafe.WithClock(clock), dstsafe.WithLedger(ledger))
	billing, _ := dstsafe.ParseCron("CRON_TZ=America/Chicago 30 1 * * *")
	_ = s.Add("billing", billing, func(context.Context, dstsafe.Run) error { return nil })
	_, _ = dstsafe.Simulate(context.Background(), s, 3*24*time.Hour)

	h := dstsafeui.Handler(ledger, dstsafeui.Options{Clock: clock})
	req := httptest.NewRequest("GET", "/job?name=billing&from=2024-11-03&to=2024-11-04", nil)
	req.RemoteAddr, req.Host = "127.0.0.1:50000", "localhost:8080" // pages are for loopback without a token
	rec := httptest.NewRecorder()
	h.ServeHTTP(rec, req)
	page := rec.Body.String()
	fmt.Println(rec.Code, strings.Count(page, `<a class="p succeeded"`), "period on 2024-11-03")
	fmt.Println(strings.Contains(page, `data-at="2024-11-03 01:30:00 CDT (-05:00)"`))
	// Output:
	// 200 1 period on 2024-11-03
	// true
}

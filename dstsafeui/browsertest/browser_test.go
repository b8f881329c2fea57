package browsertest_test

import (
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"

	"github.com/dstsafe/dstsafe/dstsafeui"
	"github.com/dstsafe/dstsafe/dstsafeui/internal/uifixture"
)

// chromiumPath finds headless Chromium: $DSTSAFE_CHROMIUM, else Debian's
// chromium (scripts/test installs it), else one on PATH. Without one the
// test skips, except under CI=true, where it fails.
func chromiumPath(t testing.TB) string {
	t.Helper()
	if p := os.Getenv("DSTSAFE_CHROMIUM"); p != "" {
		return p
	}
	for _, name := range []string{"/usr/bin/chromium", "chromium", "chromium-browser", "google-chrome"} {
		if p, err := exec.LookPath(name); err == nil {
			return p
		}
	}
	if os.Getenv("CI") == "true" {
		t.Fatal("no chromium (CI=true: the browser tests must not skip); scripts/test installs Debian's chromium with apt-get")
	}
	t.Skip("no chromium: install Debian's chromium (scripts/test does) or set DSTSAFE_CHROMIUM")
	return ""
}

// browser starts a headless Chromium with a fresh profile, closed when t
// ends; every action on the returned context is bounded by a minute.
func browser(t testing.TB) context.Context {
	t.Helper()
	opts := []chromedp.ExecAllocatorOption{
		chromedp.ExecPath(chromiumPath(t)),
		chromedp.Flag("headless", true),
		chromedp.Flag("no-sandbox", true),
		chromedp.Flag("disable-gpu", true),
		chromedp.Flag("disable-quic", true),
		chromedp.Flag("no-first-run", true),
		chromedp.Flag("no-default-browser-check", true),
		chromedp.Flag("disable-background-networking", true),
		chromedp.Flag("disable-component-update", true),
		chromedp.Flag("disable-sync", true),
		chromedp.Flag("hide-scrollbars", true),
		chromedp.Flag("font-render-hinting", "none"),
		chromedp.UserDataDir(t.TempDir()),
		chromedp.WindowSize(1280, 800),
	}
	alloc, cancelAlloc := chromedp.NewExecAllocator(context.Background(), opts...)
	ctx, cancelCtx := chromedp.NewContext(alloc)
	ctx, cancelTimeout := context.WithTimeout(ctx, 2*time.Minute)
	t.Cleanup(func() { cancelTimeout(); cancelCtx(); cancelAlloc() })
	if err := chromedp.Do(ctx); err != nil {
		t.Fatalf("starting chromium: %v", err)
	}
	return ctx
}

// artifactDir is where screenshots go: $DSTSAFE_UI_ARTIFACTS (CI keeps
// it), else a temporary directory.
func artifactDir(t testing.TB) string {
	if d := os.Getenv("DSTSAFE_UI_ARTIFACTS"); d != "" {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
		return d
	}
	return t.TempDir()
}

// run runs chromedp actions, failing the test on error.
func run(t testing.TB, ctx context.Context, what string, actions ...chromedp.Action[chromedp.Void]) {
	t.Helper()
	if err := chromedp.Do(ctx, actions...); err != nil {
		t.Fatalf("%s: %v", what, err)
	}
}

// get runs one chromedp action that returns a value.
func get[T any](t testing.TB, ctx context.Context, what string, a chromedp.Action[T]) T {
	t.Helper()
	v, err := chromedp.Run(ctx, a)
	if err != nil {
		t.Fatalf("%s: %v", what, err)
	}
	return v
}

// eval evaluates a JavaScript expression in the page.
func eval[T any](t testing.TB, ctx context.Context, expr string) T {
	t.Helper()
	return get(t, ctx, expr, chromedp.Evaluate[T](expr))
}

// noInjection checks that nothing of the fixture's hostile job name and
// error text became markup: no script or img element, the title untouched.
func noInjection(t testing.TB, ctx context.Context, page string) {
	t.Helper()
	if n := eval[int](t, ctx, `document.querySelectorAll('script, img').length`); n != 0 {
		t.Errorf("%s: %d script or img elements in the DOM, want 0 (an escaped name or error became markup)", page, n)
	}
	if title := eval[string](t, ctx, `document.title`); strings.Contains(title, "pwned") {
		t.Errorf("%s: title %q: the error text ran", page, title)
	}
}

// Every page in a real browser, on every backend, over a ledger a
// Scheduler filled across both 2024 America/Chicago transitions.
func TestBrowser(t *testing.T) {
	chromiumPath(t)
	for _, b := range backends {
		t.Run(b.name, func(t *testing.T) {
			l, clock := filled(t, b)
			srv := httptest.NewServer(dstsafeui.Handler(l, dstsafeui.Options{Clock: clock, AllowActions: true, LedgerName: b.name + " (test)"}))
			t.Cleanup(srv.Close)
			ctx := browser(t)
			shots := artifactDir(t)
			shot := func(name string) {
				png := get(t, ctx, "screenshot "+name, chromedp.FullScreenshot(100))
				p := filepath.Join(shots, b.name+"-"+name)
				if err := os.WriteFile(p, png, 0o644); err != nil {
					t.Fatal(err)
				}
				t.Logf("screenshot %s (%d KB)", p, len(png)/1024)
				if d := os.Getenv("DSTSAFE_UI_DOCS"); d != "" && b.name == "sqlite" {
					if err := os.WriteFile(filepath.Join(d, name), png, 0o644); err != nil {
						t.Fatal(err)
					}
				}
			}

			t.Run("jobs", func(t *testing.T) {
				run(t, ctx, "jobs page", chromedp.Navigate(srv.URL+"/"), chromedp.WaitVisible(chromedp.ID("#jobs")))
				names := eval[[]string](t, ctx, `[...document.querySelectorAll('#jobs td.job')].map(e => e.textContent)`)
				want := []string{uifixture.XSSJob, "billing", "report"} // by bytes: '<' sorts first
				if fmt.Sprint(names) != fmt.Sprint(want) {
					t.Errorf("jobs %q, want %q", names, want)
				}
				// billing: 2024-11-07 abandoned (at risk), 2024-11-08 missing,
				// in the last 7 days up to 2024-11-08 12:00 CST.
				row := `document.querySelector('#jobs tr[data-job="billing"]')`
				if got := eval[string](t, ctx, row+`.querySelector('[data-count="at-risk"]').textContent`); got != "1" {
					t.Errorf("billing at risk %q, want 1 (2024-11-07 abandoned)", got)
				}
				if got := eval[string](t, ctx, row+`.querySelector('[data-count="missing"]').textContent`); got != "1" {
					t.Errorf("billing missing %q, want 1 (2024-11-08)", got)
				}
				if got := eval[string](t, ctx, row+`.cells[3].textContent`); !strings.Contains(got, "2024-11-09 01:30:00 CST (-06:00)") {
					t.Errorf("billing next due %q, want 2024-11-09 01:30:00 CST", got)
				}
				noInjection(t, ctx, "jobs page")
				shot("ui-jobs.png")
			})

			t.Run("fall-back night", func(t *testing.T) {
				run(t, ctx, "billing page", chromedp.Navigate(srv.URL+"/job?name=billing&from=2024-11-01&to=2024-11-09"),
					chromedp.WaitVisible(chromedp.ID("#timeline")))
				// 01:30 happens twice on 2024-11-03 (CDT, then CST): one period,
				// at the first reading, 06:30 UTC.
				ats := eval[[]string](t, ctx, `[...document.querySelectorAll('section[data-date="2024-11-03"] a.p')].map(e => e.dataset.at + " | " + e.dataset.utc + " | " + e.dataset.state)`)
				if len(ats) != 1 || ats[0] != "2024-11-03 01:30:00 CDT (-05:00) | 2024-11-03 06:30:00 UTC | succeeded" {
					t.Errorf("billing periods on 2024-11-03: %q, want one, succeeded at 01:30 CDT (06:30 UTC)", ats)
				}
				// The second reading is drawn, not as a period.
				ghosts := eval[[]string](t, ctx, `[...document.querySelectorAll('section[data-date="2024-11-03"] a.ghost')].map(e => e.dataset.at)`)
				if len(ghosts) != 1 || ghosts[0] != "2024-11-03 01:30:00 CST (-06:00)" {
					t.Errorf("second readings drawn on 2024-11-03: %q, want 01:30 CST", ghosts)
				}
				if n := eval[int](t, ctx, `document.querySelectorAll('section[data-date="2024-11-03"] .tr.fold').length`); n != 1 {
					t.Errorf("%d fold transitions drawn on 2024-11-03, want 1", n)
				}
				if n := eval[int](t, ctx, `document.querySelectorAll('section[data-date="2024-11-03"] .tick').length`); n != 25 {
					t.Errorf("2024-11-03 has %d hour ticks, want 25 (01 twice)", n)
				}
				if n := eval[int](t, ctx, `document.querySelectorAll('a.p[data-state="succeeded"]').length`); n != 6 {
					t.Errorf("%d succeeded billing periods 2024-11-01..08, want 6 (11-01..11-06)", n)
				}
				shot("ui-fallback-night.png")
				// The period page shows both readings, the first as run.
				run(t, ctx, "billing period", chromedp.Navigate(srv.URL+"/period?"+url.Values{"job": {"billing"}, "period": {"2024-11-03T01:30:00"}}.Encode()),
					chromedp.WaitVisible(chromedp.ID("#record")))
				readings := eval[[]string](t, ctx, `[...document.querySelectorAll('tr.reading')].map(e => e.className + " | " + e.cells[1].textContent)`)
				if len(readings) != 2 || !strings.HasPrefix(readings[0], "reading ran | 2024-11-03 01:30:00 CDT (-05:00) · 2024-11-03 06:30:00 UTC") ||
					!strings.HasPrefix(readings[1], "reading | 2024-11-03 01:30:00 CST (-06:00) · 2024-11-03 07:30:00 UTC") {
					t.Errorf("readings of billing 2024-11-03:\n%s\nwant 01:30 CDT (ran), then 01:30 CST", strings.Join(readings, "\n"))
				}
				shot("ui-period.png")
			})

			t.Run("spring-forward night", func(t *testing.T) {
				run(t, ctx, "report page", chromedp.Navigate(srv.URL+"/job?name=report&from=2024-03-08&to=2024-03-12"),
					chromedp.WaitVisible(chromedp.ID("#timeline")))
				// 02:30 does not exist on 2024-03-10: the period is at 03:30 CDT.
				ats := eval[[]string](t, ctx, `[...document.querySelectorAll('section[data-date="2024-03-10"] a.p')].map(e => e.dataset.period + " | " + e.dataset.at + " | " + e.dataset.utc)`)
				if len(ats) != 1 || ats[0] != "2024-03-10T02:30:00 | 2024-03-10 03:30:00 CDT (-05:00) | 2024-03-10 08:30:00 UTC" {
					t.Errorf("report periods on 2024-03-10: %q, want 2024-03-10T02:30:00 at 03:30 CDT (08:30 UTC)", ats)
				}
				if n := eval[int](t, ctx, `document.querySelectorAll('section[data-date="2024-03-10"] .tick').length`); n != 23 {
					t.Errorf("2024-03-10 has %d hour ticks, want 23 (no 02)", n)
				}
				if n := eval[int](t, ctx, `document.querySelectorAll('section[data-date="2024-03-10"] .notes li.gap').length`); n != 1 {
					t.Errorf("%d gap notes on 2024-03-10, want 1", n)
				}
				shot("ui-spring-forward.png")
			})

			t.Run("escaping", func(t *testing.T) {
				for _, page := range []string{
					"/job?" + url.Values{"name": {uifixture.XSSJob}, "from": {"2024-11-01"}, "to": {"2024-11-08"}}.Encode(),
					"/period?" + url.Values{"job": {uifixture.XSSJob}, "period": {"2024-11-06T04:00:00"}}.Encode(),
					"/audit?" + url.Values{"job": {uifixture.XSSJob}, "from": {"2024-11-01"}, "to": {"2024-11-08"}}.Encode(),
				} {
					run(t, ctx, page, chromedp.Navigate(srv.URL+page), chromedp.WaitVisible(chromedp.ID("#job-name")))
					if got := eval[string](t, ctx, `document.querySelector('#job-name').textContent`); got != uifixture.XSSJob {
						t.Errorf("%s: job name reads %q, want the text %q", page, got, uifixture.XSSJob)
					}
					noInjection(t, ctx, page)
				}
				if got := eval[string](t, ctx, `document.querySelector('tr[data-period="2024-11-06T04:00:00"] td.reason').textContent`); got != uifixture.XSSReason {
					t.Errorf("audit error text reads %q, want the text %q", got, uifixture.XSSReason)
				}
			})

			t.Run("audit", func(t *testing.T) {
				run(t, ctx, "audit", chromedp.Navigate(srv.URL+"/audit?job=billing&from=2024-11-01&to=2024-11-10"), chromedp.WaitVisible(chromedp.ID("#verdict")))
				rows := eval[[]string](t, ctx, `[...document.querySelectorAll('#audit tbody tr')].map(e => e.dataset.period + " " + e.dataset.state)`)
				want := []string{"2024-11-07T01:30:00 abandoned", "2024-11-08T01:30:00 missing"}
				if fmt.Sprint(rows) != fmt.Sprint(want) {
					t.Errorf("billing audit rows %q, want %q", rows, want)
				}
				shot("ui-audit.png")
			})

			t.Run("actions", func(t *testing.T) {
				period := "/period?" + url.Values{"job": {"report"}, "period": {"2024-11-05T02:30:00"}}.Encode()
				run(t, ctx, "retry", chromedp.Navigate(srv.URL+period), chromedp.WaitVisible(chromedp.ID("#retry")),
					chromedp.SendKeys(chromedp.CSS(`form:has(#retry) input[name=reason]`), "warehouse back"),
					chromedp.Click(chromedp.ID("#retry")), chromedp.WaitVisible(chromedp.ID("#flash")))
				r, err := l.Get(context.Background(), "report", "2024-11-05T02:30:00")
				if err != nil || !r.Released || r.ReleasedBy != "dstsafe ui" || r.ReleaseReason != "warehouse back" {
					t.Errorf("after retry in the browser: %+v, %v; want released by dstsafe ui", r, err)
				}
				run(t, ctx, "pause", chromedp.Navigate(srv.URL+"/job?name=billing"), chromedp.WaitVisible(chromedp.ID("#pause")),
					chromedp.SendKeys(chromedp.CSS(`form:has(#pause) input[name=reason]`), "card processor outage"),
					chromedp.Click(chromedp.ID("#pause")), chromedp.WaitVisible(chromedp.ID("#resume")))
				if p, err := l.GetPause(context.Background(), "billing"); err != nil || !p.Paused || p.Reason != "card processor outage" {
					t.Errorf("after pause in the browser: %+v, %v", p, err)
				}
				// A page of another site posting to the UI: refused, the ledger
				// unchanged. The hostile form even carries a valid token.
				run(t, ctx, "csrf", chromedp.Navigate(srv.URL+"/job?name=billing"), chromedp.WaitVisible(chromedp.ID("#resume")))
				csrf := get(t, ctx, "csrf", chromedp.Value(chromedp.CSS(`input[name=csrf]`)))
				evil := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
					w.Header().Set("Content-Type", "text/html")
					fmt.Fprintf(w, `<form id=f method=post action="%s/action"><input name=csrf value="%s"><input name=action value=resume><input name=job value=billing><input name=reason value=evil></form><script>document.getElementById('f').submit()</script>`, srv.URL, csrf)
				}))
				defer evil.Close()
				evilURL := strings.Replace(evil.URL, "127.0.0.1", "localhost", 1) // another site
				run(t, ctx, "hostile page", chromedp.Navigate(evilURL), chromedp.WaitVisible(chromedp.CSS("body")),
					chromedp.Func(func(ctx context.Context, t *chromedp.Target) error {
						_, err := chromedp.Poll[bool](`location.href.endsWith('/action')`, chromedp.WithPollingTimeout(20*time.Second))(ctx, t)
						return err
					}))
				if body := eval[string](t, ctx, `document.body.innerText`); !strings.Contains(body, "403") {
					t.Errorf("the cross-site POST answered %q, want 403", body)
				}
				if p, err := l.GetPause(context.Background(), "billing"); err != nil || !p.Paused {
					t.Errorf("after a cross-site resume: %+v, %v; want still paused", p, err)
				}
			})
		})
	}
}

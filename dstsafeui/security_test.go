package dstsafeui_test

import (
	"context"
	"html"
	"io"
	"net/http"
	"net/http/httptest"
	"net/url"
	"regexp"
	"strings"
	"testing"

	"github.com/jonboulle/clockwork"

	"github.com/dstsafe/dstsafe"
	"github.com/dstsafe/dstsafe/dstsafeui"
	"github.com/dstsafe/dstsafe/dstsafeui/internal/uifixture"
)

// memFilled is the fixture on a MemoryLedger: the security tests are
// about the handler, not the backend (TestBrowser covers those).
func memFilled(t testing.TB) (*dstsafe.MemoryLedger, *clockwork.FakeClock) {
	clock := clockwork.NewFakeClockAt(uifixture.SimStart)
	l := dstsafe.NewMemoryLedger(clock)
	uifixture.Fill(t, l, clock)
	return l, clock
}

// client is a request's origin: its address and the Host it asks for.
type client struct {
	remote, host string
	header       http.Header
	cookies      []*http.Cookie
}

var local = client{remote: "127.0.0.1:50123", host: "127.0.0.1:8080"}

func (c client) do(h http.Handler, method, target string, form url.Values) *httptest.ResponseRecorder {
	var body io.Reader
	if form != nil {
		body = strings.NewReader(form.Encode())
	}
	req := httptest.NewRequest(method, target, body)
	req.RemoteAddr, req.Host = c.remote, c.host
	if form != nil {
		req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	}
	for k, v := range c.header {
		req.Header[k] = v
	}
	for _, ck := range c.cookies {
		req.AddCookie(ck)
	}
	rec := httptest.NewRecorder()
	h.ServeHTTP(rec, req)
	return rec
}

var csrfField = regexp.MustCompile(`name="csrf" value="([0-9a-f]+)"`)

// session opens a page as a browser would and returns its cookies and the
// CSRF token of its forms.
func session(t *testing.T, h http.Handler, c client, page string) (client, string) {
	t.Helper()
	rec := c.do(h, "GET", page, nil)
	m := csrfField.FindStringSubmatch(rec.Body.String())
	if rec.Code != 200 || m == nil {
		t.Fatalf("GET %s: %d, no CSRF token in the page:\n%s", page, rec.Code, rec.Body)
	}
	c.cookies = rec.Result().Cookies()
	return c, m[1]
}

func TestActionCSRF(t *testing.T) {
	l, clock := memFilled(t)
	h := dstsafeui.Handler(l, dstsafeui.Options{Clock: clock, AllowActions: true})
	c, token := session(t, h, local, "/job?name=billing")
	pause := url.Values{"action": {"pause"}, "job": {"billing"}, "reason": {"outage"}, "csrf": {token}}
	without := func(k string) url.Values {
		v := url.Values{}
		for key, vals := range pause {
			if key != k {
				v[key] = vals
			}
		}
		return v
	}
	cross := c
	cross.header = http.Header{"Sec-Fetch-Site": {"cross-site"}, "Origin": {"https://evil.example"}}
	otherOrigin := c
	otherOrigin.header = http.Header{"Origin": {"https://evil.example"}}
	noCookie := local
	tests := []struct {
		name string
		c    client
		form url.Values
	}{
		// A page of another site submitting a form (the browser says so).
		{"cross-site", cross, pause},
		// An older browser: no Sec-Fetch-Site, but an Origin that is not ours.
		{"other origin", otherOrigin, pause},
		{"no token", c, without("csrf")},
		{"wrong token", c, url.Values{"action": {"pause"}, "job": {"billing"}, "reason": {"outage"}, "csrf": {strings.Repeat("0", 64)}}},
		// The token of one session in a request without its cookie.
		{"no session cookie", noCookie, pause},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if rec := tc.c.do(h, "POST", "/action", tc.form); rec.Code != http.StatusForbidden {
				t.Errorf("POST: %d, want 403\n%s", rec.Code, rec.Body)
			}
			if p, _ := l.GetPause(context.Background(), "billing"); p.Paused {
				t.Fatalf("billing paused by a refused POST: %+v", p)
			}
		})
	}
	same := c
	same.header = http.Header{"Sec-Fetch-Site": {"same-origin"}, "Origin": {"http://127.0.0.1:8080"}}
	rec := same.do(h, "POST", "/action", pause)
	if rec.Code != http.StatusSeeOther {
		t.Fatalf("same-origin POST with the token: %d, want 303\n%s", rec.Code, rec.Body)
	}
	if p, _ := l.GetPause(context.Background(), "billing"); !p.Paused || p.By != "dstsafe ui" || p.Reason != "outage" {
		t.Errorf("after the POST: %+v, want paused by dstsafe ui for outage", p)
	}
}

func TestActionsOff(t *testing.T) {
	l, clock := memFilled(t)
	h := dstsafeui.Handler(l, dstsafeui.Options{Clock: clock})
	// The token of a UI with actions on is no use here.
	_, token := session(t, dstsafeui.Handler(l, dstsafeui.Options{Clock: clock, AllowActions: true}), local, "/job?name=billing")
	for _, page := range []string{"/", "/job?name=billing", "/period?job=report&period=2024-11-05T02%3A30%3A00", "/audit?job=billing"} {
		rec := local.do(h, "GET", page, nil)
		if rec.Code != 200 || strings.Contains(rec.Body.String(), `method="post"`) {
			t.Errorf("GET %s: %d, a POST form in a read-only UI", page, rec.Code)
		}
	}
	for _, act := range []url.Values{
		{"action": {"pause"}, "job": {"billing"}, "reason": {"x"}, "csrf": {token}},
		{"action": {"retry"}, "job": {"report"}, "period": {"2024-11-05T02:30:00"}, "reason": {"x"}, "csrf": {token}},
		{"action": {"skip"}, "job": {"billing"}, "period": {"2024-11-08T01:30:00"}, "reason": {"x"}, "csrf": {token}},
	} {
		if rec := local.do(h, "POST", "/action", act); rec.Code != http.StatusForbidden {
			t.Errorf("POST %v without AllowActions: %d, want 403", act, rec.Code)
		}
	}
	if p, _ := l.GetPause(context.Background(), "billing"); p.Paused {
		t.Errorf("billing paused: %+v", p)
	}
	if r, _ := l.Get(context.Background(), "report", "2024-11-05T02:30:00"); r.Released {
		t.Errorf("report released: %+v", r)
	}
	if _, err := l.Get(context.Background(), "billing", "2024-11-08T01:30:00"); err == nil {
		t.Errorf("billing 2024-11-08 has a record: skipped without AllowActions")
	}
}

func TestAccessToken(t *testing.T) {
	l, clock := memFilled(t)
	open := dstsafeui.Handler(l, dstsafeui.Options{Clock: clock})
	remote := client{remote: "10.1.2.3:40000", host: "ops.example:8080"}
	// Beyond loopback without a token configured: nothing vouches for the client.
	if rec := remote.do(open, "GET", "/", nil); rec.Code != http.StatusUnauthorized {
		t.Errorf("remote client, no token configured: %d, want 401", rec.Code)
	}
	// A loopback client asking for another site's name: DNS rebinding.
	rebound := client{remote: "127.0.0.1:40000", host: "evil.example"}
	if rec := rebound.do(open, "GET", "/", nil); rec.Code != http.StatusMisdirectedRequest {
		t.Errorf("loopback client, Host evil.example: %d, want 421", rec.Code)
	}
	for _, c := range []client{local, {remote: "[::1]:40000", host: "localhost:8080"}} {
		if rec := c.do(open, "GET", "/", nil); rec.Code != 200 {
			t.Errorf("loopback %v: %d, want 200", c, rec.Code)
		}
	}

	const token = "s3cret-token"
	h := dstsafeui.Handler(l, dstsafeui.Options{Clock: clock, Token: token})
	bearer := remote
	bearer.header = http.Header{"Authorization": {"Bearer " + token}}
	wrong := remote
	wrong.header = http.Header{"Authorization": {"Bearer nope"}}
	for _, tc := range []struct {
		name string
		c    client
		want int
	}{
		{"no token", remote, http.StatusUnauthorized},
		{"wrong token", wrong, http.StatusUnauthorized},
		{"no token, even from loopback", local, http.StatusUnauthorized},
		{"bearer", bearer, http.StatusOK},
	} {
		if rec := tc.c.do(h, "GET", "/", nil); rec.Code != tc.want {
			t.Errorf("%s: %d, want %d", tc.name, rec.Code, tc.want)
		}
	}
	// ?token= once: a cookie, and a redirect that drops it from the URL.
	rec := remote.do(h, "GET", "/job?name=billing&token="+token, nil)
	if rec.Code != http.StatusSeeOther || rec.Header().Get("Location") != "./job?name=billing" {
		t.Fatalf("?token=: %d to %q, want 303 to ./job?name=billing", rec.Code, rec.Header().Get("Location"))
	}
	withCookie := remote
	withCookie.cookies = rec.Result().Cookies()
	if rec := withCookie.do(h, "GET", "/job?name=billing", nil); rec.Code != 200 {
		t.Errorf("with the token's cookie: %d, want 200", rec.Code)
	}
	if rec := remote.do(h, "GET", "/?token=nope", nil); rec.Code != http.StatusUnauthorized {
		t.Errorf("?token=nope: %d, want 401", rec.Code)
	}
}

// Every page shows the hostile job name and error text as text.
func TestEscaping(t *testing.T) {
	l, clock := memFilled(t)
	const password = "hunter2"
	h := dstsafeui.Handler(l, dstsafeui.Options{Clock: clock, AllowActions: true,
		LedgerName: "postgres://ops:" + password + "@db/ledger", Redact: []string{password}})
	job := url.QueryEscape(uifixture.XSSJob)
	for _, page := range []string{
		"/",
		"/job?name=" + job + "&from=2024-11-01&to=2024-11-08",
		"/period?job=" + job + "&period=2024-11-06T04%3A00%3A00",
		"/audit?job=" + job + "&from=2024-11-01&to=2024-11-08",
		"/audit",
		"/job?name=" + url.QueryEscape("<b>nope</b>"), // an unknown job's error page quotes the name
	} {
		rec := local.do(h, "GET", page, nil)
		body := rec.Body.String()
		for _, raw := range []string{"<script", "<img", "<b>nope", password} {
			if strings.Contains(body, raw) {
				t.Errorf("GET %s (%d): the page holds %q", page, rec.Code, raw)
			}
		}
		if !strings.Contains(body, "xxxxx") {
			t.Errorf("GET %s: no redacted ledger name", page)
		}
	}
	body := local.do(h, "GET", "/period?job="+job+"&period=2024-11-06T04%3A00%3A00", nil).Body.String()
	if !strings.Contains(body, html.EscapeString(uifixture.XSSReason)) && !strings.Contains(body, "&lt;img src=x onerror=&#34;document.title=&#39;pwned&#39;&#34;&gt;") {
		t.Errorf("the period page does not show the error text escaped:\n%s", body)
	}
}

package dstsafeui

import (
	"crypto/rand"
	"embed"
	"html/template"
	"io/fs"
	"log/slog"
	"net/http"
	"strings"
	"time"

	"github.com/jonboulle/clockwork"

	"github.com/dstsafe/dstsafe"
)

//go:embed assets
var assets embed.FS

// Options configures Handler. The zero value serves read-only pages, on the
// real clock, to clients on the loopback interface only.
type Options struct {
	// Clock says what now is, and so which periods are due, missing or
	// upcoming. Defaults to the real clock.
	Clock dstsafe.Clock
	// AllowActions turns on pause, resume, retry and skip: POST requests
	// carrying the page's CSRF token, from the UI's own origin. Defaults to
	// false: every page is read-only and POST is refused (403).
	AllowActions bool
	// Token, when set, is required of every request: as a bearer token
	// (Authorization: Bearer ...), or once as ?token=... on any page, which
	// sets an HttpOnly cookie for the rest of the session. A request
	// without it gets 401. Defaults to empty: then only loopback clients
	// (RemoteAddr 127.0.0.0/8 or ::1, Host a loopback name) are served and
	// every other request gets 401, since nothing else vouches for it.
	Token string
	// By is who acts in the ledger: Pause.By, Release's by, the owner of
	// a skip's claim. Defaults to "dstsafe ui".
	By string
	// LedgerName labels the ledger in every page's header. Never give it
	// a URL with a password. Defaults to empty (no label).
	LedgerName string
	// Redact lists strings no page may show, each replaced by "xxxxx":
	// the ledger URL's password, which a driver's error may quote.
	Redact []string
	// Window is how far back the jobs page looks for at-risk and missing
	// periods. Defaults to 7 days.
	Window time.Duration
	// Logger receives the errors a page shows. Defaults to slog.Default().
	Logger *slog.Logger
}

// ui is the Handler's state.
type ui struct {
	l        dstsafe.ControlLedger
	opts     Options
	pages    *template.Template
	csrfKey  []byte
	mux      *http.ServeMux
	crossOri *http.CrossOriginProtection
}

// Handler returns an http.Handler that serves l's jobs, periods and audit
// as HTML pages, and with opts.AllowActions the operator's actions on
// them. Mount it at the root of a path with a trailing slash
// (mux.Handle("/ops/ledger/", http.StripPrefix("/ops/ledger", h))): its
// links are relative.
//
// A period is shown where the schedule put it: a fixed-time job's 01:30 on
// the fall-back night (America/Chicago 2024-11-03) is one period, at its
// first reading (01:30 CDT), with the second reading (01:30 CST) drawn as
// the same period not run; 02:30 on the spring-forward night
// (2024-03-10) is at its shifted instant, 03:30 CDT. The job's schedule
// comes from the ledger's registration when it is a dstsafe.JobRegistry,
// else from the fingerprint of the job's newest record
// (dstsafe.ParseFingerprint). Job names and error texts are escaped
// everywhere. It panics if l is nil.
func Handler(l dstsafe.ControlLedger, opts Options) http.Handler {
	if l == nil {
		panic("dstsafeui: Handler: nil ledger")
	}
	if opts.Clock == nil {
		opts.Clock = clockwork.NewRealClock()
	}
	if opts.By == "" {
		opts.By = "dstsafe ui"
	}
	if opts.Window <= 0 {
		opts.Window = 7 * 24 * time.Hour
	}
	if opts.Logger == nil {
		opts.Logger = slog.Default()
	}
	u := &ui{l: l, opts: opts, csrfKey: make([]byte, 32), crossOri: http.NewCrossOriginProtection()}
	if _, err := rand.Read(u.csrfKey); err != nil {
		panic("dstsafeui: no randomness for the CSRF key: " + err.Error())
	}
	u.pages = template.Must(template.New("").Funcs(u.funcs()).ParseFS(assets, "assets/*.html"))
	static, _ := fs.Sub(assets, "assets")
	u.mux = http.NewServeMux()
	u.mux.HandleFunc("GET /{$}", u.jobsPage)
	u.mux.HandleFunc("GET /job", u.jobPage)
	u.mux.HandleFunc("GET /period", u.periodPage)
	u.mux.HandleFunc("GET /audit", u.auditPage)
	u.mux.HandleFunc("POST /action", u.action)
	u.mux.Handle("GET /assets/ui.css", http.StripPrefix("/assets", http.FileServerFS(static)))
	return u
}

// ServeHTTP checks who is asking, then serves the page.
func (u *ui) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	h := w.Header()
	h.Set("Content-Security-Policy", "default-src 'none'; style-src 'self'; style-src-attr 'unsafe-inline'; img-src 'self'; form-action 'self'; frame-ancestors 'none'; base-uri 'none'")
	h.Set("X-Content-Type-Options", "nosniff")
	h.Set("Referrer-Policy", "no-referrer")
	h.Set("X-Frame-Options", "DENY")
	if !u.authorized(w, r) {
		return
	}
	u.mux.ServeHTTP(w, r)
}

// redact replaces every string of Options.Redact in s.
func (u *ui) redact(s string) string {
	for _, secret := range u.opts.Redact {
		if secret != "" {
			s = strings.ReplaceAll(s, secret, "xxxxx")
		}
	}
	return s
}

package main

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/http"
	"net/netip"
	"net/url"
	"os"
	"os/signal"
	"strings"
	"syscall"
	"time"

	"github.com/dstsafe/dstsafe/dstsafeui"
)

var uiCmd = &command{
	name:    "ui",
	summary: "serve a ledger as web pages: jobs, periods across DST transitions, audit",
	usage: `Usage: dstsafe ui --ledger URL [--listen 127.0.0.1:8080] [--allow-actions] [--token TOKEN] [--by NAME]
       dstsafe ui (--sqlite PATH | --postgres DSN | --redis ADDR) [--table T | --prefix P] [...]

Serves the ledger's jobs, each job's periods on a timeline of local days
with the zone's daylight-saving transitions drawn on it (a fold shows both
readings of a repeated time and which one ran; a gap shows the instant a
skipped time was shifted to), each period's record in UTC and in the job's
zone, and an audit of a date range (missing, failed, abandoned periods).
Read-only unless --allow-actions.

Flags:
  --ledger URL       the ledger, as for dstsafe ledger: ` + ledgerURLForms + `
                     (or DSTSAFE_LEDGER); --sqlite, --postgres, --redis,
                     --table and --prefix as for dstsafe ledger
  --listen ADDR      where to serve (default 127.0.0.1:8080). Beyond
                     loopback (0.0.0.0:8080, a LAN address) an access
                     token is required
  --token TOKEN      require this access token of every request (or
                     DSTSAFE_UI_TOKEN): open a page once with ?token=TOKEN,
                     or send Authorization: Bearer TOKEN. Without one, only
                     loopback clients are served
  --allow-actions    turn on pause, resume, retry and skip (POST forms with
                     a CSRF token, same origin only)
  --by NAME          who acts, in the ledger's records (default dstsafe ui
                     by user@host)

The ledger URL's password is never printed or shown on a page.

Example:
  dstsafe ui --ledger sqlite:///var/lib/billing/ledger.db
  DSTSAFE_UI_TOKEN=$(openssl rand -hex 16) dstsafe ui --ledger "$DSN" --listen 0.0.0.0:8080 --allow-actions
`,
	run: runUI,
}

func runUI(c *cmdContext, args []string) error {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	return serveUI(ctx, c, args, nil)
}

// serveUI parses the ui command's flags, opens the ledger and serves it
// until ctx ends; ready, when set, is told the address it listens on.
func serveUI(ctx context.Context, c *cmdContext, args []string, ready func(addr string)) error {
	f := &ledgerFlags{}
	c.fs.StringVar(&f.sqlite, "sqlite", "", "")
	c.fs.StringVar(&f.postgres, "postgres", "", "")
	c.fs.StringVar(&f.redis, "redis", "", "")
	c.fs.StringVar(&f.url, "ledger", "", "")
	c.fs.StringVar(&f.table, "table", "", "")
	c.fs.StringVar(&f.prefix, "prefix", "", "")
	listen := c.fs.String("listen", "127.0.0.1:8080", "")
	allow := c.fs.Bool("allow-actions", false, "")
	token := c.fs.String("token", "", "")
	by := c.fs.String("by", "", "")
	if _, err := c.parse(args, 0, 0); err != nil {
		return err
	}
	if *token == "" {
		*token = os.Getenv("DSTSAFE_UI_TOKEN")
	}
	if !loopbackListen(*listen) && *token == "" {
		return usagef("--listen %s serves beyond loopback: give an access token (--token or DSTSAFE_UI_TOKEN), which every request must carry", *listen)
	}
	if *by == "" {
		*by = "dstsafe ui by " + defaultBy()
	}
	if f.url == "" && f.sqlite == "" && f.postgres == "" && f.redis == "" {
		f.url = os.Getenv("DSTSAFE_LEDGER")
	}
	label, secrets := ledgerLabel(f)
	// Pause.Since and lease decisions by the store's clock, as for
	// dstsafe ledger pause: one clock for every replica.
	c.storeClock = true
	l, closeLedger, err := openLedger(ctx, c, f)
	if err != nil {
		return redactErr(err, secrets)
	}
	defer closeLedger()
	ln, err := net.Listen("tcp", *listen)
	if err != nil {
		return usagef("bad --listen %q: %v", *listen, err)
	}
	h := dstsafeui.Handler(l, dstsafeui.Options{Clock: cliClock{c.now}, AllowActions: *allow, Token: *token,
		By: *by, LedgerName: label, Redact: secrets})
	srv := &http.Server{Handler: h, ReadHeaderTimeout: 10 * time.Second}
	mode := "read-only"
	if *allow {
		mode = "actions on"
	}
	fmt.Fprintf(c.stdout, "dstsafe ui: ledger %s on http://%s/ (%s)\n", label, ln.Addr(), mode)
	if ready != nil {
		ready(ln.Addr().String())
	}
	errc := make(chan error, 1)
	go func() { errc <- srv.Serve(ln) }()
	select {
	case err := <-errc:
		return err
	case <-ctx.Done():
	}
	shutdown, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	if err := srv.Shutdown(shutdown); err != nil {
		return err
	}
	if err := <-errc; !errors.Is(err, http.ErrServerClosed) {
		return err
	}
	return nil
}

// loopbackListen reports whether a --listen address serves the loopback
// interface only: 127.0.0.1:8080, [::1]:8080, localhost:8080. An empty
// host (":8080") is every interface.
func loopbackListen(addr string) bool {
	host, _, err := net.SplitHostPort(addr)
	if err != nil {
		return false
	}
	if strings.EqualFold(host, "localhost") {
		return true
	}
	ip, err := netip.ParseAddr(host)
	return err == nil && ip.Unmap().IsLoopback()
}

var dsnPassword = lazyRE(`(?i)(password\s*=\s*)('(?:[^'\\]|\\.)*'|[^\s]*)`)

// ledgerLabel names the ledger f names, for people: its URL without
// the password, and the secrets (passwords) no page may show.
func ledgerLabel(f *ledgerFlags) (label string, secrets []string) {
	raw := f.url
	switch {
	case raw != "":
	case f.sqlite != "":
		return f.sqlite, nil
	case f.postgres != "":
		raw = f.postgres
	case f.redis != "":
		raw = f.redis
	}
	if u, err := url.Parse(raw); err == nil && u.Scheme != "" && u.Opaque == "" {
		if p, ok := u.User.Password(); ok && p != "" {
			secrets = append(secrets, p)
		}
		if p := u.Query().Get("password"); p != "" {
			secrets = append(secrets, p)
			q := u.Query()
			q.Set("password", "xxxxx")
			u.RawQuery = q.Encode()
		}
		return u.Redacted(), secrets
	}
	// A key=value PostgreSQL DSN: host=db user=ops password=...
	for _, m := range dsnPassword.FindAllStringSubmatch(raw, -1) {
		if p := strings.Trim(m[2], "'"); p != "" {
			secrets = append(secrets, p)
		}
	}
	return dsnPassword.ReplaceAllString(raw, "${1}xxxxx"), secrets
}

// redactErr hides secrets in an error about the ledger (a driver may
// quote its DSN).
func redactErr(err error, secrets []string) error {
	msg := err.Error()
	hid := msg
	for _, s := range secrets {
		hid = strings.ReplaceAll(hid, s, "xxxxx")
	}
	if hid == msg {
		return err
	}
	var ue *usageError
	if errors.As(err, &ue) {
		return usagef("%s", hid)
	}
	return errors.New(hid)
}

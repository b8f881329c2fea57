package main

import (
	"bytes"
	"context"
	"flag"
	"io"
	"net/http"
	"slices"
	"strings"
	"testing"
	"time"
)

// dstsafe ui serves the ledger's pages on loopback until its context
// ends, and says where without the ledger's password.
func TestUIServes(t *testing.T) {
	db := sqliteFixture(t)
	var out bytes.Buffer
	c := &cmdContext{cmd: uiCmd, stdout: &out, stderr: io.Discard, now: func() time.Time { return ledgerNow }}
	c.fs = flag.NewFlagSet("dstsafe ui", flag.ContinueOnError)
	c.fs.SetOutput(io.Discard)
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	addrc := make(chan string, 1)
	errc := make(chan error, 1)
	go func() {
		errc <- serveUI(ctx, c, []string{"--ledger", "sqlite://" + db, "--listen", "127.0.0.1:0"}, func(a string) { addrc <- a })
	}()
	var addr string
	select {
	case addr = <-addrc:
	case err := <-errc:
		t.Fatalf("dstsafe ui: %v", err)
	}
	for _, page := range []string{"/", "/job?name=billing", "/audit?job=billing"} {
		resp, err := http.Get("http://" + addr + page)
		if err != nil {
			t.Fatal(err)
		}
		body, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		if resp.StatusCode != 200 || !strings.Contains(string(body), "billing") {
			t.Errorf("GET %s: %d\n%s", page, resp.StatusCode, body)
		}
		if strings.Contains(string(body), `method="post"`) {
			t.Errorf("GET %s: a POST form without --allow-actions", page)
		}
	}
	cancel()
	if err := <-errc; err != nil {
		t.Errorf("dstsafe ui after its context ended: %v, want nil", err)
	}
	if want := "dstsafe ui: ledger sqlite://" + db + " on http://" + addr + "/ (read-only)\n"; out.String() != want {
		t.Errorf("stdout %q, want %q", out.String(), want)
	}
}

// Beyond loopback, dstsafe ui refuses to start without an access token.
func TestUIBeyondLoopbackNeedsToken(t *testing.T) {
	db := sqliteFixture(t)
	t.Setenv("DSTSAFE_UI_TOKEN", "")
	for _, listen := range []string{"0.0.0.0:0", ":0", "192.0.2.1:8080"} {
		_, stderr, code := runCLIAt(ledgerNow, "ui", "--sqlite", db, "--listen", listen)
		if code != exitUsage || !strings.Contains(stderr, "give an access token (--token or DSTSAFE_UI_TOKEN)") {
			t.Errorf("ui --listen %s without a token: exit %d\n%s\nwant exit 2 asking for a token", listen, code, stderr)
		}
	}
}

func TestLedgerLabel(t *testing.T) {
	tests := []struct {
		name  string
		f     ledgerFlags
		label string
		hide  []string
	}{
		{"sqlite", ledgerFlags{sqlite: "/var/lib/ledger.db"}, "/var/lib/ledger.db", nil},
		{"postgres URL", ledgerFlags{url: "postgres://ops:hunter2@db:5432/ledger?sslmode=disable"},
			"postgres://ops:xxxxx@db:5432/ledger?sslmode=disable", []string{"hunter2"}},
		{"password parameter", ledgerFlags{url: "postgresql://db/ledger?user=ops&password=hunter2"},
			"postgresql://db/ledger?password=xxxxx&user=ops", []string{"hunter2"}},
		// libpq's key=value form.
		{"postgres DSN", ledgerFlags{postgres: "host=db user=ops password='hun ter2' dbname=ledger"},
			"host=db user=ops password=xxxxx dbname=ledger", []string{"hun ter2"}},
		{"redis", ledgerFlags{redis: "redis://:hunter2@cache:6379/0"}, "redis://:xxxxx@cache:6379/0", []string{"hunter2"}},
		{"redis address", ledgerFlags{redis: "cache:6379"}, "cache:6379", nil},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			label, hide := ledgerLabel(&tc.f)
			if label != tc.label || !slices.Equal(hide, tc.hide) {
				t.Errorf("ledgerLabel = %q, %q; want %q, %q", label, hide, tc.label, tc.hide)
			}
		})
	}
}

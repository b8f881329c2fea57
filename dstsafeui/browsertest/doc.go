// Package browsertest holds the browser tests of package dstsafeui: its
// pages in headless Chromium (driven with chromedp) over real SQLite,
// PostgreSQL and Redis ledgers. It is a module of its own so that
// dstsafeui's go.mod requires the core and clockwork only: a service that
// mounts the handler gets no chromedp, pgx, go-redis or SQLite line in its
// go.sum.
//
//	go test ./...                                   # SQLite; PostgreSQL and Redis when
//	                                                # DSTSAFE_TEST_POSTGRES_DSN / _REDIS_ADDR are set
//	DSTSAFE_UI_ARTIFACTS=/tmp/shots go test ./...   # keep the screenshots
//	DSTSAFE_UI_DOCS=../../docs go test -run 'TestBrowser/sqlite' ./...   # rewrite docs/ui-*.png
package browsertest

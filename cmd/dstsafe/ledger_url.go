package main

import (
	"net/url"
	"strings"
)

// ledgerURLForms is how --ledger (and DSTSAFE_LEDGER) names a ledger, for
// error messages and help.
const ledgerURLForms = "sqlite:///abs/path.db, sqlite:relative/path.db, postgres://user@host/db (or postgresql://), redis://host:port/db"

// parseLedgerURL fills the backend field of f that raw names: a SQLite
// file (sqlite:///abs/path or sqlite:rel/path; a host is refused, so
// sqlite://ledger.db, which names a host, is not read as a file), a
// PostgreSQL DSN (postgres:// or postgresql://, given to pgx as is) or a
// Redis URL (redis:// or rediss://, given to go-redis as is).
func parseLedgerURL(raw string, f *ledgerFlags) error {
	scheme, rest, ok := strings.Cut(raw, ":")
	if !ok || raw == "" {
		return usagef("bad --ledger %q: want a URL: %s", raw, ledgerURLForms)
	}
	switch strings.ToLower(scheme) {
	case "sqlite", "sqlite3":
		path := rest
		if after, ok := strings.CutPrefix(rest, "//"); ok {
			if !strings.HasPrefix(after, "/") {
				return usagef("bad --ledger %q: sqlite://%s names a host; an absolute path takes three slashes (sqlite:///var/lib/ledger.db), a relative one none (sqlite:ledger.db)", raw, after)
			}
			path = after
		}
		p, err := url.PathUnescape(path)
		if err != nil || p == "" || strings.ContainsAny(p, "?#") {
			return usagef("bad --ledger %q: want a SQLite file path without '?' or '#': %s", raw, ledgerURLForms)
		}
		f.sqlite = p
	case "postgres", "postgresql":
		if _, err := url.Parse(raw); err != nil {
			return usagef("bad --ledger %q: %v", raw, err)
		}
		f.postgres = raw
	case "redis", "rediss":
		f.redis = raw
	default:
		return usagef("bad --ledger %q: unknown scheme %q; want one of %s", raw, scheme, ledgerURLForms)
	}
	return nil
}

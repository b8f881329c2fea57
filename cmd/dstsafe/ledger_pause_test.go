package main

import (
	"context"
	"slices"
	"testing"
	"time"

	"github.com/jonboulle/clockwork"

	"github.com/dstsafe/dstsafe"
)

// A pause and a resume are stamped with the store's clock, not the CLI
// host's: here the CLI's clock runs 75 years ahead (an operator's
// bastion with a wrong clock, the extreme case of one minutes ahead).
// Stamped with it, the resume's Since would be in 2099 and every
// scheduler would skip every period due until then as "paused". The
// stores' clocks are this machine's: PostgreSQL's clock_timestamp(),
// Redis's TIME, SQLite's 'now'.
func TestLedgerPauseStoreClock(t *testing.T) {
	ctx := context.Background()
	cliNow := time.Date(2099, 11, 3, 6, 30, 0, 0, time.UTC)
	for _, backend := range []string{"sqlite", "postgres", "redis"} {
		t.Run(backend, func(t *testing.T) {
			clock := clockwork.NewFakeClockAt(time.Date(2024, 11, 3, 6, 30, 0, 0, time.UTC))
			l, flags := emptyLedgers[backend](t, clock)
			if _, err := l.Claim(ctx, dstsafe.ClaimRequest{Job: "billing", Period: "2024-11-03", Owner: "w"}); err != nil {
				t.Fatal(err)
			}
			for _, sub := range []string{"pause", "resume"} {
				before := time.Now().Add(-time.Second) // SQLite's 'now' has milliseconds
				args := slices.Concat([]string{"ledger", sub, "billing", "--reason", "incident 42", "--by", "ops"}, flags)
				if stdout, stderr, code := runCLIAt(cliNow, args...); code != 0 {
					t.Fatalf("%s: exit %d\n%s%s", sub, code, stdout, stderr)
				}
				after := time.Now().Add(time.Second)
				p, err := l.GetPause(ctx, "billing")
				if err != nil {
					t.Fatal(err)
				}
				if p.Paused != (sub == "pause") || p.Since.Before(before) || p.Since.After(after) {
					t.Errorf("after %s: %+v; want Since by the store's clock, between %s and %s (the CLI's clock says %s)",
						sub, p, before.UTC(), after.UTC(), cliNow)
				}
			}
		})
	}
}

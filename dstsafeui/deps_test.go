package dstsafeui_test

import (
	"os"
	"regexp"
	"testing"
)

// A service that mounts the handler gets the core and clockwork from it,
// nothing else: the browser tests' chromedp, pgx, go-redis and SQLite
// live in the module dstsafeui/browsertest.
func TestModuleDeps(t *testing.T) {
	heavy := regexp.MustCompile(`chromedp|jackc/pgx|redis/go-redis|modernc\.org|sqlledger|redisledger`)
	for _, f := range []string{"go.mod", "go.sum"} {
		data, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		if m := heavy.Find(data); m != nil {
			t.Errorf("dstsafeui's %s mentions %s: a test dependency belongs to module dstsafeui/browsertest", f, m)
		}
	}
}

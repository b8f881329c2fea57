package main

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// A module outside the checkout that uses the SQLite ledger builds with
// the replace lines scripts/replace writes, outside the workspace, as a
// consumer's would; with a replace for the module it names only, the go
// command cannot find the dstsafe modules it needs through it.
func TestReplaceScript(t *testing.T) {
	dir := t.TempDir()
	write := func(name, text string) {
		t.Helper()
		if err := os.WriteFile(filepath.Join(dir, name), []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	write("go.mod", "module example.com/consumer\n\ngo 1.25.0\n")
	write("main.go", `package main

import (
	"log"

	"github.com/dstsafe/dstsafe"
	"github.com/dstsafe/dstsafe/sqlledger/sqlite"
)

func main() {
	ledger, err := sqlite.OpenSQLite("ledger.db")
	if err != nil {
		log.Fatal(err)
	}
	defer ledger.Close()
	_ = dstsafe.NewScheduler(dstsafe.WithLedger(ledger))
}
`)
	// GOPROXY=off: everything comes from the checkout or the module cache
	// the workspace filled; nothing is fetched.
	env := append(os.Environ(), "GOWORK=off", "GOFLAGS=-mod=mod", "GOPROXY=off")
	run := func(name string, args ...string) (string, error) {
		cmd := exec.Command(name, args...)
		cmd.Dir, cmd.Env = dir, env
		out, err := cmd.CombinedOutput()
		return string(out), err
	}
	root, err := filepath.Abs(repoRoot)
	if err != nil {
		t.Fatal(err)
	}

	// Only the module the consumer names: its own dependency is missing.
	if out, err := run("go", "mod", "edit", "-replace=github.com/dstsafe/dstsafe/sqlledger/sqlite="+filepath.Join(root, "sqlledger", "sqlite"),
		"-replace=github.com/dstsafe/dstsafe="+root); err != nil {
		t.Fatalf("go mod edit: %v\n%s", err, out)
	}
	if out, err := run("go", "mod", "tidy"); err == nil || !strings.Contains(out, "github.com/dstsafe/dstsafe/sqlledger: ") {
		t.Fatalf("go mod tidy without a replace for sqlledger = %v\n%s; want it to fail on sqlledger", err, out)
	}

	if out, err := run(filepath.Join(root, "scripts", "replace"), "-w", dir); err != nil {
		t.Fatalf("scripts/replace -w: %v\n%s", err, out)
	}
	if out, err := run("go", "mod", "tidy"); err != nil {
		t.Fatalf("go mod tidy after scripts/replace: %v\n%s", err, out)
	}
	// Every package resolves to a directory: the modules are all found.
	out, err := run("go", "list", "-deps", "-e", "-f", "{{with .Error}}{{.}}{{end}}", ".")
	if err != nil || strings.TrimSpace(out) != "" {
		t.Fatalf("go list -deps after scripts/replace: %v\n%s", err, out)
	}
	// Linking compiles modernc.org/sqlite without -race (about two minutes
	// on a 2-core machine when it is not in the build cache yet).
	if os.Getenv("DSTSAFE_LONG") != "" {
		if out, err := run("go", "build", "-o", os.DevNull, "."); err != nil {
			t.Fatalf("go build after scripts/replace: %v\n%s", err, out)
		}
	}
}

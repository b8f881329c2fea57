package dstsafe_test

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"testing"
	"time"

	"github.com/dstsafe/dstsafe"
)

// zonenames.go is what internal/genzonenames writes from this toolchain's
// tz database: a Go upgrade that brings new zones fails here until
// `go generate` runs (the first line, naming the Go version, aside).
func TestZoneNamesGenerated(t *testing.T) {
	out := filepath.Join(t.TempDir(), "zonenames.go")
	cmd := exec.Command("go", "run", "./internal/genzonenames", out)
	if b, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("genzonenames: %v\n%s", err, b)
	}
	got, err := os.ReadFile("zonenames.go")
	if err != nil {
		t.Fatal(err)
	}
	want, err := os.ReadFile(out)
	if err != nil {
		t.Fatal(err)
	}
	body := func(b []byte) []byte { _, rest, _ := bytes.Cut(b, []byte("\n")); return rest }
	if !bytes.Equal(body(got), body(want)) {
		t.Errorf("zonenames.go is stale: run go generate in the root module")
	}
}

// Every suggested name is one the process can load (the machine's tz
// database or Go's embedded one), sorted and unique.
func TestZoneNamesLoad(t *testing.T) {
	names := dstsafe.TZNames
	if len(names) < 590 {
		t.Fatalf("%d zone names; tzdata 2025b has 598", len(names))
	}
	if !slices.IsSorted(names) || len(slices.Compact(slices.Clone(names))) != len(names) {
		t.Errorf("zone names not sorted and unique")
	}
	for _, n := range names {
		if _, err := time.LoadLocation(n); err != nil {
			t.Errorf("suggested zone %s does not load: %v", n, err)
		}
	}
}

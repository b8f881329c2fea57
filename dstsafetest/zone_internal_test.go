package dstsafetest

import (
	"fmt"
	"io/fs"
	"slices"
	"testing"
	"time"
)

// fatalT records a Fatalf instead of stopping the test.
type fatalT struct{ fatal []string }

func (*fatalT) Helper() {}
func (f *fatalT) Fatalf(format string, args ...any) {
	f.fatal = append(f.fatal, fmt.Sprintf(format, args...))
}

func TestZoneUnknownFails(t *testing.T) {
	for _, name := range []string{"Mars/Olympus_Mons", "", "America", "README", "../zone.go", "/America/Chicago", "America/Chicago/"} {
		var f fatalT
		if loc := zone(&f, name); loc != nil || len(f.fatal) != 1 {
			t.Errorf("zone(%q) = %v, fatal %q; want nil and one Fatalf", name, loc, f.fatal)
		}
	}
}

func TestZonePinned(t *testing.T) {
	var f fatalT
	chicago := zone(&f, "America/Chicago")
	if len(f.fatal) != 0 || chicago == nil {
		t.Fatalf("zone(America/Chicago): %q", f.fatal)
	}
	if chicago.String() != "America/Chicago" {
		t.Errorf("name %q", chicago)
	}
	if again := Zone(t, "America/Chicago"); again != chicago {
		t.Errorf("a second call returned another *time.Location")
	}
	// 2024-11-03 07:00 UTC: Chicago falls back from CDT (-5) to CST (-6).
	at := time.Date(2024, 11, 3, 7, 0, 0, 0, time.UTC)
	for _, c := range []struct {
		t    time.Time
		name string
		off  int
	}{{at.Add(-time.Second), "CDT", -5 * 3600}, {at, "CST", -6 * 3600}} {
		if name, off := c.t.In(chicago).Zone(); name != c.name || off != c.off {
			t.Errorf("%v in Chicago: %s %d, want %s %d", c.t, name, off, c.name, c.off)
		}
	}
	// The list in Zone's doc is the tree, and every file in it loads.
	doc := []string{"Africa/Cairo", "America/Chicago", "America/Havana", "America/New_York", "America/Nuuk", "America/Santiago",
		"America/Sao_Paulo", "Asia/Beirut", "Asia/Kolkata", "Australia/Lord_Howe", "Australia/Sydney",
		"Etc/UTC", "Europe/Dublin", "Europe/London", "Europe/Volgograd", "Pacific/Apia"}
	var tree []string
	err := fs.WalkDir(ZoneinfoFS(), ".", func(path string, d fs.DirEntry, err error) error {
		if err == nil && !d.IsDir() && path != "README" {
			tree = append(tree, path)
		}
		return err
	})
	if err != nil || !slices.Equal(tree, doc) {
		t.Errorf("pinned zones %v (%v), the doc lists %v", tree, err, doc)
	}
	for _, name := range tree {
		if Zone(t, name).String() != name {
			t.Errorf("Zone(%q) is named %q", name, Zone(t, name))
		}
	}
}

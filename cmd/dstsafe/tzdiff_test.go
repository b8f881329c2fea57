package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"testing"
	"time"
)

// tzdiff's moves for a weekly 01:30 in Mexico City, old/ -> new/, against
// an oracle from the time package alone: for each Sunday of 2023 the
// instant that reads 01:30 first (the fixed-time fold policy; no Sunday of
// 2023 has 01:30 in a gap), tried at each candidate offset.
func TestTzdiffAgainstOracle(t *testing.T) {
	load := func(dir string) *time.Location {
		b, err := os.ReadFile(filepath.Join("testdata", "tzdiff", dir, "America", "Mexico_City"))
		if err != nil {
			t.Fatal(err)
		}
		loc, err := time.LoadLocationFromTZData("America/Mexico_City", b)
		if err != nil {
			t.Fatal(err)
		}
		return loc
	}
	old, cur := load("old"), load("new")
	first := func(y int, m time.Month, d int, loc *time.Location) time.Time {
		for _, off := range []time.Duration{5 * time.Hour, 6 * time.Hour} { // CDT, CST
			at := time.Date(y, m, d, 1, 30, 0, 0, time.UTC).Add(off)
			if l := at.In(loc); l.Hour() == 1 && l.Minute() == 30 && l.Day() == d {
				return at
			}
		}
		t.Fatalf("no 01:30 on %d-%02d-%02d", y, m, d)
		return time.Time{}
	}
	wantMoved := 0
	for d := time.Date(2023, 1, 1, 0, 0, 0, 0, time.UTC); d.Year() == 2023; d = d.AddDate(0, 0, 1) {
		if d.Weekday() == time.Sunday && !first(d.Year(), d.Month(), d.Day(), old).Equal(first(d.Year(), d.Month(), d.Day(), cur)) {
			wantMoved++
		}
	}
	if wantMoved < 20 {
		t.Fatalf("oracle found %d moved Sundays; the trees should differ all summer", wantMoved)
	}
	stdout, _, code := runCLI("tzdiff", "--from", "testdata/tzdiff/old", "--to", "testdata/tzdiff/new",
		"CRON_TZ=America/Mexico_City 30 1 * * 0", "--year", "2023", "--years", "1", "--json")
	if code != exitFindings {
		t.Fatalf("exit %d, want %d", code, exitFindings)
	}
	var out struct {
		Specs []struct {
			Changes []struct {
				Change, From, To string
			} `json:"changes"`
		} `json:"specs"`
	}
	if err := json.Unmarshal([]byte(stdout), &out); err != nil {
		t.Fatal(err)
	}
	moved := 0
	for _, c := range out.Specs[0].Changes {
		if c.Change != "moved" {
			t.Errorf("unexpected %s change", c.Change)
		}
		moved++
	}
	if moved != wantMoved {
		t.Errorf("tzdiff moved %d fires, the oracle %d", moved, wantMoved)
	}
}

// The tz database Go ships against the system's: both load and compare,
// whatever the versions (the result depends on the host, so only its
// shape is checked); the system against itself changes nothing.
func TestTzdiffGoVersusSystem(t *testing.T) {
	if _, err := os.Stat("/usr/share/zoneinfo/America/Chicago"); err != nil {
		t.Skip("no system tz database at /usr/share/zoneinfo")
	}
	zip := filepath.Join(goroot(), "lib", "time", "zoneinfo.zip")
	if _, err := os.Stat(zip); err != nil {
		t.Skipf("no Go tz database at %s", zip)
	}
	for _, tc := range []struct {
		from, to string
		codes    []int
	}{
		{"go", "system", []int{exitOK, exitFindings}},
		{zip, "system", []int{exitOK, exitFindings}},
		{"system", "system", []int{exitOK}},
	} {
		stdout, stderr, code := runCLI("tzdiff", "--from", tc.from, "--to", tc.to, "CRON_TZ=America/Chicago 30 1 * * *", "--json")
		ok := false
		for _, c := range tc.codes {
			ok = ok || code == c
		}
		if !ok {
			t.Errorf("%s -> %s: exit %d, want one of %v\n%s", tc.from, tc.to, code, tc.codes, stderr)
			continue
		}
		var out struct {
			Specs []struct {
				FiresFrom int `json:"fires_from"`
			} `json:"specs"`
		}
		if err := json.Unmarshal([]byte(stdout), &out); err != nil || len(out.Specs) != 1 || out.Specs[0].FiresFrom < 365*3 {
			t.Errorf("%s -> %s: %v\n%s", tc.from, tc.to, err, stdout)
		}
	}
}

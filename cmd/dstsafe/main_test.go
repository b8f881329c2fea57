package main

import (
	"bytes"
	"encoding/json"
	"flag"
	"fmt"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/dstsafe/dstsafe/dstsafetest"
)

var update = flag.Bool("update", false, "rewrite the golden files in testdata/golden")

// TestMain pins the tz database to the TZif files dstsafetest embeds
// (tzdata 2025b), so the goldens do not change with the host. The time
// package reads ZONEINFO once, before its first zone load.
func TestMain(m *testing.M) {
	if os.Getenv("DSTSAFE_TEST_RUN_MAIN") == "1" {
		// The test binary standing in for the dstsafe binary, so that a
		// test can run it in a fresh process (ZONEINFO is read once).
		main()
	}
	os.Exit(dstsafetest.RunWithZoneinfo(m))
}

// fixedNow is the "now" of every test; goldens pass --from anyway.
func fixedNow() time.Time { return time.Date(2024, time.June, 1, 0, 0, 0, 0, time.UTC) }

func runCLI(args ...string) (stdout, stderr string, code int) {
	var o, e bytes.Buffer
	code = run(args, &o, &e, fixedNow)
	return o.String(), e.String(), code
}

var goldenCases = []struct {
	name string
	args []string
	code int
}{
	// The postmortem's job: 01:30 Chicago fires once on 2024-11-03, at CDT.
	{"next_chicago_fold", []string{"next", "CRON_TZ=America/Chicago 30 1 * * *", "--from", "2024-11-01T00:00:00Z", "--count", "4"}, 0},
	// 02:30 does not exist on 2024-03-10: shifted to 03:30 CDT.
	{"next_chicago_gap", []string{"next", "CRON_TZ=America/Chicago 30 2 * * *", "--from", "2024-03-08T00:00", "--count", "3"}, 0},
	{"next_chicago_gap_attransition", []string{"next", "CRON_TZ=America/Chicago 30 2 * * *", "--from", "2024-03-09T12:00:00Z", "--count", "2", "--gap", "at-transition"}, 0},
	// Periodic: both copies of London's repeated 01:xx fire.
	{"next_london_periodic", []string{"next", "--from", "2024-10-27T00:00", "CRON_TZ=Europe/London */30 * * * *", "--count", "6"}, 0},
	{"next_fold_last_json", []string{"next", "CRON_TZ=America/Chicago 30 1 * * *", "--from", "2024-11-02T12:00:00Z", "--count", "2", "--fold", "last", "--json"}, 0},
	// Apia skipped 2011-12-30 entirely.
	{"next_apia_skipped_day", []string{"next", "CRON_TZ=Pacific/Apia 0 12 * * *", "--from", "2011-12-28T00:00:00Z", "--count", "3"}, 0},
	{"next_bad_spec", []string{"next", "CRON_TZ=America/Chicago 61 1 * * *"}, 2},
	{"next_bad_zone", []string{"next", "CRON_TZ=America/Chicgo 30 1 * * *"}, 2},
	{"next_bad_from", []string{"next", "30 1 * * *", "--from", "yesterday"}, 2},
	{"next_bad_count", []string{"next", "30 1 * * *", "--count", "0"}, 2},
	{"next_bad_fold", []string{"next", "30 1 * * *", "--fold", "twice"}, 2},
	{"next_missing_spec", []string{"next"}, 2},
	{"next_help", []string{"next", "--help"}, 0},

	{"explain_chicago_fixed", []string{"explain", "CRON_TZ=America/Chicago 30 1 * * *", "--from", "2024-06-01T00:00:00Z"}, 0},
	{"explain_chicago_gap", []string{"explain", "CRON_TZ=America/Chicago 30 2 * * 1-5", "--from", "2024-01-01T00:00:00Z", "--months", "3"}, 0},
	{"explain_london_periodic", []string{"explain", "CRON_TZ=Europe/London */15 * * * *", "--from", "2024-01-01T00:00:00Z"}, 0},
	{"explain_utc", []string{"explain", "30 7 * * *", "--from", "2024-01-01T00:00:00Z"}, 0},
	{"explain_json", []string{"explain", "CRON_TZ=America/Havana 0 0 * * *", "--from", "2024-01-01T00:00:00Z", "--json"}, 0},

	{"transitions_chicago_2024", []string{"transitions", "America/Chicago", "--year", "2024"}, 0},
	// Lord Howe shifts by 30 minutes; Dublin has negative DST.
	{"transitions_lord_howe_2025", []string{"transitions", "Australia/Lord_Howe", "--year", "2025"}, 0},
	{"transitions_dublin_2024", []string{"transitions", "Europe/Dublin", "--year", "2024"}, 0},
	{"transitions_apia_2011", []string{"transitions", "Pacific/Apia", "--year", "2011"}, 0},
	{"transitions_kolkata_none", []string{"transitions", "Asia/Kolkata", "--year", "2024"}, 0},
	{"transitions_json", []string{"transitions", "America/Havana", "--year", "2024", "--json"}, 0},
	{"transitions_bad_zone", []string{"transitions", "Mars/Olympus_Mons"}, 2},
	{"transitions_misspelt_zone", []string{"transitions", "America/Chicgo"}, 2},
	{"transitions_bad_year", []string{"transitions", "UTC", "--year", "20x4"}, 2},

	{"resolve_fold", []string{"resolve", "America/Chicago", "2024-11-03T01:30"}, 0},
	{"resolve_gap_later", []string{"resolve", "America/Chicago", "2024-03-10T02:30", "--policy", "later"}, 0},
	{"resolve_unique", []string{"resolve", "America/Chicago", "2024-07-04 12:00"}, 0},
	// Reject in a fold: the Lookup is shown, no instant, exit 1.
	{"resolve_reject_fold", []string{"resolve", "America/Chicago", "2024-11-03T01:30", "--policy", "reject"}, 1},
	{"resolve_reject_json", []string{"resolve", "Europe/Dublin", "2024-03-31T01:30", "--policy", "reject", "--json"}, 1},
	{"resolve_bad_wall", []string{"resolve", "America/Chicago", "2024-02-30T01:30"}, 2},
	{"resolve_bad_policy", []string{"resolve", "America/Chicago", "2024-11-03T01:30", "--policy", "first"}, 2},
	{"resolve_extra_arg", []string{"resolve", "America/Chicago", "2024-11-03T01:30", "now"}, 2},

	{"check_deploy", []string{"check", "testdata/check/deploy", "--from", "2024-06-01T00:00:00Z"}, 1},
	{"check_deploy_json", []string{"check", "--json", "--from", "2024-06-01T00:00:00Z", "testdata/check/deploy/schedules.json", "testdata/check/deploy/zoned.crontab"}, 1},
	{"check_deploy_sarif", []string{"check", "testdata/check/deploy", "--from", "2024-06-01T00:00:00Z", "--format", "sarif"}, 1},
	// The example: a flow-style spec map, a flow-style CronJob.
	{"check_flow_yaml", []string{"check", "testdata/check/deploy/flow.yaml", "--from", "2024-06-01T00:00:00Z"}, 1},
	// One TZ behind an anchor used by two services: one finding, where it is written.
	{"check_anchors_json", []string{"check", "testdata/check/deploy/anchors.yaml", "--format", "json"}, 1},
	// A List of CronJobs, a spec shared by anchor and merged with <<.
	{"check_cronjob_list", []string{"check", "testdata/check/deploy/cronjob-list.yaml", "--from", "2024-06-01T00:00:00Z"}, 1},
	{"check_timer", []string{"check", "testdata/check/deploy/billing.timer", "--from", "2024-06-01T00:00:00Z"}, 1},
	{"check_dockerfile_syntaxes", []string{"check", "testdata/check/deploy/Dockerfile.worker"}, 1},
	// Notes inform: a CronJob without timeZone, a Helm template; exit 0.
	{"check_notes_only", []string{"check", "testdata/check/deploy/report-cronjob.yaml", "testdata/check/deploy/chart", "testdata/check/deploy/.github"}, 0},
	{"check_clean", []string{"check", "testdata/check/clean"}, 0},
	{"check_clean_sarif", []string{"check", "testdata/check/clean", "--format", "sarif"}, 0},
	{"check_bad_format", []string{"check", "testdata/check/clean", "--format", "xml"}, 2},
	{"check_format_conflict", []string{"check", "testdata/check/clean", "--format", "sarif", "--json"}, 2},
	{"check_missing_path", []string{"check", "testdata/check/nope"}, 2},

	// testdata/tzdiff: old/ keeps Mexico's DST and Almaty's +06 (tzdata
	// before 2022f and 2024a); new/ is tzdata 2025b. make.sh builds both.
	// Mexico 2023: the old rules' spring-forward day; 02:00 exists again.
	{"tzdiff_mexico_gap_day", []string{"tzdiff", "--from", "testdata/tzdiff/old", "--to", "testdata/tzdiff/new", "CRON_TZ=America/Mexico_City 0 * 2 4 *", "--year", "2023", "--years", "1"}, 1},
	// Mexico 2023: the old rules' fall-back night; the first copies vanish.
	{"tzdiff_mexico_fold_night", []string{"tzdiff", "--from", "testdata/tzdiff/old", "--to", "testdata/tzdiff/new", "CRON_TZ=America/Mexico_City */30 1 29 10 *", "--year", "2023", "--years", "1"}, 1},
	// Every summer Sunday of 2023 moves by an hour.
	{"tzdiff_mexico_weekly", []string{"tzdiff", "--from", "testdata/tzdiff/old", "--to", "testdata/tzdiff/new", "CRON_TZ=America/Mexico_City 30 1 * * 0", "--year", "2023", "--years", "1"}, 1},
	// Kazakhstan 2024: +06 -> +05 at midnight, 23:xx of Feb 29 repeats;
	// the fixed-time job fires at the first copy either way.
	{"tzdiff_almaty_json", []string{"tzdiff", "--from", "testdata/tzdiff/old", "--to", "testdata/tzdiff/new", "CRON_TZ=Asia/Almaty */30 23 29 2 *", "CRON_TZ=Asia/Almaty 30 23 29 2 *", "CRON_TZ=Asia/Almaty 0 9 1 * *", "--year", "2024", "--years", "1", "--json"}, 1},
	// Chicago did not change: exit 0.
	{"tzdiff_chicago_unchanged", []string{"tzdiff", "--from", "testdata/tzdiff/old", "--to", "testdata/tzdiff/new", "CRON_TZ=America/Chicago 30 1 * * *", "--year", "2023", "--years", "3"}, 0},
	{"tzdiff_missing_to", []string{"tzdiff", "--from", "testdata/tzdiff/old", "CRON_TZ=America/Chicago 30 1 * * *"}, 2},
	{"tzdiff_spec_in_utc", []string{"tzdiff", "--from", "testdata/tzdiff/old", "--to", "testdata/tzdiff/new", "30 1 * * *"}, 2},
	{"tzdiff_zone_not_in_tree", []string{"tzdiff", "--from", "testdata/tzdiff/old", "--to", "testdata/tzdiff/new", "CRON_TZ=Europe/London 30 1 * * *"}, 2},
	{"tzdiff_bad_years", []string{"tzdiff", "--from", "testdata/tzdiff/old", "--to", "testdata/tzdiff/new", "CRON_TZ=America/Chicago 30 1 * * *", "--years", "0"}, 2},
	{"tzdiff_bad_source", []string{"tzdiff", "--from", "testdata/tzdiff/nope", "--to", "system", "CRON_TZ=America/Chicago 30 1 * * *"}, 2},

	{"help", []string{"--help"}, 0},
	{"no_args", nil, 2},
	{"unknown_command", []string{"nxt"}, 2},
	{"unknown_flag", []string{"transitions", "UTC", "--yaer", "2024"}, 2},
	{"bad_flag_value", []string{"next", "30 1 * * *", "--count", "ten"}, 2},
}

func TestGolden(t *testing.T) {
	for _, tc := range goldenCases {
		t.Run(tc.name, func(t *testing.T) {
			stdout, stderr, code := runCLI(tc.args...)
			checkGolden(t, tc.name, tc.args, tc.code, stdout, stderr, code)
		})
	}
}

// checkGolden compares a run of the CLI with testdata/golden/NAME.txt, or
// rewrites the file under -update.
func checkGolden(t *testing.T, name string, args []string, wantCode int, stdout, stderr string, code int) {
	t.Helper()
	if code != wantCode {
		t.Errorf("exit code %d, want %d\nstdout:\n%s\nstderr:\n%s", code, wantCode, stdout, stderr)
	}
	got := fmt.Sprintf("$ dstsafe %s\n-- exit %d --\n-- stdout --\n%s-- stderr --\n%s", quoteArgs(args), code, stdout, stderr)
	path := filepath.Join("testdata", "golden", name+".txt")
	if *update {
		if err := os.WriteFile(path, []byte(got), 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (run go test -update to create it)", err)
	}
	if got != string(want) {
		t.Errorf("output differs from %s (go test -update rewrites it)\ngot:\n%s\nwant:\n%s", path, got, want)
	}
}

func quoteArgs(args []string) string {
	var q []string
	for _, a := range args {
		if strings.ContainsAny(a, " *'\"") {
			a = "'" + a + "'"
		}
		q = append(q, a)
	}
	return strings.Join(q, " ")
}

// Every command's --json output is valid JSON, including on findings.
func TestJSONIsValid(t *testing.T) {
	for _, tc := range goldenCases {
		isJSON := false
		for i, a := range tc.args {
			isJSON = isJSON || a == "--json" || a == "--format" && i+1 < len(tc.args) && (tc.args[i+1] == "json" || tc.args[i+1] == "sarif")
		}
		if !isJSON || tc.code == exitUsage {
			continue
		}
		t.Run(tc.name, func(t *testing.T) {
			stdout, _, _ := runCLI(tc.args...)
			var v any
			if err := json.Unmarshal([]byte(stdout), &v); err != nil {
				t.Fatalf("invalid JSON: %v\n%s", err, stdout)
			}
		})
	}
}

// The postmortem in one line: 01:30 Chicago on 2024-11-03 fires once, at
// the first reading (06:30 UTC), never at 07:30 UTC.
func TestNextFiresOnceInFold(t *testing.T) {
	stdout, _, code := runCLI("next", "CRON_TZ=America/Chicago 30 1 * * *", "--from", "2024-11-03T00:00", "--count", "2", "--json")
	if code != 0 {
		t.Fatalf("exit %d", code)
	}
	var out struct {
		Occurrences []struct {
			At   string `json:"at"`
			Kind string `json:"kind"`
		} `json:"occurrences"`
	}
	if err := json.Unmarshal([]byte(stdout), &out); err != nil {
		t.Fatal(err)
	}
	if len(out.Occurrences) != 2 || out.Occurrences[0].At != "2024-11-03T06:30:00Z" || out.Occurrences[0].Kind != "fold" ||
		out.Occurrences[1].At != "2024-11-04T07:30:00Z" {
		t.Fatalf("occurrences %+v, want 2024-11-03T06:30:00Z (fold) then 2024-11-04T07:30:00Z", out.Occurrences)
	}
}

// Every golden case's file exists and no stale golden is left behind.
func TestNoStaleGoldens(t *testing.T) {
	if *update {
		t.Skip("rewriting goldens")
	}
	names := map[string]bool{}
	for _, tc := range goldenCases {
		names[tc.name+".txt"] = true
	}
	for _, tc := range ledgerCases {
		names[tc.name+".txt"] = true
	}
	entries, err := os.ReadDir(filepath.Join("testdata", "golden"))
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range entries {
		if !names[e.Name()] {
			t.Errorf("testdata/golden/%s has no test case; delete it", e.Name())
		}
	}
}

// --zoneinfo DIR wins over the system's tz database: with a DIR whose
// America/Chicago is really London's rules, London's transitions come out.
// It runs the test binary as dstsafe in a new process, because the time
// package reads ZONEINFO once per process.
func TestZoneinfoFlag(t *testing.T) {
	dir := t.TempDir()
	london, err := fs.ReadFile(dstsafetest.ZoneinfoFS(), "Europe/London")
	if err != nil {
		t.Fatal(err)
	}
	if err := os.MkdirAll(filepath.Join(dir, "America"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "America", "Chicago"), london, 0o644); err != nil {
		t.Fatal(err)
	}
	var env []string
	for _, kv := range os.Environ() {
		if !strings.HasPrefix(kv, "ZONEINFO=") {
			env = append(env, kv)
		}
	}
	cmd := exec.Command(os.Args[0], "transitions", "America/Chicago", "--year", "2024", "--json", "--zoneinfo", dir)
	cmd.Env = append(env, "DSTSAFE_TEST_RUN_MAIN=1")
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("%v\n%s", err, out)
	}
	var got struct {
		Transitions []struct {
			At string `json:"at"`
		} `json:"transitions"`
	}
	if err := json.Unmarshal(out, &got); err != nil {
		t.Fatalf("%v\n%s", err, out)
	}
	// London 2024: clocks forward 2024-03-31 01:00 UTC, back 2024-10-27 01:00 UTC.
	if len(got.Transitions) != 2 || got.Transitions[0].At != "2024-03-31T01:00:00Z" || got.Transitions[1].At != "2024-10-27T01:00:00Z" {
		t.Fatalf("transitions %+v, want London's (2024-03-31T01:00:00Z, 2024-10-27T01:00:00Z)", got.Transitions)
	}
}

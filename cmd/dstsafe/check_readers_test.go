package main

import (
	"encoding/json"
	"strings"
	"testing"
	"time"

	"go.yaml.in/yaml/v3"
)

// A file dstsafe check cannot read is said so, in the text output's
// lines and summary, and never counted as checked: issue 30's "1 file(s)
// checked, 0 finding(s)" for a file it did not read, and its directory
// walk that passed at-risk files silently.
func TestCheckNotUnderstoodText(t *testing.T) {
	for _, tc := range []struct {
		name  string
		args  []string
		lines []string // each must be a line of stdout
	}{
		{"named TOML file", []string{"testdata/check/corpus/unread/scheduler.toml"}, []string{
			"testdata/check/corpus/unread/scheduler.toml:3: not understood: TOML (no reader for this kind of file; it names a schedule and a zone)",
			"0 file(s) checked, 1 not understood, 0 finding(s)",
		}},
		{"named file with nothing scheduled", []string{"testdata/check/corpus/unread/notes.toml"}, []string{
			"testdata/check/corpus/unread/notes.toml:1: not understood: TOML (no reader for this kind of file)",
			"0 file(s) checked, 1 not understood, 0 finding(s)",
		}},
		// The walk reads the three at-risk files and leaves notes.toml,
		// which names no schedule, alone.
		{"directory walk", []string{"testdata/check/corpus/unread"}, []string{
			"testdata/check/corpus/unread/chart/templates/cronjob.yaml:4: not understood: Helm template (its values are filled in when the chart is rendered; check the rendered manifests: helm template CHART > rendered.yaml && dstsafe check rendered.yaml)",
			"testdata/check/corpus/unread/scheduler.toml:3: not understood: TOML (no reader for this kind of file; it names a schedule and a zone)",
			"testdata/check/corpus/unread/worker.py:8: not understood: Python (neither an Airflow DAG nor a Celery beat schedule; it names a schedule and a zone)",
			"0 file(s) checked, 3 not understood, 0 finding(s)",
		}},
		// A file read in part: the placeholder is not understood, so the
		// file is not counted as checked; its neighbours are.
		{"partly read", []string{"testdata/check/corpus/spring/PlaceholderJobs.java", "testdata/check/corpus/spring/QuietJobs.java"}, []string{
			`testdata/check/corpus/spring/PlaceholderJobs.java:7: not understood: Spring @Scheduled (cron "${billing.cron}", zone "${billing.zone}": property placeholders are resolved by Spring at run time)`,
			"1 file(s) checked, 1 not understood, 0 finding(s)",
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			stdout, stderr, code := runCLI(append([]string{"check", "--from", "2026-01-01T00:00:00Z"}, tc.args...)...)
			if code != exitOK {
				t.Fatalf("exit %d, want %d (a file not understood is not a finding): %s", code, exitOK, stderr)
			}
			got := strings.Split(strings.TrimSuffix(stdout, "\n"), "\n")
			if strings.Join(got, "\n") != strings.Join(tc.lines, "\n") {
				t.Errorf("stdout:\n%s\nwant:\n%s", stdout, strings.Join(tc.lines, "\n"))
			}
			if strings.Contains(stdout, "file(s) checked, 0 finding(s)") && !strings.Contains(stdout, "not understood") {
				t.Errorf("reads as clean: %s", stdout)
			}
		})
	}
}

// JSON counts understood and not understood files apart.
func TestCheckNotUnderstoodJSON(t *testing.T) {
	stdout, _, code := runCLI("check", "--json", "testdata/check/corpus/unread", "testdata/check/corpus/systemd/quiet.timer")
	if code != exitOK {
		t.Fatalf("exit %d", code)
	}
	var out struct {
		FilesChecked       int       `json:"files_checked"`
		FilesNotUnderstood int       `json:"files_not_understood"`
		Findings           []finding `json:"findings"`
	}
	if err := json.Unmarshal([]byte(stdout), &out); err != nil {
		t.Fatal(err)
	}
	if out.FilesChecked != 1 || out.FilesNotUnderstood != 3 {
		t.Errorf("files_checked %d, files_not_understood %d; want 1 and 3", out.FilesChecked, out.FilesNotUnderstood)
	}
	for _, f := range out.Findings {
		if f.Check != checkNotUnderstood || f.Level != levelNote {
			t.Errorf("finding %+v, want only not-understood notes", f)
		}
	}
}

// In SARIF a file not understood is a result of level note (what GitHub
// code scanning lists) under the not-understood rule, and a tool execution
// notification; the log validates against the SARIF 2.1.0 schema.
func TestCheckNotUnderstoodSARIF(t *testing.T) {
	stdout, _, code := runCLI("check", "--format", "sarif", "testdata/check/corpus/unread")
	if code != exitOK {
		t.Fatalf("exit %d", code)
	}
	if err := validate(t, sarifSchema(t), []byte(stdout)); err != nil {
		t.Fatalf("SARIF does not validate: %v", err)
	}
	var log sarifLog
	if err := json.Unmarshal([]byte(stdout), &log); err != nil {
		t.Fatal(err)
	}
	run := log.Runs[0]
	want := map[string]bool{
		"testdata/check/corpus/unread/chart/templates/cronjob.yaml": true,
		"testdata/check/corpus/unread/scheduler.toml":               true,
		"testdata/check/corpus/unread/worker.py":                    true,
	}
	if len(run.Results) != len(want) {
		t.Fatalf("%d results, want %d", len(run.Results), len(want))
	}
	for _, r := range run.Results {
		uri := r.Locations[0].PhysicalLocation.ArtifactLocation.URI
		if !want[uri] || r.Level != "note" || r.RuleID != "not-understood" || run.Tool.Driver.Rules[r.RuleIndex].ID != "not-understood" ||
			!strings.HasPrefix(r.Message.Text, "not understood: ") {
			t.Errorf("result %s %s %s (rule %d): %s", uri, r.RuleID, r.Level, r.RuleIndex, r.Message.Text)
		}
	}
	if len(run.Invocations) != 1 || len(run.Invocations[0].ToolExecutionNotifications) != len(want) {
		t.Fatalf("invocations %+v, want one with %d notifications", run.Invocations, len(want))
	}
	for _, n := range run.Invocations[0].ToolExecutionNotifications {
		if uri := n.Locations[0].PhysicalLocation.ArtifactLocation.URI; !want[uri] || n.Level != "warning" {
			t.Errorf("notification %s %s", uri, n.Level)
		}
	}
}

// The repository's Kubernetes example wraps its biller in dstsafe exec
// with the CronJob's own schedule and zone: clean, and both files read.
func TestCheckKubernetesExampleClean(t *testing.T) {
	stdout, stderr, code := runCLI("check", "--json", "../../examples/kubernetes")
	if code != exitOK {
		t.Fatalf("exit %d: %s%s", code, stdout, stderr)
	}
	var out struct {
		FilesChecked       int       `json:"files_checked"`
		FilesNotUnderstood int       `json:"files_not_understood"`
		Findings           []finding `json:"findings"`
	}
	if err := json.Unmarshal([]byte(stdout), &out); err != nil {
		t.Fatal(err)
	}
	if out.FilesNotUnderstood != 0 || len(out.Findings) != 0 || out.FilesChecked == 0 {
		t.Errorf("%s", stdout)
	}
}

// execOf reads dstsafe exec's --schedule in every form exec accepts.
func TestCheckExecForms(t *testing.T) {
	const chicago = "CRON_TZ=America/Chicago 30 1 * * *"
	for _, tc := range []struct {
		name      string
		container string
		wrapped   bool
		spec      string
	}{
		{"two words", `{command: [dstsafe, exec, --schedule, "` + chicago + `", --, /app/bill]}`, true, chicago},
		{"equals", `{command: [/usr/local/bin/dstsafe, exec, "--schedule=` + chicago + `", --, /app/bill]}`, true, chicago},
		{"one dash, equals", `{command: [dstsafe], args: [exec, "-schedule=` + chicago + `", --, /app/bill]}`, true, chicago},
		{"one dash, two words", `{args: [dstsafe, exec, -schedule, "` + chicago + `"]}`, true, chicago},
		{"sh -c", `{command: [sh, -c, "exec dstsafe exec --job b --schedule '` + chicago + `' -- /app/bill"]}`, true, chicago},
		{"sh -c, continued lines", "{command: [/bin/sh, -c, \"dstsafe exec \\\\\\n  --schedule=\\\"" + chicago + "\\\" \\\\\\n  -- /app/bill\"]}", true, chicago},
		{"$(VAR) from env", `{command: [dstsafe, exec, "--schedule=$(S)", --, x], env: [{name: S, value: "` + chicago + `"}]}`, true, chicago},
		{"$VAR in a script", `{command: [sh, -c, "dstsafe exec --schedule \"$S\" -- x"], env: [{name: S, value: "` + chicago + `"}]}`, true, chicago},
		// After "--" the words are the command's, not exec's.
		{"after --", `{command: [dstsafe, exec, --job, b, --, /app/bill, --schedule, "CRON_TZ=UTC 0 0 * * *"]}`, true, ""},
		{"not exec", `{command: [/app/bill, --schedule, "` + chicago + `"]}`, false, ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var root yaml.Node
			doc := "spec: {jobTemplate: {spec: {template: {spec: {containers: [{name: side, image: x}, " + tc.container + "]}}}}}"
			if err := yaml.Unmarshal([]byte(doc), &root); err != nil {
				t.Fatal(err)
			}
			got := execOf(&root)
			if got.wrapped != tc.wrapped || got.spec != tc.spec || got.unresolved != "" {
				t.Errorf("execOf = %+v, want wrapped %v, spec %q", got, tc.wrapped, tc.spec)
			}
		})
	}
}

// Quartz counts weekdays from Sunday = 1; cron from Sunday = 0.
func TestQuartzCron(t *testing.T) {
	for _, tc := range []struct{ in, want, err string }{
		{"0 0 2 ? * 1", "0 0 2 ? * 0", ""},             // Sundays
		{"0 0 2 ? * 2-6", "0 0 2 ? * 1-5", ""},         // Monday to Friday
		{"0 0 2 ? * 6#3", "0 0 2 ? * 5#3", ""},         // third Friday
		{"0 0 2 ? * 6L", "0 0 2 ? * 5L", ""},           // last Friday
		{"0 0 2 ? * 1,7", "0 0 2 ? * 0,6", ""},         // weekends
		{"0 0 2 ? * MON-FRI", "0 0 2 ? * MON-FRI", ""}, // names are names
		{"0 15 1 ? * SUN *", "0 15 1 ? * SUN", ""},     // a year of *
		{"0 0 2 ? * * 2027", "", "a year field other than * is not checked"},
		{"0 0 2 ? * 8", "", `day-of-week "8" is not 1-7 or a name`},
	} {
		got, err := quartzCron(tc.in)
		if got != tc.want || err != tc.err {
			t.Errorf("quartzCron(%q) = %q, %q; want %q, %q", tc.in, got, err, tc.want, tc.err)
		}
	}
}

// Celery's crontab() leaves out fields as "*", by keyword or position.
func TestCeleryCron(t *testing.T) {
	for _, tc := range []struct{ in, want string }{
		{"hour=1, minute=30", "30 1 * * *"},
		{"0, 2", "0 2 * * *"},
		{"minute=0", "0 * * * *"}, // hourly
		{`minute=0, hour=5, day_of_month=1, month_of_year="1,4,7,10"`, "0 5 1 1,4,7,10 *"},
		{`minute=30, hour=2, day_of_week="sun"`, "30 2 * * sun"},
		{"", "* * * * *"},
	} {
		if got, err := celeryCron(tc.in); got != tc.want || err != "" {
			t.Errorf("celeryCron(%q) = %q, %q; want %q", tc.in, got, err, tc.want)
		}
	}
	if _, err := celeryCron("hour=HOUR"); err == "" {
		t.Error("celeryCron read a variable as a value")
	}
}

// Jenkins' H is some value of its field: a minute of a known hour is
// checked as every minute of it; an H hour is not a known time.
func TestJenkinsHash(t *testing.T) {
	for _, tc := range []struct {
		in, want string
		ok       bool
	}{
		{"H 2 * * *", "0-59 2 * * *", true},
		{"H(0-15) 2 * * *", "0-15 2 * * *", true},
		{"H/15 * * * *", "*/15 * * * *", true},
		{"30 1 * * *", "30 1 * * *", true},
		{"H H * * *", "", false},
		{"@daily", "", false},
	} {
		if got, ok := jenkinsHash(tc.in); got != tc.want || ok != tc.ok {
			t.Errorf("jenkinsHash(%q) = %q, %v; want %q, %v", tc.in, got, ok, tc.want, tc.ok)
		}
	}
}

// pg_cron's schedule argument, in each of cron.schedule's forms.
func TestPgCronSchedule(t *testing.T) {
	for _, tc := range []struct{ call, want string }{
		{`'0 2 * * *', 'VACUUM')`, "0 2 * * *"},
		{`'nightly', '30 1 * * *', $$CALL f('a', (1))$$)`, "30 1 * * *"},
		{`'x', '15 2 * * *', $body$SELECT 1, 2$body$, 'db')`, "15 2 * * *"},
		{`job_name => 'x', command => 'SELECT 1', schedule => '0 3 * * *')`, "0 3 * * *"},
		{`'it''s', '0 4 * * *', 'SELECT 1')`, "0 4 * * *"},
	} {
		got, off, ok := pgCronSchedule(sqlArgs(tc.call))
		if !ok || got != tc.want || !strings.HasPrefix(tc.call[off:], "'"+tc.want) {
			t.Errorf("pgCronSchedule(%s) = %q at %d, %v; want %q", tc.call, got, off, ok, tc.want)
		}
	}
}

// Every IANA zone the Windows table names exists.
func TestWindowsZonesLoad(t *testing.T) {
	for win, iana := range windowsZones {
		if _, err := time.LoadLocation(iana); err != nil {
			t.Errorf("%s -> %s: %v", win, iana, err)
		}
	}
}

func TestTrailingZone(t *testing.T) {
	for _, tc := range []struct {
		in, rest, zone string
		ok             bool
	}{
		{"30 1 * * * America/Chicago", "30 1 * * *", "America/Chicago", true},
		{"0 30 1 * * * Europe/London", "0 30 1 * * *", "Europe/London", true},
		{"30 1 * * * UTC", "30 1 * * *", "UTC", true},
		{"0 30 1 * * *", "", "", false},
		{"30 1 * * MON", "", "", false},
	} {
		rest, zone, ok := trailingZone(tc.in)
		if rest != tc.rest || zone != tc.zone || ok != tc.ok {
			t.Errorf("trailingZone(%q) = %q, %q, %v", tc.in, rest, zone, ok)
		}
	}
}

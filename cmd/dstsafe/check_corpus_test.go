package main

import (
	"encoding/json"
	"fmt"
	"path/filepath"
	"regexp"
	"sort"
	"strings"
	"testing"
)

// checkWant is one finding a corpus file must produce: its line, level
// and a pattern of its message.
type checkWant struct {
	line  int
	level string
	re    string
}

// checkCorpus is dstsafe check's corpus: every file under
// testdata/check/corpus and testdata/check/clean, with the findings each
// must produce (none for a negative). The expectations are written from
// the zones' rules (Chicago and New York change at 02:00 on the second
// Sunday of March and the first of November, Berlin at 02:00 and London
// at 01:00 on the last Sundays of March and October, Lord Howe by 30
// minutes at 02:00 in April and October), not from the checker's output.
var checkCorpus = map[string][]checkWant{
	// EventBridge Scheduler: 02:30 Chicago is skipped on 2026-03-08.
	"corpus/eventbridge/billing-schedule.yaml": {{8, levelError, `EventBridge Scheduler cron\(30 2 \* \* \? \*\) in America/Chicago .*02:30 does not exist on 2026-03-08.*AWS documents that EventBridge Scheduler skips an invocation`}},
	// Sundays (AWS day 1) 01:30 New York: repeated on 2026-11-01, run once by AWS.
	"corpus/eventbridge/create-schedule.json": {{3, levelNote, `cron\(30 1 \? \* 1 \*\) in America/New_York .*01:30 occurs twice on 2026-11-01.*runs it once .* an hour off`}},
	// Terraform: 02:15 Berlin is skipped on 2026-03-29; the rule, the rate and noon are quiet.
	"corpus/eventbridge/main.tf": {{10, levelError, `cron\(15 2 \* \* \? \*\) in Europe/Berlin .*02:15 does not exist on 2026-03-29`}},
	// SAM ScheduleV2 on Sundays 02:00 Los Angeles: skipped on 2026-03-08;
	// the legacy Schedule event is a rule, in UTC.
	"corpus/eventbridge/sam.yaml": {{13, levelError, `cron\(0 2 \? \* 1 \*\) in America/Los_Angeles .*02:00 does not exist on 2026-03-08`}},
	// Lord Howe repeats 01:30-02:00 on 2026-04-05: 30 minutes, not an hour.
	"corpus/eventbridge/lord-howe.yaml": {{6, levelNote, `Australia/Lord_Howe .*01:45 occurs twice on 2026-04-05.* 30 minutes off`}},
	// A rule, UTC, 09:00 Chicago, Wednesdays, every 15 minutes.
	"corpus/eventbridge/quiet.yaml": nil,
	// Airflow, pendulum start_date zone: 01:30 Chicago repeats on 2026-11-01.
	"corpus/airflow/billing_dag.py": {{8, levelError, `Airflow schedule "30 1 \* \* \*" in America/Chicago .*01:30 occurs twice on 2026-11-01.*an hour off`}},
	// default_args start_date with tzinfo=local_tz: 01:00 London is skipped on 2026-03-29.
	"corpus/airflow/london_dag.py": {{16, levelError, `"0 1 \* \* \*" in Europe/London .*01:00 does not exist on 2026-03-29`}},
	// Timetables name their zones: New York 02:30 and Berlin 02:00 are skipped.
	"corpus/airflow/timetable_dag.py": {
		{8, levelError, `"30 2 \* \* \*" in America/New_York .*02:30 does not exist on 2026-03-08`},
		{21, levelError, `"0 2 \* \* \*" in Europe/Berlin .*02:00 does not exist on 2026-03-29`},
	},
	// UTC, naive (Airflow's default UTC), 09:00 Chicago, hourly, a UTC timetable.
	"corpus/airflow/quiet_dags.py": nil,
	// Not an Airflow file.
	"corpus/airflow/not_airflow.py": nil,
	// A CronJob on Lord Howe: 30 minutes, and the dstsafe exec command with the container's.
	"corpus/k8s/lord-howe-cronjob.yaml": {{7, levelError, `"45 1 \* \* \*" in Australia/Lord_Howe .*01:45 occurs twice on 2026-04-05\), so it runs twice, 30 minutes off.*dstsafe exec --ledger URL --job island-report --schedule 'CRON_TZ=Australia/Lord_Howe 45 1 \* \* \*' -- /app/report --since 24h$`}},
	// Payroll at 01:30 New York: repeated on 2026-11-01; the UTC and weekday jobs are quiet.
	"corpus/k8s/payroll-cronjob.yaml": {{7, levelError, `"30 1 \* \* \*" in America/New_York .*01:30 occurs twice on 2026-11-01.*dstsafe exec --ledger URL --job payroll --schedule 'CRON_TZ=America/New_York 30 1 \* \* \*' -- /bin/payroll run --period daily$`}},
	// Serverless Framework, method: scheduler: 02:30 Chicago skipped; the
	// eventBus schedule (a rule) is in UTC.
	"corpus/more/serverless.yml": {{12, levelError, `cron\(30 2 \* \* \? \*\) in America/Chicago .*02:30 does not exist on 2026-03-08`}},
	// Pulumi YAML, camelCase: 01:00 London skipped on 2026-03-29.
	"corpus/more/Pulumi.yaml": {{8, levelError, `cron\(0 1 \* \* \? \*\) in Europe/London .*01:00 does not exist on 2026-03-29`}},
	// Terraform JSON: 01:30 Denver repeats on 2026-11-01 (run once by AWS).
	"corpus/more/schedule.tf.json": {{6, levelNote, `cron\(30 1 \* \* \? \*\) in America/Denver .*01:30 occurs twice on 2026-11-01`}},
	// Google Cloud Scheduler in Terraform: 02:30 New York skipped; the UTC twin is quiet.
	"corpus/more/gcp.tf": {{4, levelError, `"30 2 \* \* \*" in America/New_York .*02:30 does not exist on 2026-03-08`}},
	// Nomad periodic: 02:00 Berlin skipped on 2026-03-29.
	"corpus/more/cleanup.nomad": {{5, levelError, `"0 2 \* \* \*" in Europe/Berlin .*02:00 does not exist on 2026-03-29`}},
	// aws and gcloud in a script: 01:30 Chicago (a note: AWS runs it once),
	// 02:15 Los Angeles skipped; the UTC schedule is quiet.
	"corpus/more/create-schedules.sh": {
		{4, levelNote, `cron\(30 1 \* \* \? \*\) in America/Chicago .*01:30 occurs twice on 2026-11-01`},
		{11, levelError, `"15 2 \* \* \*" in America/Los_Angeles .*02:15 does not exist on 2026-03-08`},
	},
	// Argo CronWorkflow schedules: 01:30 Chicago repeats; 12:00 is quiet.
	"corpus/more/argo-cronworkflow.yaml": {{8, levelError, `"30 1 \* \* \*" in America/Chicago .*01:30 occurs twice on 2026-11-01`}},
	// Airflow, tzinfo=ZoneInfo(...) over several lines: 02:45 Chicago skipped.
	"corpus/more/zoneinfo_dag.py": {{9, levelError, `Airflow schedule "45 2 \* \* \*" in America/Chicago .*02:45 does not exist on 2026-03-08`}},
	// A rule and a UTC Nomad job.
	"corpus/more/quiet.tf": nil,
	// The existing clean deployment: nothing.
	"clean/crontab": nil, "clean/.github/workflows/nightly.yml": nil, "clean/cronjob.yaml": nil,
	"clean/compose.yaml": nil, "clean/Dockerfile": nil, "clean/billing.timer": nil,
}

// TestCheckCorpus runs dstsafe check over the corpus and counts, over the
// findings and notes, true positives (a finding that matches a want of
// its file and line), false positives and false negatives; and per file
// whether a positive was found exactly and a negative left alone. It
// prints precision and recall per class (directory) and requires
// precision 1.00 and recall at least 0.95.
//
//	go test -run TestCheckCorpus -v ./dstsafe
func TestCheckCorpus(t *testing.T) {
	stdout, stderr, code := runCLI("check", "--json", "--from", "2026-01-01T00:00:00Z", "testdata/check/corpus", "testdata/check/clean")
	if code != exitOK && code != exitFindings {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	var out struct {
		FilesChecked int       `json:"files_checked"`
		Findings     []finding `json:"findings"`
	}
	if err := json.Unmarshal([]byte(stdout), &out); err != nil {
		t.Fatal(err)
	}
	if out.FilesChecked != len(checkCorpus) {
		t.Errorf("%d files checked, the corpus lists %d: a file is missing from one or the other", out.FilesChecked, len(checkCorpus))
	}
	type counts struct{ tp, fp, fn int }
	per := map[string]*counts{}
	class := func(file string) string {
		dir := filepath.ToSlash(filepath.Dir(file))
		if strings.HasPrefix(dir, "clean") {
			return "clean"
		}
		return strings.TrimPrefix(dir, "corpus/")
	}
	get := func(c string) *counts {
		if per[c] == nil {
			per[c] = &counts{}
		}
		return per[c]
	}
	matched := map[string]map[int]bool{}
	hits := map[string]int{}
	for _, f := range out.Findings {
		rel, err := filepath.Rel(filepath.Join("testdata", "check"), f.File)
		if err != nil {
			t.Fatal(err)
		}
		rel = filepath.ToSlash(rel)
		wants, listed := checkCorpus[rel]
		if !listed {
			t.Errorf("finding in a file the corpus does not list: %s:%d", rel, f.Line)
		}
		hits[rel]++
		ok := false
		for i, w := range wants {
			if !matched[rel][i] && w.line == f.Line && w.level == f.Level && regexp.MustCompile(w.re).MatchString(f.Message) {
				if matched[rel] == nil {
					matched[rel] = map[int]bool{}
				}
				matched[rel][i], ok = true, true
				break
			}
		}
		if ok {
			get(class(rel)).tp++
			continue
		}
		get(class(rel)).fp++
		t.Errorf("false positive %s:%d (%s): %s", rel, f.Line, f.Level, f.Message)
	}
	var pos, posFound, neg, negClean int
	for file, wants := range checkCorpus {
		get(class(file))
		for i, w := range wants {
			if !matched[file][i] {
				get(class(file)).fn++
				t.Errorf("false negative %s:%d: no %s matches %s", file, w.line, w.level, w.re)
			}
		}
		if len(wants) > 0 {
			pos++
			if len(matched[file]) == len(wants) && hits[file] == len(wants) {
				posFound++
			}
		} else {
			neg++
			if hits[file] == 0 {
				negClean++
			}
		}
	}
	var b strings.Builder
	fmt.Fprintf(&b, "check corpus: %-12s %4s %4s %4s %10s %8s\n", "class", "TP", "FP", "FN", "precision", "recall")
	var classes []string
	for c := range per {
		classes = append(classes, c)
	}
	sort.Strings(classes)
	var total counts
	for _, c := range classes {
		n := per[c]
		total.tp, total.fp, total.fn = total.tp+n.tp, total.fp+n.fp, total.fn+n.fn
		fmt.Fprintf(&b, "check corpus: %-12s %4d %4d %4d %10.2f %8.2f\n", c, n.tp, n.fp, n.fn, ratio(n.tp, n.tp+n.fp), ratio(n.tp, n.tp+n.fn))
	}
	precision, recall := ratio(total.tp, total.tp+total.fp), ratio(total.tp, total.tp+total.fn)
	fmt.Fprintf(&b, "check corpus: %-12s %4d %4d %4d %10.2f %8.2f\n", "all", total.tp, total.fp, total.fn, precision, recall)
	fmt.Fprintf(&b, "check corpus: files: %d positive (%d found exactly), %d negative (%d clean)\n", pos, posFound, neg, negClean)
	t.Log("\n" + b.String())
	if precision < 1 || recall < 0.95 {
		t.Errorf("precision %.2f (want 1.00) and recall %.2f (want at least 0.95)", precision, recall)
	}
}

func ratio(n, d int) float64 {
	if d == 0 {
		return 1
	}
	return float64(n) / float64(d)
}

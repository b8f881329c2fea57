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
	// Not an Airflow file, but a schedule and a zone in a library this
	// check does not read: not understood, never "checked".
	"corpus/airflow/not_airflow.py": {{5, levelNote, `^not understood: Python \(neither an Airflow DAG nor a Celery beat schedule`}},
	// A CronJob on Lord Howe: 30 minutes, and the dstsafe exec command with the container's.
	"corpus/k8s/lord-howe-cronjob.yaml": {{7, levelError, `"45 1 \* \* \*" in Australia/Lord_Howe .*01:45 occurs twice on 2026-04-05; 01:30-02:00 repeated\), so that day it runs twice, 30 minutes apart, or once.*dstsafe exec --ledger URL --job island-report --schedule 'CRON_TZ=Australia/Lord_Howe 45 1 \* \* \*' -- /app/report --since 24h$`}},
	// Payroll at 01:30 New York: repeated on 2026-11-01; the UTC and weekday jobs are quiet.
	"corpus/k8s/payroll-cronjob.yaml": {{7, levelError, `"30 1 \* \* \*" in America/New_York .*01:30 occurs twice on 2026-11-01.*dstsafe exec --ledger URL --job payroll --schedule 'CRON_TZ=America/New_York 30 1 \* \* \*' -- /bin/payroll run --period daily$`}},
	// Wrapped in dstsafe exec: the fold is harmless (quiet); an exec
	// --schedule in another zone than the CronJob's is an error, in the
	// flag-word form and inside a shell -c string.
	"corpus/k8s/wrapped-cronjob.yaml": {{28, levelError, `dstsafe exec --schedule "CRON_TZ=UTC 30 1 \* \* \*", but the CronJob fires "30 1 \* \* \*" in America/Chicago`}, {45, levelError, `dstsafe exec --schedule "CRON_TZ=Europe/London 30 1 \* \* \*", but the CronJob fires "30 1 \* \* \*" in America/Chicago`}},
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
	// A script without .sh, known by its #! line: 02:00 Chicago is skipped.
	"corpus/more/schedule-jobs": {{4, levelError, `"0 2 \* \* \*" in America/Chicago .*02:00 does not exist on 2026-03-08`}},
	// A rule and a UTC Nomad job.
	"corpus/more/quiet.tf": nil,
	// Held-out shapes, round three (issues 29 and 30), one directory per
	// format, written the way teams write them. Transitions of 2026:
	// Chicago and New York skip 02:00-03:00 on 2026-03-08 and repeat
	// 01:00-02:00 on 2026-11-01 (both Sundays); Berlin skips 02:00-03:00
	// on 2026-03-29 and repeats 02:00-03:00 on 2026-10-25, London skips
	// and repeats 01:00-02:00 on those days; Lord Howe repeats 01:30-02:00
	// on 2026-04-05 and skips 02:00-02:30 on 2026-10-04.
	//
	// systemd: OnCalendar= with a zone. Weekdays at 02:15 Berlin never
	// meet Berlin's Sunday transitions; 03:30 London, UTC and every six
	// hours from midnight Chicago are quiet.
	"corpus/systemd/billing.timer":        {{5, levelError, `"\*-\*-\* 01:30:00" in America/Chicago .*01:30 occurs twice on 2026-11-01.*runs twice`}},
	"corpus/systemd/island-sync.timer":    {{6, levelError, `"\*-\*-\* 02:10:00" in Australia/Lord_Howe .*02:10 does not exist on 2026-10-04.*02:00-02:30 skipped`}},
	"corpus/systemd/weekday-report.timer": nil,
	"corpus/systemd/quiet.timer":          nil,
	// Argo CronWorkflow: spec.timezone with schedules; 06:00 Chicago and
	// 01:30 UTC are quiet.
	"corpus/argo/invoices-cronworkflow.yaml": {{8, levelError, `"30 2 \* \* \*" in America/New_York .*02:30 does not exist on 2026-03-08`}},
	"corpus/argo/quiet-cronworkflow.yaml":    nil,
	// Nomad periodic crons lists, one line and several; 13:00 and 23:45
	// are quiet, as are UTC and a periodic block without time_zone.
	"corpus/nomad/reports.nomad.hcl": {{6, levelError, `"30 1 \* \* \*" in America/Chicago .*01:30 occurs twice on 2026-11-01`}},
	"corpus/nomad/purge.nomad":       {{7, levelError, `"15 2 \* \* \*" in Europe/Berlin .*02:15 does not exist on 2026-03-29`}},
	"corpus/nomad/quiet.nomad":       nil,
	// Google Cloud Scheduler: gcloud's YAML, and Terraform on Sundays
	// (2026-03-29 is one: no 01:30 in London); Mondays are quiet.
	"corpus/gcp/nightly-export.yaml": {{3, levelError, `"0 2 \* \* \*" in America/Los_Angeles .*02:00 does not exist on 2026-03-08`}},
	"corpus/gcp/scheduler.tf":        {{4, levelError, `"30 1 \* \* 0" in Europe/London .*01:30 does not exist on 2026-03-29`}},
	// Azure Functions: six-field NCRONTAB in function.json and in
	// [TimerTrigger] attributes, in the zone of the app's
	// WEBSITE_TIME_ZONE (a Windows name, or an IANA name on Linux); an app
	// without one runs in UTC.
	"corpus/azure/app1/local.settings.json":        nil,
	"corpus/azure/app1/BillingTimer/function.json": {{7, levelError, `"0 30 1 \* \* \*" in Central Standard Time \(America/Chicago\) .*01:30 occurs twice on 2026-11-01`}},
	"corpus/azure/app1/Functions/Jobs.cs":          {{16, levelError, `"0 30 2 \* \* 0" in Central Standard Time \(America/Chicago\) .*02:30 does not exist on 2026-03-08`}},
	"corpus/azure/app2/Nightly.cs":                 nil,
	"corpus/azure/app3/main.tf":                    nil,
	"corpus/azure/app3/src/LedgerClose.cs":         {{7, levelError, `"0 30 1 \* \* \*" in Europe/London .*01:30 does not exist on 2026-03-29`}},
	// Spring @Scheduled(cron, zone): six fields. UTC, no zone (the JVM's),
	// every 15 minutes and Sundays at 03:00 are quiet; a placeholder is
	// not understood.
	"corpus/spring/BillingScheduler.java": {{15, levelError, `"0 30 1 \* \* \*" in America/Chicago .*01:30 occurs twice on 2026-11-01`}},
	"corpus/spring/ReportJobs.kt":         {{10, levelError, `"0 15 2 \* \* \*" in Europe/Berlin .*02:15 does not exist on 2026-03-29`}},
	"corpus/spring/QuietJobs.java":        nil,
	"corpus/spring/PlaceholderJobs.java":  {{7, levelNote, `^not understood: Spring @Scheduled \(.*\$\{billing.cron\}`}},
	// Quartz: XML job_scheduling_data with <time-zone>, and properties.
	// Quartz's day-of-week 1 is Sunday; Monday (2) is quiet.
	"corpus/quartz/quartz_data.xml":   {{14, levelError, `"0 30 2 \? \* \*" in America/New_York .*02:30 does not exist on 2026-03-08`}},
	"corpus/quartz/sunday-jobs.xml":   {{9, levelError, `"0 0 2 \? \* 1" in America/Chicago .*02:00 does not exist on 2026-03-08`}},
	"corpus/quartz/quartz.properties": {{6, levelError, `"0 30 1 \? \* \*" in Europe/London .*01:30 does not exist on 2026-03-29`}},
	// Celery beat crontab() in the app's timezone (a celeryconfig module,
	// app.conf.timezone, Django's TIME_ZONE); crontab(minute=0) is hourly.
	"corpus/celery/celeryconfig.py":    {{10, levelError, `crontab\(hour=1, minute=30\) in America/Chicago .*01:30 occurs twice on 2026-11-01`}},
	"corpus/celery/proj/celery.py":     {{13, levelError, `crontab\(minute=15, hour=2\) in Europe/Berlin .*02:15 does not exist on 2026-03-29`}},
	"corpus/celery/django/settings.py": {{12, levelError, `crontab\(minute=30, hour=1, day_of_month=1\) in America/New_York .*01:30 occurs twice on 2026-11-01`}},
	"corpus/celery/quiet_tasks.py":     nil,
	// pg_cron in cron.timezone (postgresql.conf, ALTER SYSTEM); without
	// it pg_cron runs in GMT.
	"corpus/pgcron/postgresql.conf": nil,
	"corpus/pgcron/jobs.sql": {
		{2, levelError, `"30 1 \* \* \*" in America/Chicago .*01:30 occurs twice on 2026-11-01`},
		{4, levelError, `"15 2 \* \* \*" in America/Chicago .*02:15 does not exist on 2026-03-08`},
	},
	"corpus/pgcron/alter/setup.sql": {{7, levelError, `"30 1 \* \* \*" in Europe/London .*01:30 does not exist on 2026-03-29`}},
	"corpus/pgcron-gmt/jobs.sql":    nil,
	// Jenkins cron triggers with a TZ= line; H is a minute Jenkins picks;
	// no TZ=, UTC and every 15 minutes are quiet.
	"corpus/jenkins/Jenkinsfile":          {{5, levelError, `"30 1 \* \* \*" in America/Chicago .*01:30 occurs twice on 2026-11-01`}},
	"corpus/jenkins/reports/Jenkinsfile":  {{3, levelError, `"H 2 \* \* \*" in Europe/Berlin .*does not exist on 2026-03-29`}},
	"corpus/jenkins/scripted/Jenkinsfile": {{3, levelError, `"0 2 \* \* 0" in America/New_York .*02:00 does not exist on 2026-03-08`}},
	"corpus/jenkins/quiet/Jenkinsfile":    nil,
	// GitHub Actions schedules are UTC.
	"corpus/github/.github/workflows/nightly.yml": nil,
	// CronJobs wrapping dstsafe exec (issue 29): exec's one-dash flag, a
	// schedule inside sh -c, no spec.timeZone while exec names a zone,
	// another time; every consistent form is quiet.
	"corpus/k8sexec/one-dash.yaml":        {{9, levelError, `dstsafe exec --schedule "CRON_TZ=Europe/London 30 1 \* \* \*", but the CronJob fires "30 1 \* \* \*" in America/Chicago`}},
	"corpus/k8sexec/sh-c.yaml":            {{7, levelError, `dstsafe exec --schedule "CRON_TZ=America/New_York 0 2 \* \* \*", but the CronJob fires "0 2 \* \* \*" in America/Chicago`}},
	"corpus/k8sexec/no-timezone.yaml":     {{6, levelError, `no spec.timeZone.*dstsafe exec .*America/Chicago`}},
	"corpus/k8sexec/other-schedule.yaml":  {{7, levelError, `dstsafe exec --schedule "CRON_TZ=America/New_York 15 4 \* \* \*", but the CronJob fires "15 3 \* \* \*" in America/New_York`}},
	"corpus/k8sexec/utc-no-timezone.yaml": {{8, levelNote, `no spec.timeZone.*already runs dstsafe exec: give spec.timeZone the zone of its --schedule`}},
	"corpus/k8sexec/consistent.yaml":      nil,
	// A CDK CfnSchedule in TypeScript: EventBridge Scheduler skips 02:30.
	"corpus/cdk/lib/billing-stack.ts": {{10, levelError, `cron\(30 2 \* \* \? \*\) in America/Chicago .*02:30 does not exist on 2026-03-08`}},
	// Files dstsafe check cannot read, at risk: said so, never "checked".
	// (unread/notes.toml, a TOML file with nothing scheduled, is not at
	// risk: not read, not listed, not counted.)
	"corpus/unread/chart/templates/cronjob.yaml": {{4, levelNote, `^not understood: Helm template`}},
	"corpus/unread/worker.py":                    {{8, levelNote, `^not understood: Python `}},
	"corpus/unread/scheduler.toml":               {{3, levelNote, `^not understood: TOML `}},
	// Held out: written after the readers above and run once, blind
	// (docs/review-tools.md gives that first run's numbers), one file per
	// shape not seen before. Sydney repeats 02:00-03:00 on 2026-04-05;
	// Denver and Los Angeles change with Chicago, Paris with Berlin.
	"corpus/heldout/systemd/backup.timer":                {{5, levelError, `Europe/Berlin .*02:30 does not exist on 2026-03-29`}},
	"corpus/heldout/systemd/ledger-close.timer":          {{2, levelError, `America/Denver .*01:30 occurs twice on 2026-11-01`}},
	"corpus/heldout/argo/close.yml":                      {{6, levelError, `"0 1 \* \* \*" in Europe/London .*01:00 does not exist on 2026-03-29`}},
	"corpus/heldout/nomad/weekday.hcl":                   nil,
	"corpus/heldout/nomad/batch.nomad.hcl":               {{6, levelError, `"30 2 \* \* \*" in America/Chicago .*02:30 does not exist on 2026-03-08`}},
	"corpus/heldout/gcp/config-connector.yaml":           {{7, levelError, `"45 1 \* \* \*" in America/Chicago .*01:45 occurs twice on 2026-11-01`}},
	"corpus/heldout/gcp/create.sh":                       {{3, levelError, `"30 2 \* \* \*" in America/Denver .*02:30 does not exist on 2026-03-08`}},
	"corpus/heldout/azure/fn/local.settings.json":        nil,
	"corpus/heldout/azure/fn/Timers/NightlyTimer.cs":     {{4, levelError, `Eastern Standard Time \(America/New_York\) .*02:15 does not exist on 2026-03-08`}},
	"corpus/heldout/azure/fn/Weekly/function.json":       nil,
	"corpus/heldout/azure/linux/deploy.sh":               nil,
	"corpus/heldout/azure/linux/Purge/function.json":     {{7, levelError, `"0 30 2 \* \* \*" in Europe/Paris .*02:30 does not exist on 2026-03-29`}},
	"corpus/heldout/spring/Jobs.java":                    {{8, levelError, `"0 0 2 \* \* \*" in America/Chicago .*02:00 does not exist on 2026-03-08`}},
	"corpus/heldout/spring/application.properties":       {{3, levelError, `"0 30 1 \* \* \*".* in Europe/London .*01:30 does not exist on 2026-03-29`}},
	"corpus/heldout/quartz/QuartzConfig.java":            {{11, levelError, `"0 30 2 \? \* \*" in America/Los_Angeles .*02:30 does not exist on 2026-03-08`}},
	"corpus/heldout/quartz/jobs.xml":                     {{11, levelError, `"0 15 1 \? \* SUN \*" in Europe/London .*01:15 does not exist on 2026-03-29`}},
	"corpus/heldout/celery/beat.py":                      {{13, levelError, `Australia/Sydney .*02:30 occurs twice on 2026-04-05`}},
	"corpus/heldout/celery/poll.py":                      nil,
	"corpus/heldout/pgcron/schedule.sql":                 {{4, levelError, `"0 2 \* \* \*" in America/New_York .*02:00 does not exist on 2026-03-08`}},
	"corpus/heldout/pgcron2/cluster.yaml":                nil,
	"corpus/heldout/pgcron2/migrations/001_cron.sql":     {{4, levelError, `"15 2 \* \* \*" in Europe/Berlin .*02:15 does not exist on 2026-03-29`}},
	"corpus/heldout/jenkins/Jenkinsfile":                 {{7, levelError, `"H\(0-15\) 2 \* \* \*" in America/Chicago .*does not exist on 2026-03-08`}},
	"corpus/heldout/github/.github/workflows/report.yml": nil,
	"corpus/heldout/k8s/cronjobs.yaml":                   {{24, levelError, `--schedule "CRON_TZ=America/Chicago 0 1 \* \* \*", but the CronJob fires "30 1 \* \* \*" in America/Chicago`}},
	// (The blind run's expectation said line 5; the schedule is on line 6,
	// where the finding was.)
	"corpus/heldout/k8s/notz.yaml":       {{6, levelError, `no spec.timeZone.*Europe/Berlin`}},
	"corpus/heldout/unread/sidekiq.yml":  {{5, levelError, `America/Chicago .*01:30 occurs twice on 2026-11-01`}},
	"corpus/heldout/unread/scheduler.rb": {{5, levelNote, `^not understood: Ruby`}},
	// A zone set by an expression (Terraform's var.time_zone, a Python
	// settings attribute) is not followed: not understood, never UTC.
	"corpus/unresolved/tfzone/main.tf":          nil,
	"corpus/unresolved/tfzone/Fn/function.json": {{3, levelNote, `^not understood: Azure Functions timer \(WEBSITE_TIME_ZONE is set to var.time_zone .*an expression`}},
	"corpus/unresolved/celeryvar/app.py":        {{9, levelNote, `^not understood: Celery beat schedule \(.*settings.BILLING_TZ .*an expression`}},
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
		FilesChecked       int       `json:"files_checked"`
		FilesNotUnderstood int       `json:"files_not_understood"`
		Findings           []finding `json:"findings"`
	}
	if err := json.Unmarshal([]byte(stdout), &out); err != nil {
		t.Fatal(err)
	}
	if n := out.FilesChecked + out.FilesNotUnderstood; n != len(checkCorpus) {
		t.Errorf("%d files read, the corpus lists %d: a file is missing from one or the other", n, len(checkCorpus))
	}
	// No file with something not understood is counted as checked.
	unread := 0
	for _, wants := range checkCorpus {
		for _, w := range wants {
			if strings.HasPrefix(w.re, "^not understood: ") {
				unread++
				break
			}
		}
	}
	if out.FilesNotUnderstood != unread {
		t.Errorf("%d files not understood, the corpus expects %d", out.FilesNotUnderstood, unread)
	}
	type counts struct{ tp, fp, fn int }
	per := map[string]*counts{}
	class := func(file string) string {
		first, rest, _ := strings.Cut(filepath.ToSlash(file), "/")
		if first == "clean" {
			return "clean"
		}
		c, _, _ := strings.Cut(rest, "/")
		return c
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

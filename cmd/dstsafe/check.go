package main

import (
	"fmt"
	"io/fs"

	"sort"
	"strings"
	"time"

	"github.com/dstsafe/dstsafe"
	"github.com/dstsafe/dstsafe/cmd/dstsafevet"
)

var checkCmd = &command{
	name:    "check",
	summary: "the postmortem's regression guard for deployment files",
	usage: `Usage: dstsafe check PATH... [--from T] [--format text|json|sarif]

Checks deployment files for the settings behind the 2024-11-03 double
billing, and fails (exit 1) when it finds one, printing file:line: message:

  - TZ (or /etc/localtime) set to anything but UTC: Dockerfile ENV and ARG
    (ENV TZ=Zone and ENV TZ Zone), docker-compose environment (map and
    list form), Kubernetes container env, .env files, crontab TZ=;
  - a cron spec in YAML or JSON (schedule:, cron: ...), a crontab line
    under CRON_TZ=, a Kubernetes CronJob with spec.timeZone, or a systemd
    .timer OnCalendar= with a zone, at a fixed time that a transition of
    that zone skips or repeats (in the year of --from and the two after);
  - an AWS EventBridge Scheduler cron(...) ScheduleExpression with a
    ScheduleExpressionTimezone (YAML, JSON, CloudFormation
    AWS::Scheduler::Schedule, Terraform aws_scheduler_schedule): AWS
    skips a run whose time the spring-forward day does not have (an
    error) and runs a repeated time once (a note); EventBridge rules run
    in UTC and are never a finding;
  - a cron with a zone in Terraform/HCL (google_cloud_scheduler_job
    schedule + time_zone, a Nomad periodic cron or crons list +
    time_zone) and in shell scripts (aws scheduler create-schedule,
    gcloud scheduler jobs create); Argo CronWorkflow schedule(s) with
    timezone; Google Cloud Scheduler YAML (schedule + timeZone); a zone
    after the fields ("30 1 * * * America/Chicago", sidekiq-cron);
  - Azure Functions timers (function.json timerTrigger bindings, C#
    [TimerTrigger("0 30 1 * * *")]) in the app's WEBSITE_TIME_ZONE
    (Windows or IANA names; from local.settings.json, Terraform, ARM,
    az CLI scripts at or above the function's directory; else UTC);
  - Spring @Scheduled(cron = "...", zone = "..."), Quartz
    cronSchedule(...).inTimeZone(...), Quartz job_scheduling_data XML
    (<cron-expression> with <time-zone>) and .properties (a *cron or
    *cronExpression key beside a *timeZone or *zone key); Celery beat
    crontab(...) in the app's timezone (app.conf.timezone, a
    celeryconfig module, CELERY_TIMEZONE, Django's TIME_ZONE); pg_cron
    cron.schedule(...) in cron.timezone (postgresql.conf, ALTER SYSTEM,
    parameters in YAML or Terraform; else GMT); Jenkins cron triggers
    with a TZ= line (H read as any minute of its hour); a CDK or SDK
    scheduleExpression: 'cron(...)' with scheduleExpressionTimezone;
  - an Airflow DAG file's schedule= / schedule_interval= cron with a
    pendulum zone on start_date, or a CronTriggerTimetable /
    CronDataIntervalTimetable with timezone=, at a fixed time inside a
    transition window (read with regular expressions, not as Python);
  - a CRON_TZ= or TZ= prefix inside a Kubernetes CronJob's spec.schedule,
    which Kubernetes never supported (recent releases' API validation
    rejects it): the zone belongs in spec.timeZone;
  - a CronJob that wraps its command in dstsafe exec with a --schedule
    (--schedule X, --schedule=X, -schedule X, -schedule=X, in command,
    args or a sh -c script, $(VAR) and $VAR followed in the container's
    env) that fires at other instants than the CronJob, or that names a
    zone while the CronJob has no spec.timeZone;
  - a zone the tz database does not know;
  - a crontab without CRON_TZ, or an OnCalendar= without a zone: the jobs
    run in the machine's local zone.

Each finding says the date and what happens: "01:30 occurs twice on
2026-11-01; 01:00-02:00 repeated", "02:30 does not exist on 2026-03-08;
02:00-03:00 skipped", only on days the schedule runs. A zone without a
setting (a Spring cron without zone, a Jenkins trigger without TZ=) runs
in the process's zone, whose TZ is checked where it is set: quiet.

Not understood: a file, or a part of one, that this check cannot read
(a Helm template, YAML that does not parse, a Spring cron from a
property placeholder, a Python, TOML or Ruby file that names a schedule
and a zone in a form no reader knows) is reported as "not understood:
FORMAT (reason)" (a note in SARIF, and a tool execution notification),
and is not counted as checked: the summary reads "N file(s) checked, M
not understood, K finding(s)". It does not change the exit status.

Notes (informational, exit status unchanged): a Kubernetes CronJob without
spec.timeZone runs in the kube-controller-manager's zone. GitHub Actions
on.schedule crons always run in UTC and are never a finding.

YAML is parsed as YAML (multi-document, flow style, anchors and merge
keys). Directories are walked; .git, vendor, node_modules and testdata are
skipped unless named. Files are read by name: Dockerfile*, Containerfile,
*.yaml, *.yml, *.json, .env, *.env, .env.*, crontab, *.crontab, *.cron,
cron.d/*, *.timer, *.tf, *.hcl, *.nomad, *.sh, *.py (Airflow, Celery),
*.java, *.kt, *.properties, *.xml, *.cs, *.csx, *.sql, postgresql.conf,
Jenkinsfile*, *.groovy, *.ts, *.js; any other file (but Go code, docs
and lock files) that names a schedule and a zone is reported as not
understood. A file named on the command line is read by its name, else
as YAML if it is a YAML mapping, else it is not understood.

A Kubernetes CronJob whose schedule is at risk, or that has no
spec.timeZone, is told how to wrap its container's command so each
period runs once: dstsafe exec --ledger URL --job NAME --schedule
'CRON_TZ=Zone M H * * *' -- CMD...

Flags:
  --from T            reference instant for the transition window (RFC
                      3339, default now)
  --format F          text (default), json, or sarif (SARIF 2.1.0, for
                      GitHub code scanning)
  --json              same as --format json
  --zoneinfo DIR      read zones from DIR

Examples:
  dstsafe check .
  dstsafe check Dockerfile deploy/k8s/billing-cronjob.yaml ops/crontab
  dstsafe check --format sarif . > dstsafe.sarif
`,
	run: runCheck,
}

// Levels of a finding: an error fails the check, a note informs.
const (
	levelError = "error"
	levelNote  = "note"
)

type finding struct {
	File    string `json:"file"`
	Line    int    `json:"line"`
	Column  int    `json:"column,omitempty"`
	Check   string `json:"check"`
	Level   string `json:"level"`
	Message string `json:"message"`
}

type checker struct {
	from     time.Time
	findings []finding
	seen     map[finding]bool
	// unread holds the files with something not understood: never counted
	// as checked.
	unread map[string]bool
	// settings are the zone settings the files set (WEBSITE_TIME_ZONE,
	// cron.timezone, Celery's timezone), for the files they apply to.
	settings []setting
}

func runCheck(c *cmdContext, args []string) error {
	fromFlag := c.fs.String("from", "", "")
	formatFlag := c.fs.String("format", "", "")
	pos, err := c.parse(args, 1, -1)
	if err != nil {
		return err
	}
	format := "text"
	switch {
	case *formatFlag != "" && c.json && *formatFlag != "json":
		return usagef("--json and --format %s disagree; give one of them", *formatFlag)
	case c.json:
		format = "json"
	case *formatFlag != "":
		format = *formatFlag
	}
	if format != "text" && format != "json" && format != "sarif" {
		return usagef("bad --format %q: want text, json or sarif", format)
	}
	from := c.now()
	if *fromFlag != "" {
		if from, err = time.Parse(time.RFC3339Nano, *fromFlag); err != nil {
			return usagef("bad --from %q: want an RFC 3339 instant such as 2024-11-01T00:00:00Z", *fromFlag)
		}
	}
	ck := &checker{from: time.Date(from.UTC().Year(), time.January, 1, 0, 0, 0, 0, time.UTC), seen: map[finding]bool{}, unread: map[string]bool{}}
	files, err := collectFiles(pos)
	if err != nil {
		return err
	}
	ck.collectSettings(files)
	for _, f := range files {
		ck.read(f)
	}
	sort.SliceStable(ck.findings, func(i, j int) bool {
		a, b := ck.findings[i], ck.findings[j]
		if a.File != b.File {
			return a.File < b.File
		}
		if a.Line != b.Line {
			return a.Line < b.Line
		}
		return a.Column < b.Column
	})
	errors, notes := 0, 0
	for _, f := range ck.findings {
		switch {
		case f.Check == checkNotUnderstood:
		case f.Level == levelError:
			errors++
		default:
			notes++
		}
	}
	understood := len(files) - len(ck.unread)
	switch format {
	case "json":
		out := struct {
			FilesChecked       int       `json:"files_checked"`
			FilesNotUnderstood int       `json:"files_not_understood"`
			Findings           []finding `json:"findings"`
		}{understood, len(ck.unread), ck.findings}
		if out.Findings == nil {
			out.Findings = []finding{}
		}
		if err := writeJSON(c.stdout, out); err != nil {
			return err
		}
	case "sarif":
		if err := writeJSON(c.stdout, toSARIF(ck.findings)); err != nil {
			return err
		}
	default:
		for _, f := range ck.findings {
			switch {
			case f.Check == checkNotUnderstood:
				fmt.Fprintf(c.stdout, "%s:%d: %s\n", f.File, f.Line, f.Message)
			case f.Level == levelNote:
				fmt.Fprintf(c.stdout, "%s:%d: note: %s\n", f.File, f.Line, f.Message)
			default:
				fmt.Fprintf(c.stdout, "%s:%d: %s\n", f.File, f.Line, f.Message)
			}
		}
		summary := fmt.Sprintf("%d file(s) checked", understood)
		if len(ck.unread) > 0 {
			summary += fmt.Sprintf(", %d not understood", len(ck.unread))
		}
		summary += fmt.Sprintf(", %d finding(s)", errors)
		if notes > 0 {
			summary += fmt.Sprintf(", %d note(s)", notes)
		}
		if errors == 0 {
			fmt.Fprintln(c.stdout, summary)
		} else {
			fmt.Fprintln(c.stderr, summary)
		}
	}
	if errors > 0 {
		return &exitError{exitFindings}
	}
	return nil
}

func unwrapPathErr(err error) error {
	if pe, ok := err.(*fs.PathError); ok {
		return pe.Err
	}
	return err
}

// add records a finding once: an anchor reused by aliases is one finding
// where it is written.
func (ck *checker) add(file string, line, col int, check, level, format string, args ...any) {
	f := finding{File: file, Line: line, Column: col, Check: check, Level: level, Message: fmt.Sprintf(format, args...)}
	if ck.seen[f] {
		return
	}
	ck.seen[f] = true
	ck.findings = append(ck.findings, f)
}

// utcNames are TZ values that mean UTC.
var utcNames = map[string]bool{"utc": true, "etc/utc": true, "uct": true, "etc/uct": true, "universal": true,
	"etc/universal": true, "zulu": true, "etc/zulu": true, "gmt": true, "etc/gmt": true, "gmt0": true, "etc/gmt0": true,
	"etc/gmt+0": true, "etc/gmt-0": true, "greenwich": true, "etc/greenwich": true, "utc0": true}

func isUTC(zone string) bool { return utcNames[strings.ToLower(strings.TrimPrefix(zone, ":"))] }

const (
	tzMsg        = "TZ=%s puts the process's local time in a zone other than UTC, so wall-clock logic and zone-less cron specs in it repeat or skip times when the zone changes offset; set TZ=UTC and name zones explicitly in schedules (CRON_TZ=Zone)"
	localtimeMsg = "/etc/localtime set to %s puts the container's local time in a zone other than UTC, so wall-clock logic in it repeats or skips times; leave it UTC and name zones explicitly in schedules (CRON_TZ=Zone)"
	windowMsg    = "%s in %s is a fixed time inside a transition window (%s; %s), %s, depending on the scheduler; move it outside the window or schedule it in UTC"
	zoneMsg      = "zone %q is not in the tz database, so the schedule will not run; use an IANA name such as America/Chicago or Etc/UTC"
)

// tz reports a TZ value other than UTC. Variables ($TZ) are not values.
func (ck *checker) tz(file string, line, col int, val string) {
	if val == "" || strings.HasPrefix(val, "$") || isUTC(val) {
		return
	}
	ck.add(file, line, col, "tz", levelError, tzMsg, val)
}

func looksLikeCron(v string) bool {
	_, rest := dstsafevet.SplitZone(v)
	if strings.HasPrefix(rest, "@") {
		return true
	}
	n := len(strings.Fields(rest))
	return n == 5 || n == 6
}

// window reports a fixed-time spec in a local zone whose time a transition
// skips or repeats, and a zone the tz database does not know.
func (ck *checker) window(file string, line, col int, spec, zone string, opts ...dstsafe.CronOption) {
	_, rest := dstsafevet.SplitZone(spec)
	ck.windowAs(file, line, col, spec, rest, zone, opts...)
}

// windowAs is window for a spec shown to the reader as display (a systemd
// calendar event, say).
func (ck *checker) windowAs(file string, line, col int, spec, display, zone string, opts ...dstsafe.CronOption) {
	ck.windowHint(file, line, col, spec, display, zone, "", opts...)
}

// windowHint is windowAs with a suffix to the message (a command to run
// the job with, say).
func (ck *checker) windowHint(file string, line, col int, spec, display, zone, suffix string, opts ...dstsafe.CronOption) {
	ck.risky(file, line, col, spec, zone, riskSubject{what: fmt.Sprintf("schedule %q", display), zone: zone, suffix: suffix}, opts...)
}

// riskSubject is how a finding names the schedule ("schedule \"30 1 * *
// *\"", "Celery crontab(hour=1, minute=30)") and its zone ("Central
// Standard Time (America/Chicago)"), and what it appends.
type riskSubject struct {
	what, zone, suffix string
}

// risky reports a fixed-time spec whose wall time a transition of its
// zone skips or repeats, on a day it runs (in the year of --from and the
// two after), saying the date and what happens; and a zone the tz
// database does not know. zone "" or UTC by any name is quiet.
func (ck *checker) risky(file string, line, col int, spec, zone string, subj riskSubject, opts ...dstsafe.CronOption) {
	if zone == "" || isUTC(zone) {
		return
	}
	cr, err := dstsafevet.ParseSpec(spec, opts...)
	if err != nil {
		if dstsafevet.IsZoneError(err) {
			ck.add(file, line, col, "zone", levelError, zoneMsg, zone)
		}
		return
	}
	risks := dstsafevet.WindowRisks(cr, ck.from, ck.from.AddDate(3, 0, 0))
	if len(risks) == 0 {
		return
	}
	r := risks[0]
	ck.add(file, line, col, "window", levelError, "%s", fmt.Sprintf(windowMsg, subj.what, subj.zone, r, r.Window(), riskFate(r))+subj.suffix)
}

// riskFate says what a scheduler does with a fixed time on the day a
// transition skips or repeats it.
func riskFate(r dstsafevet.Risk) string {
	if r.Transition.Kind == dstsafe.Gap {
		return fmt.Sprintf("so that day it runs up to %s late or not at all", r.Shift())
	}
	return fmt.Sprintf("so that day it runs twice, %s apart, or once", r.Shift())
}

// loadZone loads a zone a file names, or reports it unknown.
func (ck *checker) zone(file string, line, col int, name string) (*time.Location, bool) {
	loc, err := time.LoadLocation(name)
	if err != nil || name == "Local" {
		ck.add(file, line, col, "zone", levelError, zoneMsg, name)
		return nil, false
	}
	return loc, true
}

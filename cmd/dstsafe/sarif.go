package main

import (
	"net/url"
	"path/filepath"
	"strings"
)

// checkRule describes one kind of finding of dstsafe check, for SARIF.
type checkRule struct {
	id, name, short, full, level string
}

// checkRules are every kind of finding, in a stable order (SARIF results
// point at them by index).
var checkRules = []checkRule{
	{"tz", "ProcessZoneNotUTC", "TZ set to a zone other than UTC",
		"A process whose local time is a zone with transitions repeats or skips wall times: wall-clock logic and zone-less cron specs in it run twice or not at all. Set TZ=UTC and name zones explicitly in schedules (CRON_TZ=Zone).", levelError},
	{"localtime", "LocaltimeNotUTC", "/etc/localtime or /etc/timezone set to a zone other than UTC",
		"A container whose /etc/localtime points at a zone with transitions repeats or skips wall times. Leave it UTC and name zones explicitly in schedules.", levelError},
	{"window", "FixedTimeInTransitionWindow", "a fixed-time schedule inside its zone's transition window",
		"A schedule at a fixed local time that a transition of its zone skips or repeats runs twice, an hour off or not at all, depending on the scheduler. Move it outside the window or schedule it in UTC, and claim each period in a ledger.", levelError},
	{"zone", "UnknownZone", "a zone the tz database does not know",
		"A schedule whose zone is not an IANA zone name fails to parse or never runs. Use a name such as America/Chicago or Etc/UTC.", levelError},
	{"k8s-schedule-zone", "KubernetesScheduleZonePrefix", "CRON_TZ= or TZ= inside a Kubernetes CronJob's spec.schedule",
		"Kubernetes never supported a zone prefix in spec.schedule; recent releases' API validation rejects it. Put the zone in spec.timeZone.", levelError},
	{"k8s-no-timezone", "KubernetesNoTimeZone", "a Kubernetes CronJob without spec.timeZone",
		"Without spec.timeZone a CronJob runs in the kube-controller-manager's zone, which differs between clusters. Set spec.timeZone.", levelNote},
	{"crontab-no-zone", "CrontabNoZone", "a crontab without CRON_TZ",
		"A crontab without CRON_TZ runs its jobs in the cron daemon's local zone. Add CRON_TZ=UTC (or CRON_TZ=Zone) at the top.", levelError},
	{"timer-no-zone", "TimerNoZone", "a systemd OnCalendar= without a zone",
		"A systemd timer whose OnCalendar= names no zone runs in the machine's local zone. Append UTC or the zone the job must follow.", levelError},
	{"k8s-exec-schedule", "KubernetesExecSchedule", "dstsafe exec's --schedule differs from its CronJob's",
		"A CronJob that wraps its command in dstsafe exec must give exec the times it fires, in its spec.timeZone: otherwise exec looks for another schedule's periods and finds nothing due, or another period.", levelError},
	{"k8s-exec-no-timezone", "KubernetesExecNoTimeZone", "dstsafe exec names a zone its CronJob lacks",
		"A CronJob without spec.timeZone fires in the kube-controller-manager's zone, while the dstsafe exec it wraps looks for periods in the zone of its --schedule: the triggers miss exec's periods. Set spec.timeZone to exec's zone.", levelError},
	{checkNotUnderstood, "NotUnderstood", "a file, or part of one, dstsafe check could not read",
		"dstsafe check does not read this file (or this part of it): its schedules were not checked, and the file is not counted as checked. The message names the format and why.", levelNote},
}

type sarifLog struct {
	Schema  string     `json:"$schema"`
	Version string     `json:"version"`
	Runs    []sarifRun `json:"runs"`
}

type sarifRun struct {
	Tool        sarifTool         `json:"tool"`
	Invocations []sarifInvocation `json:"invocations"`
	Results     []sarifResult     `json:"results"`
}

// sarifInvocation carries the files dstsafe check did not understand as
// tool execution notifications too, beside the note-level results that
// code scanning shows.
type sarifInvocation struct {
	ExecutionSuccessful        bool                `json:"executionSuccessful"`
	ToolExecutionNotifications []sarifNotification `json:"toolExecutionNotifications"`
}

type sarifNotification struct {
	Level     string          `json:"level"`
	Message   sarifText       `json:"message"`
	Locations []sarifLocation `json:"locations"`
}

type sarifTool struct {
	Driver sarifDriver `json:"driver"`
}

type sarifDriver struct {
	Name           string      `json:"name"`
	InformationURI string      `json:"informationUri"`
	Rules          []sarifRule `json:"rules"`
}

type sarifText struct {
	Text string `json:"text"`
}

type sarifRule struct {
	ID                   string    `json:"id"`
	Name                 string    `json:"name"`
	ShortDescription     sarifText `json:"shortDescription"`
	FullDescription      sarifText `json:"fullDescription"`
	DefaultConfiguration struct {
		Level string `json:"level"`
	} `json:"defaultConfiguration"`
}

type sarifResult struct {
	RuleID    string          `json:"ruleId"`
	RuleIndex int             `json:"ruleIndex"`
	Level     string          `json:"level"`
	Message   sarifText       `json:"message"`
	Locations []sarifLocation `json:"locations"`
}

type sarifLocation struct {
	PhysicalLocation struct {
		ArtifactLocation struct {
			URI       string `json:"uri"`
			URIBaseID string `json:"uriBaseId,omitempty"`
		} `json:"artifactLocation"`
		Region struct {
			StartLine   int `json:"startLine"`
			StartColumn int `json:"startColumn,omitempty"`
		} `json:"region"`
	} `json:"physicalLocation"`
}

// toSARIF writes findings as a SARIF 2.1.0 log, as GitHub code scanning
// reads it: relative paths against %SRCROOT%, one rule per kind of
// finding.
func toSARIF(fs []finding) sarifLog {
	run := sarifRun{Results: []sarifResult{}}
	run.Tool.Driver = sarifDriver{Name: "dstsafe check", InformationURI: "https://github.com/dstsafe/dstsafe"}
	index := map[string]int{}
	for i, r := range checkRules {
		sr := sarifRule{ID: r.id, Name: r.name, ShortDescription: sarifText{r.short}, FullDescription: sarifText{r.full}}
		sr.DefaultConfiguration.Level = r.level
		run.Tool.Driver.Rules = append(run.Tool.Driver.Rules, sr)
		index[r.id] = i
	}
	inv := sarifInvocation{ExecutionSuccessful: true, ToolExecutionNotifications: []sarifNotification{}}
	for _, f := range fs {
		res := sarifResult{RuleID: f.Check, RuleIndex: index[f.Check], Level: f.Level, Message: sarifText{f.Message}}
		var loc sarifLocation
		if filepath.IsAbs(f.File) {
			loc.PhysicalLocation.ArtifactLocation.URI = (&url.URL{Scheme: "file", Path: filepath.ToSlash(f.File)}).String()
		} else {
			loc.PhysicalLocation.ArtifactLocation.URI = (&url.URL{Path: strings.TrimPrefix(filepath.ToSlash(filepath.Clean(f.File)), "./")}).String()
			loc.PhysicalLocation.ArtifactLocation.URIBaseID = "%SRCROOT%"
		}
		loc.PhysicalLocation.Region.StartLine = max(f.Line, 1)
		loc.PhysicalLocation.Region.StartColumn = f.Column
		res.Locations = []sarifLocation{loc}
		run.Results = append(run.Results, res)
		if f.Check == checkNotUnderstood {
			inv.ToolExecutionNotifications = append(inv.ToolExecutionNotifications, sarifNotification{Level: "warning", Message: sarifText{f.Message}, Locations: res.Locations})
		}
	}
	run.Invocations = []sarifInvocation{inv}
	return sarifLog{Schema: "https://json.schemastore.org/sarif-2.1.0.json", Version: "2.1.0", Runs: []sarifRun{run}}
}

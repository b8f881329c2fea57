package main

import (
	"fmt"
	"strings"

	"go.yaml.in/yaml/v3"

	"github.com/dstsafe/dstsafe"
)

// This file reads Azure Functions timer triggers: a function.json binding
// {"type": "timerTrigger", "schedule": "..."} and [TimerTrigger("...")]
// attributes in C#. Their six-field NCRONTAB expressions run in the zone
// of the app's WEBSITE_TIME_ZONE setting (a Windows zone name, or an IANA
// name on Linux plans), read from local.settings.json, Terraform
// app_settings, ARM or Bicep JSON, az CLI scripts, at or above the
// function's directory. Without it Azure runs timers in UTC: quiet.

var csTimerTrigger = lazyRE(`\bTimerTrigger(?:Attribute)?\s*\(\s*(@?"[^"]*"|[A-Za-z_][\w.]*)`)

// azureBinding checks a function.json timer binding, a mapping met in a
// JSON or YAML walk.
func (ck *checker) azureBinding(name string, n *yaml.Node) bool {
	if !strings.EqualFold(scalar(get(n, "type")), "timerTrigger") {
		return false
	}
	sched := resolve(get(n, "schedule"))
	if sched == nil || sched.Kind != yaml.ScalarNode {
		return false
	}
	ck.azureTimer(name, sched.Line, sched.Column, sched.Value)
	return true
}

// csharp checks the [TimerTrigger("...")] attributes of a C# file.
func (ck *checker) csharp(name, data string) {
	lineOf := func(off int) int { return 1 + strings.Count(data[:off], "\n") }
	found := false
	for _, m := range csTimerTrigger.FindAllStringSubmatchIndex(data, -1) {
		found = true
		arg, line := data[m[2]:m[3]], lineOf(m[2])
		if !strings.HasSuffix(arg, `"`) {
			ck.notUnderstood(name, line, "Azure Functions timer", fmt.Sprintf("TimerTrigger(%s): a constant this check does not follow", arg))
			continue
		}
		ck.azureTimer(name, line, 0, strings.Trim(strings.TrimPrefix(arg, "@"), `"`))
	}
	if !found && atRisk([]byte(data)) {
		ck.notUnderstood(name, riskLine([]byte(data)), "C#", "no [TimerTrigger] attribute; it names a schedule and a zone")
	}
}

// azureTimer checks one timer trigger's schedule in the app's zone.
func (ck *checker) azureTimer(name string, line, col int, sched string) {
	if strings.HasPrefix(sched, "%") && strings.HasSuffix(sched, "%") {
		ck.notUnderstood(name, line, "Azure Functions timer", fmt.Sprintf("schedule %s names an app setting this check does not follow", sched))
		return
	}
	if !looksLikeCron(sched) {
		return // a TimeSpan ("00:05:00"): an interval of real time
	}
	s, found, why := ck.settingFor(settingWebsiteTZ, name)
	if why != "" {
		ck.notUnderstood(name, line, "Azure Functions timer", why)
		return
	}
	if !found || isUTC(s.value) || s.value == "UTC" || s.value == "Coordinated Universal Time" {
		return
	}
	zone, shown := s.value, s.value
	if iana, ok := windowsZones[s.value]; ok {
		zone, shown = iana, fmt.Sprintf("%s (%s)", s.value, iana)
	} else if !strings.Contains(s.value, "/") {
		ck.notUnderstood(name, line, "Azure Functions timer", fmt.Sprintf("WEBSITE_TIME_ZONE %q (%s:%d) is a Windows zone name this check does not map", s.value, s.file, s.line))
		return
	}
	if loc, ok := ck.zone(name, line, col, zone); ok {
		ck.risky(name, line, col, sched, zone, riskSubject{what: fmt.Sprintf("Azure Functions timer %q", sched), zone: shown}, dstsafe.WithLocation(loc))
	}
}

// windowsZones maps Windows zone names, as WEBSITE_TIME_ZONE takes them on
// Windows plans, to IANA zones: CLDR's windowsZones.xml, territory 001.
var windowsZones = map[string]string{
	"Dateline Standard Time":          "Etc/GMT+12",
	"Hawaiian Standard Time":          "Pacific/Honolulu",
	"Alaskan Standard Time":           "America/Anchorage",
	"Pacific Standard Time":           "America/Los_Angeles",
	"Pacific Standard Time (Mexico)":  "America/Tijuana",
	"US Mountain Standard Time":       "America/Phoenix",
	"Mountain Standard Time":          "America/Denver",
	"Mountain Standard Time (Mexico)": "America/Mazatlan",
	"Central America Standard Time":   "America/Guatemala",
	"Central Standard Time":           "America/Chicago",
	"Central Standard Time (Mexico)":  "America/Mexico_City",
	"Canada Central Standard Time":    "America/Regina",
	"Eastern Standard Time":           "America/New_York",
	"Eastern Standard Time (Mexico)":  "America/Cancun",
	"US Eastern Standard Time":        "America/Indianapolis",
	"Cuba Standard Time":              "America/Havana",
	"Atlantic Standard Time":          "America/Halifax",
	"Newfoundland Standard Time":      "America/St_Johns",
	"Pacific SA Standard Time":        "America/Santiago",
	"E. South America Standard Time":  "America/Sao_Paulo",
	"Argentina Standard Time":         "America/Buenos_Aires",
	"Paraguay Standard Time":          "America/Asuncion",
	"Greenland Standard Time":         "America/Godthab",
	"Azores Standard Time":            "Atlantic/Azores",
	"GMT Standard Time":               "Europe/London",
	"Greenwich Standard Time":         "Atlantic/Reykjavik",
	"Morocco Standard Time":           "Africa/Casablanca",
	"W. Europe Standard Time":         "Europe/Berlin",
	"Central Europe Standard Time":    "Europe/Budapest",
	"Romance Standard Time":           "Europe/Paris",
	"Central European Standard Time":  "Europe/Warsaw",
	"W. Central Africa Standard Time": "Africa/Lagos",
	"GTB Standard Time":               "Europe/Bucharest",
	"E. Europe Standard Time":         "Europe/Chisinau",
	"FLE Standard Time":               "Europe/Kiev",
	"Israel Standard Time":            "Asia/Jerusalem",
	"Middle East Standard Time":       "Asia/Beirut",
	"Egypt Standard Time":             "Africa/Cairo",
	"Syria Standard Time":             "Asia/Damascus",
	"South Africa Standard Time":      "Africa/Johannesburg",
	"Turkey Standard Time":            "Europe/Istanbul",
	"Russian Standard Time":           "Europe/Moscow",
	"Arabian Standard Time":           "Asia/Dubai",
	"Iran Standard Time":              "Asia/Tehran",
	"India Standard Time":             "Asia/Calcutta",
	"China Standard Time":             "Asia/Shanghai",
	"Singapore Standard Time":         "Asia/Singapore",
	"Tokyo Standard Time":             "Asia/Tokyo",
	"Korea Standard Time":             "Asia/Seoul",
	"Cen. Australia Standard Time":    "Australia/Adelaide",
	"AUS Central Standard Time":       "Australia/Darwin",
	"E. Australia Standard Time":      "Australia/Brisbane",
	"AUS Eastern Standard Time":       "Australia/Sydney",
	"Tasmania Standard Time":          "Australia/Hobart",
	"Lord Howe Standard Time":         "Australia/Lord_Howe",
	"New Zealand Standard Time":       "Pacific/Auckland",
	"Chatham Islands Standard Time":   "Pacific/Chatham",
	"Samoa Standard Time":             "Pacific/Apia",
	"UTC":                             "Etc/UTC",
}

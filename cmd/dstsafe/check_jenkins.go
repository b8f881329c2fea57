package main

import (
	"fmt"
	"strings"

	"github.com/dstsafe/dstsafe"
)

// This file reads Jenkins cron triggers: triggers { cron('...') } in a
// declarative Jenkinsfile, pipelineTriggers([cron('...')]) in a scripted
// one, and a job config.xml's TimerTrigger spec (check_jvm.go's xmlFile).
// A trigger's text holds spec lines, each in the zone of the TZ= line
// before it; without one, the controller's zone (its JVM's, checked where
// TZ is set): quiet.

var jenkinsCron = lazyRE(`\bcron\s*\(\s*(?:spec\s*:\s*)?('''|"""|'|")`)

// jenkins checks the cron triggers of a Jenkinsfile or Groovy file.
func (ck *checker) jenkins(name, data string) {
	lineOf := func(off int) int { return 1 + strings.Count(data[:off], "\n") }
	found := false
	for _, m := range jenkinsCron.FindAllStringSubmatchIndex(data, -1) {
		quote := data[m[2]:m[3]]
		body := data[m[3]:]
		end := strings.Index(body, quote)
		if len(quote) == 1 {
			// An escaped quote does not end a one-quote string.
			for end > 0 && body[end-1] == '\\' {
				next := strings.Index(body[end+1:], quote)
				if next < 0 {
					end = -1
					break
				}
				end += 1 + next
			}
		}
		if end < 0 {
			continue
		}
		found = true
		text := body[:end]
		if strings.Contains(text, "${") {
			ck.notUnderstood(name, lineOf(m[3]), "Jenkins pipeline", fmt.Sprintf("cron(%s%s%s): an interpolated string", quote, text, quote))
			continue
		}
		ck.jenkinsSpec(name, lineOf(m[3]), text)
	}
	if !found && atRisk([]byte(data)) {
		ck.notUnderstood(name, riskLine([]byte(data)), "Jenkins pipeline", "no cron trigger this check reads; it names a schedule and a zone")
	}
}

// jenkinsSpec checks the text of one Jenkins cron trigger, which starts on
// line: lines (real ones, or \n escapes in a quoted string) of TZ=Zone and
// five-field specs with Jenkins' H.
func (ck *checker) jenkinsSpec(name string, line int, text string) {
	zone := ""
	for i, raw := range strings.Split(text, "\n") {
		for _, l := range strings.Split(raw, `\n`) {
			l = strings.TrimSpace(l)
			if l == "" || strings.HasPrefix(l, "#") {
				continue
			}
			if z, ok := strings.CutPrefix(l, "TZ="); ok {
				zone = strings.TrimSpace(z)
				continue
			}
			if zone == "" || isUTC(zone) {
				continue
			}
			spec, ok := jenkinsHash(l)
			if !ok {
				continue
			}
			if loc, ok := ck.zone(name, line+i, 0, zone); ok {
				ck.risky(name, line+i, 0, spec, zone, riskSubject{what: fmt.Sprintf("Jenkins cron %q", l), zone: zone}, dstsafe.WithLocation(loc))
			}
		}
	}
}

var jenkinsH = lazyRE(`^H(?:\((\d+)-(\d+)\))?(/\d+)?$`)

// jenkinsHash replaces Jenkins' H (a value Jenkins derives from the job's
// name) with the values it may take: H in the minute field is some minute
// of the hour, so "H 2 * * *" runs at some time from 02:00 to 02:59 and is
// checked as every minute of it; H(a-b) is a value in a-b; H/s is a step
// from some start (periodic). An H hour, or @daily (Jenkins' "H H * * *"),
// may be any hour: not a fixed time this check can place, so ok is false.
func jenkinsHash(spec string) (string, bool) {
	if strings.HasPrefix(spec, "@") {
		return "", false
	}
	f := strings.Fields(spec)
	if len(f) != 5 {
		return "", false
	}
	for i, x := range f {
		m := jenkinsH.FindStringSubmatch(x)
		if m == nil {
			if strings.Contains(x, "H") {
				return "", false
			}
			continue
		}
		switch {
		case m[3] != "":
			f[i] = "*" + m[3] // periodic
		case m[1] != "":
			f[i] = m[1] + "-" + m[2]
		case i == 0:
			f[i] = "0-59"
		default:
			return "", false
		}
	}
	return strings.Join(f, " "), true
}

package main

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/dstsafe/dstsafe"
)

// This file reads the JVM's schedulers: Spring's @Scheduled(cron, zone) in
// Java and Kotlin, Quartz cron triggers in properties and in
// job_scheduling_data XML (and Jenkins job XML, whose TimerTrigger spec
// check_jenkins.go reads). Without a zone both run in the JVM's default
// zone (the TZ of the process, checked where it is set): quiet.

var (
	springScheduled = lazyRE(`@Scheduled\s*\(`)
	springAttr      = lazyRE(`\b(cron|zone)\s*=\s*(?:"([^"]*)"|([A-Za-z_][\w.]*))`)
	jvmConst        = lazyRE(`(?:static\s+final\s+String|const\s+val|val)\s+([A-Za-z_]\w*)(?:\s*:\s*String)?\s*=\s*"([^"]*)"`)
	quartzBuilder   = lazyRE(`cronSchedule\(\s*"([^"]*)"\s*\)\s*(?:\.\s*\w+\([^)]*\)\s*)*?\.\s*inTimeZone\(\s*TimeZone\.getTimeZone\(\s*"([^"]*)"\s*\)\s*\)`)
)

// jvm checks the @Scheduled annotations and Quartz cronSchedule(...)
// .inTimeZone(...) builders of a Java or Kotlin file. A cron or zone
// given by a constant of the file is followed; a property placeholder
// ("${billing.cron}") is not understood.
func (ck *checker) jvm(name, data string) {
	consts := map[string]string{}
	for _, m := range jvmConst.FindAllStringSubmatch(data, -1) {
		consts[m[1]] = m[2]
	}
	lineOf := func(off int) int { return 1 + strings.Count(data[:off], "\n") }
	found := false
	for _, loc := range springScheduled.FindAllStringIndex(data, -1) {
		found = true
		args := callText(data[loc[1]:])
		var cron, zone string
		cronLine := lineOf(loc[0])
		for _, m := range springAttr.FindAllStringSubmatchIndex(args, -1) {
			attrLine := lineOf(loc[1] + m[2])
			v := ""
			if m[4] >= 0 {
				v = args[m[4]:m[5]]
			}
			if m[6] >= 0 {
				ident := args[m[6]:m[7]]
				c, ok := consts[ident[strings.LastIndex(ident, ".")+1:]]
				if !ok {
					ck.notUnderstood(name, attrLine, "Spring @Scheduled", fmt.Sprintf("%s = %s: a constant this check does not find", args[m[2]:m[3]], ident))
					cron = ""
					break
				}
				v = c
			}
			if args[m[2]:m[3]] == "cron" {
				cron, cronLine = v, attrLine
			} else {
				zone = v
			}
		}
		switch {
		case cron == "" || cron == "-": // fixedRate, fixedDelay, or disabled
		case strings.Contains(cron, "${") || strings.Contains(zone, "${"):
			ck.notUnderstood(name, cronLine, "Spring @Scheduled", fmt.Sprintf("cron %q, zone %q: property placeholders are resolved by Spring at run time", cron, zone))
		case zone != "" && !isUTC(zone):
			if loc, ok := ck.zone(name, cronLine, 0, zone); ok {
				ck.risky(name, cronLine, 0, cron, zone, riskSubject{what: fmt.Sprintf("Spring @Scheduled cron %q", cron), zone: zone}, dstsafe.WithLocation(loc))
			}
		}
	}
	for _, m := range quartzBuilder.FindAllStringSubmatchIndex(data, -1) {
		found = true
		ck.quartz(name, lineOf(m[2]), data[m[2]:m[3]], data[m[4]:m[5]], "Quartz cronSchedule")
	}
	if !found && atRisk([]byte(data)) {
		ck.notUnderstood(name, riskLine([]byte(data)), "Java/Kotlin", "no @Scheduled or Quartz cronSchedule(...).inTimeZone(...) this check reads; it names a schedule and a zone")
	}
}

// quartz checks a Quartz cron expression in a zone.
func (ck *checker) quartz(name string, line int, expr, zone, what string) {
	if zone == "" || isUTC(zone) {
		return
	}
	spec, err := quartzCron(expr)
	if err != "" {
		ck.notUnderstood(name, line, what, fmt.Sprintf("%q: %s", expr, err))
		return
	}
	if loc, ok := ck.zone(name, line, 0, zone); ok {
		ck.risky(name, line, 0, spec, zone, riskSubject{what: fmt.Sprintf("%s %q", what, expr), zone: zone}, dstsafe.WithLocation(loc))
	}
}

// quartzCron turns a Quartz cron expression (seconds minutes hours
// day-of-month month day-of-week [year]) into a six-field spec: a year
// of * is dropped (another year is not understood), and Quartz's
// day-of-week numbers, 1 = Sunday to 7 = Saturday, become cron's 0-6.
func quartzCron(expr string) (string, string) {
	f := strings.Fields(expr)
	switch {
	case len(f) == 7 && (f[6] == "*" || f[6] == "?"):
		f = f[:6]
	case len(f) == 7:
		return "", "a year field other than * is not checked"
	case len(f) != 6:
		return "", fmt.Sprintf("%d fields, Quartz has 6 or 7", len(f))
	}
	dow, err := quartzWeekdays(f[5])
	if err != "" {
		return "", err
	}
	f[5] = dow
	return strings.Join(f, " "), ""
}

// quartzWeekdays shifts a Quartz day-of-week field's numbers down by one
// (1-7 to 0-6); names, *, ? and the #k and /s parts are kept.
func quartzWeekdays(field string) (string, string) {
	shift := func(s string) (string, bool) {
		n, err := strconv.Atoi(s)
		if err != nil {
			return s, !strings.ContainsAny(s, "0123456789") // a name
		}
		if n < 1 || n > 7 {
			return "", false
		}
		return strconv.Itoa(n - 1), true
	}
	parts := strings.Split(field, ",")
	for i, p := range parts {
		base, step, hasStep := strings.Cut(p, "/")
		suffix := ""
		if j := strings.IndexAny(base, "#L"); j >= 0 {
			base, suffix = base[:j], base[j:]
		}
		var out []string
		for _, x := range strings.Split(base, "-") {
			if x == "*" || x == "?" || x == "" {
				out = append(out, x)
				continue
			}
			y, ok := shift(x)
			if !ok {
				return "", fmt.Sprintf("day-of-week %q is not 1-7 or a name", x)
			}
			out = append(out, y)
		}
		parts[i] = strings.Join(out, "-") + suffix
		if hasStep {
			parts[i] += "/" + step
		}
	}
	return strings.Join(parts, ","), ""
}

var propLine = lazyRE(`^\s*([A-Za-z0-9_.\-\[\]]+)\s*[=:]\s*(.*?)\s*$`)

// properties checks a .properties file: a key ending in cronExpression,
// cron-expression or cron, with a key of the same prefix ending in
// timeZone, time-zone, time_zone or zone. Keys under org.quartz are
// Quartz expressions (day-of-week 1 = Sunday); others (Spring Boot's) are
// Spring's, cron's day numbers.
func (ck *checker) properties(name, data string) {
	type prop struct {
		key, value string
		line       int
	}
	var props []prop
	for i, l := range strings.Split(data, "\n") {
		if t := strings.TrimSpace(l); t == "" || t[0] == '#' || t[0] == '!' {
			continue
		}
		if m := propLine.FindStringSubmatch(l); m != nil {
			props = append(props, prop{m[1], m[2], i + 1})
		}
	}
	zoneOf := func(prefix string) string {
		for _, p := range props {
			k := strings.ToLower(p.key)
			if !strings.HasPrefix(k, prefix) {
				continue
			}
			switch strings.TrimLeft(k[len(prefix):], ".-_") {
			case "timezone", "time-zone", "time_zone", "zone":
				return p.value
			}
		}
		return ""
	}
	for _, p := range props {
		k := strings.ToLower(p.key)
		var prefix string
		for _, s := range []string{"cronexpression", "cron-expression", "cron_expression", "cron"} {
			if strings.HasSuffix(k, s) {
				prefix = strings.TrimRight(k[:len(k)-len(s)], ".-_")
				break
			}
		}
		if prefix == "" && !strings.HasSuffix(k, "cron") {
			continue
		}
		zone := zoneOf(prefix)
		switch {
		case zone == "" || isUTC(zone):
		case strings.Contains(p.value, "${") || strings.Contains(zone, "${"):
			ck.notUnderstood(name, p.line, "Java properties", fmt.Sprintf("%s = %s: a placeholder", p.key, p.value))
		case strings.HasPrefix(k, "org.quartz"):
			ck.quartz(name, p.line, p.value, zone, "Quartz cron")
		default:
			if loc, ok := ck.zone(name, p.line, 0, zone); ok {
				ck.risky(name, p.line, 0, p.value, zone, riskSubject{what: fmt.Sprintf("cron %q (%s)", p.value, p.key), zone: zone}, dstsafe.WithLocation(loc))
			}
		}
	}
}

var (
	xmlQuartzCron = lazyRE(`(?s)<cron>(.*?)</cron>`)
	xmlCronExpr   = lazyRE(`<cron-expression>\s*([^<]*?)\s*</cron-expression>`)
	xmlTimeZone   = lazyRE(`<time-zone>\s*([^<]*?)\s*</time-zone>`)
	xmlTimerSpec  = lazyRE(`(?s)<hudson\.triggers\.TimerTrigger>\s*<spec>(.*?)</spec>`)
)

// xmlFile checks Quartz job_scheduling_data (a <cron> trigger's
// <cron-expression> in its <time-zone>) and a Jenkins job's config.xml
// (a TimerTrigger's <spec>). Other XML that names a schedule and a zone
// is not understood.
func (ck *checker) xmlFile(name, data string) {
	lineOf := func(off int) int { return 1 + strings.Count(data[:off], "\n") }
	found := false
	for _, m := range xmlQuartzCron.FindAllStringSubmatchIndex(data, -1) {
		found = true
		body := data[m[2]:m[3]]
		e := xmlCronExpr.FindStringSubmatchIndex(body)
		if e == nil {
			continue
		}
		zone := ""
		if z := xmlTimeZone.FindStringSubmatch(body); z != nil {
			zone = z[1]
		}
		ck.quartz(name, lineOf(m[2]+e[2]), body[e[2]:e[3]], zone, "Quartz cron trigger")
	}
	for _, m := range xmlTimerSpec.FindAllStringSubmatchIndex(data, -1) {
		found = true
		ck.jenkinsSpec(name, lineOf(m[2]), xmlUnescape(data[m[2]:m[3]]))
	}
	if !found && atRisk([]byte(data)) {
		ck.notUnderstood(name, riskLine([]byte(data)), "XML", "neither Quartz job_scheduling_data nor a Jenkins job; it names a schedule and a zone")
	}
}

func xmlUnescape(s string) string {
	return strings.NewReplacer("&#xA;", "\n", "&#10;", "\n", "&lt;", "<", "&gt;", ">", "&amp;", "&", "&quot;", `"`, "&apos;", "'").Replace(s)
}

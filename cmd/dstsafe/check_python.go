package main

import (
	"fmt"
	"strings"

	"github.com/dstsafe/dstsafe"
)

// This file reads Python: Airflow DAG files (check_cloud.go's airflow) and
// Celery beat schedules, with regular expressions, not as Python. Any
// other Python file that names a schedule and a zone is not understood.

// python reads a Python file as an Airflow DAG file or a Celery beat
// schedule, or says it cannot.
func (ck *checker) python(name, data string) {
	isAirflow := pyAirflow.MatchString(data)
	isCelery := pyCrontab.MatchString(data)
	if isAirflow {
		ck.airflow(name, data)
	}
	if isCelery {
		ck.celery(name, data)
	}
	if !isAirflow && !isCelery && atRisk([]byte(data)) {
		ck.notUnderstood(name, riskLine([]byte(data)), "Python", "neither an Airflow DAG nor a Celery beat schedule; it names a schedule and a zone")
	}
}

var (
	pyCrontab    = lazyRE(`\bcrontab\(([^()]*)\)`)
	pyCrontabArg = lazyRE(`^\s*(?:(\w+)\s*=\s*)?(?:["']([^"']*)["']|(-?\d+))\s*$`)
)

// celery checks the crontab(...) entries of a Celery beat schedule in the
// app's timezone: written in the file (app.conf.timezone = ...,
// timezone = ... in a celeryconfig module, CELERY_TIMEZONE,
// app.conf.update(timezone=...), Celery(..., timezone=...)), else Django's
// TIME_ZONE, else one of those in a file at or above the file's directory.
// Without any, Celery runs beat in UTC: quiet. A crontab field left out is
// "*", so crontab(hour=2) fires every minute from 02:00 to 02:59 and
// follows real time.
func (ck *checker) celery(name, data string) {
	// The app's own setting, then the file's configuration module
	// setting, then Django's; each in the file before any beside it.
	zone, ok := "", false
	for _, own := range []bool{true, false} {
		for _, key := range []string{settingCeleryApp, settingCelery, settingDjango} {
			if !own && key == settingCeleryApp {
				continue
			}
			s, found, why := ck.settingFor(key, name)
			if found && own != (s.file == name) {
				continue
			}
			if why != "" {
				line := 1
				if m := pyCrontab.FindStringIndex(data); m != nil {
					line += strings.Count(data[:m[0]], "\n")
				}
				ck.notUnderstood(name, line, "Celery beat schedule", why)
				return
			}
			if found {
				zone, ok = s.value, true
				break
			}
		}
		if ok {
			break
		}
	}
	if !ok || isUTC(zone) {
		return
	}
	lineOf := func(off int) int { return 1 + strings.Count(data[:off], "\n") }
	for _, m := range pyCrontab.FindAllStringSubmatchIndex(data, -1) {
		call, args := data[m[0]:m[1]], data[m[2]:m[3]]
		line := lineOf(m[0])
		spec, err := celeryCron(args)
		if err != "" {
			ck.notUnderstood(name, line, "Celery beat schedule", call+": "+err)
			continue
		}
		loc, ok := ck.zone(name, line, 0, zone)
		if !ok {
			return
		}
		ck.risky(name, line, 0, spec, zone, riskSubject{what: "Celery " + call, zone: zone}, dstsafe.WithLocation(loc))
	}
}

// celeryCron turns crontab()'s arguments (minute, hour, day_of_week,
// day_of_month, month_of_year; by keyword or position, strings or
// numbers) into a five-field cron spec. Celery's day_of_week counts from
// Sunday = 0, as cron does, and takes names.
func celeryCron(args string) (spec, err string) {
	fields := map[string]string{"minute": "*", "hour": "*", "day_of_week": "*", "day_of_month": "*", "month_of_year": "*"}
	order := []string{"minute", "hour", "day_of_week", "day_of_month", "month_of_year"}
	if strings.TrimSpace(args) != "" {
		for i, a := range splitArgs(args) {
			m := pyCrontabArg.FindStringSubmatch(a)
			if m == nil {
				return "", fmt.Sprintf("argument %q is not a literal", strings.TrimSpace(a))
			}
			key := m[1]
			if key == "" {
				if i >= len(order) {
					return "", "too many arguments"
				}
				key = order[i]
			}
			if _, ok := fields[key]; !ok {
				return "", fmt.Sprintf("argument %q is not a crontab field", key)
			}
			fields[key] = m[2] + m[3]
		}
	}
	return fmt.Sprintf("%s %s %s %s %s", fields["minute"], fields["hour"], fields["day_of_month"], fields["month_of_year"], fields["day_of_week"]), ""
}

// scanArgs calls f with the index, byte and bracket depth of every byte
// of a call's argument text s outside quoted strings and other than an
// opening bracket, until f returns false; a closing bracket is given at
// the depth it closes (0 for the call's own ")").
func scanArgs(s string, f func(i int, c byte, depth int) bool) {
	depth, quote := 0, byte(0)
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case quote != 0:
			if c == '\\' {
				i++
			} else if c == quote {
				quote = 0
			}
		case c == '"' || c == '\'':
			quote = c
		case c == '(' || c == '[' || c == '{':
			depth++
		default:
			if !f(i, c, depth) {
				return
			}
			if c == ')' || c == ']' || c == '}' {
				depth--
			}
		}
	}
}

// splitArgs splits a call's argument list at the commas outside quotes
// and brackets.
func splitArgs(s string) []string {
	var out []string
	start := 0
	scanArgs(s, func(i int, c byte, depth int) bool {
		if c == ',' && depth == 0 {
			out = append(out, s[start:i])
			start = i + 1
		}
		return true
	})
	if rest := s[start:]; strings.TrimSpace(rest) != "" {
		out = append(out, rest) // a trailing comma leaves nothing
	}
	return out
}

// callText returns the text of a call's arguments, from just after its
// "(" (the start of s) to its ")", skipping quoted strings and nested
// brackets; all of s when the ")" is missing.
func callText(s string) string {
	end := len(s)
	scanArgs(s, func(i int, c byte, depth int) bool {
		if (c == ')' || c == ']' || c == '}') && depth == 0 {
			end = i
			return false
		}
		return true
	})
	return s[:end]
}

package main

import (
	"fmt"
	"strings"

	"github.com/dstsafe/dstsafe"
)

// This file reads pg_cron: cron.schedule(...) and
// cron.schedule_in_database(...) calls in SQL, in the zone of the
// cron.timezone setting (postgresql.conf, ALTER SYSTEM SET, a parameter
// group in Terraform, CloudNativePG's parameters), read from the file
// itself or a file at or above its directory. pg_cron's default is GMT:
// without the setting, quiet.

var (
	pgCronCall = lazyRE(`(?i)\bcron\.schedule(?:_in_database)?\s*\(`)
	pgCronArg  = lazyRE(`(?s)^\s*(?:(\w+)\s*(?:=>|:=)\s*)?'((?:[^']|'')*)'\s*$`)
)

// sql checks the pg_cron schedules of a SQL file.
func (ck *checker) sql(name, data string) {
	lineOf := func(off int) int { return 1 + strings.Count(data[:off], "\n") }
	calls := pgCronCall.FindAllStringIndex(data, -1)
	if len(calls) == 0 {
		if atRisk([]byte(data)) {
			ck.notUnderstood(name, riskLine([]byte(data)), "SQL", "no pg_cron cron.schedule(...) call; it names a schedule and a zone")
		}
		return
	}
	s, found, why := ck.settingFor(settingPgCron, name)
	if why != "" {
		ck.notUnderstood(name, lineOf(calls[0][0]), "pg_cron", why)
		return
	}
	if !found || isUTC(s.value) {
		return
	}
	for _, c := range calls {
		spec, off, ok := pgCronSchedule(sqlArgs(data[c[1]:]))
		if !ok {
			ck.notUnderstood(name, lineOf(c[0]), "pg_cron", "cron.schedule(...) whose schedule is not a string literal")
			continue
		}
		if !looksLikeCron(spec) {
			continue // '30 seconds', an interval: follows real time
		}
		line := lineOf(c[1] + off)
		if loc, ok := ck.zone(name, line, 0, s.value); ok {
			ck.risky(name, line, 0, spec, s.value, riskSubject{what: fmt.Sprintf("pg_cron schedule %q", spec), zone: s.value + " (cron.timezone)"}, dstsafe.WithLocation(loc))
		}
	}
}

// pgCronSchedule returns the schedule argument of a cron.schedule call
// and its offset in args: by name (schedule => '...'), else the first of
// two arguments (schedule, command) or the second of three or more
// (job_name, schedule, command[, database]).
func pgCronSchedule(parts []string) (string, int, bool) {
	offs := make([]int, len(parts))
	o := 0
	for i, p := range parts {
		offs[i] = o
		o += len(p) + 1
	}
	pick := -1
	for i, p := range parts {
		if m := pgCronArg.FindStringSubmatch(p); m != nil && strings.EqualFold(m[1], "schedule") {
			pick = i
		}
	}
	if pick < 0 {
		switch {
		case len(parts) == 2:
			pick = 0
		case len(parts) >= 3:
			pick = 1
		default:
			return "", 0, false
		}
	}
	m := pgCronArg.FindStringSubmatch(parts[pick])
	if m == nil {
		return "", 0, false
	}
	return strings.ReplaceAll(m[2], "''", "'"), offs[pick] + strings.Index(parts[pick], "'"), true
}

var dollarTag = lazyRE(`^\$[A-Za-z_]*\$`)

// sqlArgs splits the arguments of a call whose "(" ends just before s, up
// to its ")", at the commas outside strings ('...' with ” escapes,
// $$...$$ and $tag$...$tag$) and brackets. Each part keeps its white
// space, so offsets can be summed.
func sqlArgs(s string) []string {
	var out []string
	depth, start := 0, 0
	for i := 0; i < len(s); i++ {
		switch c := s[i]; {
		case c == '\'':
			for i++; i < len(s); i++ {
				if s[i] == '\'' {
					if i+1 < len(s) && s[i+1] == '\'' {
						i++
						continue
					}
					break
				}
			}
		case c == '$':
			if tag := dollarTag.FindString(s[i:]); tag != "" {
				j := strings.Index(s[i+len(tag):], tag)
				if j < 0 {
					return append(out, s[start:])
				}
				i += len(tag) + j + len(tag) - 1
			}
		case c == '(':
			depth++
		case c == ')':
			if depth == 0 {
				return append(out, s[start:i])
			}
			depth--
		case c == ',' && depth == 0:
			out = append(out, s[start:i])
			start = i + 1
		}
	}
	return append(out, s[start:])
}

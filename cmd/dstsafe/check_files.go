package main

import (
	"strconv"
	"strings"
	"unicode"

	"github.com/dstsafe/dstsafe"
)

// logicalLines joins a file's backslash-continued lines, keeping the line
// each logical line starts on.
func logicalLines(data string) (lines []string, starts []int) {
	var cur strings.Builder
	start := 0
	for i, l := range strings.Split(data, "\n") {
		l = strings.TrimRight(l, "\r")
		if cur.Len() == 0 {
			start = i + 1
		}
		if strings.HasSuffix(l, "\\") {
			cur.WriteString(strings.TrimSuffix(l, "\\") + " ")
			continue
		}
		cur.WriteString(l)
		lines, starts = append(lines, cur.String()), append(starts, start)
		cur.Reset()
	}
	if cur.Len() > 0 {
		lines, starts = append(lines, cur.String()), append(starts, start)
	}
	return lines, starts
}

var (
	localtimeRe = lazyRE(`/usr/share/zoneinfo/([A-Za-z0-9_+\-/]+)\s+/etc/localtime`)
	timezoneRe  = lazyRE(`echo\s+["']?([A-Za-z0-9_+\-/]+)["']?\s*>+\s*/etc/timezone`)
)

// dockerfile checks ENV and ARG, in both syntaxes (ENV TZ=Zone, ENV TZ
// Zone), and RUN lines that point /etc/localtime or /etc/timezone at a
// zone.
func (ck *checker) dockerfile(name, data string) {
	lines, starts := logicalLines(data)
	for i, l := range lines {
		line := starts[i]
		trimmed := strings.TrimSpace(l)
		if strings.HasPrefix(trimmed, "#") {
			continue
		}
		instr, args, _ := strings.Cut(trimmed, " ")
		args = strings.TrimSpace(args)
		switch strings.ToUpper(instr) {
		case "ENV", "ARG":
			words := shellWords(args)
			if len(words) == 0 {
				continue
			}
			if !strings.Contains(words[0], "=") {
				// The legacy syntax: ENV TZ America/Chicago (one
				// variable, the rest of the line its value).
				if strings.ToUpper(instr) == "ENV" && words[0] == "TZ" && len(words) > 1 {
					ck.tz(name, line, 0, strings.Join(words[1:], " "))
				}
				continue
			}
			for _, w := range words {
				if k, v, ok := strings.Cut(w, "="); ok && k == "TZ" {
					ck.tz(name, line, 0, v)
				}
			}
		case "RUN":
			for _, re := range []*lazyRegexp{localtimeRe, timezoneRe} {
				if m := re.FindStringSubmatch(l); m != nil && !isUTC(m[1]) {
					ck.add(name, line, 0, "localtime", levelError, localtimeMsg, m[1])
				}
			}
		}
	}
}

// shellWords splits a Dockerfile argument list into words, honouring
// double and single quotes and backslash escapes.
func shellWords(s string) []string {
	var words []string
	var cur strings.Builder
	in, quote, esc := false, rune(0), false
	for _, r := range s {
		switch {
		case esc:
			cur.WriteRune(r)
			esc = false
		case r == '\\' && quote != '\'':
			esc = true
		case quote != 0:
			if r == quote {
				quote = 0
			} else {
				cur.WriteRune(r)
			}
		case r == '"' || r == '\'':
			quote, in = r, true
		case unicode.IsSpace(r):
			if in {
				words = append(words, cur.String())
				cur.Reset()
				in = false
			}
		default:
			cur.WriteRune(r)
			in = true
		}
	}
	if in {
		words = append(words, cur.String())
	}
	return words
}

var envLine = lazyRE(`^\s*(?:export\s+)?([A-Za-z_][A-Za-z0-9_]*)\s*=\s*(.*)$`)

// envFile checks a .env file: KEY=value lines, export prefixes, quotes and
// trailing comments.
func (ck *checker) envFile(name, data string) {
	for i, l := range strings.Split(data, "\n") {
		m := envLine.FindStringSubmatch(l)
		if m == nil || m[1] != "TZ" {
			continue
		}
		ck.tz(name, i+1, 0, envValue(m[2]))
	}
}

// envValue strips a .env value's quotes and trailing comment.
func envValue(v string) string {
	v = strings.TrimSpace(v)
	if len(v) >= 2 && (v[0] == '"' || v[0] == '\'') {
		if j := strings.IndexByte(v[1:], v[0]); j >= 0 {
			return v[1 : j+1]
		}
	}
	if j := strings.Index(v, " #"); j >= 0 {
		v = v[:j]
	}
	return strings.TrimSpace(v)
}

var crontabEnv = lazyRE(`^[A-Za-z_][A-Za-z0-9_]*\s*=`)

func (ck *checker) crontab(name string, lines []string) {
	zone, sawZone, reportedNoZone := "", false, false
	for i, l := range lines {
		l = strings.TrimSpace(l)
		if l == "" || strings.HasPrefix(l, "#") {
			continue
		}
		if v, ok := strings.CutPrefix(l, "CRON_TZ="); ok {
			zone, sawZone = envValue(v), true
			continue
		}
		if v, ok := strings.CutPrefix(l, "TZ="); ok {
			ck.tz(name, i+1, 0, envValue(v))
			continue
		}
		if crontabEnv.MatchString(l) {
			continue
		}
		if !sawZone {
			if !reportedNoZone {
				ck.add(name, i+1, 0, "crontab-no-zone", levelError, "crontab has no CRON_TZ before its first job, so its jobs run in the cron daemon's local zone; add CRON_TZ=UTC (or CRON_TZ=Zone) at the top")
				reportedNoZone = true
			}
			continue
		}
		f := strings.Fields(l)
		var spec string
		switch {
		case strings.HasPrefix(f[0], "@"):
			spec = f[0]
		case len(f) >= 6:
			spec = strings.Join(f[:5], " ")
		default:
			continue
		}
		ck.window(name, i+1, 0, "CRON_TZ="+zone+" "+spec, zone)
	}
}

// timer checks the OnCalendar= settings of a systemd .timer unit.
func (ck *checker) timer(name, data string) {
	section := ""
	lines, starts := logicalLines(data)
	for i, l := range lines {
		l = strings.TrimSpace(l)
		if strings.HasPrefix(l, "[") && strings.HasSuffix(l, "]") {
			section = l
			continue
		}
		k, v, ok := strings.Cut(l, "=")
		if section != "[Timer]" || !ok || strings.TrimSpace(k) != "OnCalendar" || strings.TrimSpace(v) == "" {
			continue
		}
		line := starts[i]
		spec, zone, err := calendarToCron(strings.TrimSpace(v))
		if err != "" {
			ck.notUnderstood(name, line, "systemd timer", "OnCalendar="+strings.TrimSpace(v)+": "+err)
			continue
		}
		if zone == "" {
			ck.add(name, line, 0, "timer-no-zone", levelError, "OnCalendar=%s has no zone, so the timer runs in the machine's local zone; append UTC (or the zone the job must follow)", strings.TrimSpace(v))
			continue
		}
		if isUTC(zone) {
			continue
		}
		loc, ok := ck.zone(name, line, 0, zone)
		if !ok {
			continue
		}
		display := strings.TrimSpace(strings.TrimSuffix(strings.TrimSpace(v), zone))
		ck.windowAs(name, line, 0, spec, display, zone, dstsafe.WithLocation(loc))
	}
}

// calendarShorthands are systemd.time(7)'s named calendar events.
var calendarShorthands = map[string]string{
	"minutely": "*-*-* *:*:00", "hourly": "*-*-* *:00:00", "daily": "*-*-* 00:00:00",
	"monthly": "*-*-01 00:00:00", "weekly": "Mon *-*-* 00:00:00", "yearly": "*-01-01 00:00:00",
	"annually": "*-01-01 00:00:00", "quarterly": "*-01,04,07,10-01 00:00:00", "semiannually": "*-01,07-01 00:00:00",
}

// calendarToCron turns a systemd calendar event ("Mon..Fri *-*-* 01:30:00
// America/Chicago") into a six-field cron spec with seconds and its zone.
// It reads the usual subset: weekdays, a date with * for the year, a time
// of day, lists (,), ranges (..) and repetitions (/), shorthands such as
// daily. Anything else is returned as an error string.
func calendarToCron(ev string) (spec, zone, err string) {
	fields := strings.Fields(ev)
	if len(fields) == 0 {
		return "", "", "empty"
	}
	// A trailing zone: an IANA name or UTC.
	if last := fields[len(fields)-1]; len(fields) > 1 && (strings.Contains(last, "/") || isUTC(last)) {
		zone, fields = last, fields[:len(fields)-1]
	}
	if len(fields) == 1 {
		if s, ok := calendarShorthands[strings.ToLower(fields[0])]; ok {
			fields = strings.Fields(s)
		}
	}
	dow, date, tod := "*", "*-*-*", ""
	for _, f := range fields {
		switch {
		case strings.Contains(f, ":"):
			tod = f
		case strings.Contains(f, "-") && strings.IndexFunc(f, unicode.IsLetter) < 0:
			date = f
		case strings.IndexFunc(f, unicode.IsLetter) >= 0:
			dow = f
		default:
			return "", "", "unsupported field " + strconv.Quote(f)
		}
	}
	if strings.Contains(date, "~") {
		return "", "", "days counted from the end of the month are not checked"
	}
	if tod == "" {
		tod = "00:00:00"
	}
	t := strings.Split(tod, ":")
	if len(t) == 2 {
		t = append(t, "00")
	}
	d := strings.Split(date, "-")
	if len(t) != 3 || len(d) != 3 {
		return "", "", "unsupported date or time"
	}
	if d[0] != "*" {
		return "", "", "a year other than * is not checked"
	}
	conv := func(s string) string { return strings.ReplaceAll(s, "..", "-") }
	wd := "*"
	if dow != "*" {
		wd = strings.ToUpper(conv(dow))
	}
	return strings.Join([]string{conv(t[2]), conv(t[1]), conv(t[0]), conv(d[2]), conv(d[1]), wd}, " "), zone, ""
}

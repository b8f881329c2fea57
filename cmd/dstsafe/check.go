package main

import (
	"bufio"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strings"
	"time"

	"github.com/dstsafe/dstsafe"
	"github.com/dstsafe/dstsafe/cmd/dstsafevet"
)

var checkCmd = &command{
	name:    "check",
	summary: "the postmortem's regression guard for deployment files",
	usage: `Usage: dstsafe check PATH... [--from T] [--json]

Checks deployment files for the settings behind the 2024-11-03 double
billing, and fails (exit 1) when it finds one, printing file:line: message:

  - a Dockerfile, compose file, Kubernetes manifest or .env file that sets
    TZ (or /etc/localtime) to anything but UTC;
  - a cron spec in YAML or JSON (schedule:, cron: ...), a Kubernetes
    CronJob (schedule with timeZone) or a crontab line that names a local
    zone at a fixed time a transition of that zone skips or repeats (in
    the year of --from and the two after it);
  - a crontab without CRON_TZ, whose jobs then run in the daemon's zone.

Directories are walked; .git, vendor, node_modules and testdata are
skipped unless named. Files are recognised by name: Dockerfile*,
Containerfile, *.yaml, *.yml, *.json, .env, crontab, *.crontab, *.cron,
cron.d/*.

Flags:
  --from T       reference instant for the transition window (RFC 3339,
                 default now)
  --json         JSON output
  --zoneinfo DIR read zones from DIR

Examples:
  dstsafe check .
  dstsafe check Dockerfile deploy/k8s/billing-cronjob.yaml ops/crontab
`,
	run: runCheck,
}

type finding struct {
	File    string `json:"file"`
	Line    int    `json:"line"`
	Check   string `json:"check"`
	Message string `json:"message"`
}

type checker struct {
	from     time.Time
	findings []finding
}

func runCheck(c *cmdContext, args []string) error {
	fromFlag := c.fs.String("from", "", "")
	pos, err := c.parse(args, 1, -1)
	if err != nil {
		return err
	}
	from := c.now()
	if *fromFlag != "" {
		if from, err = time.Parse(time.RFC3339Nano, *fromFlag); err != nil {
			return usagef("bad --from %q: want an RFC 3339 instant such as 2024-11-01T00:00:00Z", *fromFlag)
		}
	}
	ck := &checker{from: time.Date(from.UTC().Year(), time.January, 1, 0, 0, 0, 0, time.UTC)}
	var files []string
	for _, p := range pos {
		st, err := os.Stat(p)
		if err != nil {
			return usagef("bad PATH %q: %v", p, unwrapPathErr(err))
		}
		if !st.IsDir() {
			files = append(files, p)
			continue
		}
		err = filepath.WalkDir(p, func(path string, d fs.DirEntry, err error) error {
			if err != nil {
				return err
			}
			if d.IsDir() {
				switch d.Name() {
				case ".git", "vendor", "node_modules", "testdata":
					if path != p {
						return filepath.SkipDir
					}
				}
				return nil
			}
			if kindOf(path) != "" {
				files = append(files, path)
			}
			return nil
		})
		if err != nil {
			return usagef("bad PATH %q: %v", p, unwrapPathErr(err))
		}
	}
	checked := 0
	for _, f := range files {
		kind := kindOf(f)
		if kind == "" {
			kind = "yaml" // named explicitly: read it as key: value lines
		}
		data, err := os.ReadFile(f)
		if err != nil {
			return usagef("bad PATH %q: %v", f, unwrapPathErr(err))
		}
		checked++
		ck.file(f, kind, string(data))
	}
	sort.SliceStable(ck.findings, func(i, j int) bool {
		a, b := ck.findings[i], ck.findings[j]
		if a.File != b.File {
			return a.File < b.File
		}
		return a.Line < b.Line
	})
	if c.json {
		out := struct {
			FilesChecked int       `json:"files_checked"`
			Findings     []finding `json:"findings"`
		}{checked, ck.findings}
		if out.Findings == nil {
			out.Findings = []finding{}
		}
		if err := writeJSON(c.stdout, out); err != nil {
			return err
		}
	} else {
		for _, f := range ck.findings {
			fmt.Fprintf(c.stdout, "%s:%d: %s\n", f.File, f.Line, f.Message)
		}
		if len(ck.findings) == 0 {
			fmt.Fprintf(c.stdout, "%d file(s) checked, no findings\n", checked)
		} else {
			fmt.Fprintf(c.stderr, "%d file(s) checked, %d finding(s)\n", checked, len(ck.findings))
		}
	}
	if len(ck.findings) > 0 {
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

// kindOf says how to read a file, by its name: "docker", "yaml" (also
// JSON and .env: key/value lines), "crontab", or "" to ignore it.
func kindOf(path string) string {
	base := filepath.Base(path)
	lower := strings.ToLower(base)
	switch {
	case lower == "dockerfile" || strings.HasPrefix(lower, "dockerfile.") || strings.HasSuffix(lower, ".dockerfile") || lower == "containerfile":
		return "docker"
	case lower == "crontab" || strings.HasSuffix(lower, ".crontab") || strings.HasSuffix(lower, ".cron") || filepath.Base(filepath.Dir(path)) == "cron.d":
		return "crontab"
	case strings.HasSuffix(lower, ".yaml"), strings.HasSuffix(lower, ".yml"), strings.HasSuffix(lower, ".json"), lower == ".env", strings.HasSuffix(lower, ".env"):
		return "yaml"
	}
	return ""
}

func (ck *checker) add(file string, line int, check, format string, args ...any) {
	ck.findings = append(ck.findings, finding{File: file, Line: line, Check: check, Message: fmt.Sprintf(format, args...)})
}

// utcNames are TZ values that mean UTC.
var utcNames = map[string]bool{"utc": true, "etc/utc": true, "uct": true, "etc/uct": true, "universal": true,
	"etc/universal": true, "zulu": true, "etc/zulu": true, "gmt": true, "etc/gmt": true, "gmt0": true, "etc/gmt0": true,
	"etc/gmt+0": true, "etc/gmt-0": true, "greenwich": true, "etc/greenwich": true, "utc0": true}

func isUTC(zone string) bool { return utcNames[strings.ToLower(strings.TrimPrefix(zone, ":"))] }

const tzMsg = "TZ=%s puts the process's local time in a zone other than UTC, so wall-clock logic and zone-less cron specs in it repeat or skip times when the zone changes offset; set TZ=UTC and name zones explicitly in schedules (CRON_TZ=Zone)"

var (
	dockerTZ     = regexp.MustCompile(`^\s*(?:ENV|ARG)\s+(?:.*\s)?TZ(?:=|\s+)"?([^"\s]+)"?`)
	localtimeRe  = regexp.MustCompile(`/usr/share/zoneinfo/([A-Za-z0-9_+\-/]+)\s+/etc/localtime`)
	jsonPair     = regexp.MustCompile(`"([A-Za-z_][A-Za-z0-9_]*)"\s*:\s*"([^"]*)"`)
	keyValue     = regexp.MustCompile(`^\s*(?:-\s*)?["']?([A-Za-z_][A-Za-z0-9_]*)["']?\s*[:=]\s*(.*?)\s*,?\s*$`)
	k8sEnvName   = regexp.MustCompile(`^\s*-?\s*["']?name["']?\s*:\s*["']?TZ["']?\s*,?\s*$`)
	k8sEnvValue  = regexp.MustCompile(`^\s*["']?value["']?\s*:\s*["']?([^"'\s,]+)`)
	scheduleKeys = map[string]bool{"schedule": true, "cron": true, "cronspec": true, "cron_spec": true, "crontab": true, "cron_schedule": true, "cronschedule": true}
)

func (ck *checker) file(name, kind, data string) {
	lines := strings.Split(data, "\n")
	switch kind {
	case "docker":
		for i, l := range lines {
			if m := dockerTZ.FindStringSubmatch(l); m != nil && !isUTC(m[1]) {
				ck.add(name, i+1, "tz", tzMsg, m[1])
			}
			if m := localtimeRe.FindStringSubmatch(l); m != nil && !isUTC(m[1]) {
				ck.add(name, i+1, "tz", "/etc/localtime set to %s puts the container's local time in a zone other than UTC, so wall-clock logic in it repeats or skips times; leave it UTC and name zones explicitly in schedules (CRON_TZ=Zone)", m[1])
			}
		}
	case "crontab":
		ck.crontab(name, lines)
	default:
		ck.keyValues(name, lines)
	}
}

// keyValues reads YAML, JSON and .env files line by line, document by
// document (---), without a YAML parser: TZ settings, Kubernetes env
// entries, schedules and timeZone fields.
func (ck *checker) keyValues(name string, lines []string) {
	type spec struct {
		line  int
		value string
	}
	var specs []spec
	docZone, docZoneLine, cronJob := "", 0, false
	flush := func() {
		for _, s := range specs {
			zone, _ := dstsafevet.SplitZone(s.value)
			if cronJob && zone != "" {
				ck.add(name, s.line, "k8s", "a Kubernetes CronJob's schedule cannot carry a CRON_TZ= or TZ= prefix (the API server rejects it or ignores the zone); put the zone in spec.timeZone")
			}
			var opts []dstsafe.CronOption
			if zone == "" && docZone != "" {
				zone = docZone
				loc, err := time.LoadLocation(docZone)
				if err != nil {
					ck.add(name, docZoneLine, "zone", "timeZone %q is not in the tz database, so the schedule will not run; use an IANA name such as America/Chicago or Etc/UTC", docZone)
					continue
				}
				opts = append(opts, dstsafe.WithLocation(loc))
			}
			ck.window(name, s.line, s.value, zone, opts...)
		}
		specs, docZone, docZoneLine, cronJob = nil, "", 0, false
	}
	for i, l := range lines {
		if strings.TrimSpace(l) == "---" {
			flush()
			continue
		}
		if k8sEnvName.MatchString(l) {
			for j := i + 1; j < len(lines) && j <= i+2; j++ {
				if m := k8sEnvValue.FindStringSubmatch(lines[j]); m != nil {
					if !isUTC(m[1]) {
						ck.add(name, j+1, "tz", tzMsg, m[1])
					}
					break
				}
			}
			continue
		}
		var pairs [][2]string
		for _, m := range jsonPair.FindAllStringSubmatch(l, -1) {
			pairs = append(pairs, [2]string{m[1], m[2]})
		}
		if m := keyValue.FindStringSubmatch(l); pairs == nil && m != nil {
			pairs = append(pairs, [2]string{m[1], unquote(m[2])})
		}
		for _, p := range pairs {
			if p[0] == "kind" && p[1] == "CronJob" {
				cronJob = true
			}
			ck.pair(name, i+1, p[0], p[1], &docZone, &docZoneLine, func(line int, v string) { specs = append(specs, spec{line, v}) })
		}
	}
	flush()
}

func (ck *checker) pair(name string, line int, key, val string, docZone *string, docZoneLine *int, addSpec func(int, string)) {
	switch {
	case key == "TZ":
		if val != "" && !isUTC(val) {
			ck.add(name, line, "tz", tzMsg, val)
		}
	case key == "timeZone" || key == "time_zone" || key == "timezone":
		*docZone, *docZoneLine = val, line
	case scheduleKeys[strings.ToLower(key)] && looksLikeCron(val):
		addSpec(line, val)
	}
}

// unquote strips a YAML/JSON scalar's quotes and trailing comment.
func unquote(v string) string {
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

func looksLikeCron(v string) bool {
	zone, rest := dstsafevet.SplitZone(v)
	_ = zone
	if strings.HasPrefix(rest, "@") {
		return true
	}
	n := len(strings.Fields(rest))
	return n == 5 || n == 6
}

// window reports a fixed-time spec in a local zone whose time a transition
// skips or repeats.
func (ck *checker) window(name string, line int, spec, zone string, opts ...dstsafe.CronOption) {
	if zone == "" || isUTC(zone) {
		return
	}
	cr, err := dstsafevet.ParseSpec(spec, opts...)
	if err != nil {
		if dstsafevet.IsZoneError(err) {
			ck.add(name, line, "zone", "zone %q is not in the tz database, so the schedule will not run; use an IANA name such as America/Chicago or Etc/UTC", zone)
		}
		return
	}
	risks := dstsafevet.WindowRisks(cr, ck.from, ck.from.AddDate(3, 0, 0))
	if len(risks) == 0 {
		return
	}
	_, rest := dstsafevet.SplitZone(spec)
	ck.add(name, line, "window", "schedule %q in %s is a fixed time inside a transition window (%s), so it runs twice, an hour off or not at all depending on the scheduler; move it outside the window or schedule it in UTC", rest, zone, risks[0])
}

func (ck *checker) crontab(name string, lines []string) {
	zone, sawZone, reportedNoZone := "", false, false
	sc := bufio.NewScanner(strings.NewReader(strings.Join(lines, "\n")))
	sc.Buffer(make([]byte, 1<<20), 1<<20)
	for i := 0; sc.Scan(); i++ {
		l := strings.TrimSpace(sc.Text())
		if l == "" || strings.HasPrefix(l, "#") {
			continue
		}
		if v, ok := strings.CutPrefix(l, "CRON_TZ="); ok {
			zone, sawZone = unquote(v), true
			continue
		}
		if v, ok := strings.CutPrefix(l, "TZ="); ok {
			if v = unquote(v); !isUTC(v) {
				ck.add(name, i+1, "tz", tzMsg, v)
			}
			continue
		}
		if env := regexp.MustCompile(`^[A-Za-z_][A-Za-z0-9_]*\s*=`); env.MatchString(l) {
			continue
		}
		if !sawZone {
			if !reportedNoZone {
				ck.add(name, i+1, "crontab", "crontab has no CRON_TZ before its first job, so its jobs run in the cron daemon's local zone; add CRON_TZ=UTC (or CRON_TZ=Zone) at the top")
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
		ck.window(name, i+1, "CRON_TZ="+zone+" "+spec, zone)
	}
}

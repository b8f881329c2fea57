package main

import (
	"regexp"
	"strconv"
	"strings"

	"go.yaml.in/yaml/v3"

	"github.com/dstsafe/dstsafe"
	"github.com/dstsafe/dstsafe/cmd/dstsafevet"
)

// This file reads schedules that live outside Kubernetes and crontabs: AWS
// EventBridge Scheduler (YAML, JSON, CloudFormation, Terraform) and
// Airflow DAG files.

const (
	ebGapMsg = "EventBridge Scheduler %s in %s is a fixed time inside a transition window (%s); AWS documents that EventBridge Scheduler skips an invocation whose time does not exist on the spring-forward day, so the job does not run that day (and runs once, not twice, when the clocks go back); " +
		"move it outside %s, or set ScheduleExpressionTimezone to UTC and convert the time"
	ebFoldMsg  = "EventBridge Scheduler %s in %s is a fixed time the clocks repeat (%s); AWS documents that EventBridge Scheduler runs it once when the clocks go back, not twice (it does not say which of the two readings), so it may run %s off that day"
	airflowMsg = "Airflow schedule %q in %s is a fixed time inside a transition window (%s), so the DAG runs twice, %s off or not at all around the transition, depending on the Airflow version and timetable; " +
		"move it outside %s, schedule it in UTC, or make each run claim its logical date in a ledger (dstsafe exec --ledger URL --job DAG --schedule 'CRON_TZ=%s %s' -- CMD...)"
)

// eventBridge checks a mapping with an EventBridge Scheduler schedule:
// ScheduleExpression: cron(...) with ScheduleExpressionTimezone (an
// AWS::Scheduler::Schedule's Properties, a SAM ScheduleV2 event, the
// create-schedule JSON). Without a zone the schedule is in UTC, and so are
// EventBridge rules (AWS::Events::Rule), which take no zone: both quiet.
func (ck *checker) eventBridge(name string, n *yaml.Node) {
	var expr, tz *yaml.Node
	for _, kv := range entries(n) {
		switch normKey(kv.key) {
		case "scheduleexpression":
			expr = kv.value
		case "scheduleexpressiontimezone":
			tz = kv.value
		case "rate":
			// Serverless Framework: events: - schedule: {method:
			// scheduler, rate: cron(...), timezone: Zone}.
			if v := resolve(kv.value); v != nil && v.Kind == yaml.ScalarNode && strings.HasPrefix(v.Value, "cron(") {
				expr = v
			}
		case "timezone":
			if strings.EqualFold(scalar(get(n, "method")), "scheduler") {
				tz = kv.value
			}
		}
	}
	expr, tz = resolve(expr), resolve(tz)
	if expr == nil || expr.Kind != yaml.ScalarNode || tz == nil || tz.Kind != yaml.ScalarNode {
		return
	}
	ck.awsCron(name, expr.Line, expr.Column, expr.Value, tz.Line, tz.Column, tz.Value)
}

// normKey folds the spellings of one key: ScheduleExpression (CloudFormation),
// scheduleExpression (Pulumi), schedule_expression (Terraform JSON).
func normKey(k string) string {
	return strings.ToLower(strings.NewReplacer("_", "", "-", "").Replace(k))
}

// awsCron checks an EventBridge Scheduler cron(...) expression in a zone.
func (ck *checker) awsCron(name string, line, col int, expr string, zline, zcol int, zone string) {
	spec, ok := awsCronSpec(expr)
	if !ok || zone == "" || isUTC(zone) {
		return
	}
	loc, ok := ck.zone(name, zline, zcol, zone)
	if !ok {
		return
	}
	cr, err := dstsafevet.ParseSpec(spec, dstsafe.WithLocation(loc))
	if err != nil {
		return
	}
	risks := dstsafevet.WindowRisks(cr, ck.from, ck.from.AddDate(3, 0, 0))
	for _, r := range risks {
		if r.Transition.Kind == dstsafe.Gap {
			ck.add(name, line, col, "window", levelError, ebGapMsg, expr, zone, r, windowOnly(r))
			return
		}
	}
	if len(risks) > 0 {
		ck.add(name, line, col, "window", levelNote, ebFoldMsg, expr, zone, risks[0], risks[0].Shift())
	}
}

// windowOnly is the readings a risk's transition skips or repeats
// ("02:00-03:00").
func windowOnly(r dstsafevet.Risk) string {
	w, _, _ := strings.Cut(r.Window(), " ")
	return w
}

// awsCronSpec turns an EventBridge cron(minutes hours day-of-month month
// day-of-week year) into a five-field spec: ? becomes *, AWS's
// day-of-week numbers (1 = Sunday) become cron's (0 = Sunday), the year is
// dropped. A day field with L, W or # is read as * (every day: the check
// may then report a day the schedule skips).
func awsCronSpec(expr string) (string, bool) {
	inner, ok := strings.CutPrefix(strings.TrimSpace(expr), "cron(")
	if !ok {
		return "", false
	}
	inner, ok = strings.CutSuffix(inner, ")")
	if !ok {
		return "", false
	}
	f := strings.Fields(inner)
	if len(f) != 6 {
		return "", false
	}
	dom, dow := f[2], f[4]
	if dom == "?" || strings.ContainsAny(dom, "LW#") {
		dom = "*"
	}
	switch {
	case dow == "?" || strings.ContainsAny(dow, "#/") || awsLastDay.MatchString(dow):
		dow = "*"
	default:
		dow = awsDayNumber.ReplaceAllStringFunc(dow, func(s string) string {
			n, _ := strconv.Atoi(s)
			return strconv.Itoa((n + 6) % 7)
		})
	}
	return strings.Join([]string{f[0], f[1], dom, f[3], dow}, " "), true
}

var (
	awsDayNumber = lazyRE(`\d+`)
	awsLastDay   = lazyRE(`^L$|\dL`) // 6L: the last Friday
)

var (
	hclSchedule = lazyRE(`(?m)^[ \t]*(schedule_expression|schedule|cron)[ \t]*=[ \t]*"([^"]*)"`)
	hclCrons    = lazyRE(`(?m)^[ \t]*crons[ \t]*=[ \t]*\[([^\]]*)\]`)
	hclString   = lazyRE(`"([^"]*)"`)
	hclZone     = lazyRE(`(?m)^[ \t]*(schedule_expression_timezone|time_zone|timezone)[ \t]*=[ \t]*"([^"]*)"`)
)

// hcl checks the schedules of a Terraform, Nomad or other HCL file, read
// attribute by attribute (a small reader, not an HCL parser): in the block
// that holds it, a schedule_expression = "cron(...)" with
// schedule_expression_timezone (aws_scheduler_schedule; an
// aws_cloudwatch_event_rule has no zone and runs in UTC), or a schedule or
// cron = "M H * * *" with time_zone or timezone (google_cloud_scheduler_job,
// a Nomad periodic block). Values must be string literals: a variable or
// an interpolation is not followed.
func (ck *checker) hcl(name, data string) {
	lineOf := func(off int) int { return 1 + strings.Count(data[:off], "\n") }
	type attrValue struct {
		attr    string
		at, off int // the attribute's offset, the value's
		val     string
	}
	var values []attrValue
	for _, m := range hclSchedule.FindAllStringSubmatchIndex(data, -1) {
		values = append(values, attrValue{data[m[2]:m[3]], m[0], m[4], data[m[4]:m[5]]})
	}
	// A Nomad periodic block's crons = ["...", "..."], over one line or
	// several.
	for _, m := range hclCrons.FindAllStringSubmatchIndex(data, -1) {
		for _, q := range hclString.FindAllStringSubmatchIndex(data[m[2]:m[3]], -1) {
			values = append(values, attrValue{"cron", m[0], m[2] + q[2], data[m[2]+q[2] : m[2]+q[3]]})
		}
	}
	for _, v := range values {
		attr, val := v.attr, v.val
		if strings.Contains(val, "${") {
			continue
		}
		start, end := enclosingBlock(data, v.at)
		block := data[start:end]
		zone, zoneOff := "", 0
		if z := hclZone.FindStringSubmatchIndex(block); z != nil {
			zone, zoneOff = block[z[4]:z[5]], start+z[4]
		}
		if zone == "" || strings.Contains(zone, "${") {
			continue
		}
		switch {
		case attr == "schedule_expression":
			ck.awsCron(name, lineOf(v.off), 0, val, lineOf(zoneOff), 0, zone)
		case looksLikeCron(val) && !isUTC(zone):
			loc, ok := ck.zone(name, lineOf(zoneOff), 0, zone)
			if ok {
				ck.windowAs(name, lineOf(v.off), 0, val, val, zone, dstsafe.WithLocation(loc))
			}
		}
	}
}

// enclosingBlock returns the offsets of the innermost { ... } block around
// off, or the whole text at top level. Braces inside strings come in
// pairs ("${var.zone}") and cancel out.
func enclosingBlock(s string, off int) (int, int) {
	depth := 0
	for i := off - 1; i >= 0; i-- {
		switch s[i] {
		case '}':
			depth++
		case '{':
			if depth == 0 {
				return i, i + len(hclBlock(s, i))
			}
			depth--
		}
	}
	return 0, len(s)
}

var (
	shAWS      = lazyRE(`--schedule-expression[ =]+["']?(cron\([^)]*\))`)
	shAWSZone  = lazyRE(`--schedule-expression-timezone[ =]+["']?([A-Za-z_]+(?:/[A-Za-z0-9_+\-]+)*)`)
	shGcloud   = lazyRE(`\bgcloud\b.*\bscheduler\s+jobs\s+(?:create|update)\b`)
	shSchedule = lazyRE(`--schedule[ =]+(?:"([^"]*)"|'([^']*)')`)
	shTimeZone = lazyRE(`--time-zone[ =]+["']?([A-Za-z_]+(?:/[A-Za-z0-9_+\-]+)*)`)
)

// shell checks the schedules a shell script creates: aws scheduler
// create-schedule/update-schedule --schedule-expression 'cron(...)'
// --schedule-expression-timezone Zone, and gcloud scheduler jobs create
// --schedule '...' --time-zone Zone, on one logical line (backslash
// continuations joined).
func (ck *checker) shell(name, data string) {
	lines, starts := logicalLines(data)
	for i, l := range lines {
		if strings.HasPrefix(strings.TrimSpace(l), "#") {
			continue
		}
		if m := shAWS.FindStringSubmatch(l); m != nil {
			if z := shAWSZone.FindStringSubmatch(l); z != nil {
				ck.awsCron(name, starts[i], 0, m[1], starts[i], 0, z[1])
			}
			continue
		}
		if shGcloud.MatchString(l) {
			m, z := shSchedule.FindStringSubmatch(l), shTimeZone.FindStringSubmatch(l)
			if m == nil || z == nil || isUTC(z[1]) {
				continue
			}
			spec := m[1] + m[2]
			if loc, ok := ck.zone(name, starts[i], 0, z[1]); ok && looksLikeCron(spec) {
				ck.windowAs(name, starts[i], 0, spec, spec, z[1], dstsafe.WithLocation(loc))
			}
		}
	}
}

// hclBlock returns the text of the block whose { is at open, up to its
// matching }, skipping braces inside strings and comments.
func hclBlock(s string, open int) string {
	depth, inStr := 0, false
	for i := open; i < len(s); i++ {
		c := s[i]
		switch {
		case inStr:
			if c == '\\' {
				i++
			} else if c == '"' {
				inStr = false
			}
		case c == '"':
			inStr = true
		case c == '#' || c == '/' && i+1 < len(s) && s[i+1] == '/':
			for i < len(s) && s[i] != '\n' {
				i++
			}
		case c == '{':
			depth++
		case c == '}':
			depth--
			if depth == 0 {
				return s[open : i+1]
			}
		}
	}
	return s[open:]
}

var (
	pyAirflow     = lazyRE(`(?m)^\s*(from|import)\s+airflow\b`)
	pySchedule    = lazyRE(`\bschedule(?:_interval)?\s*=\s*(?:r?["']([^"']+)["'])`)
	pyTimetable   = lazyRE(`\bCron(?:Trigger|DataInterval|PartitionTimetable)?Timetable\(\s*(?:cron\s*=\s*)?["']([^"']+)["']\s*,\s*timezone\s*=\s*([^,)]+(?:\([^)]*\))?)`)
	pyZoneCall    = lazyRE(`\b(?:pendulum\.)?(?:timezone|tz\.timezone|tz\.gettz|ZoneInfo|pytz\.timezone)\(\s*["']([^"']+)["']`)
	pyZoneKwarg   = lazyRE(`\b(?:tz|tzinfo|timezone)\s*=\s*(?:["']([^"']+)["']|(\w+))`)
	pyZoneAssign  = lazyRE(`(?m)^\s*(\w+)\s*=\s*(?:["']([A-Za-z_]+/[A-Za-z_/+-]+|UTC)["']|(?:pendulum\.)?(?:timezone|tz\.timezone|ZoneInfo|pytz\.timezone)\(\s*["']([^"']+)["']\s*\))`)
	pyStartDate   = lazyRE(`\bstart_date["']?\s*[=:]`)
	pyLocalTZName = lazyRE(`^\s*["']([^"']+)["']\s*$`)
)

// airflow checks an Airflow DAG file, read with regular expressions, not
// as Python: a schedule="M H * * *" (or schedule_interval=) takes its zone
// from the start_date's zone (pendulum.datetime(..., tz="Zone"),
// tz=pendulum.timezone("Zone"), tzinfo=a variable assigned one of them);
// CronTriggerTimetable("M H * * *", timezone=...) and
// CronDataIntervalTimetable name theirs. A schedule without a zone runs
// in Airflow's default_timezone (UTC unless airflow.cfg says otherwise):
// quiet. The zone is the last one written before the schedule, else the
// first after it.
func (ck *checker) airflow(name, data string) {
	if !pyAirflow.MatchString(data) {
		return
	}
	vars := map[string]string{}
	for _, m := range pyZoneAssign.FindAllStringSubmatch(data, -1) {
		vars[m[1]] = m[2] + m[3]
	}
	zoneOf := func(expr string) string {
		expr = strings.TrimSpace(expr)
		if m := pyZoneCall.FindStringSubmatch(expr); m != nil {
			return m[1]
		}
		if m := pyLocalTZName.FindStringSubmatch(expr); m != nil {
			return m[1]
		}
		return vars[expr]
	}
	// Zones a start_date names, by offset.
	type zoneAt struct {
		off  int
		zone string
	}
	var zones []zoneAt
	for _, sd := range pyStartDate.FindAllStringIndex(data, -1) {
		arg := pyArgument(data[sd[1]:])
		z := ""
		if m := pyZoneCall.FindStringSubmatch(arg); m != nil {
			z = m[1]
		} else if m := pyZoneKwarg.FindStringSubmatch(arg); m != nil {
			z = m[1]
			if z == "" {
				z = vars[m[2]]
			}
		} else if m := regexp.MustCompile(`pendulum\.(?:datetime|now|today)\([^)]*["']([A-Za-z_]+/[A-Za-z_/+-]+)["']`).FindStringSubmatch(arg); m != nil {
			z = m[1]
		}
		if z != "" {
			zones = append(zones, zoneAt{sd[0], z})
		}
	}
	zoneNear := func(off int) string {
		z := ""
		for _, za := range zones {
			if za.off < off {
				z = za.zone
			}
		}
		if z == "" && len(zones) > 0 {
			z = zones[0].zone
		}
		return z
	}
	lineOf := func(off int) int { return 1 + strings.Count(data[:off], "\n") }
	for _, m := range pyTimetable.FindAllStringSubmatchIndex(data, -1) {
		spec, zexpr := data[m[2]:m[3]], data[m[4]:m[5]]
		ck.airflowSpec(name, lineOf(m[2]), spec, zoneOf(zexpr))
	}
	for _, m := range pySchedule.FindAllStringSubmatchIndex(data, -1) {
		spec := data[m[2]:m[3]]
		if !looksLikeCron(spec) {
			continue
		}
		ck.airflowSpec(name, lineOf(m[2]), spec, zoneNear(m[0]))
	}
}

// pyArgument returns the expression at the start of s: up to the first
// comma or newline outside parentheses (pendulum.datetime(2024, 1, 1,
// tz="America/Chicago") over several lines).
func pyArgument(s string) string {
	depth := 0
	for i := 0; i < len(s) && i < 1000; i++ {
		switch s[i] {
		case '(', '[', '{':
			depth++
		case ')', ']', '}':
			if depth == 0 {
				return s[:i]
			}
			depth--
		case ',', '\n':
			if depth == 0 {
				return s[:i]
			}
		}
	}
	return s[:min(len(s), 1000)]
}

// airflowSpec checks one Airflow cron schedule in its zone.
func (ck *checker) airflowSpec(name string, line int, spec, zone string) {
	if zone == "" || isUTC(zone) {
		return
	}
	loc, ok := ck.zone(name, line, 0, zone)
	if !ok {
		return
	}
	cr, err := dstsafevet.ParseSpec(spec, dstsafe.WithLocation(loc))
	if err != nil {
		return
	}
	risks := dstsafevet.WindowRisks(cr, ck.from, ck.from.AddDate(3, 0, 0))
	if len(risks) == 0 {
		return
	}
	r := risks[0]
	ck.add(name, line, 0, "window", levelError, airflowMsg, spec, zone, r, r.Shift(), windowOnly(r), zone, spec)
}

func shellQuote(s string) string {
	if s != "" && !strings.ContainsAny(s, " \t\n'\"$`\\*?;&|<>()") {
		return s
	}
	return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
}

var (
	tsScheduleExpr = lazyRE("\\bscheduleExpression\\s*:\\s*['\"`](cron\\([^)]*\\))['\"`]")
	tsScheduleZone = lazyRE("\\bscheduleExpressionTimezone\\s*:\\s*['\"`]([^'\"`]+)['\"`]")
)

// cdk checks TypeScript or JavaScript for an EventBridge Scheduler
// schedule written as an object literal (a CDK CfnSchedule's props, the
// AWS SDK's CreateScheduleCommand input): scheduleExpression: 'cron(...)'
// with scheduleExpressionTimezone in the same braces. Other files that
// name a schedule and a zone are not understood.
func (ck *checker) cdk(name, data string) {
	lineOf := func(off int) int { return 1 + strings.Count(data[:off], "\n") }
	found := false
	for _, m := range tsScheduleExpr.FindAllStringSubmatchIndex(data, -1) {
		found = true
		start, end := enclosingBlock(data, m[0])
		z := tsScheduleZone.FindStringSubmatchIndex(data[start:end])
		if z == nil {
			continue // EventBridge Scheduler's default zone is UTC
		}
		ck.awsCron(name, lineOf(m[2]), 0, data[m[2]:m[3]], lineOf(start+z[2]), 0, data[start+z[2]:start+z[3]])
	}
	if !found && atRisk([]byte(data)) {
		ck.notUnderstood(name, riskLine([]byte(data)), "TypeScript/JavaScript", "no scheduleExpression: 'cron(...)' object literal; it names a schedule and a zone")
	}
}

package dstsafevet

import (
	"errors"
	"fmt"
	"go/ast"
	"go/constant"
	"go/token"
	"go/types"
	"strings"
	"time"

	"golang.org/x/tools/go/analysis"

	"github.com/dstsafe/dstsafe"
)

// CronSpec reports cron spec literals passed to dstsafe.ParseCron,
// robfig/cron (ParseStandard, Parser.Parse, Cron.AddFunc, Cron.AddJob) or
// gocron (v2 CronJob, v1 Scheduler.Cron and CronWithSeconds), and the
// times of gocron's at-time jobs (v2 NewAtTime in DailyJob, WeeklyJob,
// MonthlyJob; v1 At("01:30")):
//
//   - without a CRON_TZ= or TZ= prefix and without a scheduler option that
//     sets the zone, since the zone then depends on the library (dstsafe:
//     UTC; robfig/cron and gocron: the machine's zone); @every intervals
//     need none. The suggested fix prefixes CRON_TZ=UTC;
//   - with a zone, from the prefix or from the scheduler
//     (cron.New(cron.WithLocation(loc)), gocron.NewScheduler(
//     gocron.WithLocation(loc)), gocron v1 NewScheduler(loc)), and a fixed
//     time that one of the zone's transitions skips or repeats on a day
//     the job runs (its day-of-month and day-of-week fields; gocron's
//     weekdays and month days), from the day of the run for three years
//     (01:30 in America/Chicago), named with the date, the window, what
//     happens (a skipped time runs late or not at all; a repeated one runs
//     twice) and the real size of the shift (30 minutes in
//     Australia/Lord_Howe). UTC by any name, fixed zones and zones without
//     DST are quiet. A location this check cannot name (time.Local, one loaded from
//     configuration) reports a fixed time at 00:00-03:59, the hours in
//     which zones with DST change their clocks;
//   - with a zone the tz database does not know.
//
// dstsafe.ParseCron specs are never reported for their window: the dstsafe
// Scheduler runs a repeated time once and a skipped one at the end of the
// gap, and claims each period in a ledger (the library's own advice).
//
// The spec may be a constant, or a value that only constants flow into:
// a package variable, a field of a configuration struct set in a
// composite literal, a map or slice element, a range variable over them
// (the key of a map[string]func() table included),
// the result of a function of the package. The diagnostic is reported
// where the constant is written.
var CronSpec = newAnalyzer(&analysis.Analyzer{
	Name: "cronspec",
	Doc:  "report cron specs without a zone, or at a fixed time inside their zone's DST transition window",
	URL:  "https://pkg.go.dev/github.com/dstsafe/dstsafe/cmd/dstsafevet#CronSpec",
	Run:  runCronSpec,
})

const (
	noZoneMsg = "cronspec: without a zone prefix the spec's zone depends on the library (dstsafe: UTC; robfig/cron and gocron: the machine's local zone); " +
		"prefix it with CRON_TZ=UTC, or CRON_TZ=Zone for a job that must follow local time"
	windowMsg = "cronspec: %s in %s: %s, so %s; " +
		"move it outside the window, schedule it in UTC, or run it with dstsafe.ParseCron and the dstsafe Scheduler, which claims each period in a dstsafe.Ledger"
	unknownZoneMsg = "cronspec: %s runs at %s in a zone this check cannot name (time.Local or a location from configuration); zones with DST change their clocks between 00:00 and 04:00, so a fixed time then runs twice or not at all on transition days; " +
		"name the zone (UTC, or one whose transitions miss the time), or run it with dstsafe.ParseCron and the dstsafe Scheduler"
	badZoneMsg = "cronspec: zone %q is rejected (%s), so the spec fails to parse at run time; name an IANA zone such as America/Chicago or UTC"
)

// now is the reference for the transition window; tests may pin it.
var now = time.Now

func runCronSpec(pass *analysis.Pass) (any, error) {
	fs := files(pass)
	r := newReporter(pass, fs)
	t := flow(pass)
	for _, f := range fs {
		ast.Inspect(f, func(n ast.Node) bool {
			call, ok := n.(*ast.CallExpr)
			if !ok || len(call.Args) == 0 {
				return true
			}
			fn := calleeFunc(pass, call)
			if fn == nil {
				return true
			}
			if t.checkAtTimes(r, fn, call) {
				return true
			}
			lib, zoneFromOptions := cronLibrary(fn, call)
			if lib == "" {
				return true
			}
			sz := specZone{lib: lib, fromOptions: zoneFromOptions}
			var loc ast.Expr
			switch {
			case zoneFromOptions:
			case lib == "robfig/cron":
				loc = t.robfigLocation(call)
			case lib == "gocron":
				loc = t.gocronLocation(call)
			}
			if loc != nil {
				sz.fromOptions = true
				sz.name, sz.known = t.locZone(loc, 0)
			}
			sz.gapHandled = lib == "gocron" && t.gocronGapPolicy(call)
			for _, src := range t.specSources(call.Args[0], 0) {
				spec, _ := constString(pass, src)
				checkSpec(r, src, spec, sz)
			}
			return true
		})
	}
	return nil, nil
}

// specZone says where a spec without a CRON_TZ= prefix gets its zone: from
// a scheduler option (WithLocation) whose zone this check can name (known)
// or not (time.Local, a location loaded from configuration).
type specZone struct {
	lib         string
	fromOptions bool
	known       bool
	name        string // "UTC" for every zone without transitions
	// gapHandled: the gocron job sets WithDaylightSavingsTimePolicy, which
	// decides what a skipped time does (run after the transition, or
	// skip); a repeated time still runs twice.
	gapHandled bool
}

// cronLibrary reports which scheduling library fn belongs to when its
// first argument is a cron spec, and whether options may set the zone.
func cronLibrary(fn *types.Func, call *ast.CallExpr) (lib string, zoneFromOptions bool) {
	if fn.Pkg() == nil {
		return "", false
	}
	sig := fn.Type().(*types.Signature)
	method := sig.Recv() != nil
	switch fn.Pkg().Path() {
	case "github.com/dstsafe/dstsafe":
		if fn.Name() == "ParseCron" && !method {
			return "dstsafe", len(call.Args) > 1
		}
	case "github.com/robfig/cron/v3", "github.com/robfig/cron":
		switch {
		case fn.Name() == "ParseStandard" && !method,
			fn.Name() == "Parse" && method,
			(fn.Name() == "AddFunc" || fn.Name() == "AddJob") && method:
			return "robfig/cron", false
		}
	case "github.com/go-co-op/gocron/v2":
		if fn.Name() == "CronJob" && !method {
			return "gocron", false
		}
	case "github.com/go-co-op/gocron":
		if (fn.Name() == "Cron" || fn.Name() == "CronWithSeconds") && method {
			return "gocron", false
		}
	}
	return "", false
}

func checkSpec(r *reporter, arg ast.Expr, spec string, sz specZone) {
	zone, rest := SplitZone(spec)
	// @every 10m is an interval of real time in every library: no zone to
	// name.
	if strings.HasPrefix(rest, "@every ") {
		return
	}
	if zone == "" && sz.fromOptions {
		switch {
		case sz.lib == "dstsafe":
			// ParseCron with options: the zone is set there, and the
			// dstsafe Scheduler resolves folds and gaps itself.
			return
		case sz.known && sz.name == "UTC":
			return
		case sz.known:
			spec, zone = "CRON_TZ="+sz.name+" "+rest, sz.name
		default:
			checkUnknownZone(r, arg, rest)
			return
		}
	}
	if zone == "" {
		d := analysis.Diagnostic{Pos: arg.Pos(), End: arg.End(), Category: "cronspec", Message: noZoneMsg}
		if lit, ok := unparen(arg).(*ast.BasicLit); ok && lit.Kind == token.STRING {
			d.SuggestedFixes = []analysis.SuggestedFix{{
				Message:   "Pin the spec to UTC with CRON_TZ=UTC",
				TextEdits: []analysis.TextEdit{{Pos: lit.Pos() + 1, End: lit.Pos() + 1, NewText: []byte("CRON_TZ=UTC ")}},
			}}
		}
		r.report(d)
		return
	}
	c, err := ParseSpec(spec)
	if err != nil {
		var pe *dstsafe.ParseError
		if IsZoneError(err) && errors.As(err, &pe) {
			r.report(analysis.Diagnostic{Pos: arg.Pos(), End: arg.End(), Category: "cronspec", Message: fmt.Sprintf(badZoneMsg, zone, pe.Reason)})
		}
		// Other dialect differences are the libraries' own business.
		return
	}
	if sz.lib == "dstsafe" {
		// The dstsafe Scheduler runs a fold's time once and a gap's time
		// at the end of the gap, and claims each period: its own advice.
		return
	}
	reportWindow(r, arg, fmt.Sprintf("%q", rest), c, sz.gapHandled)
}

// reportWindow reports a fixed-time schedule one of whose times a
// transition of its zone skips or repeats, on a day it runs, from the
// reference instant for three years: the first skipped and the first
// repeated firing, each with its date, and what each does.
func reportWindow(r *reporter, arg ast.Node, what string, c *dstsafe.Cron, gapHandled bool) {
	from := now().UTC().Truncate(24 * time.Hour)
	risks := WindowRisks(c, from, from.AddDate(3, 0, 0))
	var gap, fold *Risk
	for i, rk := range risks {
		switch {
		case rk.Occurrence.Kind == dstsafe.Gap && gap == nil && !gapHandled:
			gap = &risks[i]
		case rk.Occurrence.Kind == dstsafe.Fold && fold == nil:
			fold = &risks[i]
		}
	}
	var facts, effects []string
	if gap != nil {
		facts = append(facts, fmt.Sprintf("%s (%s)", gap, gap.Window()))
		effects = append(effects, fmt.Sprintf("the skipped time runs %s late or not at all, depending on the library", gap.Shift()))
	}
	if fold != nil {
		facts = append(facts, fmt.Sprintf("%s (%s)", fold, fold.Window()))
		effects = append(effects, fmt.Sprintf("the repeated time runs twice, %s apart (robfig/cron and gocron match both readings)", fold.Shift()))
	}
	if len(facts) == 0 {
		return
	}
	r.report(analysis.Diagnostic{Pos: arg.Pos(), End: arg.End(), Category: "cronspec",
		Message: fmt.Sprintf(windowMsg, what, c.Location(), strings.Join(facts, " and "), strings.Join(effects, ", and "))})
}

// riskyFrom and riskyTo bound the local hours in which zones with DST
// change their clocks (00:00 in Santiago and Havana, 01:00 in London,
// 02:00 in North America, 03:00 in Central Europe's fall-back): what a
// fixed time is checked against when its zone cannot be named here.
const riskyFrom, riskyTo = 0, 3

// checkUnknownZone reports a fixed-time spec read in a zone this check
// cannot name (time.Local, a location loaded from configuration) when one
// of its times falls in the hours 00-03.
func checkUnknownZone(r *reporter, arg ast.Node, rest string) {
	c, err := ParseSpec(rest)
	if err != nil || !c.Fixed() {
		return
	}
	if hm, ok := firstRiskyTime(c); ok {
		r.report(analysis.Diagnostic{Pos: arg.Pos(), End: arg.End(), Category: "cronspec",
			Message: fmt.Sprintf(unknownZoneMsg, fmt.Sprintf("%q", rest), hm)})
	}
}

// firstRiskyTime returns a time of day c fires at, read in UTC (a fixed
// schedule fires at the same readings in every zone), whose hour is in
// the risky hours.
func firstRiskyTime(c *dstsafe.Cron) (string, bool) {
	start := time.Date(2025, time.January, 1, 0, 0, 0, 0, time.UTC)
	after := start.Add(-time.Nanosecond)
	// A spec firing in four or more hours of a day (0 */6 * * *) is an
	// interval in all but name: left alone, as periodic specs are.
	hours := map[int]bool{}
	for i, a := 0, after; i < 2000; i++ {
		o, ok := c.NextOccurrence(a)
		if !ok || o.At.Sub(start) >= 24*time.Hour {
			break
		}
		hours[o.Wall.Hour] = true
		a = o.At
	}
	if len(hours) >= 4 {
		return "", false
	}
	for i := 0; i < 10_000; i++ {
		o, ok := c.NextOccurrence(after)
		if !ok || o.At.Sub(start) > 400*24*time.Hour {
			break
		}
		if h := o.Wall.Hour; h >= riskyFrom && h <= riskyTo {
			return fmt.Sprintf("%02d:%02d", h, o.Wall.Minute), true
		}
		after = o.At
		if o.Wall.Hour > riskyTo {
			// The rest of the day is past the risky hours.
			after = time.Date(o.At.Year(), o.At.Month(), o.At.Day()+1, 0, 0, 0, 0, time.UTC).Add(-time.Nanosecond)
		}
	}
	return "", false
}

// robfigLocation returns the location of c.AddFunc(...) when c is a
// *cron.Cron built in this package with cron.New(cron.WithLocation(loc)),
// which then reads zone-less specs in loc; nil otherwise.
func (t *tracker) robfigLocation(call *ast.CallExpr) ast.Expr {
	sel, ok := unparen(call.Fun).(*ast.SelectorExpr)
	if !ok {
		return nil
	}
	// cron.New(cron.WithLocation(utc)).AddFunc(...)
	if newCall, ok := unparen(sel.X).(*ast.CallExpr); ok {
		return optionArg(t.pass, newCall, "WithLocation", "github.com/robfig/cron")
	}
	for _, newCall := range t.ctorCalls(sel.X, 0) {
		if loc := optionArg(t.pass, newCall, "WithLocation", "github.com/robfig/cron"); loc != nil {
			return loc
		}
	}
	return nil
}

// ctorCalls returns the calls a variable or field may have been built by:
// c := cron.New(...), s, err := gocron.NewScheduler(...), and through the
// variables it was copied from (w := &Worker{c: c}).
func (t *tracker) ctorCalls(e ast.Expr, depth int) []*ast.CallExpr {
	if depth > 4 {
		return nil
	}
	obj := t.objectOf(e)
	if obj == nil {
		return nil
	}
	var out []*ast.CallExpr
	for _, rhs := range t.assigns[obj] {
		switch r := unparen(rhs).(type) {
		case *ast.CallExpr:
			out = append(out, r)
		case *ast.Ident, *ast.SelectorExpr:
			out = append(out, t.ctorCalls(r, depth+1)...)
		}
	}
	for _, ta := range t.tupleAssigns[obj] {
		if ta.index == 0 {
			out = append(out, ta.call)
		}
	}
	return out
}

// gocronLocation returns the location a gocron job reads its times in:
// for v2 gocron.CronJob(...) (or DailyJob ...) passed to NewJob on a
// scheduler built here with gocron.NewScheduler(gocron.WithLocation(loc)),
// loc; for v1 s.Cron(...) or s.Every(1).Day().At(...) on a scheduler built
// with gocron.NewScheduler(loc), loc. Nil otherwise (the machine's zone).
func (t *tracker) gocronLocation(call *ast.CallExpr) ast.Expr {
	if s := t.gocronV1Scheduler(call); s != nil {
		if len(s.Args) == 1 {
			return s.Args[0]
		}
		return nil
	}
	var outer *ast.CallExpr
	for p := t.parent[call]; p != nil; p = t.parent[p] {
		c, ok := p.(*ast.CallExpr)
		if !ok {
			continue
		}
		if sel, ok := unparen(c.Fun).(*ast.SelectorExpr); ok && sel.Sel.Name == "NewJob" {
			outer = c
			break
		}
	}
	if outer == nil {
		return nil
	}
	sel := unparen(outer.Fun).(*ast.SelectorExpr)
	for _, c := range t.ctorCalls(sel.X, 0) {
		if loc := optionArg(t.pass, c, "WithLocation", "github.com/go-co-op/gocron"); loc != nil {
			return loc
		}
	}
	return nil
}

// gocronGapPolicy reports whether the gocron v2 NewJob call around call
// passes WithDaylightSavingsTimePolicy (gocron 2.17+), which says what a
// time in a spring-forward gap does.
func (t *tracker) gocronGapPolicy(call *ast.CallExpr) bool {
	for p := t.parent[call]; p != nil; p = t.parent[p] {
		c, ok := p.(*ast.CallExpr)
		if !ok {
			continue
		}
		if sel, ok := unparen(c.Fun).(*ast.SelectorExpr); ok && sel.Sel.Name == "NewJob" {
			return optionArg(t.pass, c, "WithDaylightSavingsTimePolicy", "github.com/go-co-op/gocron") != nil
		}
	}
	return false
}

// gocronV1Scheduler returns the gocron v1 NewScheduler(loc) call a method
// chain starts from (s.Every(1).Day().At("01:30"), s.Cron(spec)), or nil.
func (t *tracker) gocronV1Scheduler(call *ast.CallExpr) *ast.CallExpr {
	e := call.Fun
	for i := 0; i < 20; i++ {
		switch x := unparen(e).(type) {
		case *ast.SelectorExpr:
			e = x.X
			continue
		case *ast.CallExpr:
			if fn := calleeFunc(t.pass, x); fn != nil && fn.Name() == "NewScheduler" && fn.Pkg() != nil && fn.Pkg().Path() == "github.com/go-co-op/gocron" {
				return x
			}
			e = x.Fun
			continue
		case *ast.Ident:
			for _, c := range t.ctorCalls(x, 0) {
				if fn := calleeFunc(t.pass, c); fn != nil && fn.Name() == "NewScheduler" && fn.Pkg() != nil && fn.Pkg().Path() == "github.com/go-co-op/gocron" {
					return c
				}
			}
		}
		return nil
	}
	return nil
}

// optionArg returns the argument of an option built by a function name of
// a package whose path starts with pkg, among a constructor's arguments.
func optionArg(pass *analysis.Pass, newCall *ast.CallExpr, name, pkg string) ast.Expr {
	for _, a := range newCall.Args {
		opt, ok := unparen(a).(*ast.CallExpr)
		if !ok || len(opt.Args) != 1 {
			continue
		}
		if fn := calleeFunc(pass, opt); fn != nil && fn.Name() == name && fn.Pkg() != nil && strings.HasPrefix(fn.Pkg().Path(), pkg) {
			return opt.Args[0]
		}
	}
	return nil
}

// locZone names the zone a *time.Location expression holds when it can be
// read here: "UTC" for time.UTC, time.FixedZone and
// time.LoadLocation("UTC") (zones without transitions), the name for
// time.LoadLocation("America/Chicago") or a helper called with a zone
// literal, through variables assigned only such values. time.Local and a
// location from configuration are not known.
func (t *tracker) locZone(e ast.Expr, depth int) (name string, known bool) {
	if depth > 4 {
		return "", false
	}
	if t.isUTCLoc(e) {
		return "UTC", true
	}
	switch x := unparen(e).(type) {
	case *ast.CallExpr:
		if fn := calleeFunc(t.pass, x); fn != nil && fn.Pkg() != nil && fn.Pkg().Path() == "time" && fn.Name() == "FixedZone" {
			return "UTC", true
		}
		if len(x.Args) == 1 {
			if s, ok := constString(t.pass, x.Args[0]); ok {
				return zoneByName(s)
			}
		}
	case *ast.Ident, *ast.SelectorExpr:
		obj := t.objectOf(x)
		if obj == nil || obj.Pkg() == nil || obj.Pkg().Path() == "time" {
			return "", false // time.Local: the machine's zone
		}
		var names []string
		all := true
		for _, r := range t.assigns[obj] {
			n, ok := t.locZone(r, depth+1)
			all = all && ok
			names = append(names, n)
		}
		for _, ta := range t.tupleAssigns[obj] {
			if ta.index != 0 {
				all = false
				continue
			}
			n, ok := t.locZone(ta.call, depth+1)
			all = all && ok
			names = append(names, n)
		}
		if !all || len(names) == 0 {
			return "", false
		}
		for _, n := range names[1:] {
			if n != names[0] {
				return "", false
			}
		}
		return names[0], true
	}
	return "", false
}

// zoneByName returns what time.LoadLocation(s) would load: "UTC" for a
// zone without transitions, the name for another known zone.
func zoneByName(s string) (string, bool) {
	if s == "Local" {
		return "", false
	}
	loc, err := time.LoadLocation(s)
	if err != nil {
		return "", false
	}
	if s == "" || loc == time.UTC || len(dstsafe.Transitions(loc, time.Date(2000, 1, 1, 0, 0, 0, 0, time.UTC), time.Date(2100, 1, 1, 0, 0, 0, 0, time.UTC))) == 0 {
		return "UTC", true
	}
	return s, true
}

// checkAtTimes checks a time of day given to a scheduler without a cron
// spec: gocron v2 NewAtTime(h, m, s) in a DailyJob, WeeklyJob or
// MonthlyJob, and gocron v1 At("01:30") in an Every(...).Day() chain. It
// reports whether call was one (checked, reported or not).
func (t *tracker) checkAtTimes(r *reporter, fn *types.Func, call *ast.CallExpr) bool {
	if fn.Pkg() == nil {
		return false
	}
	var hms [][3]int
	method := fn.Type().(*types.Signature).Recv() != nil
	switch {
	case fn.Pkg().Path() == "github.com/go-co-op/gocron/v2" && fn.Name() == "NewAtTime" && !method && len(call.Args) == 3:
		var hms1 [3]int
		for i, a := range call.Args {
			v, ok := constInt(t.pass, a)
			if !ok {
				return true
			}
			hms1[i] = v
		}
		hms = append(hms, hms1)
	case fn.Pkg().Path() == "github.com/go-co-op/gocron" && fn.Name() == "At" && method && len(call.Args) == 1:
		s, ok := constString(t.pass, call.Args[0])
		if !ok {
			return true
		}
		for _, part := range strings.Split(s, ";") {
			var h, m, sec int
			n, _ := fmt.Sscanf(strings.TrimSpace(part), "%d:%d:%d", &h, &m, &sec)
			if n < 2 {
				return true
			}
			hms = append(hms, [3]int{h, m, sec})
		}
	default:
		return false
	}
	var name string
	var known bool
	if loc := t.gocronLocation(call); loc != nil {
		name, known = t.locZone(loc, 0)
	}
	dom, dow, every := t.gocronDays(call)
	for _, hm := range hms {
		spec := fmt.Sprintf("%d %d %d %s * %s", hm[2], hm[1], hm[0], dom, dow)
		what := fmt.Sprintf("%02d:%02d", hm[0], hm[1])
		switch {
		case known && name == "UTC":
		case known:
			c, err := dstsafe.ParseCron("CRON_TZ="+name+" "+spec, dstsafe.WithSeconds())
			if err == nil {
				reportWindow(r, call, "the "+every+" time "+what, c, t.gocronGapPolicy(call))
			}
		default:
			if hm[0] >= riskyFrom && hm[0] <= riskyTo {
				r.report(analysis.Diagnostic{Pos: call.Pos(), End: call.End(), Category: "cronspec",
					Message: fmt.Sprintf(unknownZoneMsg, "this job", what)})
			}
		}
	}
	return true
}

func constInt(pass *analysis.Pass, e ast.Expr) (int, bool) {
	tv, ok := pass.TypesInfo.Types[e]
	if !ok || tv.Value == nil {
		return 0, false
	}
	v, exact := constant.Int64Val(constant.ToInt(tv.Value))
	return int(v), exact
}

// specSources returns the constant string expressions that flow into a
// spec argument: the argument itself when it is constant, else what is
// assigned to the variable, field or element it reads, or returned by the
// function it calls.
func (t *tracker) specSources(e ast.Expr, depth int) []ast.Expr {
	if depth > 5 {
		return nil
	}
	if _, ok := constString(t.pass, e); ok {
		return []ast.Expr{e}
	}
	var out []ast.Expr
	// j.Spec where j ranges over a table of literals: only that table's
	// specs, not every value the field gets in the package.
	if x, ok := unparen(e).(*ast.SelectorExpr); ok {
		if lits := t.structLits(x.X, depth+1); lits != nil {
			for _, lit := range lits {
				if v := fieldValue(t.pass, lit, x.Sel.Name); v != nil {
					out = append(out, t.specSources(v, depth+1)...)
				}
			}
			return out
		}
	}
	switch x := unparen(e).(type) {
	case *ast.Ident, *ast.SelectorExpr:
		obj := t.objectOf(x)
		if obj == nil {
			return nil
		}
		for _, r := range t.assigns[obj] {
			out = append(out, t.specSources(r, depth+1)...)
		}
		for _, rg := range t.ranges {
			switch {
			case rg.value == obj:
				out = append(out, t.elemSpecSources(rg.x, depth+1)...)
			case rg.key == obj && isMap(t.pass.TypesInfo.TypeOf(rg.x)):
				// for spec, fn := range map[string]func(){"0 2 * * *": ...}
				out = append(out, t.keySpecSources(rg.x, depth+1)...)
			}
		}
	case *ast.IndexExpr:
		out = t.elemSpecSources(x.X, depth+1)
	case *ast.CallExpr:
		for _, n := range t.targets(x.Fun) {
			var body *ast.BlockStmt
			switch d := n.node.(type) {
			case *ast.FuncDecl:
				body = d.Body
			case *ast.FuncLit:
				body = d.Body
			}
			if body == nil {
				continue
			}
			eachReturn(body, func(n *ast.ReturnStmt) {
				if len(n.Results) > 0 {
					out = append(out, t.specSources(n.Results[0], depth+1)...)
				}
			})
		}
	}
	return out
}

// elemSpecSources returns the constant strings among the elements of a
// map, slice or array: its composite literals and element assignments.
func (t *tracker) elemSpecSources(e ast.Expr, depth int) []ast.Expr {
	var out []ast.Expr
	add := func(lit ast.Expr) {
		cl, ok := unparen(lit).(*ast.CompositeLit)
		if !ok {
			return
		}
		for _, el := range cl.Elts {
			if kv, ok := el.(*ast.KeyValueExpr); ok {
				el = kv.Value
			}
			out = append(out, t.specSources(el, depth+1)...)
		}
	}
	add(e)
	if obj := t.objectOf(e); obj != nil {
		for _, r := range t.assigns[obj] {
			add(r)
		}
		for _, r := range t.elemAssigns[obj] {
			out = append(out, t.specSources(r, depth+1)...)
		}
	}
	return out
}

// structLits returns the composite literals a struct-valued expression may
// be: a variable assigned one, a range variable over a table of them, an
// element of such a table; nil when some value is not a literal.
func (t *tracker) structLits(e ast.Expr, depth int) []*ast.CompositeLit {
	if depth > 5 {
		return nil
	}
	var out []*ast.CompositeLit
	all := true
	add := func(r ast.Expr) {
		if u, ok := unparen(r).(*ast.UnaryExpr); ok && u.Op == token.AND {
			r = u.X
		}
		if lit, ok := unparen(r).(*ast.CompositeLit); ok {
			out = append(out, lit)
		} else {
			all = false
		}
	}
	elems := func(x ast.Expr) {
		var conts []ast.Expr
		if obj := t.objectOf(x); obj != nil {
			conts = t.assigns[obj]
			if len(t.elemAssigns[obj]) > 0 {
				all = false
			}
		} else {
			conts = []ast.Expr{x}
		}
		for _, c := range conts {
			cl, ok := unparen(c).(*ast.CompositeLit)
			if !ok {
				all = false
				continue
			}
			for _, el := range cl.Elts {
				if kv, ok := el.(*ast.KeyValueExpr); ok {
					el = kv.Value
				}
				add(el)
			}
		}
	}
	switch x := unparen(e).(type) {
	case *ast.Ident:
		obj := t.objectOf(x)
		if obj == nil {
			return nil
		}
		ranged := false
		for _, rg := range t.ranges {
			if rg.value == obj {
				elems(rg.x)
				ranged = true
			}
		}
		if !ranged {
			if len(t.assigns[obj]) == 0 {
				return nil
			}
			for _, r := range t.assigns[obj] {
				add(r)
			}
		}
	case *ast.IndexExpr:
		elems(x.X)
	default:
		return nil
	}
	if !all || len(out) == 0 {
		return nil
	}
	return out
}

// fieldValue returns the value a struct literal gives a field, or nil.
func fieldValue(pass *analysis.Pass, lit *ast.CompositeLit, name string) ast.Expr {
	st, ok := pass.TypesInfo.TypeOf(lit).Underlying().(*types.Struct)
	if !ok {
		return nil
	}
	for i, el := range lit.Elts {
		if kv, ok := el.(*ast.KeyValueExpr); ok {
			if id, ok := kv.Key.(*ast.Ident); ok && id.Name == name {
				return kv.Value
			}
			continue
		}
		if i < st.NumFields() && st.Field(i).Name() == name {
			return el
		}
	}
	return nil
}

// gocronDays returns the days a gocron at-time job runs on, as cron
// fields: v2 WeeklyJob(n, NewWeekdays(time.Monday), ...) and MonthlyJob(n,
// NewDaysOfTheMonth(1, 15), ...) around a NewAtTime call, v1
// Every(1).Monday().At(...) and Weekday(time.Monday) in the chain of an At
// call; "*", "*" (every day) otherwise, or when the days are not
// constants. every names them for the message: "daily", "Monday",
// "monthly (day 1)".
func (t *tracker) gocronDays(call *ast.CallExpr) (dom, dow, every string) {
	dom, dow, every = "*", "*", "daily"
	weekdays := func(args []ast.Expr) bool {
		var ds, names []string
		for _, a := range args {
			v, ok := constInt(t.pass, a)
			if !ok || v < 0 || v > 6 {
				return false
			}
			ds = append(ds, fmt.Sprint(v))
			names = append(names, time.Weekday(v).String())
		}
		if len(ds) == 0 {
			return false
		}
		dow, every = strings.Join(ds, ","), strings.Join(names, "/")
		return true
	}
	// v2: NewAtTime inside NewAtTimes inside WeeklyJob or MonthlyJob.
	for p := t.parent[call]; p != nil; p = t.parent[p] {
		c, ok := p.(*ast.CallExpr)
		if !ok {
			continue
		}
		fn := calleeFunc(t.pass, c)
		if fn == nil || fn.Pkg() == nil || fn.Pkg().Path() != "github.com/go-co-op/gocron/v2" || len(c.Args) != 3 {
			continue
		}
		days, ok := unparen(c.Args[1]).(*ast.CallExpr)
		if !ok {
			return
		}
		switch fn.Name() {
		case "WeeklyJob":
			weekdays(days.Args)
		case "MonthlyJob":
			var ds []string
			for _, a := range days.Args {
				v, ok := constInt(t.pass, a)
				if !ok || v < 1 || v > 31 {
					return // a negative day counts from the month's end
				}
				ds = append(ds, fmt.Sprint(v))
			}
			if len(ds) > 0 {
				dom, every = strings.Join(ds, ","), "monthly (day "+strings.Join(ds, ", ")+")"
			}
		}
		return
	}
	// v1: s.Every(1).Monday().At("00:30"), s.Every(1).Weekday(time.Monday).At(...).
	var days []ast.Expr
	for e := call.Fun; ; {
		sel, ok := unparen(e).(*ast.SelectorExpr)
		if !ok {
			break
		}
		inner, ok := unparen(sel.X).(*ast.CallExpr)
		if !ok {
			break
		}
		if isel, ok := unparen(inner.Fun).(*ast.SelectorExpr); ok {
			name := isel.Sel.Name
			for d := time.Sunday; d <= time.Saturday; d++ {
				if name == d.String() {
					days = append(days, &ast.BasicLit{Kind: token.INT, Value: fmt.Sprint(int(d))})
				}
			}
			if name == "Weekday" && len(inner.Args) == 1 {
				days = append(days, inner.Args[0])
			}
		}
		e = inner.Fun
	}
	if len(days) > 0 {
		var ds, names []string
		for _, d := range days {
			v, ok := 0, false
			if lit, isLit := d.(*ast.BasicLit); isLit {
				fmt.Sscan(lit.Value, &v)
				ok = true
			} else {
				v, ok = constInt(t.pass, d)
			}
			if !ok || v < 0 || v > 6 {
				return "*", "*", "daily"
			}
			ds = append(ds, fmt.Sprint(v))
			names = append(names, time.Weekday(v).String())
		}
		dow, every = strings.Join(ds, ","), strings.Join(names, "/")
	}
	return dom, dow, every
}

// keySpecSources returns the constant strings among the keys of a map:
// its composite literals and the keys of its element assignments.
func (t *tracker) keySpecSources(e ast.Expr, depth int) []ast.Expr {
	var out []ast.Expr
	add := func(lit ast.Expr) {
		cl, ok := unparen(lit).(*ast.CompositeLit)
		if !ok {
			return
		}
		for _, el := range cl.Elts {
			if kv, ok := el.(*ast.KeyValueExpr); ok {
				out = append(out, t.specSources(kv.Key, depth+1)...)
			}
		}
	}
	add(e)
	if obj := t.objectOf(e); obj != nil {
		for _, r := range t.assigns[obj] {
			add(r)
		}
	}
	return out
}

func isMap(ty types.Type) bool {
	if ty == nil {
		return false
	}
	_, ok := ty.Underlying().(*types.Map)
	return ok
}

package dstsafevet

import (
	"go/ast"
	"go/constant"
	"go/token"
	"go/types"
	"regexp"
	"strings"
	"time"

	"golang.org/x/tools/go/analysis"
)

// LocalDate reports dates and instants built from local wall readings in
// ways that go wrong at a transition or around midnight:
//
//   - time.Date with a zone other than UTC whose result is used as a
//     schedule instant: passed to time.Until, subtracted from or compared
//     with the current instant, or returned by a Next method. time.Date
//     documents that for a wall time a transition skips or repeats it
//     "does not guarantee which" offset it picks:
//
//     midnight := time.Date(y, m, d+1, 0, 0, 0, 0, loc)
//     timer := time.NewTimer(time.Until(midnight))
//
//     When the zone is known the check follows its real rules: the time
//     is reported only if a transition skips or repeats it (on the
//     constant date, or on any day for a computed one), with the date and
//     what time.Date gives; midnight in Europe/Berlin and 09:00 in
//     America/Chicago are quiet, midnight in America/Santiago is not. When
//     it is not (time.Local, configuration), an hour at 00:00-03:59 or set
//     at run time is reported;
//
//   - a business date taken from the current time in a named zone:
//     now.In(loc).Date(), now.In(loc).Format("2006-01-02") (any layout with
//     a date and no time of day), dstsafe.DateOf(now, loc), used as a key,
//     an argument, a field, a return value or in a comparison. It is the
//     date the code happens to run, not the period it is for: a retry after
//     midnight, a catch-up after downtime or a run delayed past midnight
//     takes the next day. Printing and logging it is fine, and so is
//     building an instant from it with time.Date (checked above) or
//     dstsafe.Wall;
//
//   - Truncate or Round by a whole number of days on a time in a named
//     zone, or followed by In: they work on absolute time, so the "day"
//     starts at midnight UTC (18:00 or 19:00 the evening before in Chicago).
//
//   - t.Add(n*24*time.Hour) on a time in a zone with transitions (the
//     current time read In(loc), time.Date or time.ParseInLocation in such a
//     zone, and variables holding them): a local day lasts 23 or 25 hours
//     across a transition, so "the same time tomorrow" drifts an hour;
//
//   - time.ParseInLocation with a layout holding a date and a time of day
//     (day+" 01:30"), in such a zone, used as a schedule instant as above:
//     the wall time may not exist or exist twice, and ParseInLocation picks
//     an offset as time.Date does;
//
//   - a dedup key holding the local date of the current time stored with a
//     time to live of exactly 24 hours (SetNX(ctx, key, v, 24*time.Hour),
//     SetArgs{TTL: 24*time.Hour}, "EX", 86400, m[key] = now.Add(24*time.Hour),
//     Expire(ctx, key, 24*time.Hour), a constant, a field or package
//     variable set only to a day): on a 25-hour day the key expires before
//     its date ends. The key holds a date layout, Date(), or calendar
//     fields with the day (Year() and YearDay(), Year/Month/Day) and no
//     time of day.
//
// Fixed zones (time.FixedZone) and UTC by any name have no transitions and
// are not reported; neither is the machine's zone (bare time.Now()), which
// dstsafe check keeps at UTC.
var LocalDate = newAnalyzer(&analysis.Analyzer{
	Name: "localdate",
	Doc:  "report time.Date in a local zone used as a schedule instant, and business dates taken from the current local time",
	URL:  "https://pkg.go.dev/github.com/dstsafe/dstsafe/cmd/dstsafevet#LocalDate",
	Run:  runLocalDate,
})

const (
	businessDateMsg = "localdate: a business date taken from the current local time is the day the code happens to run, not the period it is for (a retry after midnight, a catch-up or a delayed run takes the next day); " +
		"derive it from the scheduled instant: run.RunDate, or dstsafe.DateOf(run.Due, loc)"
	truncateDayMsg = "localdate: Truncate and Round work on absolute time, so a whole-day step lands on midnight UTC, not local midnight (18:00 or 19:00 the day before in Chicago); " +
		"take the local date with dstsafe.DateOf(t, loc) and resolve its midnight with dstsafe.Resolve(dstsafe.Wall{...}, loc, dstsafe.Compatible)"
	addDayMsg = "localdate: adding 24 hours to a local time is not the same time tomorrow: a local day lasts 23 or 25 hours across a transition, so the job drifts an hour off (or lands in a skipped or repeated hour) and stays off; " +
		"step the date with AddDate(0, 0, 1) and resolve the wall time explicitly (dstsafe.Resolve(dstsafe.Wall{...}, loc, dstsafe.Compatible)), or let a dstsafe.ParseCron schedule compute the next run"
	dateKeyTTLMsg = "localdate: a dedup key of the local date kept for 24 hours does not cover its date: a local day lasts 23 or 25 hours across a transition, so on the 25-hour day the key expires an hour before the date ends and a rerun of the same date (a retry, a catch-up, the repeated hour) passes the check; " +
		"keep the key longer than any day (48 hours or more) or claim (job, period) in a dstsafe.Ledger, keyed by the scheduled period rather than the date the code runs"
	parseRunMsg = "localdate: a run time parsed from a date and a wall time with ParseInLocation may not exist (the spring-forward hour) or exist twice (the fall-back hour), and ParseInLocation then picks an offset as time.Date does, so the job fires an hour off, twice or not at all; " +
		"resolve the wall time with dstsafe.Resolve(dstsafe.Wall{...}, loc, policy) and handle the gap and fold, or schedule it with dstsafe.ParseCron"
)

func runLocalDate(pass *analysis.Pass) (any, error) {
	fs := files(pass)
	t := flow(pass)
	r := newReporter(pass, fs)
	conv := t.dateConversions()
	for _, f := range fs {
		ast.Inspect(f, func(n ast.Node) bool {
			if as, ok := n.(*ast.AssignStmt); ok && t.isDateKeyExpiry(as, conv) {
				r.report(analysis.Diagnostic{Pos: as.Pos(), End: as.End(), Category: "localdate", Message: dateKeyTTLMsg})
			}
			call, ok := n.(*ast.CallExpr)
			if !ok {
				return true
			}
			if t.isDateKeyTTL(call, conv) {
				r.report(analysis.Diagnostic{Pos: call.Pos(), End: call.End(), Category: "localdate", Message: dateKeyTTLMsg})
			}
			switch {
			case t.isLocalTimeDate(call):
				if msg, ok := t.timeDateMessage(call); ok {
					r.report(analysis.Diagnostic{Pos: call.Pos(), End: call.End(), Category: "localdate", Message: msg})
				}
			case t.isDayTruncate(call):
				r.report(analysis.Diagnostic{Pos: call.Pos(), End: call.End(), Category: "localdate", Message: truncateDayMsg})
			case t.isDayAdd(call):
				r.report(analysis.Diagnostic{Pos: call.Pos(), End: call.End(), Category: "localdate", Message: addDayMsg})
			case t.isRunTimeParse(call):
				r.report(analysis.Diagnostic{Pos: call.Pos(), End: call.End(), Category: "localdate", Message: parseRunMsg})
			case t.isBusinessDate(call, conv):
				r.report(analysis.Diagnostic{Pos: call.Pos(), End: call.End(), Category: "localdate", Message: businessDateMsg})
			}
			return true
		})
	}
	return nil, nil
}

// isLocalTimeDate reports time.Date in a zone with transitions, used as a
// schedule instant.
func (t *tracker) isLocalTimeDate(call *ast.CallExpr) bool {
	if len(call.Args) != 8 {
		return false
	}
	sel, ok := unparen(call.Fun).(*ast.SelectorExpr)
	if !ok || !isPkgFunc(t.pass, sel, "time", "Date") || !t.zonedLoc(call.Args[7]) {
		return false
	}
	return t.usedAsInstant(call, 0)
}

// isDayTruncate reports t.Truncate(n*24*time.Hour) or Round on a time in a
// named zone, or whose result is put in one with In.
func (t *tracker) isDayTruncate(call *ast.CallExpr) bool {
	sel, ok := unparen(call.Fun).(*ast.SelectorExpr)
	if !ok || (sel.Sel.Name != "Truncate" && sel.Sel.Name != "Round") || len(call.Args) != 1 || !isTime(t.pass.TypesInfo.TypeOf(sel.X)) {
		return false
	}
	tv, ok := t.pass.TypesInfo.Types[call.Args[0]]
	if !ok || tv.Value == nil {
		return false
	}
	d, exact := constant.Int64Val(constant.ToInt(tv.Value))
	if !exact || d <= 0 || d%int64(24*time.Hour) != 0 {
		return false
	}
	if t.inNamedZone(sel.X) {
		return true
	}
	// x.Truncate(24*time.Hour).In(loc)
	if ps, ok := t.parent[call].(*ast.SelectorExpr); ok && ps.Sel.Name == "In" {
		if pc, ok := t.parent[ps].(*ast.CallExpr); ok && len(pc.Args) == 1 && !t.isUTCLoc(pc.Args[0]) {
			return true
		}
	}
	return false
}

// inNamedZone reports a time read in a zone the code names: x.In(loc) with
// loc not UTC, or the current time so read.
func (t *tracker) inNamedZone(e ast.Expr) bool {
	if info := t.nowOf(e); info.zone == zoneNamed {
		return true
	}
	call, ok := unparen(e).(*ast.CallExpr)
	if !ok {
		return false
	}
	sel, ok := unparen(call.Fun).(*ast.SelectorExpr)
	return ok && sel.Sel.Name == "In" && len(call.Args) == 1 && isTime(t.pass.TypesInfo.TypeOf(sel.X)) && !t.isUTCLoc(call.Args[0])
}

// dateUse says how a date value is used: not as a business date (printed,
// logged, turned into an instant), returned to the caller, or as a
// business date (a key, an argument, a field, a comparison).
type dateUse uint8

const (
	useNone dateUse = iota
	useReturn
	useBusiness
)

// isBusinessDate reports a date of the current time in a named zone
// (Date(), Format with a date layout, dstsafe.DateOf, or a function of this
// package that converts its time parameter so) that is used as a business
// date. A function that returns such a date of its parameter is a
// conversion: its call sites decide.
func (t *tracker) isBusinessDate(call *ast.CallExpr, conv map[*types.Func]int) bool {
	use, param := t.dateOfNow(call, conv)
	return use == useBusiness || use == useReturn && param == nil
}

// dateOfNow returns how the date computed by call is used, if call
// computes a date of the current time in a named zone, and the parameter
// the time came from when it came from one.
func (t *tracker) dateOfNow(call *ast.CallExpr, conv map[*types.Func]int) (dateUse, *types.Var) {
	if fn := calleeFunc(t.pass, call); fn != nil {
		i, isConv := conv[fn]
		if fn.Name() == "DateOf" && fn.Pkg() != nil && fn.Pkg().Path() == dstsafePath && len(call.Args) == 2 {
			if t.isUTCLoc(call.Args[1]) {
				return useNone, nil
			}
			i, isConv = 0, true
		}
		if isConv && i < len(call.Args) {
			// A recorded instant (s.lastRun, fires[0]) is when something
			// happened, judged where it is recorded.
			if info := t.nowOf(call.Args[i]); !info.now() || info.stored {
				return useNone, nil
			}
			return t.usedAsDate(call, 0), t.paramBase(call.Args[i], 0)
		}
	}
	sel, ok := unparen(call.Fun).(*ast.SelectorExpr)
	if !ok || !isTime(t.pass.TypesInfo.TypeOf(sel.X)) {
		return useNone, nil
	}
	if info := t.nowOf(sel.X); info.zone != zoneNamed || info.stored {
		return useNone, nil
	}
	switch sel.Sel.Name {
	case "Date":
		// y, m, d := now.In(loc).Date()
		as, ok := t.parent[call].(*ast.AssignStmt)
		if !ok || len(as.Rhs) != 1 {
			return useNone, nil
		}
		use := useNone
		for _, l := range as.Lhs {
			if obj := t.objectOf(l); obj != nil {
				use = max(use, t.varUsedAsDate(obj, 0))
			}
		}
		return use, t.paramBase(sel.X, 0)
	case "Format":
		if len(call.Args) != 1 {
			return useNone, nil
		}
		layout, ok := constString(t.pass, call.Args[0])
		if !ok || !layoutHasDate(layout) || layoutHasHour(layout) || strings.Contains(layout, "04") {
			return useNone, nil
		}
		return t.usedAsDate(call, 0), t.paramBase(sel.X, 0)
	}
	return useNone, nil
}

// paramBase returns the parameter a time expression is computed from
// (t.In(loc), local := t.In(loc); local), or nil.
func (t *tracker) paramBase(e ast.Expr, depth int) *types.Var {
	if depth > 4 {
		return nil
	}
	switch e := unparen(e).(type) {
	case *ast.CallExpr:
		sel, ok := unparen(e.Fun).(*ast.SelectorExpr)
		if ok && isTime(t.pass.TypesInfo.TypeOf(sel.X)) {
			switch sel.Sel.Name {
			case "In", "UTC", "Local", "Add", "AddDate", "Truncate", "Round":
				return t.paramBase(sel.X, depth+1)
			}
		}
	case *ast.Ident:
		v, ok := t.pass.TypesInfo.ObjectOf(e).(*types.Var)
		if !ok {
			return nil
		}
		if isParam(v) {
			return v
		}
		if rhs := t.assigns[v]; isLocal(v) && len(rhs) == 1 {
			return t.paramBase(rhs[0], depth+1)
		}
	}
	return nil
}

// dateConversions finds the functions of the package that return a date
// of a time parameter taken in a named zone (func day(t time.Time) string
// { return t.In(chicago).Format("2006-01-02") }), with that parameter's
// index, to a fixed point (one may call another).
func (t *tracker) dateConversions() map[*types.Func]int {
	conv := map[*types.Func]int{}
	var sources []*ast.CallExpr
	for _, f := range t.files {
		ast.Inspect(f, func(n ast.Node) bool {
			if call, ok := n.(*ast.CallExpr); ok {
				sources = append(sources, call)
			}
			return true
		})
	}
	for changed := true; changed; {
		changed = false
		for _, call := range sources {
			use, p := t.dateOfNow(call, conv)
			if use != useReturn || p == nil {
				continue
			}
			d, ok := t.enclosingFunc(call).(*ast.FuncDecl)
			if !ok {
				continue
			}
			fn, _ := t.pass.TypesInfo.Defs[d.Name].(*types.Func)
			if fn == nil {
				continue
			}
			sig := fn.Type().(*types.Signature)
			for i := 0; i < sig.Params().Len(); i++ {
				if sig.Params().At(i) == p {
					if _, seen := conv[fn]; !seen {
						conv[fn] = i
						changed = true
					}
				}
			}
		}
	}
	return conv
}

// useOf returns e with the parentheses around it, and the node that uses
// it.
func (t *tracker) useOf(e ast.Expr) (child, parent ast.Node) {
	child = e
	parent = t.parent[child]
	for {
		pe, ok := parent.(*ast.ParenExpr)
		if !ok {
			return child, parent
		}
		child, parent = pe, t.parent[pe]
	}
}

// usedAsDate reports how the date value e is used.
func (t *tracker) usedAsDate(e ast.Expr, depth int) dateUse {
	if depth > 4 {
		return useNone
	}
	child, p := t.useOf(e)
	switch p := p.(type) {
	case *ast.CallExpr:
		if child == p.Fun {
			return useNone
		}
		if tv, ok := t.pass.TypesInfo.Types[p.Fun]; ok && tv.IsType() {
			return t.usedAsDate(p, depth+1) // string(d), a conversion
		}
		fn := calleeFunc(t.pass, p)
		switch {
		case fn == nil:
			return useBusiness
		case isPrinting(fn), isFormatWrapper(fn, p, child):
			return useNone
		case fn.Pkg() != nil && fn.Pkg().Path() == "fmt" && strings.HasPrefix(fn.Name(), "Sprint"):
			return t.usedAsDate(p, depth+1) // the string it is formatted into
		case fn.Pkg() != nil && fn.Pkg().Path() == "time" && fn.Name() == "Date":
			return useNone // an instant, which the first check judges
		case fn.Pkg() != nil && fn.Pkg().Path() == dstsafePath && (fn.Name() == "Resolve" || fn.Name() == "Lookup"):
			return useNone
		}
		return useBusiness
	case *ast.SelectorExpr:
		// d.String(), d.AddDays(1): follow the method's result.
		if call, ok := t.parent[p].(*ast.CallExpr); ok && call.Fun == p {
			return t.usedAsDate(call, depth+1)
		}
		return useBusiness
	case *ast.BinaryExpr:
		if p.Op == token.ADD {
			return t.usedAsDate(p, depth+1) // "report-" + date
		}
		other := p.X
		if other == child {
			other = p.Y
		}
		if tv, ok := t.pass.TypesInfo.Types[other]; ok && tv.Value != nil {
			return useNone // compared with a constant: a test of the clock, not a key
		}
		return useBusiness
	case *ast.KeyValueExpr:
		if lit, ok := t.parent[p].(*ast.CompositeLit); ok {
			return t.usedAsDate(lit, depth+1)
		}
		return useBusiness // a map key
	case *ast.CompositeLit:
		if isNamed(t.pass.TypesInfo.TypeOf(p), dstsafePath, "Wall") {
			return useNone
		}
		return t.usedAsDate(p, depth+1) // Date{y, m, d}, Key{Day: d}: where it goes
	case *ast.AssignStmt:
		for i, r := range p.Rhs {
			if r == child && i < len(p.Lhs) {
				if obj := t.objectOf(p.Lhs[i]); obj != nil {
					if v, ok := obj.(*types.Var); ok && isLocal(v) {
						return t.varUsedAsDate(v, depth)
					}
				}
				return useBusiness // a field, a map element, a package variable
			}
		}
	case *ast.ValueSpec:
		for i, v := range p.Values {
			if v == child && i < len(p.Names) {
				return t.varUsedAsDate(t.pass.TypesInfo.Defs[p.Names[i]], depth)
			}
		}
	case *ast.ReturnStmt:
		return useReturn
	case *ast.IndexExpr, *ast.SendStmt, *ast.SwitchStmt, *ast.CaseClause:
		return useBusiness
	}
	return useNone
}

// varUsedAsDate reports the most telling use of a local variable holding
// a date.
func (t *tracker) varUsedAsDate(obj types.Object, depth int) dateUse {
	v, ok := obj.(*types.Var)
	if !ok {
		return useNone
	}
	if !isLocal(v) {
		return useBusiness
	}
	use := useNone
	for _, id := range t.uses[obj] {
		use = max(use, t.usedAsDate(id, depth+1))
	}
	return use
}

// isFormatWrapper reports whether arg is one of the values a printf-like
// wrapper formats: fn's last parameter is ...any after a string parameter
// named format (x.fail(code, format, args...), the shape go vet's printf
// check follows), it is not fmt's and returns no string, and arg is
// passed in its variadic part. A date shown in a message is not a key.
func isFormatWrapper(fn *types.Func, call *ast.CallExpr, arg ast.Node) bool {
	sig, ok := fn.Type().(*types.Signature)
	if !ok || !sig.Variadic() || sig.Params().Len() < 2 || call.Ellipsis.IsValid() ||
		(fn.Pkg() != nil && fn.Pkg().Path() == "fmt") {
		return false // fmt's own have their rules above
	}
	for i := range sig.Results().Len() {
		if b, ok := sig.Results().At(i).Type().Underlying().(*types.Basic); ok && b.Kind() == types.String {
			return false // formats into a string, which may be a key: followed like Sprintf
		}
	}
	params := sig.Params()
	last := params.At(params.Len() - 1).Type().(*types.Slice)
	if iface, ok := last.Elem().Underlying().(*types.Interface); !ok || !iface.Empty() {
		return false
	}
	format := params.At(params.Len() - 2)
	if b, ok := format.Type().Underlying().(*types.Basic); !ok || b.Kind() != types.String || format.Name() != "format" {
		return false
	}
	for i, a := range call.Args {
		if a == arg {
			return i >= params.Len()-1
		}
	}
	return false
}

// isPrinting reports functions and methods that only print or log their
// arguments.
func isPrinting(fn *types.Func) bool {
	if fn.Pkg() == nil {
		return false
	}
	switch fn.Pkg().Path() {
	case "fmt":
		return strings.HasPrefix(fn.Name(), "Print") || strings.HasPrefix(fn.Name(), "Fprint") || fn.Name() == "Errorf"
	case "log", "log/slog", "testing":
		return true
	}
	return false
}

// fixedZone reports whether loc is time.UTC or a time.FixedZone call, zones
// that never skip or repeat a reading.
func fixedZone(pass *analysis.Pass, loc ast.Expr) bool {
	if isUTCLoc(pass, loc) {
		return true
	}
	if c, ok := unparen(loc).(*ast.CallExpr); ok {
		if sel, ok := unparen(c.Fun).(*ast.SelectorExpr); ok && isPkgFunc(pass, sel, "time", "FixedZone") {
			return true
		}
	}
	return false
}

// usedAsInstant reports whether the time value e is used to decide when
// something fires.
func (t *tracker) usedAsInstant(e ast.Expr, depth int) bool {
	if depth > 3 {
		return false
	}
	child, p := t.useOf(e)
	switch p := p.(type) {
	case *ast.CallExpr:
		if child == p.Fun {
			return false
		}
		// scheduleTask(x, ...), queue.EnqueueAt(x, job), clock.Until(x)
		if fn := calleeFunc(t.pass, p); fn != nil && schedulingName.MatchString(fn.Name()) {
			return true
		}
		// time.Until(x)
		if sel, ok := unparen(p.Fun).(*ast.SelectorExpr); ok {
			if isPkgFunc(t.pass, sel, "time", "Until") {
				return true
			}
			// now.Before(x), now.After(x), now.Sub(x), now.Equal(x)
			if isTime(t.pass.TypesInfo.TypeOf(sel.X)) && t.nowOf(sel.X).now() && comparesInstant(sel.Sel.Name) {
				return true
			}
		}
	case *ast.SelectorExpr:
		call, ok := t.parent[p].(*ast.CallExpr)
		if !ok || call.Fun != p {
			return false
		}
		// x.Sub(now), x.Before(now), x.After(now)
		if len(call.Args) == 1 && comparesInstant(p.Sel.Name) && t.nowOf(call.Args[0]).now() {
			return true
		}
		// midnight.AddDate(0, 0, 1): still the instant to schedule.
		switch p.Sel.Name {
		case "Add", "AddDate", "In", "UTC":
			return t.usedAsInstant(call, depth+1)
		}
	case *ast.KeyValueExpr:
		// Task{RunAt: x}
		if id, ok := p.Key.(*ast.Ident); ok && p.Value == child && instantField.MatchString(id.Name) {
			return true
		}
	case *ast.ReturnStmt:
		fd, ok := t.enclosingFunc(p).(*ast.FuncDecl)
		if !ok {
			return false
		}
		if strings.HasPrefix(strings.ToLower(fd.Name.Name), "next") {
			return true
		}
		// func runAt(day string) (time.Time, error) { return ... }: the
		// callers decide.
		for _, call := range t.calls {
			for _, n := range t.targets(call.Fun) {
				if n.node == fd && t.usedAsInstant(call, depth+1) {
					return true
				}
			}
		}
	case *ast.AssignStmt:
		for i, r := range p.Rhs {
			if r == child && i < len(p.Lhs) {
				return t.varUsedAsInstant(t.objectOf(p.Lhs[i]), depth)
			}
		}
	case *ast.ValueSpec:
		for i, v := range p.Values {
			if v == child && i < len(p.Names) {
				return t.varUsedAsInstant(t.pass.TypesInfo.Defs[p.Names[i]], depth)
			}
		}
	}
	return false
}

// schedulingName matches functions and methods that take the instant
// something is to happen at.
var schedulingName = regexp.MustCompile(`(?i)schedul|enqueue|^(run|fire|wake|notify|sleep|wait)?(at|until)$|^(run|fire|wake|notify|sleep|wait)(at|until)`)

// instantField matches struct fields that hold when something happens.
var instantField = regexp.MustCompile(`^(?i:at|runat|due|dueat|next|nextrun|nextat|fireat|scheduledat|when)$`)

func comparesInstant(method string) bool {
	switch method {
	case "Before", "After", "Sub", "Equal", "Compare":
		return true
	}
	return false
}

// varUsedAsInstant reports whether any use of the local variable obj is
// used as an instant.
func (t *tracker) varUsedAsInstant(obj types.Object, depth int) bool {
	v, ok := obj.(*types.Var)
	if !ok || v.IsField() || v.Parent() == nil || v.Parent() == v.Pkg().Scope() {
		return false
	}
	for _, id := range t.uses[obj] {
		if t.usedAsInstant(id, depth+1) {
			return true
		}
	}
	return false
}

// isDayAdd reports t.Add(n*24*time.Hour) on a time in a zone with
// transitions: "the same time tomorrow" that is an hour off the day after
// a transition (a local day lasts 23 or 25 hours then).
func (t *tracker) isDayAdd(call *ast.CallExpr) bool {
	sel, ok := unparen(call.Fun).(*ast.SelectorExpr)
	if !ok || sel.Sel.Name != "Add" || len(call.Args) != 1 || !isTime(t.pass.TypesInfo.TypeOf(sel.X)) {
		return false
	}
	if d, ok := constDuration(t.pass, call.Args[0]); !ok || d <= 0 || d%(24*time.Hour) != 0 {
		return false
	}
	if !t.localTime(sel.X, 0) {
		return false
	}
	// A wall time built with time.Date or ParseInLocation is a schedule;
	// the current local time plus a day is one only where it is used as
	// the next run (an expiry shown in local time is a real 24 hours).
	return t.wallBuilt(sel.X, 0) || t.usedAsNextRun(call)
}

// wallBuilt reports a time built from a wall reading: time.Date or
// time.ParseInLocation, stepped with Add or AddDate, through variables and
// fields and functions of this package.
func (t *tracker) wallBuilt(e ast.Expr, depth int) bool {
	if depth > 4 {
		return false
	}
	switch x := unparen(e).(type) {
	case *ast.CallExpr:
		if sel, ok := unparen(x.Fun).(*ast.SelectorExpr); ok {
			if isPkgFunc(t.pass, sel, "time", "Date") || isPkgFunc(t.pass, sel, "time", "ParseInLocation") {
				return true
			}
			if isTime(t.pass.TypesInfo.TypeOf(sel.X)) {
				switch sel.Sel.Name {
				case "Add", "AddDate", "In":
					return t.wallBuilt(sel.X, depth+1)
				}
				return false
			}
		}
		for _, fn := range t.targets(x.Fun) {
			if d, ok := fn.node.(*ast.FuncDecl); ok && d.Body != nil {
				found := false
				eachReturn(d.Body, func(r *ast.ReturnStmt) {
					found = found || len(r.Results) > 0 && t.wallBuilt(r.Results[0], depth+1)
				})
				if found {
					return true
				}
			}
		}
	case *ast.Ident, *ast.SelectorExpr:
		obj := t.objectOf(x)
		if obj == nil {
			return false
		}
		for _, r := range t.assigns[obj] {
			if t.wallBuilt(r, depth+1) {
				return true
			}
		}
		for _, ta := range t.tupleAssigns[obj] {
			if ta.index == 0 && t.wallBuilt(ta.call, depth+1) {
				return true
			}
		}
	}
	return false
}

// nextRunName matches the variables, fields and functions that hold or
// return the next run of a job.
var nextRunName = regexp.MustCompile(`(?i)next|tomorrow|due|sched|runat|fireat|wake`)

// usedAsNextRun reports t.Add(24h) stored back into t (next =
// next.Add(24*time.Hour)), stored in a variable or field named for the
// next run, returned by a function so named, or used as a schedule
// instant.
func (t *tracker) usedAsNextRun(call *ast.CallExpr) bool {
	sel := unparen(call.Fun).(*ast.SelectorExpr)
	child, p := t.useOf(call)
	switch p := p.(type) {
	case *ast.AssignStmt:
		for i, r := range p.Rhs {
			if r != child || i >= len(p.Lhs) {
				continue
			}
			if obj := t.objectOf(p.Lhs[i]); obj != nil && (obj == t.objectOf(sel.X) || nextRunName.MatchString(obj.Name())) {
				return true
			}
		}
	case *ast.KeyValueExpr:
		if id, ok := p.Key.(*ast.Ident); ok && nextRunName.MatchString(id.Name) {
			return true
		}
	case *ast.ReturnStmt:
		if fd, ok := t.enclosingFunc(p).(*ast.FuncDecl); ok && nextRunName.MatchString(fd.Name.Name) {
			return true
		}
	}
	return t.usedAsInstant(call, 0)
}

// constDuration returns the value of a constant duration expression.
func constDuration(pass *analysis.Pass, e ast.Expr) (time.Duration, bool) {
	tv, ok := pass.TypesInfo.Types[e]
	if !ok || tv.Value == nil || !isDuration(tv.Type) {
		return 0, false
	}
	d, exact := constant.Int64Val(constant.ToInt(tv.Value))
	return time.Duration(d), exact
}

// localTime reports a time whose location has transitions, as far as this
// package shows: the current time read in a named zone, x.In(loc),
// time.Date(..., loc) and time.ParseInLocation(..., loc) with loc neither
// UTC nor a fixed zone, what Add, AddDate, Truncate and Round make of one,
// and variables assigned only such values.
func (t *tracker) localTime(e ast.Expr, depth int) bool {
	if depth > 4 {
		return false
	}
	if t.inNamedZone(e) {
		return true
	}
	switch x := unparen(e).(type) {
	case *ast.CallExpr:
		if sel, ok := unparen(x.Fun).(*ast.SelectorExpr); ok {
			switch {
			case isPkgFunc(t.pass, sel, "time", "Date") && len(x.Args) == 8:
				return t.zonedLoc(x.Args[7])
			case isPkgFunc(t.pass, sel, "time", "ParseInLocation") && len(x.Args) == 3:
				return t.zonedLoc(x.Args[2])
			case isTime(t.pass.TypesInfo.TypeOf(sel.X)):
				switch sel.Sel.Name {
				case "Add", "AddDate", "Truncate", "Round":
					return t.localTime(sel.X, depth+1)
				}
			}
		}
		// nextRun(loc): a function of this package that returns one.
		n := 0
		for _, fn := range t.targets(x.Fun) {
			d, ok := fn.node.(*ast.FuncDecl)
			if !ok || d.Body == nil {
				return false
			}
			all := true
			eachReturn(d.Body, func(r *ast.ReturnStmt) {
				if len(r.Results) == 0 || !t.localTime(r.Results[0], depth+1) {
					all = false
				}
				n++
			})
			if !all {
				return false
			}
		}
		return n > 0
	case *ast.Ident, *ast.SelectorExpr:
		// A local variable or a field, assigned only local times.
		v, ok := t.objectOf(x).(*types.Var)
		if !ok || !isLocal(v) && !v.IsField() {
			return false
		}
		n := 0
		for _, r := range t.assigns[v] {
			// next = next.Add(24 * time.Hour) says nothing new.
			if c, ok := unparen(r).(*ast.CallExpr); ok {
				if sel, ok := unparen(c.Fun).(*ast.SelectorExpr); ok && t.objectOf(sel.X) == v {
					continue
				}
			}
			if !t.localTime(r, depth+1) {
				return false
			}
			n++
		}
		for _, ta := range t.tupleAssigns[v] {
			if ta.index != 0 || !t.localTime(ta.call, depth+1) {
				return false
			}
			n++
		}
		return n > 0
	}
	return false
}

// zonedLoc reports a location with transitions as far as this package
// shows: not time.UTC, not a fixed zone, not a zone literal without
// transitions.
func (t *tracker) zonedLoc(loc ast.Expr) bool {
	if fixedZone(t.pass, loc) || t.isUTCLoc(loc) {
		return false
	}
	name, known := t.locZone(loc, 0)
	return !known || name != "UTC"
}

// isRunTimeParse reports time.ParseInLocation with a layout holding a date
// and a time of day, in a zone with transitions, whose result is used as
// the instant to run at: the wall time may not exist or exist twice, and
// ParseInLocation then picks an offset as time.Date does.
func (t *tracker) isRunTimeParse(call *ast.CallExpr) bool {
	sel, ok := unparen(call.Fun).(*ast.SelectorExpr)
	if !ok || !isPkgFunc(t.pass, sel, "time", "ParseInLocation") || len(call.Args) != 3 {
		return false
	}
	layout, ok := constString(t.pass, call.Args[0])
	if !ok || !layoutHasDate(layout) || !layoutHasHour(layout) || !t.zonedLoc(call.Args[2]) {
		return false
	}
	return t.usedAsInstant(call, 0)
}

// isDateKeyTTL reports a call that stores a key holding the local date of
// the current time with a time to live of exactly 24 hours: redis
// SetNX(ctx, key, v, 24*time.Hour), Set with SetArgs{Mode: "NX", TTL:
// 24*time.Hour}, Do(ctx, "SET", key, v, "NX", "EX", 86400), a cache's
// Set(key, v, 24*time.Hour). A local day lasts 23 or 25 hours across a
// transition, so the key of a date expires before the date ends (or lives
// into the next one).
func (t *tracker) isDateKeyTTL(call *ast.CallExpr, conv map[*types.Func]int) bool {
	if fn := calleeFunc(t.pass, call); fn == nil || isPrinting(fn) {
		return false
	}
	if !t.hasDayTTL(call.Args) {
		return false
	}
	for _, a := range call.Args {
		if t.holdsLocalDate(a, conv, 0) {
			return true
		}
	}
	return false
}

// isDateKeyExpiry reports m[key] = expiry where key holds the local date of
// the current time and the value is set 24 hours ahead (a map used as a
// dedup cache with a day's expiry).
func (t *tracker) isDateKeyExpiry(as *ast.AssignStmt, conv map[*types.Func]int) bool {
	if len(as.Lhs) != len(as.Rhs) {
		return false
	}
	for i, l := range as.Lhs {
		ix, ok := unparen(l).(*ast.IndexExpr)
		if !ok || !t.hasDayTTL([]ast.Expr{as.Rhs[i]}) {
			continue
		}
		if _, isMap := t.pass.TypesInfo.TypeOf(ix.X).Underlying().(*types.Map); isMap && t.holdsLocalDate(ix.Index, conv, 0) {
			return true
		}
	}
	return false
}

// hasDayTTL reports a constant duration of exactly 24 hours among es (or
// inside them: a SetArgs literal, now.Add(24*time.Hour)), or the redis
// arguments "EX", 86400 / "PX", 86400000.
func (t *tracker) hasDayTTL(es []ast.Expr) bool {
	for i, e := range es {
		if i > 0 {
			if unit, ok := constString(t.pass, es[i-1]); ok {
				if v, ok := constInt(t.pass, e); ok && (strings.EqualFold(unit, "EX") && v == 86400 || strings.EqualFold(unit, "PX") && v == 86_400_000) {
					return true
				}
			}
		}
		found := false
		ast.Inspect(e, func(n ast.Node) bool {
			x, ok := n.(ast.Expr)
			if !ok || found {
				return !found
			}
			if d, ok := constDuration(t.pass, x); ok {
				found = d == 24*time.Hour
				return false
			}
			// ttl := 24 * time.Hour, assigned once; a configuration field
			// or package variable set to a day wherever it is set
			// (Config{DedupTTL: 24 * time.Hour}).
			switch x.(type) {
			case *ast.Ident, *ast.SelectorExpr:
				if v, ok := t.objectOf(x).(*types.Var); ok && isDuration(v.Type()) && len(t.assigns[v]) > 0 && (isLocal(v) && len(t.assigns[v]) == 1 || !isLocal(v)) {
					all := true
					for _, r := range t.assigns[v] {
						d, ok := constDuration(t.pass, r)
						all = all && ok && d == 24*time.Hour
					}
					if all {
						found = true
						return false
					}
				}
			}
			return true
		})
		if found {
			return true
		}
	}
	return false
}

// holdsLocalDate reports an expression built from the local date of the
// current time: now.In(loc).Format("2006-01-02"), the y, m, d of
// now.In(loc).Date(), dstsafe.DateOf(now, loc), a function of this package
// that converts its time so, and variables assigned them.
func (t *tracker) holdsLocalDate(e ast.Expr, conv map[*types.Func]int, depth int) bool {
	if depth > 4 {
		return false
	}
	found := false
	// A key built from calendar fields (local.Year(), local.YearDay();
	// y, m, d joined by hand) is a date key unless it also holds the
	// time of day (an hourly bucket).
	day, hour := false, false
	ast.Inspect(e, func(n ast.Node) bool {
		if found {
			return false
		}
		switch x := n.(type) {
		case *ast.CallExpr:
			if t.isLocalDateOfNow(x, conv) {
				found = true
				return false
			}
			switch t.localCalendarField(x) {
			case "day":
				day = true
			case "hour":
				hour = true
			}
			// dayKey(job, time.Now(), loc): a function of this package
			// that builds a date key from calendar fields of its time
			// parameter read in a zone.
			if i, ok := t.calendarKeyFunc(x); ok && i < len(x.Args) {
				if info := t.nowOf(x.Args[i]); info.now() && !info.stored {
					found = true
					return false
				}
			}

		case *ast.Ident:
			v, ok := t.pass.TypesInfo.ObjectOf(x).(*types.Var)
			if !ok || !isLocal(v) {
				return true
			}
			for _, r := range t.assigns[v] {
				if t.holdsLocalDate(r, conv, depth+1) {
					found = true
				}
			}
			for _, ta := range t.tupleAssigns[v] {
				if t.isLocalDateOfNow(ta.call, conv) {
					found = true
				}
			}
		}
		return !found
	})
	return found || day && !hour
}

// localCalendarField says whether call reads a calendar field of the
// current time in a named zone: "day" for Day() and YearDay() (what makes
// a key a date), "hour" for Hour(), Minute() and Second() (what makes it a
// bucket within a day), "" otherwise.
func (t *tracker) localCalendarField(call *ast.CallExpr) string {
	sel, ok := unparen(call.Fun).(*ast.SelectorExpr)
	if !ok || len(call.Args) != 0 || !isTime(t.pass.TypesInfo.TypeOf(sel.X)) {
		return ""
	}
	if info := t.nowOf(sel.X); info.zone != zoneNamed || info.stored {
		return ""
	}
	switch sel.Sel.Name {
	case "Day", "YearDay":
		return "day"
	case "Hour", "Minute", "Second":
		return "hour"
	}
	return ""
}

// isLocalDateOfNow reports a call that computes a date of the current time
// in a named zone, however it is used.
func (t *tracker) isLocalDateOfNow(call *ast.CallExpr, conv map[*types.Func]int) bool {
	if fn := calleeFunc(t.pass, call); fn != nil {
		i, isConv := conv[fn]
		if fn.Name() == "DateOf" && fn.Pkg() != nil && fn.Pkg().Path() == dstsafePath && len(call.Args) == 2 {
			if t.isUTCLoc(call.Args[1]) {
				return false
			}
			i, isConv = 0, true
		}
		if isConv && i < len(call.Args) {
			info := t.nowOf(call.Args[i])
			return info.now() && !info.stored
		}
	}
	sel, ok := unparen(call.Fun).(*ast.SelectorExpr)
	if !ok || !isTime(t.pass.TypesInfo.TypeOf(sel.X)) {
		return false
	}
	if info := t.nowOf(sel.X); info.zone != zoneNamed || info.stored {
		return false
	}
	switch sel.Sel.Name {
	case "Date":
		return true
	case "Format":
		if len(call.Args) != 1 {
			return false
		}
		layout, ok := constString(t.pass, call.Args[0])
		return ok && layoutHasDate(layout) && !layoutHasHour(layout) && !strings.Contains(layout, "04")
	}
	return false
}

// calendarKeyFunc reports whether call invokes a function of this package
// whose results hold the day (Day(), YearDay()) and no time of day of a
// time parameter read in a zone other than UTC (l := t.In(loc); return
// fmt.Sprintf("%d:%03d", l.Year(), l.YearDay())), and that parameter's
// index.
func (t *tracker) calendarKeyFunc(call *ast.CallExpr) (int, bool) {
	for _, n := range t.targets(call.Fun) {
		fd, ok := n.node.(*ast.FuncDecl)
		if !ok || fd.Body == nil {
			continue
		}
		var param *types.Var
		day, hour := false, false
		eachReturn(fd.Body, func(r *ast.ReturnStmt) {
			for _, res := range r.Results {
				ast.Inspect(res, func(n ast.Node) bool {
					c, ok := n.(*ast.CallExpr)
					if !ok || len(c.Args) != 0 {
						return true
					}
					sel, ok := unparen(c.Fun).(*ast.SelectorExpr)
					if !ok || !isTime(t.pass.TypesInfo.TypeOf(sel.X)) || !t.zonedReading(sel.X, 0) {
						return true
					}
					p := t.paramBase(sel.X, 0)
					if p == nil {
						return true
					}
					switch sel.Sel.Name {
					case "Day", "YearDay":
						day, param = true, p
					case "Hour", "Minute", "Second":
						hour = true
					}
					return true
				})
			}
		})
		if !day || hour || param == nil {
			continue
		}
		fn, _ := t.pass.TypesInfo.Defs[fd.Name].(*types.Func)
		if fn == nil {
			continue
		}
		sig := fn.Type().(*types.Signature)
		for i := 0; i < sig.Params().Len(); i++ {
			if sig.Params().At(i) == param {
				return i, true
			}
		}
	}
	return 0, false
}

// zonedReading reports a time read in a zone other than UTC: x.In(loc),
// through local variables assigned one.
func (t *tracker) zonedReading(e ast.Expr, depth int) bool {
	if depth > 4 {
		return false
	}
	switch x := unparen(e).(type) {
	case *ast.CallExpr:
		sel, ok := unparen(x.Fun).(*ast.SelectorExpr)
		return ok && sel.Sel.Name == "In" && len(x.Args) == 1 && isTime(t.pass.TypesInfo.TypeOf(sel.X)) && !t.isUTCLoc(x.Args[0])
	case *ast.Ident:
		v, ok := t.pass.TypesInfo.ObjectOf(x).(*types.Var)
		if !ok || !isLocal(v) || len(t.assigns[v]) != 1 {
			return false
		}
		return t.zonedReading(t.assigns[v][0], depth+1)
	}
	return false
}

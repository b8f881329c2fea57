package dstsafevet

import (
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

// WallClock reports code that decides a job is due by matching the local
// wall-clock hour of the current time against a configured value:
//
//	now := time.Now().In(chicago)
//	if now.Hour() == 1 && now.Minute() == 30 { bill() }
//
// The current time is whatever NowFlow says holds it: time.Now(), a
// Clock's Now(), a ticker's tick, and any parameter, field, map or slice
// element or function result it flows into, read in a zone other than UTC.
// The reading is its Hour(), the hour of Clock(), Format with an hour in
// the layout, and values built from them (arithmetic such as
// h*60+m, fmt.Sprintf("%02d:%02d", h, m), struct and array literals). A
// match is == or != against anything that is not another reading of a
// time (constants, package variables, fields, map and slice elements,
// function results, a time of day parsed with time.Parse("15:04", s)), a
// switch on the reading, a map lookup keyed by it (jobs[now.Format("15:04")])
// or slices.Contains(hours, now.Hour()).
//
// Matching the minute alone (now.Minute() == 0, an hourly job) is left
// alone: it follows real time, as a periodic cron spec does.
var WallClock = newAnalyzer(&analysis.Analyzer{
	Name: "wallclock",
	Doc:  "report jobs triggered by matching the local hour/minute of the current time",
	URL:  "https://pkg.go.dev/github.com/dstsafe/dstsafe/cmd/dstsafevet#WallClock",
	Run:  runWallClock,
})

const wallClockMsg = "wallclock: matching the local hour/minute of the current time fires twice when the clocks go back and never when they skip that reading%s; " +
	"schedule the job with dstsafe.ParseCron(\"CRON_TZ=Zone M H * * *\") and claim each period in a dstsafe.Ledger"

func runWallClock(pass *analysis.Pass) (any, error) {
	fs := files(pass)
	t := flow(pass)
	r := newReporter(pass, fs)
	w := newWallMatcher(t)
	reported := map[ast.Stmt]bool{}
	for _, f := range fs {
		ast.Inspect(f, func(n ast.Node) bool {
			if e, ok := n.(ast.Expr); ok && (w.isMatch(e, compHour) || isCall(e) && t.isWallMatchCall(e.(*ast.CallExpr))) {
				note, safe := w.zoneNote(e)
				s := t.enclosingStmt(n)
				if !safe && (s == nil || !reported[s]) {
					reported[s] = true
					r.report(analysis.Diagnostic{Pos: n.Pos(), End: n.End(), Category: "wallclock", Message: fmt.Sprintf(wallClockMsg, note)})
				}
			}
			if sw, ok := n.(*ast.SwitchStmt); ok && sw.Tag != nil && w.component(sw.Tag)&compHour != 0 {
				reported[sw] = true
				r.report(analysis.Diagnostic{Pos: sw.Tag.Pos(), End: sw.Tag.End(), Category: "wallclock", Message: fmt.Sprintf(wallClockMsg, "")})
			}
			return true
		})
	}
	return nil, nil
}

// comp says which wall-clock components of the current time a value
// carries.
type comp uint8

const (
	compHour     comp = 1 << iota
	compMinute        // alone, an hourly match: real time
	compCalendar      // day, weekday, month: a daily or monthly match
)

type wallMatcher struct {
	t     *tracker
	comps map[types.Object]comp // variables holding components of the current time
	// clockSettings are time.Time variables parsed from a time of day
	// ("15:04"): their Hour() is a setting, not a reading.
	clockSettings map[types.Object]bool
}

func newWallMatcher(t *tracker) *wallMatcher {
	w := &wallMatcher{t: t, comps: map[types.Object]comp{}, clockSettings: map[types.Object]bool{}}
	for obj, rhs := range t.assigns {
		if len(rhs) > 0 && allOf(rhs, w.isTimeOfDayParse) {
			w.clockSettings[obj] = true
		}
	}
	for obj, tas := range t.tupleAssigns {
		if len(t.assigns[obj]) == 0 && len(tas) > 0 && tas[0].index == 0 && allTuples(tas, func(ta tupleAssign) bool { return w.isTimeOfDayParse(ta.call) }) {
			w.clockSettings[obj] = true
		}
	}
	for changed := true; changed; {
		changed = false
		for obj, rhs := range t.assigns {
			var c comp
			for _, e := range rhs {
				if !t.litValues[e] {
					c |= w.component(e)
				}
			}
			if c&^w.comps[obj] != 0 {
				w.comps[obj] |= c
				changed = true
			}
		}
		for obj, tas := range t.tupleAssigns {
			var c comp
			for _, ta := range tas {
				switch {
				case w.isNowMethodCall(ta.call, "Clock") && ta.index == 0:
					c |= compHour
				case w.isNowMethodCall(ta.call, "Clock") && ta.index == 1:
					c |= compMinute
				case w.isNowMethodCall(ta.call, "Date"), w.isNowMethodCall(ta.call, "ISOWeek"):
					c |= compCalendar
				}
			}
			if c&^w.comps[obj] != 0 {
				w.comps[obj] |= c
				changed = true
			}
		}
	}
	return w
}

func allOf(es []ast.Expr, f func(ast.Expr) bool) bool {
	for _, e := range es {
		if !f(e) {
			return false
		}
	}
	return true
}

func allTuples(ts []tupleAssign, f func(tupleAssign) bool) bool {
	for _, ta := range ts {
		if !f(ta) {
			return false
		}
	}
	return true
}

// isTimeOfDayParse reports time.Parse or time.ParseInLocation with a
// constant layout that has no date: a configured time of day.
func (w *wallMatcher) isTimeOfDayParse(e ast.Expr) bool {
	call, ok := unparen(e).(*ast.CallExpr)
	if !ok || len(call.Args) < 2 {
		return false
	}
	sel, ok := unparen(call.Fun).(*ast.SelectorExpr)
	if !ok || !(isPkgFunc(w.t.pass, sel, "time", "Parse") || isPkgFunc(w.t.pass, sel, "time", "ParseInLocation")) {
		return false
	}
	layout, ok := constString(w.t.pass, call.Args[0])
	return ok && layoutHasHour(layout) && !layoutHasDate(layout)
}

func constString(pass *analysis.Pass, e ast.Expr) (string, bool) {
	tv, ok := pass.TypesInfo.Types[e]
	if !ok || tv.Value == nil || tv.Value.Kind() != constant.String {
		return "", false
	}
	return constant.StringVal(tv.Value), true
}

// layoutHasHour reports a time layout with an hour: 15, 03, 3 (as 3:, 3PM).
func layoutHasHour(l string) bool {
	return strings.Contains(l, "15") || strings.Contains(l, "03") || strings.Contains(l, "3:") ||
		strings.Contains(l, "3PM") || strings.Contains(l, "3pm")
}

// layoutHasDate reports a time layout with a day of the month.
func layoutHasDate(l string) bool {
	return strings.Contains(l, "2006") || strings.Contains(l, "02") || strings.Contains(l, "_2") ||
		strings.Contains(l, "Jan") || strings.Contains(l, "01") || strings.Contains(l, "06")
}

// isNowMethodCall reports whether call is now.<name>(...) on the current
// instant read outside UTC.
func (w *wallMatcher) isNowMethodCall(call *ast.CallExpr, names ...string) bool {
	sel, ok := unparen(call.Fun).(*ast.SelectorExpr)
	if !ok || !isTime(w.t.pass.TypesInfo.TypeOf(sel.X)) {
		return false
	}
	match := false
	for _, n := range names {
		match = match || sel.Sel.Name == n
	}
	if !match {
		return false
	}
	info := w.t.nowOf(sel.X)
	return info.now() && !info.utc()
}

// component returns the wall-clock components of the current time e
// carries.
func (w *wallMatcher) component(e ast.Expr) comp {
	info := w.t.pass.TypesInfo
	switch e := unparen(e).(type) {
	case *ast.CallExpr:
		switch {
		case w.isNowMethodCall(e, "Hour"):
			return compHour
		case w.isNowMethodCall(e, "Minute"):
			return compMinute
		case w.isNowMethodCall(e, "Day", "Weekday", "YearDay", "Month"):
			return compCalendar
		case w.isNowMethodCall(e, "Format") && len(e.Args) == 1:
			layout, ok := constString(w.t.pass, e.Args[0])
			if !ok {
				return 0
			}
			var c comp
			if layoutHasHour(layout) {
				c |= compHour
			} else if strings.Contains(layout, "04") {
				c |= compMinute
			}
			if layoutHasDate(layout) || strings.Contains(layout, "Mon") {
				c |= compCalendar
			}
			return c
		}
		// clockutil.LocalHour(now), a helper of another package.
		if f := w.t.wallCall(e); f != nil {
			return comp(f.Comp)
		}
		// int(now.Hour()), time.Duration(now.Hour())
		if tv, ok := info.Types[e.Fun]; ok && tv.IsType() && len(e.Args) == 1 {
			return w.component(e.Args[0])
		}
		// fmt.Sprintf("%02d:%02d", now.Hour(), now.Minute()) and friends.
		if fn := calleeFunc(w.t.pass, e); fn != nil && fn.Pkg() != nil &&
			(fn.Pkg().Path() == "fmt" && strings.HasPrefix(fn.Name(), "Sprint") || fn.Pkg().Path() == "strconv" && fn.Name() == "Itoa") {
			var c comp
			for _, a := range e.Args {
				c |= w.component(a)
			}
			return c
		}
	case *ast.BinaryExpr:
		switch e.Op {
		case token.ADD, token.SUB, token.MUL, token.QUO, token.REM:
			return w.component(e.X) | w.component(e.Y)
		}
	case *ast.CompositeLit:
		var c comp
		for _, el := range e.Elts {
			if kv, ok := el.(*ast.KeyValueExpr); ok {
				el = kv.Value
			}
			c |= w.component(el)
		}
		return c
	case *ast.Ident, *ast.SelectorExpr:
		if obj := w.t.objectOf(e); obj != nil {
			return w.comps[obj]
		}
	}
	return 0
}

// isMatch reports whether e matches a component in want of the current
// time against a setting: an equality, a map lookup keyed by it, or
// slices.Contains / slices.Index.
func (w *wallMatcher) isMatch(e ast.Expr, want comp) bool {
	switch e := e.(type) {
	case *ast.BinaryExpr:
		if e.Op != token.EQL && e.Op != token.NEQ {
			return false
		}
		return (w.component(e.X)&want != 0 && w.isSetting(e.Y)) || (w.component(e.Y)&want != 0 && w.isSetting(e.X))
	case *ast.IndexExpr:
		if _, isMap := w.t.pass.TypesInfo.TypeOf(e.X).Underlying().(*types.Map); !isMap || w.component(e.Index)&want == 0 || !w.isSetting(e.X) {
			return false
		}
		return w.isLookup(e)
	case *ast.CallExpr:
		fn := calleeFunc(w.t.pass, e)
		if fn == nil || fn.Pkg() == nil || fn.Pkg().Path() != "slices" || (fn.Name() != "Contains" && fn.Name() != "Index") || len(e.Args) != 2 {
			return false
		}
		return w.component(e.Args[1])&want != 0 && w.isSetting(e.Args[0])
	}
	return false
}

// isOrdering reports an ordering comparison of a component in want of the
// current time with a setting whose edge may fall in the hours the clocks
// change: now.Hour() >= 1, h > 0 && h < 3 (each side),
// now.Hour()*60+now.Minute() >= 90, now.Hour() >= cfg.Hour. It is a
// window, not a trigger: it only makes an elapsed-time guard beside it a
// run guard.
func (w *wallMatcher) isOrdering(e ast.Expr, want comp) bool {
	b, ok := e.(*ast.BinaryExpr)
	if !ok {
		return false
	}
	switch b.Op {
	case token.LSS, token.LEQ, token.GTR, token.GEQ:
	default:
		return false
	}
	return w.riskyBound(b.X, b.Y, want) || w.riskyBound(b.Y, b.X, want)
}

// riskyBound reports a reading compared with a setting that may put the
// window's edge in the hours the clocks change (00:00-04:00): a setting
// that is not constant, an hour constant up to 4, or a minute-of-day
// constant (h*60+m) up to 240. A window bounded at 09:00 or 17:00 cannot
// see a repeated or skipped hour at its edge.
func (w *wallMatcher) riskyBound(reading, setting ast.Expr, want comp) bool {
	c := w.component(reading)
	if c&want == 0 || !w.isSetting(setting) {
		return false
	}
	v, ok := constInt(w.t.pass, setting)
	if !ok {
		return true
	}
	if c&compMinute != 0 {
		return v >= 0 && v <= 4*60
	}
	return v >= 0 && v <= 4
}

// isLookup reports whether a map index reads a job out of the map (v, ok
// := m[k]; m[k] != nil; range m[k]; m[k]()) rather than counting into it.
func (w *wallMatcher) isLookup(ix *ast.IndexExpr) bool {
	switch p := w.t.parent[ix].(type) {
	case *ast.AssignStmt:
		return len(p.Lhs) == 2 && len(p.Rhs) == 1 && p.Rhs[0] == ix
	case *ast.RangeStmt:
		return p.X == ix
	case *ast.CallExpr:
		return p.Fun == ix
	case *ast.BinaryExpr:
		other := p.X
		if other == ix {
			other = p.Y
		}
		id, ok := unparen(other).(*ast.Ident)
		return ok && id.Name == "nil" && (p.Op == token.EQL || p.Op == token.NEQ)
	}
	return false
}

// isSetting reports whether e is what a wall-clock component is matched
// against: a constant, a configured value (cfg.Hour, n.At[0], jobs[name],
// parseHour(s)), a struct of them; anything but another reading of a time
// (now.Hour() == last.Hour() compares two readings, it does not match a
// schedule). A time of day parsed from "15:04" is a setting.
func (w *wallMatcher) isSetting(e ast.Expr) bool {
	if tv, ok := w.t.pass.TypesInfo.Types[e]; ok && tv.Value != nil {
		return true
	}
	fromTime := false
	ast.Inspect(e, func(n ast.Node) bool {
		x, ok := n.(ast.Expr)
		if !ok || fromTime {
			return false
		}
		if isTime(w.t.pass.TypesInfo.TypeOf(x)) {
			if obj := w.t.objectOf(x); obj != nil && w.clockSettings[obj] {
				return false
			}
			fromTime = true
		}
		switch x := x.(type) {
		case *ast.Ident, *ast.SelectorExpr:
			if obj := w.t.objectOf(x); obj != nil && (w.comps[obj] != 0 || len(w.t.tupleAssigns[obj]) > 0 && w.tupleOfTime(obj)) {
				fromTime = true
			}
		}
		return !fromTime
	})
	return !fromTime
}

// tupleOfTime reports a variable assigned from a method of a time (h, m,
// s := t.Clock()).
func (w *wallMatcher) tupleOfTime(obj types.Object) bool {
	for _, ta := range w.t.tupleAssigns[obj] {
		if sel, ok := unparen(ta.call.Fun).(*ast.SelectorExpr); ok && isTime(w.t.pass.TypesInfo.TypeOf(sel.X)) {
			return true
		}
	}
	return false
}

func isCall(e ast.Expr) bool { _, ok := e.(*ast.CallExpr); return ok }

// zoneNote reads a match of the hour of the current time against a
// constant hour (now.Hour() == 1) where the zone of the reading is known
// (now := time.Now().In(chicago)): the transitions of the zone that skip
// or repeat a reading of that hour, for three years from the day of the
// run, as a note for the message (" (America/Chicago: 01:00-02:00
// repeated on 2026-11-01)"), or safe when none does (09:00 in Chicago).
func (w *wallMatcher) zoneNote(e ast.Expr) (note string, safe bool) {
	b, ok := e.(*ast.BinaryExpr)
	if !ok {
		return "", false
	}
	isHour := func(e ast.Expr) bool { c := asCall(e); return c != nil && w.isNowMethodCall(c, "Hour") }
	reading, setting := b.X, b.Y
	if !isHour(reading) {
		reading, setting = b.Y, b.X
	}
	if !isHour(reading) {
		return "", false
	}
	call := asCall(reading)
	h, ok := constInt(w.t.pass, setting)
	if !ok || h < 0 || h > 23 {
		return "", false
	}
	loc := w.t.readingLoc(unparen(call.Fun).(*ast.SelectorExpr).X, 0)
	if loc == nil {
		return "", false
	}
	name, known := w.t.locZone(loc, 0)
	switch {
	case !known:
		return "", false
	case name == "UTC":
		return "", true // a zone without transitions (Asia/Tokyo)
	}
	l, err := time.LoadLocation(name)
	if err != nil {
		return "", false
	}
	from := now().UTC().Truncate(24 * time.Hour)
	var hits []dstsafe.Transition
	for _, tr := range dstsafe.Transitions(l, from, from.AddDate(3, 0, 0)) {
		if hourTouched(l, tr, h) {
			hits = append(hits, tr)
		}
	}
	if len(hits) == 0 {
		return "", true
	}
	return " (" + name + ": " + transitionWords(hits) + ")", false
}

// hourTouched reports whether a transition skips or repeats a reading of
// hour h on its days.
func hourTouched(loc *time.Location, tr dstsafe.Transition, h int) bool {
	for _, day := range []dstsafe.Wall{tr.Start, tr.End} {
		for m := 0; m < 60; m++ {
			if dstsafe.Lookup(dstsafe.Wall{Year: day.Year, Month: day.Month, Day: day.Day, Hour: h, Minute: m}, loc).Kind != dstsafe.Unique {
				return true
			}
		}
	}
	return false
}

// readingLoc returns the location a time is read in when the code shows
// it: x.In(loc), through local variables assigned once; nil otherwise.
func (t *tracker) readingLoc(e ast.Expr, depth int) ast.Expr {
	if depth > 4 {
		return nil
	}
	switch x := unparen(e).(type) {
	case *ast.CallExpr:
		if sel, ok := unparen(x.Fun).(*ast.SelectorExpr); ok && sel.Sel.Name == "In" && len(x.Args) == 1 && isTime(t.pass.TypesInfo.TypeOf(sel.X)) {
			return x.Args[0]
		}
	case *ast.Ident:
		v, ok := t.pass.TypesInfo.ObjectOf(x).(*types.Var)
		if ok && isLocal(v) && len(t.assigns[v]) == 1 {
			return t.readingLoc(t.assigns[v][0], depth+1)
		}
	}
	return nil
}

func asCall(e ast.Expr) *ast.CallExpr {
	c, _ := unparen(e).(*ast.CallExpr)
	return c
}

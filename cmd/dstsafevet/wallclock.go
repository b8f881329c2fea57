package dstsafevet

import (
	"go/ast"
	"go/constant"
	"go/token"
	"go/types"
	"strings"

	"golang.org/x/tools/go/analysis"
)

// WallClock reports code that decides a job is due by matching the local
// wall-clock reading of the current time against constants or configured
// values:
//
//	now := time.Now().In(chicago)
//	if now.Hour() == 1 && now.Minute() == 30 { bill() }
//
// It recognises Hour and Minute calls, the results of Clock, Format with an
// hour or minute layout, structs built from them, and switch statements on
// them, whenever the time is the current instant (time.Now, a Clock's Now, a
// ticker's tick) read in a zone other than UTC.
var WallClock = addTestsFlag(&analysis.Analyzer{
	Name: "wallclock",
	Doc:  "report jobs triggered by matching the local hour/minute of the current time",
	URL:  "https://pkg.go.dev/github.com/dstsafe/dstsafe/cmd/dstsafevet#WallClock",
	Run:  runWallClock,
})

const wallClockMsg = "wallclock: matching the local hour/minute of the current time fires twice when the clocks go back and never when they skip that reading; " +
	"schedule the job with dstsafe.ParseCron(\"CRON_TZ=Zone M H * * *\") and claim each period in a dstsafe.Ledger"

func runWallClock(pass *analysis.Pass) (any, error) {
	fs := files(pass)
	t := newTracker(pass, fs)
	r := newReporter(pass, fs)
	w := &wallMatcher{t: t, comps: map[types.Object]bool{}}
	w.findComponentVars()
	reported := map[ast.Stmt]bool{}
	flag := func(n ast.Node) {
		s := t.enclosingStmt(n)
		if s != nil && reported[s] {
			return
		}
		reported[s] = true
		r.report(analysis.Diagnostic{Pos: n.Pos(), End: n.End(), Category: "wallclock", Message: wallClockMsg})
	}
	for _, f := range fs {
		ast.Inspect(f, func(n ast.Node) bool {
			switch n := n.(type) {
			case *ast.BinaryExpr:
				if n.Op != token.EQL && n.Op != token.NEQ {
					return true
				}
				if (w.isComponent(n.X) && w.isSetting(n.Y)) || (w.isComponent(n.Y) && w.isSetting(n.X)) {
					flag(n)
				}
			case *ast.SwitchStmt:
				if n.Tag != nil && w.isComponent(n.Tag) {
					flag(n.Tag)
				}
			}
			return true
		})
	}
	return nil, nil
}

type wallMatcher struct {
	t     *tracker
	comps map[types.Object]bool // variables holding a wall-clock component of now
	// calendar widens components to the date (Day, Weekday, YearDay,
	// Month, Date): a monthly job matched on now.Day() == 1 is triggered
	// by the wall clock too.
	calendar bool
}

func (w *wallMatcher) findComponentVars() {
	for changed := true; changed; {
		changed = false
		for obj, rhs := range w.t.assigns {
			if w.comps[obj] {
				continue
			}
			for _, e := range rhs {
				if w.isComponent(e) {
					w.comps[obj] = true
					changed = true
					break
				}
			}
		}
		for obj, tas := range w.t.tupleAssigns {
			if w.comps[obj] {
				continue
			}
			for _, ta := range tas {
				// h, m, s := now.Clock(): hour and minute are components.
				if (ta.index <= 1 && w.isNowMethodCall(ta.call, "Clock")) || (w.calendar && w.isNowMethodCall(ta.call, "Date")) {
					w.comps[obj] = true
					changed = true
					break
				}
			}
		}
	}
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
	return info.now && !info.utc
}

// isComponent reports whether e carries the local hour or minute of now.
func (w *wallMatcher) isComponent(e ast.Expr) bool {
	switch e := unparen(e).(type) {
	case *ast.CallExpr:
		if w.isNowMethodCall(e, "Hour", "Minute") {
			return true
		}
		if w.calendar && w.isNowMethodCall(e, "Day", "Weekday", "YearDay", "Month") {
			return true
		}
		if w.isNowMethodCall(e, "Format") && len(e.Args) == 1 {
			if tv, ok := w.t.pass.TypesInfo.Types[e.Args[0]]; ok && tv.Value != nil && tv.Value.Kind() == constant.String {
				layout := constant.StringVal(tv.Value)
				return strings.Contains(layout, "15") || strings.Contains(layout, "04") || strings.Contains(layout, "3:")
			}
		}
		// int(now.Hour()) and similar conversions.
		if tv, ok := w.t.pass.TypesInfo.Types[e.Fun]; ok && tv.IsType() && len(e.Args) == 1 {
			return w.isComponent(e.Args[0])
		}
	case *ast.CompositeLit:
		for _, el := range e.Elts {
			if kv, ok := el.(*ast.KeyValueExpr); ok {
				el = kv.Value
			}
			if w.isComponent(el) {
				return true
			}
		}
	case *ast.Ident, *ast.SelectorExpr:
		if obj := w.t.objectOf(e); obj != nil {
			return w.comps[obj]
		}
	}
	return false
}

// isSetting reports whether e is what a wall-clock component is matched
// against: a constant, a configured value (cfg.Hour, n.At[0]), a struct of
// them; anything but another reading of a time (now.Hour() == last.Hour()
// compares two readings, it does not match a schedule).
func (w *wallMatcher) isSetting(e ast.Expr) bool {
	if w.isConstish(e) {
		return true
	}
	fromTime := false
	ast.Inspect(e, func(n ast.Node) bool {
		x, ok := n.(ast.Expr)
		if !ok || fromTime {
			return false
		}
		if isTime(w.t.pass.TypesInfo.TypeOf(x)) {
			fromTime = true
		}
		switch x := x.(type) {
		case *ast.Ident, *ast.SelectorExpr:
			if obj := w.t.objectOf(x); obj != nil && (w.comps[obj] || len(w.t.tupleAssigns[obj]) > 0) {
				fromTime = true
			}
		case *ast.CallExpr:
			// A function of something else (parseHour(cfg)) is a setting;
			// a method on a time is a reading, caught above by its receiver.
		}
		return !fromTime
	})
	return !fromTime
}

// isConstish reports whether e is a constant, a composite literal of
// constants, or a variable only ever assigned such values.
func (w *wallMatcher) isConstish(e ast.Expr) bool {
	return w.constish(e, 0)
}

func (w *wallMatcher) constish(e ast.Expr, depth int) bool {
	if depth > 4 {
		return false
	}
	if tv, ok := w.t.pass.TypesInfo.Types[e]; ok && tv.Value != nil {
		return true
	}
	switch e := unparen(e).(type) {
	case *ast.CompositeLit:
		for _, el := range e.Elts {
			if kv, ok := el.(*ast.KeyValueExpr); ok {
				el = kv.Value
			}
			if !w.constish(el, depth+1) {
				return false
			}
		}
		return true
	case *ast.Ident, *ast.SelectorExpr:
		obj := w.t.objectOf(e)
		if obj == nil || len(w.t.tupleAssigns[obj]) > 0 {
			return false
		}
		rhs := w.t.assigns[obj]
		if len(rhs) == 0 {
			return false
		}
		for _, r := range rhs {
			if !w.constish(r, depth+1) {
				return false
			}
		}
		return true
	}
	return false
}

package dstsafevet

import (
	"go/ast"
	"go/types"
	"strings"

	"golang.org/x/tools/go/analysis"
)

// LocalDate reports time.Date calls with a zone other than UTC whose result
// is used as a schedule instant: passed to time.Until, subtracted from or
// compared with the current instant, or returned by a Next method.
//
//	midnight := time.Date(y, m, d+1, 0, 0, 0, 0, loc)
//	timer := time.NewTimer(time.Until(midnight))
//
// time.Date documents that for a wall time a transition skips or repeats it
// "does not guarantee which" offset it picks. Fixed zones (time.FixedZone)
// and time.UTC have no transitions and are not reported.
var LocalDate = addTestsFlag(&analysis.Analyzer{
	Name: "localdate",
	Doc:  "report time.Date in a local zone used as a schedule instant",
	URL:  "https://pkg.go.dev/github.com/dstsafe/dstsafe/cmd/dstsafevet#LocalDate",
	Run:  runLocalDate,
})

const localDateMsg = "localdate: time.Date picks an unspecified offset when this wall time is skipped or repeated in the zone, so the job fires an hour off, twice or not at all; " +
	"resolve it with dstsafe.Resolve(dstsafe.Wall{...}, loc, dstsafe.Compatible) and handle the error"

func runLocalDate(pass *analysis.Pass) (any, error) {
	fs := files(pass)
	t := newTracker(pass, fs)
	r := newReporter(pass, fs)
	for _, f := range fs {
		ast.Inspect(f, func(n ast.Node) bool {
			call, ok := n.(*ast.CallExpr)
			if !ok || len(call.Args) != 8 {
				return true
			}
			sel, ok := unparen(call.Fun).(*ast.SelectorExpr)
			if !ok || !isPkgFunc(pass, sel, "time", "Date") {
				return true
			}
			if fixedZone(pass, call.Args[7]) {
				return true
			}
			if t.usedAsInstant(call, 0) {
				r.report(analysis.Diagnostic{Pos: call.Pos(), End: call.End(), Category: "localdate", Message: localDateMsg})
			}
			return true
		})
	}
	return nil, nil
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
	var child ast.Node = e
	p := t.parent[child]
	for {
		if pe, ok := p.(*ast.ParenExpr); ok {
			child, p = pe, t.parent[pe]
			continue
		}
		break
	}
	switch p := p.(type) {
	case *ast.CallExpr:
		// time.Until(x)
		if sel, ok := unparen(p.Fun).(*ast.SelectorExpr); ok {
			if isPkgFunc(t.pass, sel, "time", "Until") {
				return true
			}
			// now.Before(x), now.After(x), now.Sub(x), now.Equal(x)
			if isTime(t.pass.TypesInfo.TypeOf(sel.X)) && t.nowOf(sel.X).now && comparesInstant(sel.Sel.Name) {
				return true
			}
		}
	case *ast.SelectorExpr:
		// x.Sub(now), x.Before(now), x.After(now)
		if call, ok := t.parent[p].(*ast.CallExpr); ok && call.Fun == p && len(call.Args) == 1 &&
			comparesInstant(p.Sel.Name) && t.nowOf(call.Args[0]).now {
			return true
		}
	case *ast.ReturnStmt:
		if fd, ok := t.enclosingFunc(p).(*ast.FuncDecl); ok && strings.HasPrefix(strings.ToLower(fd.Name.Name), "next") {
			return true
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
	for id, o := range t.pass.TypesInfo.Uses {
		if o == obj && t.usedAsInstant(id, depth+1) {
			return true
		}
	}
	return false
}

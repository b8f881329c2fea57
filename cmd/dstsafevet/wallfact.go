package dstsafevet

import (
	"go/ast"
	"go/types"

	"golang.org/x/tools/go/analysis"
)

// wallFact marks a function of a package that reads the local wall clock
// of a time it is given, so that a call in another package with the
// current time is judged as the reading itself:
//
//   - Comp: it returns a wall component of its time.Time parameter read
//     outside UTC (func LocalHour(t time.Time) int { return
//     t.In(chicago).Hour() }): clockutil.LocalHour(now) == 1 matches the
//     local hour;
//   - Pred: it returns a bool that matches or orders a wall component of
//     its time parameter against a setting (func IsBillingTime(t
//     time.Time) bool { h := t.In(loc).Hour(); return h >= 1 && h < 2 }):
//     a function that calls clockutil.IsBillingTime(now) is due by the
//     wall clock, and an elapsed-time guard in it is a run guard.
type wallFact struct {
	Comp uint8
	Pred bool
}

func (*wallFact) AFact() {}

func (f *wallFact) String() string {
	if f.Pred {
		return "wall predicate"
	}
	return "wall reading"
}

// exportWallFacts reads the package's functions with a time.Time
// parameter as if each such parameter were the current time, and exports
// a wallFact for those that return a wall reading of it or a bool
// matching one.
func exportWallFacts(pass *analysis.Pass, fs []*ast.File) {
	var cands []*ast.FuncDecl
	for _, f := range fs {
		for _, d := range f.Decls {
			fd, ok := d.(*ast.FuncDecl)
			if !ok || fd.Body == nil || !hasTimeParam(pass, fd) {
				continue
			}
			cands = append(cands, fd)
		}
	}
	if len(cands) == 0 {
		return
	}
	t := newTracker(pass, fs, true)
	w := newWallMatcher(t)
	for _, fd := range cands {
		fn, _ := pass.TypesInfo.Defs[fd.Name].(*types.Func)
		if fn == nil {
			continue
		}
		var f wallFact
		eachReturn(fd.Body, func(r *ast.ReturnStmt) {
			if len(r.Results) == 1 {
				f.Comp |= uint8(w.component(r.Results[0]))
			}
		})
		if returnsBool(fn) {
			ast.Inspect(fd.Body, func(n ast.Node) bool {
				if e, ok := n.(ast.Expr); ok && (w.isMatch(e, compHour|compCalendar) || w.isOrdering(e, compHour)) {
					f.Pred = true
				}
				return !f.Pred
			})
			f.Comp = 0
		}
		if f.Pred || comp(f.Comp)&compHour != 0 {
			pass.ExportObjectFact(fn, &f)
		}
	}
}

func hasTimeParam(pass *analysis.Pass, fd *ast.FuncDecl) bool {
	for _, fl := range fd.Type.Params.List {
		if isTime(pass.TypesInfo.TypeOf(fl.Type)) {
			return true
		}
	}
	return false
}

// wallCall returns the wallFact of a call to another package's function
// that is given the current time, or nil.
func (t *tracker) wallCall(call *ast.CallExpr) *wallFact {
	fn := calleeFunc(t.pass, call)
	if fn == nil || fn.Pkg() == nil || fn.Pkg() == t.pass.Pkg {
		return nil
	}
	var f wallFact
	if !t.pass.ImportObjectFact(fn, &f) {
		return nil
	}
	for _, a := range call.Args {
		if isTime(t.pass.TypesInfo.TypeOf(a)) && t.nowOf(a).now() {
			return &f
		}
	}
	return nil
}

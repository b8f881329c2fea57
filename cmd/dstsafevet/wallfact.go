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
//   - Local: it returns its time.Time parameter read in a zone with
//     transitions (func Local(t time.Time) time.Time { return
//     t.In(chicago) }): clockutil.Local(now) is the current local time;
//   - Self: it reads the current time itself (a method Due() bool that
//     matches b.clock.Now().In(b.loc).Hour()): no argument needs to be
//     the current time.
//   - Match: the predicate matches the hour with an equality (func IsAt(t
//     time.Time, h, m int) bool { return t.Hour() == h && t.Minute() == m
//     }), not only a window: timeutil.IsAt(now.In(loc), 1, 30) is itself
//     a wall-clock match, reported where it is called.
type wallFact struct {
	Comp  uint8
	Pred  bool
	Match bool
	Local bool
	Self  bool
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
func exportWallFacts(pass *analysis.Pass, fs []*ast.File, real *tracker) {
	var all, cands []*ast.FuncDecl
	for _, f := range fs {
		for _, d := range f.Decls {
			fd, ok := d.(*ast.FuncDecl)
			if !ok || fd.Body == nil || fd.Name.Name == "_" {
				continue
			}
			// A function given a time is read with that time as the
			// current one (a parameter named now is the current time in
			// its own package, not at every call site).
			if hasTimeParam(pass, fd) {
				cands = append(cands, fd)
			} else {
				all = append(all, fd)
			}
		}
	}
	facts := map[*types.Func]*wallFact{}
	read := func(t *tracker, w *wallMatcher, fds []*ast.FuncDecl, self bool) {
		for _, fd := range fds {
			fn, _ := pass.TypesInfo.Defs[fd.Name].(*types.Func)
			if fn == nil {
				continue
			}
			var f wallFact
			eachReturn(fd.Body, func(r *ast.ReturnStmt) {
				if len(r.Results) != 1 {
					return
				}
				f.Comp |= uint8(w.component(r.Results[0]))
				if info := t.nowOf(r.Results[0]); !self && info.zone == zoneNamed && !info.shifted && !info.stored {
					f.Local = true
				}
			})
			if returnsBool(fn) {
				ast.Inspect(fd.Body, func(n ast.Node) bool {
					if e, ok := n.(ast.Expr); ok {
						if w.isMatch(e, compHour) {
							f.Match = true
						}
						if w.isMatch(e, compHour|compCalendar) || w.isOrdering(e, compHour) {
							f.Pred = true
						}
					}
					return !f.Match
				})
				f.Comp = 0
				// A predicate that puts the time in a zone itself
				// (t.In(chicago)) reads the wall clock in its own
				// package; one that matches the time as given reads
				// it in whatever zone the caller chose.
				f.Match = f.Match && !convertsZone(pass, fd.Body)
			}
			if f.Pred || f.Local || comp(f.Comp)&compHour != 0 {
				f.Self = self
				if facts[fn] == nil {
					facts[fn] = &f
				}
			}
		}
	}
	// What a function does with the current time it reads itself first,
	// then what it does with a time it is given.
	read(real, newWallMatcher(real), all, true)
	if len(cands) > 0 {
		t := newTracker(pass, fs, true)
		read(t, newWallMatcher(t), cands, false)
	}
	for fn, f := range facts {
		pass.ExportObjectFact(fn, f)
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
	if f.Self {
		return &f
	}
	for _, a := range call.Args {
		if isTime(t.pass.TypesInfo.TypeOf(a)) && t.nowOf(a).now() {
			return &f
		}
	}
	return nil
}

// isWallMatchCall reports a call of another package's wall-clock match
// predicate (a Match fact) given the current time read outside UTC:
// timeutil.IsAt(t.In(loc), 1, 30).
func (t *tracker) isWallMatchCall(call *ast.CallExpr) bool {
	f := t.wallCall(call)
	if f == nil || !f.Match || f.Self {
		return false
	}
	for _, a := range call.Args {
		if isTime(t.pass.TypesInfo.TypeOf(a)) {
			if info := t.nowOf(a); info.now() && !info.utc() {
				return true
			}
		}
	}
	return false
}

// convertsZone reports a call of In, UTC or Local on a time in body.
func convertsZone(pass *analysis.Pass, body *ast.BlockStmt) bool {
	found := false
	ast.Inspect(body, func(n ast.Node) bool {
		if call, ok := n.(*ast.CallExpr); ok {
			if sel, ok := unparen(call.Fun).(*ast.SelectorExpr); ok && isTime(pass.TypesInfo.TypeOf(sel.X)) {
				switch sel.Sel.Name {
				case "In", "UTC", "Local":
					found = true
				}
			}
		}
		return !found
	})
	return found
}

package dstsafevet

import (
	"go/ast"
	"go/token"
	"go/types"
	"regexp"

	"golang.org/x/tools/go/analysis"
)

// ElapsedGuard reports run guards built on elapsed time:
//
//	if time.Since(lastRun) < 10*time.Minute { continue }
//	lastRun = time.Now()
//
// An elapsed-time comparison is time.Since(mark) or clock.Since(mark),
// now.Sub(mark) (also through .Minutes(), a conversion, or a variable
// holding it) compared with anything, or Before/After between the current
// time and a mark with a duration added to either side
// (mark.Add(d).After(now), now.Before(last[job].Add(d)),
// mark.After(now.Add(-d))). The mark is a run mark when it outlives one
// run: a field, a package variable, a map element such as lastStart[job],
// a value read back from storage, a parameter, or a local variable
// assigned inside the loop or closure that repeats the check.
//
// It is reported when the job is due by the wall clock or the calendar: in
// a function that matches a reading of the current time (now.Hour(),
// now.Day(), now.Format("15:04") ... == a setting, or a switch on one),
// that calls such a predicate of its package, or that is called by such a
// function.
//
// Left alone: interval loops ("every 10 minutes of real time" is what an
// elapsed-time check measures correctly), liveness checks on heartbeats
// and leases (by the mark's name), and durations measured within one run
// (start := time.Now(); ...; time.Since(start) > timeout).
var ElapsedGuard = newAnalyzer(&analysis.Analyzer{
	Name: "elapsedguard",
	Doc:  "report reruns suppressed by an elapsed-time guard instead of a per-period claim",
	URL:  "https://pkg.go.dev/github.com/dstsafe/dstsafe/cmd/dstsafevet#ElapsedGuard",
	Run:  runElapsedGuard,
})

const elapsedGuardMsg = "elapsedguard: an elapsed-time guard lets the job run again when local time repeats (01:30 CDT and 01:30 CST are 60 minutes apart) and after any restart; " +
	"claim the logical period (job, date) in a dstsafe.Ledger before running instead"

// liveMarkName matches timestamps of liveness checks, which are not run
// marks.
var liveMarkName = regexp.MustCompile(`(?i)heartbeat|lease|seen|renew|touch|ping|alive|expir|deadline|timeout|refresh`)

// markName returns the name behind a run mark expression: lastRun,
// n.lastRun, time.Time(*last) -> last, lastStart[name] -> lastStart.
func markName(e ast.Expr) string {
	switch e := unparen(e).(type) {
	case *ast.Ident:
		return e.Name
	case *ast.SelectorExpr:
		return e.Sel.Name
	case *ast.StarExpr:
		return markName(e.X)
	case *ast.CallExpr:
		if len(e.Args) == 1 {
			return markName(e.Args[0])
		}
		if sel, ok := unparen(e.Fun).(*ast.SelectorExpr); ok {
			return sel.Sel.Name
		}
	case *ast.IndexExpr:
		return markName(e.X)
	}
	return ""
}

func runElapsedGuard(pass *analysis.Pass) (any, error) {
	fs := files(pass)
	t := flow(pass)
	r := newReporter(pass, fs)
	w := newWallMatcher(t)
	g := &guardFinder{t: t, w: w}
	triggered := g.triggered(fs)
	for _, f := range fs {
		ast.Inspect(f, func(n ast.Node) bool {
			e, ok := n.(ast.Expr)
			if !ok {
				return true
			}
			mark, ok := g.elapsedComparison(e)
			if !ok || !triggered[t.outermostFunc(e)] || !g.isRunMark(mark, e) {
				return true
			}
			r.report(analysis.Diagnostic{Pos: e.Pos(), End: e.End(), Category: "elapsedguard", Message: elapsedGuardMsg})
			return true
		})
	}
	return nil, nil
}

type guardFinder struct {
	t *tracker
	w *wallMatcher
}

// triggered returns the top-level functions in which a job is due by the
// wall clock or the calendar: they match a reading, call a bool predicate
// of this package that does, or are called by a function that does.
func (g *guardFinder) triggered(fs []*ast.File) map[ast.Node]bool {
	t := g.t
	direct := map[ast.Node]bool{}
	for _, f := range fs {
		ast.Inspect(f, func(n ast.Node) bool {
			switch n := n.(type) {
			case *ast.SwitchStmt:
				if n.Tag != nil && g.w.component(n.Tag)&(compHour|compCalendar) != 0 {
					direct[t.outermostFunc(n)] = true
				}
			case ast.Expr:
				if g.w.isMatch(n, compHour|compCalendar) || g.w.isOrdering(n, compHour) {
					direct[t.outermostFunc(n)] = true
				}
				// clockutil.IsBillingTime(now): a wall predicate of
				// another package.
				if call, ok := n.(*ast.CallExpr); ok {
					if f := t.wallCall(call); f != nil && f.Pred {
						direct[t.outermostFunc(n)] = true
					}
				}
			}
			return true
		})
	}
	out := map[ast.Node]bool{}
	for fn := range direct {
		out[fn] = true
	}
	for _, call := range t.calls {
		caller := t.outermostFunc(call)
		for _, n := range t.targets(call.Fun) {
			d, ok := n.node.(*ast.FuncDecl)
			if !ok {
				continue
			}
			// if s.isDue(now) && now.Sub(last) < d: the caller decides.
			if direct[d] && returnsBool(n.fn) {
				out[caller] = true
			}
			// a due tick calls s.runGuarded(job, now): the callee guards.
			if direct[caller] {
				out[d] = true
			}
		}
	}
	return out
}

func returnsBool(fn *types.Func) bool {
	if fn == nil {
		return false
	}
	res := fn.Type().(*types.Signature).Results()
	if res.Len() != 1 {
		return false
	}
	b, ok := res.At(0).Type().Underlying().(*types.Basic)
	return ok && b.Kind() == types.Bool
}

// elapsedComparison recognises a comparison of the time elapsed since a
// mark with a duration, and returns the mark.
func (g *guardFinder) elapsedComparison(e ast.Expr) (mark ast.Expr, ok bool) {
	t := g.t
	switch e := e.(type) {
	case *ast.BinaryExpr:
		switch e.Op {
		case token.LSS, token.LEQ, token.GTR, token.GEQ:
		default:
			return nil, false
		}
		if m := g.elapsedSince(e.X, 0); m != nil {
			return m, true
		}
		if m := g.elapsedSince(e.Y, 0); m != nil {
			return m, true
		}
	case *ast.CallExpr:
		sel, isSel := unparen(e.Fun).(*ast.SelectorExpr)
		if !isSel || len(e.Args) != 1 || (sel.Sel.Name != "After" && sel.Sel.Name != "Before") ||
			!isTime(t.pass.TypesInfo.TypeOf(sel.X)) || !isTime(t.pass.TypesInfo.TypeOf(e.Args[0])) {
			return nil, false
		}
		// One side is the current time, the other a mark; a duration is
		// added to one of them: mark.Add(d).After(now),
		// now.Before(mark.Add(d)), mark.After(now.Add(-d)).
		a, b := sel.X, e.Args[0]
		aBase, aAdd := g.stripAdd(a)
		bBase, bAdd := g.stripAdd(b)
		if aAdd == bAdd {
			return nil, false
		}
		switch {
		case g.fresh(bBase) && !g.fresh(aBase):
			return aBase, true
		case g.fresh(aBase) && !g.fresh(bBase):
			return bBase, true
		}
	}
	return nil, false
}

// stripAdd returns x for x.Add(d), and whether there was an Add.
func (g *guardFinder) stripAdd(e ast.Expr) (ast.Expr, bool) {
	call, ok := unparen(e).(*ast.CallExpr)
	if !ok || len(call.Args) != 1 {
		return e, false
	}
	sel, ok := unparen(call.Fun).(*ast.SelectorExpr)
	if !ok || sel.Sel.Name != "Add" || !isTime(g.t.pass.TypesInfo.TypeOf(sel.X)) {
		return e, false
	}
	return sel.X, true
}

// elapsedSince returns mark for time.Since(mark), clock.Since(mark),
// now.Sub(mark), their .Minutes() and conversions, and a local variable
// holding one of them.
func (g *guardFinder) elapsedSince(e ast.Expr, depth int) ast.Expr {
	t := g.t
	if depth > 3 {
		return nil
	}
	switch e := unparen(e).(type) {
	case *ast.CallExpr:
		if tv, ok := t.pass.TypesInfo.Types[e.Fun]; ok && tv.IsType() && len(e.Args) == 1 {
			return g.elapsedSince(e.Args[0], depth+1) // float64(d), time.Duration(x)
		}
		sel, ok := unparen(e.Fun).(*ast.SelectorExpr)
		if !ok {
			return nil
		}
		if isDuration(t.pass.TypesInfo.TypeOf(sel.X)) && len(e.Args) == 0 {
			return g.elapsedSince(sel.X, depth+1) // d.Minutes()
		}
		if len(e.Args) != 1 || !isDuration(t.pass.TypesInfo.TypeOf(e)) {
			return nil
		}
		switch sel.Sel.Name {
		case "Since":
			if !g.fresh(e.Args[0]) {
				return e.Args[0]
			}
		case "Sub":
			if isTime(t.pass.TypesInfo.TypeOf(sel.X)) && t.nowOf(sel.X).now() && !g.fresh(e.Args[0]) {
				return e.Args[0]
			}
		}
	case *ast.Ident:
		v, ok := t.pass.TypesInfo.ObjectOf(e).(*types.Var)
		if !ok || !isDuration(v.Type()) && !isNumeric(v.Type()) {
			return nil
		}
		rhs := t.assigns[v]
		if len(rhs) == 1 {
			return g.elapsedSince(rhs[0], depth+1)
		}
	}
	return nil
}

func isNumeric(t types.Type) bool {
	b, ok := t.Underlying().(*types.Basic)
	return ok && b.Info()&types.IsNumeric != 0
}

// fresh reports whether e is the current time as read for this check
// (time.Now(), clock.Now(), the tick being handled), rather than a mark
// stored earlier.
func (g *guardFinder) fresh(e ast.Expr) bool {
	t := g.t
	e = unparen(e)
	for {
		call, ok := e.(*ast.CallExpr)
		if !ok {
			break
		}
		sel, ok := unparen(call.Fun).(*ast.SelectorExpr)
		if !ok || !isTime(t.pass.TypesInfo.TypeOf(sel.X)) {
			break
		}
		switch sel.Sel.Name {
		case "In", "UTC", "Local", "Truncate", "Round", "Add":
			e = unparen(sel.X)
			continue
		}
		break
	}
	info := t.nowOf(e)
	if !info.now() || info.stored {
		return false
	}
	if id, ok := e.(*ast.Ident); ok {
		if v, ok := t.pass.TypesInfo.ObjectOf(id).(*types.Var); ok && isLocal(v) && !isParam(v) {
			return !g.persists(v, id)
		}
	}
	return true
}

// isRunMark reports whether the mark of an elapsed-time comparison outlives
// one run of the check.
func (g *guardFinder) isRunMark(mark, cmp ast.Expr) bool {
	if liveMarkName.MatchString(markName(mark)) {
		return false
	}
	id, ok := unparen(mark).(*ast.Ident)
	if !ok {
		return true // a field, a map element, a value read back from storage
	}
	v, ok := g.t.pass.TypesInfo.ObjectOf(id).(*types.Var)
	if !ok || !isLocal(v) || isParam(v) {
		return true
	}
	if g.persists(v, cmp) {
		return true
	}
	// Assigned once per run: a duration measured within it, unless it
	// was loaded from somewhere (last := store.LastStart(job)).
	rhs := g.t.assigns[v]
	return len(rhs) == 0 || !allOf(rhs, g.fresh)
}

// persists reports whether the local variable v is assigned inside a loop
// or function literal that repeats use without redeclaring v: its value
// carries over from one iteration or call to the next.
func (g *guardFinder) persists(v *types.Var, use ast.Node) bool {
	t := g.t
	for _, id := range t.uses[v] {
		if !g.isAssigned(id) {
			continue
		}
		for p := t.parent[id]; p != nil; p = t.parent[p] {
			switch p.(type) {
			case *ast.ForStmt, *ast.RangeStmt, *ast.FuncLit:
				if t.encloses(p, use) && !(p.Pos() <= v.Pos() && v.Pos() < p.End()) {
					return true
				}
			}
		}
	}
	return false
}

// isAssigned reports whether id is the left-hand side of an assignment.
func (g *guardFinder) isAssigned(id *ast.Ident) bool {
	as, ok := g.t.parent[id].(*ast.AssignStmt)
	if !ok {
		return false
	}
	for _, l := range as.Lhs {
		if l == id {
			return true
		}
	}
	return false
}

func isParam(v *types.Var) bool {
	return v.Kind() == types.ParamVar || v.Kind() == types.RecvVar
}

func isLocal(v *types.Var) bool {
	return !v.IsField() && v.Parent() != nil && v.Pkg() != nil && v.Parent() != v.Pkg().Scope()
}

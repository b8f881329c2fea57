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
// It flags an if condition comparing the time elapsed since a run mark
// (time.Since(x), now.Sub(x), x.Add(d).After(now)) with a duration when
// the branch skips the run (continue, break, return) or, for the "enough
// time has passed" form, runs something, in a function that decides the
// job is due by the wall clock or the calendar (now.Hour(), now.Day(),
// now.Format("15:04") ... compared with anything). The run mark may come
// from anywhere: a variable, a field, a row read from a database.
//
// Left alone: interval loops ("every 10 minutes of real time" is what an
// elapsed-time check measures correctly), and liveness checks on
// heartbeats and leases.
var ElapsedGuard = addTestsFlag(&analysis.Analyzer{
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
// n.lastRun, time.Time(*last) -> last.
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
	case *ast.IndexExpr:
		return markName(e.X)
	}
	return ""
}

func runElapsedGuard(pass *analysis.Pass) (any, error) {
	fs := files(pass)
	t := newTracker(pass, fs)
	r := newReporter(pass, fs)
	w := &wallMatcher{t: t, comps: map[types.Object]bool{}, calendar: true}
	w.findComponentVars()
	triggered := map[ast.Node]bool{} // outermost functions that match the wall clock
	for _, f := range fs {
		ast.Inspect(f, func(n ast.Node) bool {
			var match bool
			switch n := n.(type) {
			case *ast.BinaryExpr:
				switch n.Op {
				case token.EQL, token.NEQ, token.LSS, token.LEQ, token.GTR, token.GEQ:
					match = w.isComponent(n.X) || w.isComponent(n.Y)
				}
			case *ast.SwitchStmt:
				match = n.Tag != nil && w.isComponent(n.Tag)
			}
			if match {
				triggered[t.outermostFunc(n)] = true
			}
			return true
		})
	}
	for _, f := range fs {
		ast.Inspect(f, func(n ast.Node) bool {
			ifs, ok := n.(*ast.IfStmt)
			if !ok || !triggered[t.outermostFunc(ifs)] {
				return true
			}
			for _, cmp := range conjuncts(ifs.Cond) {
				mark, recent, ok := t.elapsedComparison(cmp)
				if !ok || liveMarkName.MatchString(markName(mark)) {
					continue
				}
				if (recent && skips(ifs.Body)) || (!recent && len(ifs.Body.List) > 0) {
					r.report(analysis.Diagnostic{Pos: cmp.Pos(), End: cmp.End(), Category: "elapsedguard", Message: elapsedGuardMsg})
				}
			}
			return true
		})
	}
	return nil, nil
}

// conjuncts splits a condition on && and ||.
func conjuncts(e ast.Expr) []ast.Expr {
	e = unparen(e)
	if b, ok := e.(*ast.BinaryExpr); ok && (b.Op == token.LAND || b.Op == token.LOR) {
		return append(conjuncts(b.X), conjuncts(b.Y)...)
	}
	if u, ok := e.(*ast.UnaryExpr); ok && u.Op == token.NOT {
		return conjuncts(u.X)
	}
	return []ast.Expr{e}
}

// elapsedComparison recognises "elapsed since mark < d" (recent) and
// "elapsed since mark >= d" (not recent) in its usual spellings.
func (t *tracker) elapsedComparison(e ast.Expr) (mark ast.Expr, recent, ok bool) {
	switch e := unparen(e).(type) {
	case *ast.BinaryExpr:
		var lessThan bool
		switch e.Op {
		case token.LSS, token.LEQ:
			lessThan = true
		case token.GTR, token.GEQ:
		default:
			return nil, false, false
		}
		if m := t.elapsedSince(e.X); m != nil {
			return m, lessThan, true
		}
		if m := t.elapsedSince(e.Y); m != nil {
			return m, !lessThan, true
		}
	case *ast.CallExpr:
		// mark.Add(d).After(now): still within d of mark.
		// now.Before(mark.Add(d)): same.
		sel, isSel := unparen(e.Fun).(*ast.SelectorExpr)
		if !isSel || len(e.Args) != 1 || !isTime(t.pass.TypesInfo.TypeOf(sel.X)) {
			return nil, false, false
		}
		switch sel.Sel.Name {
		case "After":
			if t.nowOf(e.Args[0]).now {
				if m := addReceiver(t, sel.X); m != nil {
					return m, true, true
				}
			}
		case "Before":
			if t.nowOf(sel.X).now {
				if m := addReceiver(t, e.Args[0]); m != nil {
					return m, true, true
				}
			}
		}
	}
	return nil, false, false
}

// addReceiver returns mark for mark.Add(d).
func addReceiver(t *tracker, e ast.Expr) ast.Expr {
	call, ok := unparen(e).(*ast.CallExpr)
	if !ok {
		return nil
	}
	sel, ok := unparen(call.Fun).(*ast.SelectorExpr)
	if !ok || sel.Sel.Name != "Add" || !isTime(t.pass.TypesInfo.TypeOf(sel.X)) {
		return nil
	}
	return sel.X
}

// elapsedSince returns mark for time.Since(mark), clock.Since(mark) and
// now.Sub(mark).
func (t *tracker) elapsedSince(e ast.Expr) ast.Expr {
	call, ok := unparen(e).(*ast.CallExpr)
	if !ok || len(call.Args) != 1 || !isDuration(t.pass.TypesInfo.TypeOf(call)) {
		return nil
	}
	sel, ok := unparen(call.Fun).(*ast.SelectorExpr)
	if !ok {
		return nil
	}
	switch sel.Sel.Name {
	case "Since":
		return call.Args[0]
	case "Sub":
		if isTime(t.pass.TypesInfo.TypeOf(sel.X)) && t.nowOf(sel.X).now {
			return call.Args[0]
		}
	}
	return nil
}

// skips reports whether a block ends by leaving the loop iteration or the
// function: the guarded run is skipped.
func skips(b *ast.BlockStmt) bool {
	if b == nil || len(b.List) == 0 {
		return false
	}
	switch s := b.List[len(b.List)-1].(type) {
	case *ast.ReturnStmt:
		return true
	case *ast.BranchStmt:
		return s.Tok == token.CONTINUE || s.Tok == token.BREAK || s.Tok == token.GOTO
	}
	return false
}

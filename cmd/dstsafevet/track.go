package dstsafevet

import (
	"go/ast"
	"go/types"
	"strings"

	"golang.org/x/tools/go/analysis"
)

// nowInfo says whether an expression or variable holds the current instant,
// and whether it is read in UTC (where wall readings never repeat).
type nowInfo struct {
	now bool
	utc bool
}

// tracker knows which variables and fields of a package are assigned the
// current instant (time.Now(), clock.Now(), a ticker's tick), and keeps a
// parent map so uses can be judged by their context.
type tracker struct {
	pass    *analysis.Pass
	files   []*ast.File
	nowVars map[types.Object]nowInfo
	parent  map[ast.Node]ast.Node
	// assigns lists, per variable or field, the expressions assigned to it.
	assigns map[types.Object][]ast.Expr
	// tupleAssigns lists t.Clock() calls whose results were assigned,
	// per variable, with the result index.
	tupleAssigns map[types.Object][]tupleAssign
}

type tupleAssign struct {
	call  *ast.CallExpr
	index int
}

func newTracker(pass *analysis.Pass, fs []*ast.File) *tracker {
	t := &tracker{
		pass:         pass,
		files:        fs,
		nowVars:      map[types.Object]nowInfo{},
		parent:       map[ast.Node]ast.Node{},
		assigns:      map[types.Object][]ast.Expr{},
		tupleAssigns: map[types.Object][]tupleAssign{},
	}
	for _, f := range fs {
		var stack []ast.Node
		ast.Inspect(f, func(n ast.Node) bool {
			if n == nil {
				stack = stack[:len(stack)-1]
				return true
			}
			if len(stack) > 0 {
				t.parent[n] = stack[len(stack)-1]
			}
			stack = append(stack, n)
			t.collect(n)
			return true
		})
	}
	// Propagate through copies (now := tick; last = now) to a fixed point.
	for changed := true; changed; {
		changed = false
		for obj, rhs := range t.assigns {
			for _, e := range rhs {
				info := t.nowOf(e)
				if !info.now {
					continue
				}
				old, ok := t.nowVars[obj]
				merged := nowInfo{now: true, utc: info.utc && (!ok || old.utc)}
				if !ok || old != merged {
					t.nowVars[obj] = merged
					changed = true
				}
			}
		}
	}
	return t
}

func (t *tracker) collect(n ast.Node) {
	switch n := n.(type) {
	case *ast.AssignStmt:
		if len(n.Lhs) == len(n.Rhs) {
			for i, l := range n.Lhs {
				if obj := t.objectOf(l); obj != nil {
					t.assigns[obj] = append(t.assigns[obj], n.Rhs[i])
				}
			}
		} else if len(n.Rhs) == 1 {
			if call, ok := unparen(n.Rhs[0]).(*ast.CallExpr); ok {
				for i, l := range n.Lhs {
					if obj := t.objectOf(l); obj != nil {
						t.tupleAssigns[obj] = append(t.tupleAssigns[obj], tupleAssign{call, i})
					}
				}
			}
		}
	case *ast.ValueSpec:
		if len(n.Names) == len(n.Values) {
			for i, id := range n.Names {
				if obj := t.pass.TypesInfo.Defs[id]; obj != nil {
					t.assigns[obj] = append(t.assigns[obj], n.Values[i])
				}
			}
		} else if len(n.Values) == 1 {
			if call, ok := unparen(n.Values[0]).(*ast.CallExpr); ok {
				for i, id := range n.Names {
					if obj := t.pass.TypesInfo.Defs[id]; obj != nil {
						t.tupleAssigns[obj] = append(t.tupleAssigns[obj], tupleAssign{call, i})
					}
				}
			}
		}
	case *ast.RangeStmt:
		// for now := range ticker.C: each value is the current instant.
		if n.Key != nil && isTimeChan(t.pass.TypesInfo.TypeOf(n.X)) {
			if obj := t.objectOf(n.Key); obj != nil {
				t.nowVars[obj] = nowInfo{now: true}
			}
		}
	}
}

// objectOf returns the variable or field an lvalue names, or nil.
func (t *tracker) objectOf(e ast.Expr) types.Object {
	switch e := unparen(e).(type) {
	case *ast.Ident:
		if e.Name == "_" {
			return nil
		}
		if v, ok := t.pass.TypesInfo.ObjectOf(e).(*types.Var); ok {
			return v
		}
	case *ast.SelectorExpr:
		if v, ok := t.pass.TypesInfo.ObjectOf(e.Sel).(*types.Var); ok {
			return v
		}
	}
	return nil
}

// nowOf reports whether e evaluates to the current instant.
func (t *tracker) nowOf(e ast.Expr) nowInfo {
	switch e := unparen(e).(type) {
	case *ast.CallExpr:
		sel, ok := unparen(e.Fun).(*ast.SelectorExpr)
		if !ok {
			return nowInfo{}
		}
		if isPkgFunc(t.pass, sel, "time", "Now") {
			return nowInfo{now: true}
		}
		fn, ok := t.pass.TypesInfo.ObjectOf(sel.Sel).(*types.Func)
		if !ok {
			return nowInfo{}
		}
		sig := fn.Type().(*types.Signature)
		if sig.Recv() == nil {
			return nowInfo{}
		}
		// clock.Now() on any clock type.
		if fn.Name() == "Now" && sig.Params().Len() == 0 && sig.Results().Len() == 1 && isTime(sig.Results().At(0).Type()) {
			return nowInfo{now: true}
		}
		if !isTime(t.pass.TypesInfo.TypeOf(sel.X)) {
			return nowInfo{}
		}
		inner := t.nowOf(sel.X)
		if !inner.now {
			return nowInfo{}
		}
		switch fn.Name() {
		case "UTC":
			return nowInfo{now: true, utc: true}
		case "In":
			return nowInfo{now: true, utc: len(e.Args) == 1 && isUTCLoc(t.pass, e.Args[0])}
		case "Local":
			return nowInfo{now: true}
		case "Truncate", "Round":
			return inner
		}
	case *ast.UnaryExpr:
		// <-ticker.C
		if e.Op.String() == "<-" && isTimeChan(t.pass.TypesInfo.TypeOf(e.X)) {
			return nowInfo{now: true}
		}
	case *ast.Ident, *ast.SelectorExpr:
		obj := t.objectOf(e)
		if obj == nil {
			return nowInfo{}
		}
		if info, ok := t.nowVars[obj]; ok {
			return info
		}
		// A time.Time called now (a parameter, most often) is the
		// current instant by convention: func tick(now time.Time).
		if strings.EqualFold(obj.Name(), "now") && isTime(obj.Type()) {
			return nowInfo{now: true}
		}
	}
	return nowInfo{}
}

func unparen(e ast.Expr) ast.Expr { return ast.Unparen(e) }

// isPkgFunc reports whether sel names the function pkg.name.
func isPkgFunc(pass *analysis.Pass, sel *ast.SelectorExpr, pkg, name string) bool {
	fn, ok := pass.TypesInfo.ObjectOf(sel.Sel).(*types.Func)
	return ok && fn.Name() == name && fn.Pkg() != nil && fn.Pkg().Path() == pkg &&
		fn.Type().(*types.Signature).Recv() == nil
}

// calleeFunc returns the function or method a call invokes, or nil.
func calleeFunc(pass *analysis.Pass, call *ast.CallExpr) *types.Func {
	switch f := unparen(call.Fun).(type) {
	case *ast.Ident:
		fn, _ := pass.TypesInfo.ObjectOf(f).(*types.Func)
		return fn
	case *ast.SelectorExpr:
		fn, _ := pass.TypesInfo.ObjectOf(f.Sel).(*types.Func)
		return fn
	}
	return nil
}

func isNamed(t types.Type, pkg, name string) bool {
	if t == nil {
		return false
	}
	if p, ok := t.(*types.Pointer); ok {
		t = p.Elem()
	}
	n, ok := types.Unalias(t).(*types.Named)
	return ok && n.Obj().Name() == name && n.Obj().Pkg() != nil && n.Obj().Pkg().Path() == pkg
}

func isTime(t types.Type) bool     { return isNamed(t, "time", "Time") }
func isDuration(t types.Type) bool { return isNamed(t, "time", "Duration") }

func isTimeChan(t types.Type) bool {
	if t == nil {
		return false
	}
	c, ok := t.Underlying().(*types.Chan)
	return ok && isTime(c.Elem())
}

// isUTCLoc reports whether e is time.UTC (a zone without transitions).
func isUTCLoc(pass *analysis.Pass, e ast.Expr) bool {
	sel, ok := unparen(e).(*ast.SelectorExpr)
	if !ok {
		return false
	}
	v, ok := pass.TypesInfo.ObjectOf(sel.Sel).(*types.Var)
	return ok && v.Name() == "UTC" && v.Pkg() != nil && v.Pkg().Path() == "time"
}

// enclosingFunc returns the innermost function declaration or literal
// around n.
func (t *tracker) enclosingFunc(n ast.Node) ast.Node {
	for p := t.parent[n]; p != nil; p = t.parent[p] {
		switch p.(type) {
		case *ast.FuncDecl, *ast.FuncLit:
			return p
		}
	}
	return nil
}

// outermostFunc returns the top-level function declaration around n (or
// the outermost function literal of a package-level initializer).
func (t *tracker) outermostFunc(n ast.Node) ast.Node {
	var out ast.Node
	for p := t.parent[n]; p != nil; p = t.parent[p] {
		switch p.(type) {
		case *ast.FuncDecl, *ast.FuncLit:
			out = p
		}
	}
	return out
}

// enclosingStmt returns the innermost statement around n.
func (t *tracker) enclosingStmt(n ast.Node) ast.Stmt {
	for p := t.parent[n]; p != nil; p = t.parent[p] {
		if s, ok := p.(ast.Stmt); ok {
			return s
		}
	}
	return nil
}

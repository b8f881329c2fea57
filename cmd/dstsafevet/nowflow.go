package dstsafevet

import (
	"go/ast"
	"go/token"
	"go/types"
	"reflect"
	"strings"

	"golang.org/x/tools/go/analysis"
)

// NowFlow is the analysis every dstsafevet analyzer builds on: which
// expressions of a package hold the current instant, whatever their names.
// It reports nothing. Sources are time.Now(), a Now() method on any type
// (dstsafe.Clock, clockwork), a receive from or range over a chan
// time.Time (a ticker's tick) and the callback of dstsafe.SimulateTicks.
// The instant flows, to a fixed point, through
//
//   - assignments, struct fields (also in composite literals), map, slice
//     and array elements, and range loops over them;
//   - conversions with In, Local, UTC, Truncate, Round, Add and AddDate;
//   - calls: a parameter that receives the instant at any call site in the
//     package holds it inside the callee, also for function literals,
//     methods, function values stored in variables and fields, and
//     functions passed to a parameter that is then called with it;
//   - function results: a function that returns it yields it;
//   - packages: a function, package variable or struct field that yields
//     it carries an analysis fact, so callers in other packages see it.
//
// A time.Time variable or parameter named now is the current instant by
// convention, even where no call site shows it.
var NowFlow = &analysis.Analyzer{
	Name:       "dstsafenow",
	Doc:        "track the current instant through assignments, fields, elements, calls and results (used by the dstsafevet analyzers; reports nothing)",
	URL:        "https://pkg.go.dev/github.com/dstsafe/dstsafe/cmd/dstsafevet#NowFlow",
	Run:        runNowFlow,
	ResultType: reflect.TypeFor[*tracker](),
	FactTypes:  []analysis.Fact{(*nowFact)(nil), (*wallFact)(nil)},
}

// nowFact marks an object of a package that yields the current instant: a
// function or method that returns it, a func-typed variable or field that
// returns it when called, a time.Time variable or field that holds it, or
// (Elems) a map, slice or array variable or field whose elements hold it.
type nowFact struct {
	Elems  bool
	Zone   zone
	Stored bool
}

func (*nowFact) AFact() {}

func (f *nowFact) String() string {
	s := "now"
	if f.Elems {
		s = "now elements"
	}
	return s + " (" + f.Zone.String() + ")"
}

// zone says how a current instant is read: in UTC (wall readings never
// repeat), in the machine's zone (time.Now(), Local()), or in a zone the
// code names (In(loc)). Merging takes the most local.
type zone uint8

const (
	zoneUTC zone = iota + 1
	zoneMachine
	zoneNamed
)

func (z zone) String() string {
	switch z {
	case zoneUTC:
		return "UTC"
	case zoneMachine:
		return "machine zone"
	case zoneNamed:
		return "named zone"
	}
	return "none"
}

// nowInfo says whether an expression holds the current instant, in which
// zone it is read, and whether it may have been stored (in a field, a
// package variable, an element) and so be an earlier current instant: a
// run mark rather than the time of this check. The zero value is "not the
// current instant".
type nowInfo struct {
	zone   zone
	stored bool
	// shifted is the current instant moved by a duration (now.Add(-d),
	// now.AddDate(0, 0, 1)): still the current time where it is used,
	// but it does not flow into variables, parameters and results, where
	// it would make every instant computed from the current one (the
	// next fire of a schedule) look current.
	shifted bool
}

func (i nowInfo) now() bool { return i.zone != 0 }
func (i nowInfo) utc() bool { return i.zone == zoneUTC }

// merge joins what two sources say: the more local zone, stored if either
// is.
func merge(a, b nowInfo) nowInfo {
	if !a.now() {
		return b
	}
	if !b.now() {
		return a
	}
	return nowInfo{zone: max(a.zone, b.zone), stored: a.stored || b.stored, shifted: a.shifted && b.shifted}
}

// grows reports whether merging b into a changes a.
func grows(a, b nowInfo) bool { return b.now() && !b.shifted && merge(a, b) != a }

func (i nowInfo) asStored() nowInfo {
	if i.now() {
		i.stored = true
	}
	return i
}

// funcNode is something a call can invoke: a function or method declared
// in this package (decl), a function literal (lit), or a function of
// another package (fn only).
type funcNode struct {
	fn   *types.Func
	node ast.Node // *ast.FuncDecl or *ast.FuncLit; nil for another package's function
}

type tupleAssign struct {
	call  *ast.CallExpr
	index int
}

type rangeEdge struct {
	key, value types.Object
	x          ast.Expr
}

// tracker is NowFlow's result: the current-time facts of one package, and
// a parent map so that analyzers can judge a use by its context.
type tracker struct {
	// paramsAreNow makes every time.Time parameter the current instant:
	// the helper functions of a package are read so to learn what they
	// do with a time they are given (see wallFact).
	paramsAreNow bool
	pass         *analysis.Pass
	files        []*ast.File
	parent       map[ast.Node]ast.Node

	// Edges of the flow, collected once.
	assigns map[types.Object][]ast.Expr // x = e, x := e, var x = e, T{x: e}
	// litValues are the values of struct fields in composite literals
	// (also in assigns): a field set in T{H: now.Hour()} in one place and
	// T{H: 1} in another holds a reading in one value and a setting in
	// the other, which the wall-clock matcher must not confuse.
	litValues    map[ast.Expr]bool
	elemAssigns  map[types.Object][]ast.Expr // m[k] = e
	tupleAssigns map[types.Object][]tupleAssign
	ranges       []rangeEdge
	calls        []*ast.CallExpr
	funcs        []ast.Node // declarations with a body, literals
	declOf       map[*types.Func]*ast.FuncDecl
	uses         map[types.Object][]*ast.Ident

	// Solutions, to a fixed point.
	nowVars  map[types.Object]nowInfo
	nowElems map[types.Object]nowInfo
	nowFuncs map[ast.Node]nowInfo
	funcVals map[types.Object]map[funcNode]bool
}

func runNowFlow(pass *analysis.Pass) (any, error) {
	fs := flowFiles(pass)
	t := newTracker(pass, fs, false)
	t.exportFacts()
	exportWallFacts(pass, fs, t)
	return t, nil
}

// flowFiles are the files the flow is computed over: test files only if an
// analyzer was asked to check them, so that a test calling a function with
// time.Now() does not make its parameter the current instant otherwise.
func flowFiles(pass *analysis.Pass) []*ast.File {
	withTests, withGenerated := false, false
	for _, a := range flagged {
		withTests = withTests || boolFlag(a, "tests")
		withGenerated = withGenerated || boolFlag(a, "generated")
	}
	return filterFiles(pass, withTests, withGenerated)
}

func newTracker(pass *analysis.Pass, fs []*ast.File, paramsAreNow bool) *tracker {
	t := &tracker{
		paramsAreNow: paramsAreNow,
		pass:         pass,
		files:        fs,
		parent:       map[ast.Node]ast.Node{},
		assigns:      map[types.Object][]ast.Expr{},
		litValues:    map[ast.Expr]bool{},
		elemAssigns:  map[types.Object][]ast.Expr{},
		tupleAssigns: map[types.Object][]tupleAssign{},
		declOf:       map[*types.Func]*ast.FuncDecl{},
		uses:         map[types.Object][]*ast.Ident{},
		nowVars:      map[types.Object]nowInfo{},
		nowElems:     map[types.Object]nowInfo{},
		nowFuncs:     map[ast.Node]nowInfo{},
		funcVals:     map[types.Object]map[funcNode]bool{},
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
	t.solve()
	return t
}

func (t *tracker) collect(n ast.Node) {
	info := t.pass.TypesInfo
	switch n := n.(type) {
	case *ast.Ident:
		if obj := info.Uses[n]; obj != nil {
			t.uses[obj] = append(t.uses[obj], n)
		}
	case *ast.AssignStmt:
		if n.Tok != token.ASSIGN && n.Tok != token.DEFINE {
			return
		}
		if len(n.Lhs) == len(n.Rhs) {
			for i, l := range n.Lhs {
				t.assignTo(l, n.Rhs[i])
			}
			return
		}
		if len(n.Rhs) != 1 {
			return
		}
		switch r := unparen(n.Rhs[0]).(type) {
		case *ast.CallExpr:
			for i, l := range n.Lhs {
				if obj := t.objectOf(l); obj != nil {
					t.tupleAssigns[obj] = append(t.tupleAssigns[obj], tupleAssign{r, i})
				}
			}
		case *ast.UnaryExpr, *ast.IndexExpr, *ast.TypeAssertExpr:
			// t, ok := <-ch; v, ok := m[k]; v, ok := x.(T)
			t.assignTo(n.Lhs[0], r)
		}
	case *ast.ValueSpec:
		if len(n.Names) == len(n.Values) {
			for i, id := range n.Names {
				if obj := info.Defs[id]; obj != nil && id.Name != "_" {
					t.assigns[obj] = append(t.assigns[obj], n.Values[i])
				}
			}
		} else if len(n.Values) == 1 {
			if call, ok := unparen(n.Values[0]).(*ast.CallExpr); ok {
				for i, id := range n.Names {
					if obj := info.Defs[id]; obj != nil {
						t.tupleAssigns[obj] = append(t.tupleAssigns[obj], tupleAssign{call, i})
					}
				}
			}
		}
	case *ast.CompositeLit:
		st, ok := types.Unalias(t.deref(info.TypeOf(n))).Underlying().(*types.Struct)
		if !ok {
			return
		}
		for i, el := range n.Elts {
			if kv, ok := el.(*ast.KeyValueExpr); ok {
				if id, ok := kv.Key.(*ast.Ident); ok {
					if f, ok := info.ObjectOf(id).(*types.Var); ok && f.IsField() {
						t.assigns[f] = append(t.assigns[f], kv.Value)
						t.litValues[kv.Value] = true
					}
				}
			} else if i < st.NumFields() {
				t.assigns[st.Field(i)] = append(t.assigns[st.Field(i)], el)
				t.litValues[el] = true
			}
		}
	case *ast.RangeStmt:
		e := rangeEdge{x: n.X}
		if n.Key != nil {
			e.key = t.objectOf(n.Key)
		}
		if n.Value != nil {
			e.value = t.objectOf(n.Value)
		}
		if e.key != nil || e.value != nil {
			t.ranges = append(t.ranges, e)
		}
	case *ast.CallExpr:
		t.calls = append(t.calls, n)
	case *ast.FuncDecl:
		if n.Body != nil {
			t.funcs = append(t.funcs, n)
			if fn, ok := info.Defs[n.Name].(*types.Func); ok {
				t.declOf[fn] = n
			}
		}
	case *ast.FuncLit:
		t.funcs = append(t.funcs, n)
	}
}

func (t *tracker) deref(ty types.Type) types.Type {
	if p, ok := types.Unalias(ty).(*types.Pointer); ok {
		return p.Elem()
	}
	return ty
}

// assignTo records l = r: a variable or field, or an element of one.
func (t *tracker) assignTo(l, r ast.Expr) {
	if ix, ok := unparen(l).(*ast.IndexExpr); ok {
		if obj := t.objectOf(ix.X); obj != nil {
			t.elemAssigns[obj] = append(t.elemAssigns[obj], r)
		}
		return
	}
	if obj := t.objectOf(l); obj != nil {
		t.assigns[obj] = append(t.assigns[obj], r)
	}
}

// solve propagates the current instant along every edge until nothing
// changes. Each solution only grows (a zone only becomes more local), so
// it terminates; the cap is a guard against a bug, not a limit in practice.
func (t *tracker) solve() {
	for round := 0; round < 100; round++ {
		changed := false
		for obj, rhs := range t.assigns {
			for _, e := range rhs {
				changed = t.markVar(obj, t.nowOf(e)) || changed
				changed = t.markElems(obj, t.elemsNow(e)) || changed
				if isFuncType(obj.Type()) {
					for _, n := range t.targets(e) {
						changed = t.addFuncVal(obj, n) || changed
					}
				}
			}
		}
		for obj, rhs := range t.elemAssigns {
			for _, e := range rhs {
				changed = t.markElems(obj, t.nowOf(e)) || changed
			}
		}
		for _, r := range t.ranges {
			if isTimeChan(t.pass.TypesInfo.TypeOf(r.x)) {
				if r.key != nil {
					changed = t.markVar(r.key, nowInfo{zone: zoneMachine}) || changed
				}
				continue
			}
			if r.value != nil {
				changed = t.markVar(r.value, t.elemsNow(r.x).asStored()) || changed
			}
		}
		for _, call := range t.calls {
			changed = t.flowCall(call) || changed
		}
		for _, fn := range t.funcs {
			changed = t.markFunc(fn, t.returnsOf(fn)) || changed
		}
		if !changed {
			return
		}
	}
}

// flowCall carries arguments into the parameters of every function the
// call may invoke.
func (t *tracker) flowCall(call *ast.CallExpr) bool {
	changed := false
	if isSimulateTicks(t.pass, call) && len(call.Args) == 4 {
		// dstsafe.SimulateTicks(start, end, step, tick): tick gets the
		// simulated current instant.
		for _, n := range t.targets(call.Args[3]) {
			if ps := t.params(n); len(ps) == 1 {
				changed = t.markVar(ps[0], nowInfo{zone: zoneMachine}) || changed
			}
		}
	}
	for _, n := range t.targets(call.Fun) {
		ps := t.params(n)
		if ps == nil {
			continue
		}
		for i, arg := range call.Args {
			if i >= len(ps) || (i == len(ps)-1 && t.variadic(n)) {
				break
			}
			p := ps[i]
			changed = t.markVar(p, t.nowOf(arg)) || changed
			changed = t.markElems(p, t.elemsNow(arg)) || changed
			if isFuncType(p.Type()) {
				for _, a := range t.targets(arg) {
					changed = t.addFuncVal(p, a) || changed
				}
			}
		}
	}
	return changed
}

func isSimulateTicks(pass *analysis.Pass, call *ast.CallExpr) bool {
	fn := calleeFunc(pass, call)
	return fn != nil && fn.Name() == "SimulateTicks" && fn.Pkg() != nil && fn.Pkg().Path() == dstsafePath
}

const dstsafePath = "github.com/dstsafe/dstsafe"

func (t *tracker) markVar(obj types.Object, info nowInfo) bool {
	if obj == nil || !grows(t.nowVars[obj], info) {
		return false
	}
	t.nowVars[obj] = merge(t.nowVars[obj], info)
	return true
}

func (t *tracker) markElems(obj types.Object, info nowInfo) bool {
	if obj == nil || !grows(t.nowElems[obj], info) {
		return false
	}
	t.nowElems[obj] = merge(t.nowElems[obj], info)
	return true
}

func (t *tracker) markFunc(n ast.Node, info nowInfo) bool {
	if !grows(t.nowFuncs[n], info) {
		return false
	}
	t.nowFuncs[n] = merge(t.nowFuncs[n], info)
	return true
}

func (t *tracker) addFuncVal(obj types.Object, n funcNode) bool {
	s := t.funcVals[obj]
	if s == nil {
		s = map[funcNode]bool{}
		t.funcVals[obj] = s
	}
	if s[n] {
		return false
	}
	s[n] = true
	return true
}

// params returns the parameters of a function declared here or of a
// literal; nil for another package's function.
func (t *tracker) params(n funcNode) []*types.Var {
	var sig *types.Signature
	switch d := n.node.(type) {
	case *ast.FuncDecl:
		sig = n.fn.Type().(*types.Signature)
	case *ast.FuncLit:
		sig, _ = t.pass.TypesInfo.TypeOf(d).(*types.Signature)
	}
	if sig == nil {
		return nil
	}
	ps := make([]*types.Var, sig.Params().Len())
	for i := range ps {
		ps[i] = sig.Params().At(i)
	}
	return ps
}

func (t *tracker) variadic(n funcNode) bool {
	switch d := n.node.(type) {
	case *ast.FuncDecl:
		return n.fn.Type().(*types.Signature).Variadic()
	case *ast.FuncLit:
		sig, _ := t.pass.TypesInfo.TypeOf(d).(*types.Signature)
		return sig != nil && sig.Variadic()
	}
	return false
}

// targets returns the functions an expression of function type may be.
func (t *tracker) targets(e ast.Expr) []funcNode {
	switch e := unparen(e).(type) {
	case *ast.FuncLit:
		return []funcNode{{node: e}}
	case *ast.Ident, *ast.SelectorExpr:
		var id *ast.Ident
		if sel, ok := e.(*ast.SelectorExpr); ok {
			id = sel.Sel
		} else {
			id = e.(*ast.Ident)
		}
		switch obj := t.pass.TypesInfo.ObjectOf(id).(type) {
		case *types.Func:
			if d := t.declOf[obj]; d != nil {
				return []funcNode{{fn: obj, node: d}}
			}
			return []funcNode{{fn: obj}}
		case *types.Var:
			var out []funcNode
			for n := range t.funcVals[obj] {
				out = append(out, n)
			}
			return out
		}
	case *ast.IndexExpr, *ast.IndexListExpr:
		// A generic function instantiation: f[int].
		var x ast.Expr
		if ix, ok := e.(*ast.IndexExpr); ok {
			x = ix.X
		} else {
			x = e.(*ast.IndexListExpr).X
		}
		if _, ok := t.pass.TypesInfo.ObjectOf(identOf(x)).(*types.Func); ok {
			return t.targets(x)
		}
	}
	return nil
}

func identOf(e ast.Expr) *ast.Ident {
	switch e := unparen(e).(type) {
	case *ast.Ident:
		return e
	case *ast.SelectorExpr:
		return e.Sel
	}
	return nil
}

// returnsOf says whether a function declared here or a literal returns the
// current instant as its only (or first) result.
func (t *tracker) returnsOf(fn ast.Node) nowInfo {
	var sig *types.Signature
	var body *ast.BlockStmt
	switch d := fn.(type) {
	case *ast.FuncDecl:
		if obj, ok := t.pass.TypesInfo.Defs[d.Name].(*types.Func); ok {
			sig = obj.Type().(*types.Signature)
		}
		body = d.Body
	case *ast.FuncLit:
		sig, _ = t.pass.TypesInfo.TypeOf(d).(*types.Signature)
		body = d.Body
	}
	if sig == nil || body == nil || sig.Results().Len() == 0 || !isTime(sig.Results().At(0).Type()) {
		return nowInfo{}
	}
	var out nowInfo
	eachReturn(body, func(n *ast.ReturnStmt) {
		if len(n.Results) > 0 {
			if len(n.Results) == sig.Results().Len() {
				out = merge(out, t.nowOf(n.Results[0]))
			}
		} else if r := sig.Results().At(0); r.Name() != "" {
			out = merge(out, t.nowVars[r])
		}
	})
	return out
}

// eachReturn calls f for the return statements of a function body, not
// those of the function literals inside it.
func eachReturn(body *ast.BlockStmt, f func(*ast.ReturnStmt)) {
	ast.Inspect(body, func(n ast.Node) bool {
		switch n := n.(type) {
		case *ast.FuncLit:
			return false
		case *ast.ReturnStmt:
			f(n)
		}
		return true
	})
}

// returnsNow says whether calling n yields the current instant.
func (t *tracker) returnsNow(n funcNode) nowInfo {
	if n.node != nil {
		return t.nowFuncs[n.node]
	}
	if n.fn == nil {
		return nowInfo{}
	}
	if n.fn.Pkg() != nil && n.fn.Pkg().Path() == "time" && n.fn.Name() == "Now" {
		return nowInfo{zone: zoneMachine}
	}
	if isNowMethod(n.fn) {
		return nowInfo{zone: zoneMachine}
	}
	return t.importFact(n.fn, false)
}

// isNowMethod reports a Now() time.Time method on any type: a Clock.
func isNowMethod(fn *types.Func) bool {
	sig := fn.Type().(*types.Signature)
	return sig.Recv() != nil && fn.Name() == "Now" && sig.Params().Len() == 0 &&
		sig.Results().Len() == 1 && isTime(sig.Results().At(0).Type())
}

func (t *tracker) importFact(obj types.Object, elems bool) nowInfo {
	if obj == nil || obj.Pkg() == nil || obj.Pkg() == t.pass.Pkg {
		return nowInfo{}
	}
	var f nowFact
	if t.pass.ImportObjectFact(obj, &f) && f.Elems == elems {
		return nowInfo{zone: f.Zone, stored: f.Stored}
	}
	return nowInfo{}
}

// exportFacts publishes what other packages need: the functions, package
// variables and fields of this package that yield the current instant.
func (t *tracker) exportFacts() {
	exportable := func(obj types.Object) bool {
		if obj == nil || obj.Pkg() != t.pass.Pkg {
			return false
		}
		switch obj := obj.(type) {
		case *types.Func:
			return true
		case *types.Var:
			return obj.IsField() || obj.Parent() == obj.Pkg().Scope()
		}
		return false
	}
	for n, info := range t.nowFuncs {
		if d, ok := n.(*ast.FuncDecl); ok {
			if fn := t.pass.TypesInfo.Defs[d.Name]; exportable(fn) {
				t.pass.ExportObjectFact(fn, &nowFact{Zone: info.zone, Stored: info.stored})
			}
		}
	}
	for obj, info := range t.nowVars {
		if exportable(obj) {
			t.pass.ExportObjectFact(obj, &nowFact{Zone: info.zone, Stored: info.stored})
		}
	}
	for obj, info := range t.nowElems {
		if exportable(obj) {
			t.pass.ExportObjectFact(obj, &nowFact{Elems: true, Zone: info.zone, Stored: info.stored})
		}
	}
	for obj, fns := range t.funcVals {
		if !exportable(obj) {
			continue
		}
		var info nowInfo
		for n := range fns {
			info = merge(info, t.returnsNow(n))
		}
		if info.now() {
			t.pass.ExportObjectFact(obj, &nowFact{Zone: info.zone, Stored: info.stored})
		}
	}
}

// nowOf reports whether e evaluates to the current instant, and in which
// zone it is read.
func (t *tracker) nowOf(e ast.Expr) nowInfo {
	info := t.pass.TypesInfo
	switch e := unparen(e).(type) {
	case *ast.CallExpr:
		if tv, ok := info.Types[e.Fun]; ok && tv.IsType() {
			// time.Time(x), a named time type
			if len(e.Args) == 1 && isTime(info.TypeOf(e)) {
				return t.nowOf(e.Args[0])
			}
			return nowInfo{}
		}
		if sel, ok := unparen(e.Fun).(*ast.SelectorExpr); ok && isTime(info.TypeOf(sel.X)) {
			inner := t.nowOf(sel.X)
			if !inner.now() {
				return nowInfo{}
			}
			switch sel.Sel.Name {
			case "UTC":
				inner.zone = zoneUTC
				return inner
			case "In":
				inner.zone = zoneNamed
				if len(e.Args) == 1 && t.isUTCLoc(e.Args[0]) {
					inner.zone = zoneUTC
				}
				return inner
			case "Local":
				inner.zone = zoneMachine
				return inner
			case "Truncate", "Round":
				return inner
			case "Add", "AddDate":
				inner.shifted = true
				return inner
			}
			return nowInfo{}
		}
		var out nowInfo
		if obj, ok := info.ObjectOf(identOf(e.Fun)).(*types.Var); ok {
			out = t.importFact(obj, false) // a func-typed variable of another package
		}
		// clockutil.Local(now): a helper of another package that reads
		// the time it is given in a zone.
		if f := t.wallCall(e); f != nil && f.Local && !f.Self {
			out = merge(out, nowInfo{zone: zoneNamed})
		}
		for _, n := range t.targets(e.Fun) {
			out = merge(out, t.returnsNow(n))
		}
		return out
	case *ast.UnaryExpr:
		if e.Op == token.ARROW && isTimeChan(info.TypeOf(e.X)) {
			return nowInfo{zone: zoneMachine}
		}
	case *ast.Ident, *ast.SelectorExpr:
		obj := t.objectOf(e)
		if obj == nil {
			return nowInfo{}
		}
		out := merge(t.nowVars[obj], t.importFact(obj, false))
		// A time.Time called now (a parameter, most often) is the
		// current instant by convention: func tick(now time.Time).
		// Only where the flow says nothing: a variable assigned
		// time.Now().UTC() is in UTC whatever its name.
		v, _ := obj.(*types.Var)
		if !out.now() && v != nil && (isParam(v) || len(t.assigns[obj]) == 0) && (strings.EqualFold(obj.Name(), "now") || t.paramsAreNow && isParam(v)) && isTime(obj.Type()) {
			out = merge(out, nowInfo{zone: zoneMachine})
		}
		if v != nil && !isLocal(v) {
			out = out.asStored()
		}
		return out
	case *ast.IndexExpr:
		if _, ok := info.TypeOf(e.X).Underlying().(*types.Signature); ok {
			return nowInfo{}
		}
		return t.elemsNow(e.X).asStored()
	}
	return nowInfo{}
}

// elemsNow reports whether the elements of a map, slice or array
// expression hold the current instant.
func (t *tracker) elemsNow(e ast.Expr) nowInfo {
	switch e := unparen(e).(type) {
	case *ast.CompositeLit:
		var out nowInfo
		for _, el := range e.Elts {
			if kv, ok := el.(*ast.KeyValueExpr); ok {
				el = kv.Value
			}
			out = merge(out, t.nowOf(el))
		}
		return out
	case *ast.Ident, *ast.SelectorExpr:
		obj := t.objectOf(e)
		if obj == nil {
			return nowInfo{}
		}
		return merge(t.nowElems[obj], t.importFact(obj, true))
	case *ast.CallExpr:
		if id, ok := unparen(e.Fun).(*ast.Ident); ok && id.Name == "append" && len(e.Args) > 0 {
			if _, ok := t.pass.TypesInfo.ObjectOf(id).(*types.Builtin); ok {
				out := t.elemsNow(e.Args[0])
				for _, a := range e.Args[1:] {
					out = merge(out, t.nowOf(a))
				}
				return out
			}
		}
	case *ast.SliceExpr:
		return t.elemsNow(e.X).asStored()
	}
	return nowInfo{}
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

func isFuncType(ty types.Type) bool {
	_, ok := ty.Underlying().(*types.Signature)
	return ok
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
	fn, _ := pass.TypesInfo.ObjectOf(identOf(call.Fun)).(*types.Func)
	return fn
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

// encloses reports whether outer is n or one of its ancestors.
func (t *tracker) encloses(outer, n ast.Node) bool {
	for p := n; p != nil; p = t.parent[p] {
		if p == outer {
			return true
		}
	}
	return false
}

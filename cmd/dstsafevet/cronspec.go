package dstsafevet

import (
	"errors"
	"fmt"
	"go/ast"
	"go/token"
	"go/types"
	"strings"
	"time"

	"golang.org/x/tools/go/analysis"

	"github.com/dstsafe/dstsafe"
)

// CronSpec reports cron spec literals passed to dstsafe.ParseCron,
// robfig/cron (ParseStandard, Parser.Parse, Cron.AddFunc, Cron.AddJob) or
// gocron (v2 CronJob, v1 Scheduler.Cron and CronWithSeconds):
//
//   - without a CRON_TZ= or TZ= prefix, since the zone then depends on the
//     library (dstsafe: UTC; robfig/cron and gocron: the machine's zone);
//     @every intervals need none.
//     A dstsafe.ParseCron call with options is assumed to set the zone, and
//     so is a robfig *cron.Cron built here with cron.New(cron.WithLocation(...)).
//     The suggested fix prefixes CRON_TZ=UTC;
//   - with a zone and a fixed time that one of the zone's transitions in
//     the current year and the two after it skips or repeats
//     (CRON_TZ=America/Chicago 30 1 * * *);
//   - with a zone the tz database does not know.
//
// The spec may be a constant, or a value that only constants flow into:
// a package variable, a field of a configuration struct set in a
// composite literal, a map or slice element, a range variable over them,
// the result of a function of the package. The diagnostic is reported
// where the constant is written.
var CronSpec = newAnalyzer(&analysis.Analyzer{
	Name: "cronspec",
	Doc:  "report cron specs without a zone, or at a fixed time inside their zone's DST transition window",
	URL:  "https://pkg.go.dev/github.com/dstsafe/dstsafe/cmd/dstsafevet#CronSpec",
	Run:  runCronSpec,
})

const (
	noZoneMsg = "cronspec: without a zone prefix the spec's zone depends on the library (dstsafe: UTC; robfig/cron and gocron: the machine's local zone); " +
		"prefix it with CRON_TZ=UTC, or CRON_TZ=Zone for a job that must follow local time"
	windowMsg = "cronspec: %s in %s is a fixed time inside a transition window (%s), so the job runs twice, an hour off or not at all depending on the library; " +
		"move it outside the window or schedule it in UTC, and claim each period in a dstsafe.Ledger"
	badZoneMsg = "cronspec: zone %q is rejected (%s), so the spec fails to parse at run time; name an IANA zone such as America/Chicago or UTC"
)

// now is the reference for the transition window; tests may pin it.
var now = time.Now

func runCronSpec(pass *analysis.Pass) (any, error) {
	fs := files(pass)
	r := newReporter(pass, fs)
	t := flow(pass)
	for _, f := range fs {
		ast.Inspect(f, func(n ast.Node) bool {
			call, ok := n.(*ast.CallExpr)
			if !ok || len(call.Args) == 0 {
				return true
			}
			fn := calleeFunc(pass, call)
			if fn == nil {
				return true
			}
			lib, zoneFromOptions := cronLibrary(fn, call)
			if lib == "" {
				return true
			}
			switch {
			case zoneFromOptions:
			case lib == "robfig/cron":
				zoneFromOptions = t.robfigWithLocation(call)
			case lib == "gocron":
				zoneFromOptions = t.gocronWithLocation(call)
			}
			for _, src := range t.specSources(call.Args[0], 0) {
				spec, _ := constString(pass, src)
				checkSpec(r, src, spec, zoneFromOptions)
			}
			return true
		})
	}
	return nil, nil
}

// cronLibrary reports which scheduling library fn belongs to when its
// first argument is a cron spec, and whether options may set the zone.
func cronLibrary(fn *types.Func, call *ast.CallExpr) (lib string, zoneFromOptions bool) {
	if fn.Pkg() == nil {
		return "", false
	}
	sig := fn.Type().(*types.Signature)
	method := sig.Recv() != nil
	switch fn.Pkg().Path() {
	case "github.com/dstsafe/dstsafe":
		if fn.Name() == "ParseCron" && !method {
			return "dstsafe", len(call.Args) > 1
		}
	case "github.com/robfig/cron/v3", "github.com/robfig/cron":
		switch {
		case fn.Name() == "ParseStandard" && !method,
			fn.Name() == "Parse" && method,
			(fn.Name() == "AddFunc" || fn.Name() == "AddJob") && method:
			return "robfig/cron", false
		}
	case "github.com/go-co-op/gocron/v2":
		if fn.Name() == "CronJob" && !method {
			return "gocron", false
		}
	case "github.com/go-co-op/gocron":
		if (fn.Name() == "Cron" || fn.Name() == "CronWithSeconds") && method {
			return "gocron", false
		}
	}
	return "", false
}

func checkSpec(r *reporter, arg ast.Expr, spec string, zoneFromOptions bool) {
	zone, rest := SplitZone(spec)
	if zone == "" {
		// @every 10m is an interval of real time in every library: no
		// zone to name.
		if zoneFromOptions || strings.HasPrefix(rest, "@every ") {
			return
		}
		d := analysis.Diagnostic{Pos: arg.Pos(), End: arg.End(), Category: "cronspec", Message: noZoneMsg}
		if lit, ok := unparen(arg).(*ast.BasicLit); ok && lit.Kind == token.STRING {
			d.SuggestedFixes = []analysis.SuggestedFix{{
				Message:   "Pin the spec to UTC with CRON_TZ=UTC",
				TextEdits: []analysis.TextEdit{{Pos: lit.Pos() + 1, End: lit.Pos() + 1, NewText: []byte("CRON_TZ=UTC ")}},
			}}
		}
		r.report(d)
		return
	}
	c, err := ParseSpec(spec)
	if err != nil {
		var pe *dstsafe.ParseError
		if IsZoneError(err) && errors.As(err, &pe) {
			r.report(analysis.Diagnostic{Pos: arg.Pos(), End: arg.End(), Category: "cronspec", Message: fmt.Sprintf(badZoneMsg, zone, pe.Reason)})
		}
		// Other dialect differences are the libraries' own business.
		return
	}
	from := time.Date(now().UTC().Year(), time.January, 1, 0, 0, 0, 0, time.UTC)
	risks := WindowRisks(c, from, from.AddDate(3, 0, 0))
	if len(risks) == 0 {
		return
	}
	r.report(analysis.Diagnostic{Pos: arg.Pos(), End: arg.End(), Category: "cronspec",
		Message: fmt.Sprintf(windowMsg, fmt.Sprintf("%q", rest), zone, risks[0])})
}

// robfigWithLocation reports whether c.AddFunc(...) is called on a
// *cron.Cron built in this package with cron.New(cron.WithLocation(...)),
// which then reads zone-less specs in that zone.
func (t *tracker) robfigWithLocation(call *ast.CallExpr) bool {
	sel, ok := unparen(call.Fun).(*ast.SelectorExpr)
	if !ok {
		return false
	}
	// cron.New(cron.WithLocation(utc)).AddFunc(...)
	if newCall, ok := unparen(sel.X).(*ast.CallExpr); ok {
		return hasOption(t.pass, newCall, "WithLocation", "github.com/robfig/cron")
	}
	obj := t.objectOf(sel.X)
	if obj == nil {
		return false
	}
	for _, rhs := range t.assigns[obj] {
		if newCall, ok := unparen(rhs).(*ast.CallExpr); ok && hasOption(t.pass, newCall, "WithLocation", "github.com/robfig/cron") {
			return true
		}
	}
	return false
}

// specSources returns the constant string expressions that flow into a
// spec argument: the argument itself when it is constant, else what is
// assigned to the variable, field or element it reads, or returned by the
// function it calls.
func (t *tracker) specSources(e ast.Expr, depth int) []ast.Expr {
	if depth > 5 {
		return nil
	}
	if _, ok := constString(t.pass, e); ok {
		return []ast.Expr{e}
	}
	var out []ast.Expr
	// j.Spec where j ranges over a table of literals: only that table's
	// specs, not every value the field gets in the package.
	if x, ok := unparen(e).(*ast.SelectorExpr); ok {
		if lits := t.structLits(x.X, depth+1); lits != nil {
			for _, lit := range lits {
				if v := fieldValue(t.pass, lit, x.Sel.Name); v != nil {
					out = append(out, t.specSources(v, depth+1)...)
				}
			}
			return out
		}
	}
	switch x := unparen(e).(type) {
	case *ast.Ident, *ast.SelectorExpr:
		obj := t.objectOf(x)
		if obj == nil {
			return nil
		}
		for _, r := range t.assigns[obj] {
			out = append(out, t.specSources(r, depth+1)...)
		}
		for _, rg := range t.ranges {
			if rg.value == obj {
				out = append(out, t.elemSpecSources(rg.x, depth+1)...)
			}
		}
	case *ast.IndexExpr:
		out = t.elemSpecSources(x.X, depth+1)
	case *ast.CallExpr:
		for _, n := range t.targets(x.Fun) {
			var body *ast.BlockStmt
			switch d := n.node.(type) {
			case *ast.FuncDecl:
				body = d.Body
			case *ast.FuncLit:
				body = d.Body
			}
			if body == nil {
				continue
			}
			eachReturn(body, func(n *ast.ReturnStmt) {
				if len(n.Results) > 0 {
					out = append(out, t.specSources(n.Results[0], depth+1)...)
				}
			})
		}
	}
	return out
}

// elemSpecSources returns the constant strings among the elements of a
// map, slice or array: its composite literals and element assignments.
func (t *tracker) elemSpecSources(e ast.Expr, depth int) []ast.Expr {
	var out []ast.Expr
	add := func(lit ast.Expr) {
		cl, ok := unparen(lit).(*ast.CompositeLit)
		if !ok {
			return
		}
		for _, el := range cl.Elts {
			if kv, ok := el.(*ast.KeyValueExpr); ok {
				el = kv.Value
			}
			out = append(out, t.specSources(el, depth+1)...)
		}
	}
	add(e)
	if obj := t.objectOf(e); obj != nil {
		for _, r := range t.assigns[obj] {
			add(r)
		}
		for _, r := range t.elemAssigns[obj] {
			out = append(out, t.specSources(r, depth+1)...)
		}
	}
	return out
}

// gocronWithLocation reports whether gocron.CronJob(...) is passed to
// NewJob on a scheduler built here with gocron.NewScheduler(
// gocron.WithLocation(...)), which reads zone-less specs in that zone.
func (t *tracker) gocronWithLocation(call *ast.CallExpr) bool {
	outer, ok := t.parent[call].(*ast.CallExpr)
	if !ok {
		return false
	}
	sel, ok := unparen(outer.Fun).(*ast.SelectorExpr)
	if !ok || sel.Sel.Name != "NewJob" {
		return false
	}
	obj := t.objectOf(sel.X)
	if obj == nil {
		return false
	}
	for _, ta := range t.tupleAssigns[obj] {
		if ta.index == 0 && hasOption(t.pass, ta.call, "WithLocation", "github.com/go-co-op/gocron") {
			return true
		}
	}
	return false
}

// hasOption reports whether a constructor call passes an option built by
// a function name of a package whose path starts with pkg.
func hasOption(pass *analysis.Pass, newCall *ast.CallExpr, name, pkg string) bool {
	for _, a := range newCall.Args {
		opt, ok := unparen(a).(*ast.CallExpr)
		if !ok {
			continue
		}
		if fn := calleeFunc(pass, opt); fn != nil && fn.Name() == name && fn.Pkg() != nil && strings.HasPrefix(fn.Pkg().Path(), pkg) {
			return true
		}
	}
	return false
}

// structLits returns the composite literals a struct-valued expression may
// be: a variable assigned one, a range variable over a table of them, an
// element of such a table; nil when some value is not a literal.
func (t *tracker) structLits(e ast.Expr, depth int) []*ast.CompositeLit {
	if depth > 5 {
		return nil
	}
	var out []*ast.CompositeLit
	all := true
	add := func(r ast.Expr) {
		if u, ok := unparen(r).(*ast.UnaryExpr); ok && u.Op == token.AND {
			r = u.X
		}
		if lit, ok := unparen(r).(*ast.CompositeLit); ok {
			out = append(out, lit)
		} else {
			all = false
		}
	}
	elems := func(x ast.Expr) {
		var conts []ast.Expr
		if obj := t.objectOf(x); obj != nil {
			conts = t.assigns[obj]
			if len(t.elemAssigns[obj]) > 0 {
				all = false
			}
		} else {
			conts = []ast.Expr{x}
		}
		for _, c := range conts {
			cl, ok := unparen(c).(*ast.CompositeLit)
			if !ok {
				all = false
				continue
			}
			for _, el := range cl.Elts {
				if kv, ok := el.(*ast.KeyValueExpr); ok {
					el = kv.Value
				}
				add(el)
			}
		}
	}
	switch x := unparen(e).(type) {
	case *ast.Ident:
		obj := t.objectOf(x)
		if obj == nil {
			return nil
		}
		ranged := false
		for _, rg := range t.ranges {
			if rg.value == obj {
				elems(rg.x)
				ranged = true
			}
		}
		if !ranged {
			if len(t.assigns[obj]) == 0 {
				return nil
			}
			for _, r := range t.assigns[obj] {
				add(r)
			}
		}
	case *ast.IndexExpr:
		elems(x.X)
	default:
		return nil
	}
	if !all || len(out) == 0 {
		return nil
	}
	return out
}

// fieldValue returns the value a struct literal gives a field, or nil.
func fieldValue(pass *analysis.Pass, lit *ast.CompositeLit, name string) ast.Expr {
	st, ok := pass.TypesInfo.TypeOf(lit).Underlying().(*types.Struct)
	if !ok {
		return nil
	}
	for i, el := range lit.Elts {
		if kv, ok := el.(*ast.KeyValueExpr); ok {
			if id, ok := kv.Key.(*ast.Ident); ok && id.Name == name {
				return kv.Value
			}
			continue
		}
		if i < st.NumFields() && st.Field(i).Name() == name {
			return el
		}
	}
	return nil
}

package dstsafevet

import (
	"errors"
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

// CronSpec reports cron spec literals passed to dstsafe.ParseCron,
// robfig/cron (ParseStandard, Parser.Parse, Cron.AddFunc, Cron.AddJob) or
// gocron (v2 CronJob, v1 Scheduler.Cron and CronWithSeconds):
//
//   - without a CRON_TZ= or TZ= prefix, since the zone then depends on the
//     library (dstsafe: UTC; robfig/cron and gocron: the machine's zone).
//     A dstsafe.ParseCron call with options is assumed to set the zone, and
//     so is a robfig *cron.Cron built here with cron.New(cron.WithLocation(...)).
//     The suggested fix prefixes CRON_TZ=UTC;
//   - with a zone and a fixed time that one of the zone's transitions in
//     the current year and the two after it skips or repeats
//     (CRON_TZ=America/Chicago 30 1 * * *);
//   - with a zone the tz database does not know.
//
// Only constant specs are checked.
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
			if lib == "robfig/cron" && !zoneFromOptions {
				zoneFromOptions = t.robfigWithLocation(call)
			}
			arg := call.Args[0]
			tv, ok := pass.TypesInfo.Types[arg]
			if !ok || tv.Value == nil || tv.Value.Kind() != constant.String {
				return true
			}
			checkSpec(r, arg, constant.StringVal(tv.Value), zoneFromOptions)
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
		if zoneFromOptions {
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
	obj := t.objectOf(sel.X)
	if obj == nil {
		return false
	}
	for _, rhs := range t.assigns[obj] {
		newCall, ok := unparen(rhs).(*ast.CallExpr)
		if !ok {
			continue
		}
		for _, a := range newCall.Args {
			opt, ok := unparen(a).(*ast.CallExpr)
			if !ok {
				continue
			}
			if fn := calleeFunc(t.pass, opt); fn != nil && fn.Name() == "WithLocation" && fn.Pkg() != nil &&
				strings.HasPrefix(fn.Pkg().Path(), "github.com/robfig/cron") {
				return true
			}
		}
	}
	return false
}

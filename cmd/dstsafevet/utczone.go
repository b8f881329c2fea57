package dstsafevet

import (
	"go/ast"
	"go/types"
	"time"

	"github.com/dstsafe/dstsafe"
)

// isUTCLoc reports whether e holds UTC, by any name: time.UTC,
// time.LoadLocation of a name the tz database gives UTC's rules ("UTC",
// "Etc/UTC", "Etc/GMT", "Zulu", "" ...), time.FixedZone with offset 0,
// and variables and fields assigned only such values (loc, err :=
// time.LoadLocation("UTC") included). A zone whose offset is zero today
// but changed in the past or will (Europe/London) is not UTC.
func (t *tracker) isUTCLoc(e ast.Expr) bool { return t.utcLoc(e, 0) }

func (t *tracker) utcLoc(e ast.Expr, depth int) bool {
	if depth > 4 {
		return false
	}
	if isUTCLoc(t.pass, e) {
		return true
	}
	switch x := unparen(e).(type) {
	case *ast.CallExpr:
		fn := calleeFunc(t.pass, x)
		if fn == nil || fn.Pkg() == nil {
			return false
		}
		if fn.Pkg().Path() != "time" {
			// mustLocation("UTC"): a helper given a zone name.
			if len(x.Args) == 1 && isLocationPtr(t.pass.TypesInfo.TypeOf(x)) {
				name, ok := constString(t.pass, x.Args[0])
				return ok && isUTCName(name)
			}
			return false
		}
		switch {
		case fn.Name() == "LoadLocation" && len(x.Args) == 1:
			name, ok := constString(t.pass, x.Args[0])
			return ok && isUTCName(name)
		case fn.Name() == "FixedZone" && len(x.Args) == 2:
			off, ok := constInt(t.pass, x.Args[1])
			return ok && off == 0
		}
	case *ast.Ident, *ast.SelectorExpr:
		obj := t.objectOf(x)
		if obj == nil {
			return false
		}
		if _, ok := obj.(*types.Var); !ok {
			return false
		}
		n := 0
		for _, r := range t.assigns[obj] {
			if !t.utcLoc(r, depth+1) {
				return false
			}
			n++
		}
		for _, ta := range t.tupleAssigns[obj] {
			if ta.index != 0 || !t.utcLoc(ta.call, depth+1) {
				return false
			}
			n++
		}
		return n > 0
	}
	return false
}

// isUTCName reports whether time.LoadLocation(name) loads UTC's rules: an
// offset of zero and no change of offset, from 1900 to 2100. "Local" is
// the machine's zone, never known here.
func isUTCName(name string) bool {
	if name == "Local" {
		return false
	}
	loc, err := time.LoadLocation(name)
	if err != nil {
		return false
	}
	if loc == time.UTC {
		return true
	}
	from, to := time.Date(1900, 1, 1, 0, 0, 0, 0, time.UTC), time.Date(2100, 1, 1, 0, 0, 0, 0, time.UTC)
	if _, off := from.In(loc).Zone(); off != 0 {
		return false
	}
	return len(dstsafe.Transitions(loc, from, to)) == 0
}

// isLocationPtr reports *time.Location, or a tuple whose first element is
// one.
func isLocationPtr(ty types.Type) bool {
	if tu, ok := ty.(*types.Tuple); ok && tu.Len() > 0 {
		ty = tu.At(0).Type()
	}
	p, ok := ty.(*types.Pointer)
	if !ok {
		return false
	}
	n, ok := p.Elem().(*types.Named)
	return ok && n.Obj().Name() == "Location" && n.Obj().Pkg() != nil && n.Obj().Pkg().Path() == "time"
}

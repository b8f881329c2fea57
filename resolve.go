package dstsafe

import (
	"errors"
	"fmt"
	"time"
)

// Kind classifies how many instants read as a given wall time.
// The zero Kind is not valid: it is what [Lookup] returns for an invalid Wall.
type Kind uint8

const (
	// Unique: exactly one instant reads as the wall time.
	Unique Kind = iota + 1
	// Fold: the clocks went back over the wall time, so two instants read as it.
	Fold
	// Gap: the clocks went forward over the wall time, so no instant reads as it.
	Gap
)

// String returns "unique", "fold", "gap", or "invalid" for the zero Kind.
func (k Kind) String() string {
	switch k {
	case Unique:
		return "unique"
	case Fold:
		return "fold"
	case Gap:
		return "gap"
	}
	return "invalid"
}

// Resolution is what [Lookup] knows about a wall time in a zone.
//
//   - Unique: Earlier == Later == the one instant reading as the wall time.
//     Transition is the zero Transition; the offset in force is
//     Earlier.Zone().
//   - Fold: Earlier is the first reading (at Transition.OffsetBefore,
//     before Transition.At), Later the second (at Transition.OffsetAfter, at
//     or after Transition.At). [Transition.Start, Transition.End) is the
//     range of repeated wall readings.
//   - Gap: the wall time is skipped by Transition. Earlier = wall -
//     OffsetAfter lies before Transition.At, Later = wall - OffsetBefore at
//     or after it, so Later is the wall time pushed forward by the length of
//     the gap (02:30 -> 03:30). [Transition.Start, Transition.End) is the
//     range of skipped wall readings.
//
// Kinds are decided by the change of UTC offset alone, never by the
// is-DST flag, so Europe/Dublin's negative DST and offset changes that are
// not DST at all (Europe/Volgograd 2018 and 2020) are classified like any
// other. Earlier, Later and Transition.At are in the zone that was looked up.
type Resolution struct {
	Kind           Kind
	Earlier, Later time.Time
	// Transition is the change of offset that makes the wall time a Fold or
	// a Gap (the one [Transitions] lists), or the zero Transition for Unique.
	Transition Transition
}

// Disambiguation says which instant [Resolve] picks for a wall time that is
// read twice (Fold) or never (Gap). The names and the Compatible default
// follow Temporal's disambiguation option, java.time and RFC 5545.
type Disambiguation int

const (
	// Compatible picks the first reading in a fold and, in a gap, the wall
	// time pushed forward by the length of the gap (02:30 -> 03:30 CDT).
	// It is the zero value.
	Compatible Disambiguation = iota
	// Earlier picks Resolution.Earlier: the first reading in a fold, and in
	// a gap the instant before the transition (02:30 -> 01:30 CST).
	Earlier
	// Later picks Resolution.Later: the second reading in a fold, the
	// pushed-forward instant in a gap.
	Later
	// Reject returns an error wrapping ErrAmbiguous in a fold and
	// ErrNonexistent in a gap.
	Reject
)

// String returns the constant's name in lower case.
func (d Disambiguation) String() string {
	switch d {
	case Compatible:
		return "compatible"
	case Earlier:
		return "earlier"
	case Later:
		return "later"
	case Reject:
		return "reject"
	}
	return fmt.Sprintf("Disambiguation(%d)", int(d))
}

var (
	// ErrAmbiguous is wrapped by the error Resolve returns with Reject for a
	// wall time that is read twice.
	ErrAmbiguous = errors.New("dstsafe: ambiguous wall time")
	// ErrNonexistent is wrapped by the error Resolve returns with Reject for
	// a wall time that is never read.
	ErrNonexistent = errors.New("dstsafe: nonexistent wall time")
)

// wallOf returns the wall reading of t in t's location.
func wallOf(t time.Time) Wall {
	y, mo, d := t.Date()
	h, mi, s := t.Clock()
	return Wall{y, mo, d, h, mi, s, t.Nanosecond()}
}

// Transition is one change of UTC offset in a zone.
type Transition struct {
	// At is the instant of the change, in the zone.
	At time.Time
	// OffsetBefore and OffsetAfter are in seconds east of UTC.
	OffsetBefore, OffsetAfter int
	// NameBefore and NameAfter are the zone abbreviations ("CDT", "CST").
	NameBefore, NameAfter string
	// Kind is Gap when the clocks went forward, Fold when they went back.
	Kind Kind
	// Start and End bound the skipped (Gap) or repeated (Fold) wall readings.
	Start, End Wall
}

// Lookup reports how the wall reading w resolves in loc: whether one
// instant, two (Fold) or none (Gap) read as w, which they are, and near a
// transition the transition itself. See [Resolution].
//
// Lookup never lets time.Date pick an offset: it solves t + offset(t) = w
// against the zone's offset history as the time package reports it, so
// every instant it returns reads back as w with t.In(loc). It is exact in
// every zone for every year, including years governed by the zone's POSIX
// rule after its last listed transition (2100 and beyond), the skipped
// 2011-12-30 of Pacific/Apia, midnight gaps (America/Havana), 24:00
// transitions (Africa/Cairo), 30-minute shifts (Australia/Lord_Howe),
// negative DST (Europe/Dublin) and offset changes that are not DST
// (Europe/Volgograd).
//
// Lookup panics if loc is nil, as time.Date does. For an invalid Wall (see
// [Wall.Validate]) it returns the zero Resolution, whose Kind is 0.
// For zones it has seen, Lookup takes no lock and allocates nothing. The
// first use of a *time.Location builds its offset table through the year
// 2400 (about a millisecond); every time.LoadLocation returns a new one, so
// load each zone once and keep it.
func Lookup(w Wall, loc *time.Location) (r Resolution) {
	if loc == nil {
		panic("dstsafe: Lookup: nil *time.Location")
	}
	if !w.IsValid() {
		return r
	}
	z, s := tableFor(loc), w.naive()
	ns := int64(w.Nanosecond)
	switch k, n := z.near(s); n {
	case 0:
		// No transition near: one reading.
		o := int64(z.off[k])
		t := time.Unix(s-o, ns).In(loc)
		r.Kind, r.Earlier, r.Later = Unique, t, t
		return r
	case 1:
		// One transition near: decide from its two offsets alone.
		b, a, tr := int64(z.off[k-1]), int64(z.off[k]), z.at[k]
		first, second := s-b < tr, s-a >= tr
		switch {
		case first && second:
			r.Kind = Fold
			r.Earlier, r.Later = time.Unix(s-b, ns).In(loc), time.Unix(s-a, ns).In(loc)
		case first || second:
			o := b
			if second {
				o = a
			}
			t := time.Unix(s-o, ns).In(loc)
			r.Kind, r.Earlier, r.Later = Unique, t, t
			return r
		default:
			r.Kind = Gap
			r.Earlier, r.Later = time.Unix(s-a, ns).In(loc), time.Unix(s-b, ns).In(loc)
		}
		r.Transition = z.tr(k)
		return r
	}
	lookupInto(&r, z, s, w.Nanosecond)
	return r
}

// solution says which periods of a zone's offset history read as a wall
// time: first == last for Unique, first < last for Fold (the clocks went
// back at the start of period last), and gap > 0 for Gap (the wall time
// falls between period gap-1 and period gap).
type solution struct {
	kind             Kind
	first, last, gap int
	at               []int64
	off              []int32
	table            bool // at/off are z's own (transitions are cached)
}

// solve finds the instants t with t + offset(t) = s, s being a wall
// reading's naive seconds. Only periods within maxOffsetSpan of s can hold
// one.
func solve(z *zoneTable, s int64) solution {
	sv := solution{at: z.at, off: z.off, table: true, first: -1, last: -1, gap: -1}
	var i int
	if s+maxOffsetSpan < z.hi {
		i = z.period(s - maxOffsetSpan)
	} else {
		sv.at, sv.off, _ = scanZone(z.loc, s-maxOffsetSpan, s+maxOffsetSpan+1)
		sv.table = false
		i = periodIndex(sv.at, s-maxOffsetSpan)
	}
	at, off := sv.at, sv.off
	for j := i; j < len(at) && at[j] <= s+maxOffsetSpan; j++ {
		t := s - int64(off[j])
		if t < at[j] {
			continue // reads before this period began: it belongs earlier
		}
		if j+1 < len(at) && t >= at[j+1] {
			// Past this period's end; if the next period's reading is
			// before its start, w fell into the gap between them.
			if t2 := s - int64(off[j+1]); t2 < at[j+1] {
				sv.gap = j + 1
			}
			continue
		}
		if sv.first < 0 {
			sv.first = j
		}
		sv.last = j
	}
	switch {
	case sv.first >= 0 && sv.first == sv.last:
		sv.kind = Unique
	case sv.first >= 0:
		sv.kind = Fold
	case sv.gap > 0:
		sv.kind = Gap
	default:
		// Unreachable for a consistent offset history; answer with the
		// period in force so callers still get a reading.
		sv.kind = Unique
		sv.first = periodIndex(at, s-int64(off[periodIndex(at, s)]))
		sv.last = sv.first
	}
	return sv
}

// transition returns the change of offset that starts period j of sv.
func (z *zoneTable) transition(sv *solution, j int) Transition {
	if sv.table {
		return z.tr(j)
	}
	return transitionAt(z.loc, sv.at[j], int64(sv.off[j-1]), int64(sv.off[j]))
}

// transitionAt returns the change at unix second at from offset b to
// offset a (seconds east of UTC).
func transitionAt(loc *time.Location, at, b, a int64) Transition {
	tr := Transition{At: time.Unix(at, 0).In(loc), OffsetBefore: int(b), OffsetAfter: int(a),
		Kind: Gap, Start: wallOfNaive(at+b, 0), End: wallOfNaive(at+a, 0)}
	if a < b {
		tr.Kind, tr.Start, tr.End = Fold, tr.End, tr.Start
	}
	tr.NameBefore, _ = time.Unix(at-1, 0).In(loc).Zone()
	tr.NameAfter, _ = tr.At.Zone()
	return tr
}

// lookupNaive resolves the naive seconds s (a wall reading counted as if it
// were UTC) plus nsec against z.
func lookupNaive(z *zoneTable, s int64, nsec int) (r Resolution) {
	lookupInto(&r, z, s, nsec)
	return r
}

// lookupInto fills r in place: a Resolution is large, and copying it
// between frames costs more than computing it.
func lookupInto(r *Resolution, z *zoneTable, s int64, nsec int) {
	sv := solve(z, s)
	loc, off := z.loc, sv.off
	r.Kind = sv.kind
	switch sv.kind {
	case Fold:
		r.Earlier = time.Unix(s-int64(off[sv.first]), int64(nsec)).In(loc)
		r.Later = time.Unix(s-int64(off[sv.last]), int64(nsec)).In(loc)
		r.Transition = z.transition(&sv, sv.last)
	case Gap:
		tr := sv.gap
		r.Earlier = time.Unix(s-int64(off[tr]), int64(nsec)).In(loc)
		r.Later = time.Unix(s-int64(off[tr-1]), int64(nsec)).In(loc)
		r.Transition = z.transition(&sv, tr)
	default:
		r.Earlier = time.Unix(s-int64(off[sv.first]), int64(nsec)).In(loc)
		r.Later = r.Earlier
	}
}

// Resolve returns the instant at which the wall reading w happens in loc,
// choosing as d says when w happens twice (Fold) or never (Gap):
//
//	              Fold (01:30 twice)        Gap (02:30 skipped)
//	Compatible    first reading (CDT)       pushed forward: 03:30 CDT
//	Earlier       first reading (CDT)       before the gap: 01:30 CST
//	Later         second reading (CST)      pushed forward: 03:30 CDT
//	Reject        error, ErrAmbiguous       error, ErrNonexistent
//
// The Reject error is a *ResolveError naming the zone, the wall reading,
// the transition and both candidate instants. An invalid Wall (February 30,
// hour 24, ...) is an error wrapping ErrInvalidArgument; it is never normalised.
// A nil loc is a *ArgError wrapping ErrInvalidArgument, a Disambiguation out of
// range one wrapping ErrInvalidArgument. The result is in loc.
func Resolve(w Wall, loc *time.Location, d Disambiguation) (time.Time, error) {
	if loc == nil {
		return time.Time{}, &ArgError{Func: "Resolve", Arg: "loc", Err: errNilLocation}
	}
	if err := w.Validate(); err != nil {
		return time.Time{}, err
	}
	z, s := tableFor(loc), w.naive()
	if d < Compatible || d > Reject {
		return time.Time{}, &ArgError{Func: "Resolve", Arg: "d", Err: fmt.Errorf("%w: Disambiguation %d", errUnknownPolicy, int(d))}
	}
	k, n := z.near(s)
	if n == 0 {
		return time.Unix(s-int64(z.off[k]), int64(w.Nanosecond)).In(loc), nil
	}
	// The offsets behind Earlier (s-early) and Later (s-late).
	var kind Kind
	var early, late int64
	if n == 1 {
		b, a, tr := int64(z.off[k-1]), int64(z.off[k]), z.at[k]
		switch first, second := s-b < tr, s-a >= tr; {
		case first && second:
			kind, early, late = Fold, b, a
		case first:
			kind, early, late = Unique, b, b
		case second:
			kind, early, late = Unique, a, a
		default:
			kind, early, late = Gap, a, b
		}
	} else {
		sv := solve(z, s)
		switch kind = sv.kind; kind {
		case Fold:
			early, late = int64(sv.off[sv.first]), int64(sv.off[sv.last])
		case Gap:
			early, late = int64(sv.off[sv.gap]), int64(sv.off[sv.gap-1])
		default:
			early = int64(sv.off[sv.first])
			late = early
		}
	}
	o := early // Unique; Fold: Compatible and Earlier; Gap: Earlier
	switch {
	case kind != Unique && d == Reject:
		return time.Time{}, &ResolveError{Zone: loc.String(), Wall: w, Resolution: lookupNaive(z, s, w.Nanosecond)}
	case d == Later, d == Compatible && kind == Gap:
		o = late
	}
	return time.Unix(s-o, int64(w.Nanosecond)).In(loc), nil
}

// ResolveError is returned by Resolve with Reject for a wall time in a fold
// or a gap. It wraps ErrAmbiguous (Fold) or ErrNonexistent (Gap).
type ResolveError struct {
	Zone       string
	Wall       Wall
	Resolution Resolution
}

func (e *ResolveError) Error() string {
	r, tr := e.Resolution, e.Resolution.Transition
	verb, how := "is ambiguous", "repeated"
	if r.Kind == Gap {
		verb, how = "does not exist", "skipped"
	}
	return fmt.Sprintf("dstsafe: wall time %s %s in %s: %s by the %s -> %s transition at %s; candidates %s and %s",
		e.Wall, verb, e.Zone, how, formatOffset(tr.OffsetBefore), formatOffset(tr.OffsetAfter),
		tr.At.UTC().Format("2006-01-02T15:04:05Z"),
		r.Earlier.Format(time.RFC3339Nano), r.Later.Format(time.RFC3339Nano))
}

// Unwrap returns ErrAmbiguous or ErrNonexistent.
func (e *ResolveError) Unwrap() error {
	if e.Resolution.Kind == Gap {
		return ErrNonexistent
	}
	return ErrAmbiguous
}

// formatOffset renders seconds east of UTC as "-06:00", or "-05:50:36" for
// the Local Mean Times that are not whole minutes.
func formatOffset(sec int) string {
	sign := byte('+')
	if sec < 0 {
		sign = '-'
		sec = -sec
	}
	b := []byte{sign}
	b = append2(b, sec/3600)
	b = append(b, ':')
	b = append2(b, sec/60%60)
	if sec%60 != 0 {
		b = append(b, ':')
		b = append2(b, sec%60)
	}
	return string(b)
}

// Transitions returns the changes of UTC offset of loc at instants in
// [from, to), in order. Changes of abbreviation or DST flag alone move no
// wall reading and are not listed. It panics if loc is nil.
func Transitions(loc *time.Location, from, to time.Time) []Transition {
	if loc == nil {
		panic("dstsafe: Transitions: nil *time.Location")
	}
	lo, hi := from.Unix(), to.Unix()
	if from.Nanosecond() > 0 {
		lo++
	}
	if to.Nanosecond() > 0 {
		hi++
	}
	if lo >= hi {
		return nil
	}
	z := tableFor(loc)
	at, off := z.at, z.off
	if hi >= z.hi {
		at, off, _ = scanZone(loc, lo, hi)
	}
	var out []Transition
	for j := periodIndex(at, lo); j < len(at); j++ {
		if at[j] < lo || j == 0 {
			continue
		}
		if at[j] >= hi {
			break
		}
		out = append(out, transitionAt(loc, at[j], int64(off[j-1]), int64(off[j])))
	}
	return out
}

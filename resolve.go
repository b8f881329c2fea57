package dstsafe

import (
	"errors"
	"fmt"
	"time"
)

// Wall is a wall-clock reading: what a clock on the wall of zone shows,
// with no offset attached. A Wall is not an instant: in a fold (clocks set
// back) one Wall is read twice, in a gap (clocks set forward) it is never read.
// [Lookup] and [Resolve] turn a Wall into instants explicitly.
//
// Fields are not normalised: a Wall with Month 13, Day 30 in February, Hour 24
// or a negative Nanosecond is invalid, and [Resolve] rejects it with an error
// wrapping [ErrInvalidWall] instead of rolling it over as time.Date does.
type Wall struct {
	Year       int
	Month      time.Month
	Day        int
	Hour       int
	Minute     int
	Second     int
	Nanosecond int
}

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
//     Transition is zero, Start and End are zero Walls, OffsetBefore ==
//     OffsetAfter == the offset in force.
//   - Fold: Earlier is the first reading (at OffsetBefore, before
//     Transition), Later the second (at OffsetAfter, at or after Transition).
//     [Start, End) is the range of repeated wall readings.
//   - Gap: the wall time is skipped by the transition at instant Transition
//     from OffsetBefore to OffsetAfter. Earlier = wall - OffsetAfter lies
//     before Transition, Later = wall - OffsetBefore at or after it, so Later
//     is the wall time pushed forward by the length of the gap (02:30 -> 03:30).
//     [Start, End) is the range of skipped wall readings.
//
// Kinds are decided by the change of UTC offset alone, never by the
// is-DST flag, so Europe/Dublin's negative DST and offset changes that are
// not DST at all (Europe/Volgograd 2018 and 2020) are classified like any
// other. Earlier and Later are in the zone that was looked up.
type Resolution struct {
	Kind           Kind
	Earlier, Later time.Time
	// Transition is the instant the offset changed (zero for Unique).
	Transition time.Time
	// OffsetBefore and OffsetAfter are the offsets, in seconds east of UTC as
	// time.Time.Zone reports them, in force before and after Transition.
	OffsetBefore, OffsetAfter int
	// Start and End bound the repeated (Fold) or skipped (Gap) wall readings:
	// every reading w with Start <= w < End is affected.
	Start, End Wall
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
	// ErrInvalidWall is wrapped by the error Resolve returns for a Wall whose
	// fields are out of range (month 13, February 30, hour 24, ...).
	ErrInvalidWall = errors.New("dstsafe: invalid wall time")
)

// Lookup reports how the wall reading w resolves in loc: the instants that
// read as w and, near a transition, the transition itself.
// It panics if loc is nil. For an invalid Wall it returns the zero
// Resolution (Kind 0).
func Lookup(w Wall, loc *time.Location) Resolution {
	panic("TODO: core implementation lands in the next commit")
}

// Resolve returns the instant at which the wall reading w happens in loc,
// choosing between two readings or none as d says.
func Resolve(w Wall, loc *time.Location, d Disambiguation) (time.Time, error) {
	panic("TODO: core implementation lands in the next commit")
}

// WallOf returns the wall reading of t in t's location.
func WallOf(t time.Time) Wall {
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

// Transitions returns the offset changes of loc at instants in [from, to),
// in order. Changes of abbreviation or DST flag alone are not transitions.
func Transitions(loc *time.Location, from, to time.Time) []Transition {
	panic("TODO: core implementation lands in the next commit")
}

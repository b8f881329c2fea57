package dstsafe

import (
	"bytes"
	"fmt"
	"strings"
)

// The enums' text forms, for flags (flag.TextVar), JSON, YAML and config
// files. Every enum marshals to the name its String method prints and
// unmarshals from that name in any case. A value out of range does not
// marshal and an unknown name does not unmarshal: both fail with an error
// wrapping ErrInvalidArgument that names the type and the value. Kind and
// State have no named zero value; their zero marshals to "" and "" unmarshals
// to it, so a zero Record or Occurrence round-trips.

// MarshalText returns p.String(): "auto", "first", "last" or "both".
func (p FoldPolicy) MarshalText() ([]byte, error) {
	return marshalEnum(p, foldAuto, FoldBoth, "fold policy")
}

// UnmarshalText sets p from "auto", "first", "last" or "both" (any case).
func (p *FoldPolicy) UnmarshalText(text []byte) error {
	return unmarshalEnum(p, text, foldAuto, FoldBoth, "fold policy")
}

// MarshalText returns p.String(): "auto", "shift", "at-transition" or "skip".
func (p GapPolicy) MarshalText() ([]byte, error) {
	return marshalEnum(p, gapAuto, GapSkip, "gap policy")
}

// UnmarshalText sets p from "auto", "shift", "at-transition" or "skip"
// (any case); "attransition" and "at_transition" are accepted too.
func (p *GapPolicy) UnmarshalText(text []byte) error {
	norm := bytes.ReplaceAll(text, []byte("_"), []byte("-"))
	if bytes.EqualFold(norm, []byte("attransition")) {
		norm = []byte(GapAtTransition.String())
	}
	if err := unmarshalEnum(p, norm, gapAuto, GapSkip, "gap policy"); err != nil {
		return unknownName("gap policy", text, gapAuto, GapSkip)
	}
	return nil
}

// MarshalText returns k.String(): "wall" or "date".
func (k PeriodKey) MarshalText() ([]byte, error) { return marshalEnum(k, ByWall, ByDate, "period key") }

// UnmarshalText sets k from "wall" or "date" (any case).
func (k *PeriodKey) UnmarshalText(text []byte) error {
	return unmarshalEnum(k, text, ByWall, ByDate, "period key")
}

// MarshalText returns d.String(): "compatible", "earlier", "later" or
// "reject".
func (d Disambiguation) MarshalText() ([]byte, error) {
	return marshalEnum(d, Compatible, Reject, "disambiguation")
}

// UnmarshalText sets d from "compatible", "earlier", "later" or "reject"
// (any case).
func (d *Disambiguation) UnmarshalText(text []byte) error {
	return unmarshalEnum(d, text, Compatible, Reject, "disambiguation")
}

// MarshalText returns k.String(): "unique", "fold" or "gap", and "" for the
// zero Kind.
func (k Kind) MarshalText() ([]byte, error) { return marshalUnnamedZero(k, Unique, Gap, "kind") }

// UnmarshalText sets k from "unique", "fold" or "gap" (any case), and to
// the zero Kind from "".
func (k *Kind) UnmarshalText(text []byte) error {
	return unmarshalUnnamedZero(k, text, Unique, Gap, "kind")
}

// MarshalText returns s.String(): "running", "succeeded", "failed",
// "abandoned" or "skipped", and "" for the zero State.
func (s State) MarshalText() ([]byte, error) {
	return marshalUnnamedZero(s, StateRunning, StateSkipped, "state")
}

// UnmarshalText sets s from "running", "succeeded", "failed", "abandoned"
// or "skipped" (any case), and to the zero State from "".
func (s *State) UnmarshalText(text []byte) error {
	return unmarshalUnnamedZero(s, text, StateRunning, StateSkipped, "state")
}

// MarshalText returns o.String(): "skip", "queue", "allow",
// "cancel-running" or "buffer-one".
func (o Overlap) MarshalText() ([]byte, error) {
	return marshalEnum(o, OverlapSkip, OverlapBufferOne, "overlap")
}

// UnmarshalText sets o from "skip", "queue", "allow", "cancel-running" or
// "buffer-one" (any case).
func (o *Overlap) UnmarshalText(text []byte) error {
	return unmarshalEnum(o, text, OverlapSkip, OverlapBufferOne, "overlap")
}

// enum is what the text methods need of an enum: a small integer whose
// valid values lo..hi each have a String name.
type enum interface {
	~uint8 | ~int
	String() string
}

func marshalEnum[T enum](v, lo, hi T, what string) ([]byte, error) {
	if v < lo || v > hi {
		return nil, &enumError{what: what, value: fmt.Sprint(int(v)), want: names(lo, hi)}
	}
	return []byte(v.String()), nil
}

func unmarshalEnum[T enum](p *T, text []byte, lo, hi T, what string) error {
	for v := lo; v <= hi; v++ {
		if bytes.EqualFold(text, []byte(v.String())) {
			*p = v
			return nil
		}
	}
	return unknownName(what, text, lo, hi)
}

// marshalUnnamedZero is marshalEnum for an enum whose zero value has no
// name: it marshals to "".
func marshalUnnamedZero[T enum](v, lo, hi T, what string) ([]byte, error) {
	if v == 0 {
		return []byte{}, nil
	}
	return marshalEnum(v, lo, hi, what)
}

// unmarshalUnnamedZero is unmarshalEnum for an enum whose zero value has
// no name: "" unmarshals to it.
func unmarshalUnnamedZero[T enum](p *T, text []byte, lo, hi T, what string) error {
	if len(text) == 0 {
		*p = 0
		return nil
	}
	return unmarshalEnum(p, text, lo, hi, what)
}

func unknownName[T enum](what string, text []byte, lo, hi T) error {
	return &enumError{what: what, value: fmt.Sprintf("%q", text), want: names(lo, hi)}
}

func names[T enum](lo, hi T) []string {
	var s []string
	for v := lo; v <= hi; v++ {
		s = append(s, v.String())
	}
	return s
}

// enumError is an enum value out of range or a name no value has. It wraps
// ErrInvalidArgument.
type enumError struct {
	what  string   // "fold policy"
	value string   // the quoted text, or the integer out of range
	want  []string // the valid names
}

func (e *enumError) Error() string {
	n := len(e.want)
	return "dstsafe: unknown " + e.what + " " + e.value + ": want " + strings.Join(e.want[:n-1], ", ") + " or " + e.want[n-1]
}

func (e *enumError) Unwrap() error { return errUnknownPolicy }

package dstsafe

import (
	"errors"
	"fmt"
	"strings"
)

// prefix starts every error message of the package, once.
const prefix = "dstsafe: "

// onePrefix returns an error message with "dstsafe: " once, at its start:
// the prefixes of the dstsafe errors it quotes (after a ": ") are dropped,
// so `dstsafe: job "": dstsafe: invalid job name: dstsafe: invalid ledger
// key: ...` reads `dstsafe: job "": invalid job name: invalid ledger key:
// ...`. Wrapping types (JobError, ArgError) and errorf pass their
// messages through it; the wrapped errors are unchanged (errors.Is/As).
func onePrefix(s string) string {
	head := ""
	if rest, ok := strings.CutPrefix(s, prefix); ok {
		head, s = prefix, rest
	}
	return head + strings.ReplaceAll(s, ": "+prefix, ": ")
}

// errorf is fmt.Errorf for a message that quotes dstsafe errors: it says
// "dstsafe: " once (onePrefix) and unwraps to what fmt.Errorf's %w verbs
// wrap.
func errorf(format string, args ...any) error {
	err := fmt.Errorf(format, args...)
	return &prefixedError{msg: onePrefix(err.Error()), err: err}
}

type prefixedError struct {
	msg string
	err error // from fmt.Errorf
}

func (e *prefixedError) Error() string { return e.msg }

// Unwrap returns what the fmt.Errorf error wraps (one error or several).
func (e *prefixedError) Unwrap() []error {
	if u, ok := e.err.(interface{ Unwrap() []error }); ok {
		return u.Unwrap()
	}
	if w := errors.Unwrap(e.err); w != nil {
		return []error{w}
	}
	return nil
}
